require_relative "service"
puts helper
