package x

func f() {
	return 1 +
}
