type point = { x : int }

let add a b = a + b

module Util = struct
  let twice x = x * 2
end
