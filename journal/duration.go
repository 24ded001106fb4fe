package journal

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads a retention as people write it: days (30d), weeks
// (2w) or years (7y, of 365 days), whole or not, or a Go duration (36h).
// It is the one reading of `gc --keep` and `remote add --retain`.
func ParseDuration(s string) (time.Duration, error) {
	for suf, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour, "y": 365 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suf); ok {
			f, err := strconv.ParseFloat(n, 64)
			if err != nil || f < 0 {
				break
			}
			return time.Duration(f * float64(unit)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("duration %q: want e.g. 36h, 30d, 2w or 7y", s)
	}
	return d, nil
}
