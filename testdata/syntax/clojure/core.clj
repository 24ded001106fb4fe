(ns demo.core
  (:require [clojure.string :as str]))

;; The limit.
(def limit 3)

(defn greet
  "Says hi."
  [name]
  (str "hi " name))

(defn- ^:private helper [x] x)

(defmacro unless [c & body] `(if ~c nil (do ~@body)))

(defprotocol Shape
  (area [s]))

(defrecord Circle [r])

(comment
  (greet "x")
  (def scratch 42)
  (defn try-it [] (helper 1)))
