package merge

// Merge3NoShortcut exposes the full diff3 path to the black-box tests, so the
// identity properties exercise the diff rather than the early returns.
var Merge3NoShortcut = merge3
