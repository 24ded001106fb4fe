//go:build !linux && !darwin

package main

import (
	"errors"
	"net"
)

// canShare: this platform has no peer credentials to check, so every serve
// serves alone.
const canShare = false

func lockFile(string) (func(), error) { return nil, errors.New("not supported") }

func samePeer(net.Conn) bool { return false }
