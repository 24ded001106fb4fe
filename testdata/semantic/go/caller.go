package service

// findById is mentioned in this comment only.
func use(s *UserService) int {
	_ = s.findById("x")
	return helper()
}
