package service

import "fmt"

// MaxUsers bounds the cache.
const MaxUsers = 10

// UserService finds users.
type UserService struct {
	name string
}

// Finder finds.
type Finder interface {
	Find(id string) error
}

// findById looks a user up.
func (s *UserService) findById(id string) error {
	return fmt.Errorf("no %s", id)
}

func helper() {}
