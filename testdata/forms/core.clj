(ns demo.core
  (:require [clojure.string :as str]))

;; The limit.
(def limit 3)

(defn greet
  "Says hi."
  [name]
  (str "hi " name))

(defn old-function [x]
  (* x 2))

(comment
  (greet "x")
  (def scratch 42)
  (defn try-it [] (old-function 1)))
