package mcp

// SetLargefileMmapLimit lowers the size above which the large-file tools
// stream instead of mapping, so tests reach the streamed paths with small
// files. It returns a function that restores the limit.
func SetLargefileMmapLimit(n int64) func() {
	old := mmapLimit
	mmapLimit = n
	return func() { mmapLimit = old }
}
