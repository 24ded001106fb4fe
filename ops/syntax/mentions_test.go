package syntax_test

import (
	"reflect"
	"testing"

	"github.com/journalfs/journal/ops/syntax"
)

func TestMentions(t *testing.T) {
	tests := []struct {
		name, src, ident string
		want             []int
	}{
		{"a.go", "package a\n\n// UserService is old\nvar s = UserService{}\nvar t = \"UserService\"\nfunc f() { s.UserService() }\nvar u = UserServices{}\n", "UserService", []int{4, 6}},
		{"a.py", "from svc import find_by_id\n# find_by_id\nx = find_by_id(1)\ny = 'find_by_id'\n", "find_by_id", []int{1, 3}},
		{"a.ts", "import { UserService } from './s';\nconst x: UserService = new UserService();\n", "UserService", []int{1, 2}},
		{"a.clj", "(ns a (:require [b :as b]))\n(b/greet 1)\n;; greet\n(greet \"greet\")\n", "greet", []int{2, 4}},
		{"a.rb", "x = UserService.new\n", "UserService", []int{1}},
		{"a.php", "<?php\n$x = new UserService();\nhelper();\n", "helper", []int{3}},
	}
	for _, tt := range tests {
		got, ok, err := syntax.Mentions(tt.name, []byte(tt.src), tt.ident)
		if err != nil || !ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Mentions(%s, %s) = %v %v %v, want %v", tt.name, tt.ident, got, ok, err, tt.want)
		}
	}
	if _, ok, _ := syntax.Mentions("notes.txt", []byte("UserService"), "UserService"); ok {
		t.Error("a text file has no grammar")
	}
}
