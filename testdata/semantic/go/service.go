package service

import "fmt"

// UserService finds users.
type UserService struct {
	name string
}

// findById looks a user up.
func (s *UserService) findById(id string) error {
	return fmt.Errorf("no %s", id)
}

func init() {}

func init() {}

func helper() int { return 1 }
