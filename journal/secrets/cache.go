package secrets

import (
	"hash/maphash"
)

// Cache remembers what each rule found in each region of text it ran on, by
// the region's bytes: a rule's findings in a region (offsets and lines
// relative to the region) depend only on the rule, the file's path and the
// region's bytes — a region starts and ends at line boundaries and a
// finding's line lies inside it — so a cached result is the one the rule
// would give again, and Cache.ScanFile returns exactly what ScanFile does.
// An edit changes the few regions around it; the others are not run again.
// A Cache is not safe for concurrent use; it forgets everything past
// maxCached regions.
type Cache struct {
	seed maphash.Seed
	m    map[cacheKey][]Finding
}

// maxCached bounds the regions a Cache remembers (a few MiB).
const maxCached = 1 << 16

type cacheKey struct {
	rule int
	path string
	sum  uint64
	n    int
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{seed: maphash.MakeSeed(), m: map[cacheKey][]Finding{}} }

// find is r.find on the region rg of b, whose first line is line, through
// the cache.
func (c *Cache) find(ri int, r *rule, rs *ruleSet, path string, b []byte, rg [2]int, line int) []Finding {
	region := b[rg[0]:rg[1]]
	k := cacheKey{rule: ri, path: path, sum: maphash.Bytes(c.seed, region), n: len(region)}
	rel, ok := c.m[k]
	if !ok {
		abs := r.find(rs, path, b, rg[0], rg[1])
		rel = make([]Finding, len(abs))
		for i, f := range abs {
			f.Start, f.End, f.Line = f.Start-rg[0], f.End-rg[0], f.Line-line+1
			rel[i] = f
		}
		if len(c.m) >= maxCached {
			clear(c.m)
		}
		c.m[k] = rel
	}
	out := make([]Finding, len(rel))
	for i, f := range rel {
		f.Start, f.End, f.Line = f.Start+rg[0], f.End+rg[0], f.Line+line-1
		out[i] = f
	}
	return out
}
