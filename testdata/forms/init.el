;;; init.el --- demo

(defun foo ()
  "Foo."
  1)

(defun bar ()
  2)
