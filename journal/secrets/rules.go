package secrets

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// RulesVersion names the gitleaks release whose default configuration
// (config/gitleaks.toml, MIT licensed: LICENSE.gitleaks) is embedded as it
// was published. To update the rules, replace gitleaks.toml with a newer
// release's and change this constant; TestRules_GitleaksExamples must pass.
const RulesVersion = "gitleaks v8.30.1"

// DetectorVersion names what finds secrets: the rules and the version of
// the heuristics (heuristic.go). Findings stored by another detector are
// not trusted (journal/audit scans again): a change to the rules or the
// heuristics must change it.
const DetectorVersion = RulesVersion + "; heuristics 1"

//go:embed gitleaks.toml
var gitleaksTOML []byte

// tomlConfig is the part of gitleaks' configuration format the default
// rule set uses.
type tomlConfig struct {
	Allowlist  tomlAllowlist   `toml:"allowlist"`
	Allowlists []tomlAllowlist `toml:"allowlists"`
	Rules      []struct {
		ID          string          `toml:"id"`
		Regex       string          `toml:"regex"`
		Path        string          `toml:"path"`
		SecretGroup int             `toml:"secretGroup"`
		Entropy     float64         `toml:"entropy"`
		Keywords    []string        `toml:"keywords"`
		Allowlists  []tomlAllowlist `toml:"allowlists"`
		SkipReport  bool            `toml:"skipReport"`
	} `toml:"rules"`
}

type tomlAllowlist struct {
	Condition   string   `toml:"condition"`
	RegexTarget string   `toml:"regexTarget"`
	Regexes     []string `toml:"regexes"`
	Paths       []string `toml:"paths"`
	StopWords   []string `toml:"stopwords"`
	Commits     []string `toml:"commits"`
}

// rule is one compiled gitleaks rule.
type rule struct {
	id string
	// src is the rule's regular expression ("" for a rule on paths
	// alone), compiled by regex on first use: compiling all 222 takes
	// ~38 ms, which every command that scans a few arguments (prove,
	// export) would pay, while a text meets the few whose keywords it
	// holds.
	src         string
	reOnce      sync.Once
	re          *regexp.Regexp
	path        *regexp.Regexp // the file's path must match, when set
	secretGroup int
	entropy     float64
	keywords    []int // indexes into ruleSet.keywords; empty: the rule always runs
	span        int   // spanLines of re (set with it)
	allow       []*allowlist
	generic     bool // a generic rule: a specific rule's finding over the same bytes wins
	// heur is a heuristic rule's detector (heuristic.go): it has no
	// expression, and finds secrets on one line (span 0)
	heur heuristic
}

// allowlist is a compiled gitleaks allowlist: with condition OR (the
// default) any of its checks allows a finding; with AND, all it has.
type allowlist struct {
	and       bool
	target    string // "", "match" or "line": what regexes are matched against
	regexes   *regexp.Regexp
	paths     *regexp.Regexp
	stopwords []string // lower case
	commits   bool     // the allowlist names commits, which the journal has none of
}

// ruleSet is the compiled default configuration.
type ruleSet struct {
	rules    []*rule
	global   []*allowlist
	keywords []string // lower case, distinct
	// keywordIndex maps a keyword to its index in keywords
	keywordIndex map[string]int
	trie         *trie
}

var (
	loadOnce sync.Once
	loaded   *ruleSet
	loadErr  error
)

// rules returns the compiled rule set, compiling it on first use (the
// embedded file is fixed, so an error is a build defect and panics).
func rules() *ruleSet {
	loadOnce.Do(func() {
		if loaded, loadErr = compile(gitleaksTOML); loadErr == nil {
			loaded.addHeuristics()
		}
	})
	if loadErr != nil {
		panic(fmt.Sprintf("secrets: embedded %s rules: %v", RulesVersion, loadErr))
	}
	return loaded
}

// compile parses and compiles a gitleaks configuration.
func compile(b []byte) (*ruleSet, error) {
	var c tomlConfig
	if _, err := toml.Decode(string(b), &c); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	rs := &ruleSet{}
	for _, a := range append([]tomlAllowlist{c.Allowlist}, c.Allowlists...) {
		al, err := compileAllowlist(a)
		if err != nil {
			return nil, fmt.Errorf("global allowlist: %w", err)
		}
		if al != nil {
			rs.global = append(rs.global, al)
		}
	}
	for _, tr := range c.Rules {
		if tr.SkipReport {
			continue
		}
		r := &rule{id: tr.ID, secretGroup: tr.SecretGroup, entropy: tr.Entropy, generic: strings.Contains(tr.ID, "generic")}
		var err error
		if tr.Regex != "" {
			r.src = tr.Regex
		}
		if tr.Path != "" {
			if r.path, err = regexp.Compile(tr.Path); err != nil {
				return nil, fmt.Errorf("rule %s: path: %w", tr.ID, err)
			}
		}
		for _, k := range tr.Keywords {
			r.keywords = append(r.keywords, rs.keyword(strings.ToLower(k)))
		}
		for _, a := range tr.Allowlists {
			al, err := compileAllowlist(a)
			if err != nil {
				return nil, fmt.Errorf("rule %s: %w", tr.ID, err)
			}
			if al != nil {
				r.allow = append(r.allow, al)
			}
		}
		rs.rules = append(rs.rules, r)
	}
	rs.trie = newTrie(rs.keywords)
	return rs, nil
}

// addHeuristics adds the second layer's rules (heuristic.go) after
// gitleaks' own, their keywords to the set's.
func (rs *ruleSet) addHeuristics() {
	for _, h := range heuristicRules() {
		r := &rule{id: h.id, heur: h.find}
		for _, k := range h.keywords {
			r.keywords = append(r.keywords, rs.keyword(k))
		}
		rs.rules = append(rs.rules, r)
	}
	rs.trie = newTrie(rs.keywords)
}

// keyword returns the index of the lower-case keyword k in the set's
// keywords, adding it if it is new.
func (rs *ruleSet) keyword(k string) int {
	if i, ok := rs.keywordIndex[k]; ok {
		return i
	}
	if rs.keywordIndex == nil {
		rs.keywordIndex = map[string]int{}
	}
	rs.keywordIndex[k] = len(rs.keywords)
	rs.keywords = append(rs.keywords, k)
	return len(rs.keywords) - 1
}

// regex returns the rule's compiled regular expression (TestRules_AllCompile
// compiles every embedded one: a failure here is a build defect).
func (r *rule) regex() *regexp.Regexp {
	r.compile()
	return r.re
}

// lines returns how many lines a match of the rule can span (spanLines).
func (r *rule) lines() int {
	if r.heur != nil {
		return 0
	}
	r.compile()
	return r.span
}

func (r *rule) compile() {
	r.reOnce.Do(func() { r.re, r.span = regexp.MustCompile(r.src), spanLines(r.src) })
}

// compileAllowlist compiles one allowlist (nil if it checks nothing).
func compileAllowlist(a tomlAllowlist) (*allowlist, error) {
	if len(a.Regexes) == 0 && len(a.Paths) == 0 && len(a.StopWords) == 0 && len(a.Commits) == 0 {
		return nil, nil
	}
	al := &allowlist{and: strings.EqualFold(a.Condition, "AND"), target: a.RegexTarget, commits: len(a.Commits) > 0}
	var err error
	if len(a.Regexes) > 0 {
		if al.regexes, err = joinOr(a.Regexes); err != nil {
			return nil, err
		}
	}
	if len(a.Paths) > 0 {
		if al.paths, err = joinOr(a.Paths); err != nil {
			return nil, err
		}
	}
	for _, w := range a.StopWords {
		al.stopwords = append(al.stopwords, strings.ToLower(w))
	}
	return al, nil
}

// joinOr compiles regular expressions into one alternation, as gitleaks does.
func joinOr(res []string) (*regexp.Regexp, error) {
	parts := make([]string, len(res))
	for i, r := range res {
		parts[i] = "(?:" + r + ")"
	}
	return regexp.Compile(strings.Join(parts, "|"))
}

// pathAllowed reports whether the allowlist allows a whole file by its path
// alone (gitleaks' checkCommitOrPathAllowed): with OR, a path that matches;
// with AND, only an allowlist of paths alone (regexes and stop words are
// checked per finding). An allowlist of commits never applies: the journal
// has none, so an AND list naming commits never allows.
func (a *allowlist) pathAllowed(path string) bool {
	if path == "" {
		return false
	}
	match := a.paths != nil && a.paths.MatchString(path)
	if !a.and {
		return match
	}
	if a.regexes != nil || len(a.stopwords) > 0 || a.commits || a.paths == nil {
		return false
	}
	return match
}

// findingAllowed reports whether the allowlist allows a finding (gitleaks'
// checkFindingAllowed): secret is the secret, match the whole match, line
// the lines the match is on.
func (a *allowlist) findingAllowed(path, secret, match, line string) bool {
	target := secret
	switch a.target {
	case "match":
		target = match
	case "line":
		target = line
	}
	regex := a.regexes != nil && target != "" && a.regexes.MatchString(target)
	stop := a.hasStopword(secret)
	if !a.and {
		return regex || stop
	}
	if a.commits {
		return false
	}
	ok := a.paths != nil || a.regexes != nil || len(a.stopwords) > 0
	if a.paths != nil {
		ok = ok && path != "" && a.paths.MatchString(path)
	}
	if a.regexes != nil {
		ok = ok && regex
	}
	if len(a.stopwords) > 0 {
		ok = ok && stop
	}
	return ok
}

// hasStopword reports whether s contains one of the stop words, in any case.
func (a *allowlist) hasStopword(s string) bool {
	if len(a.stopwords) == 0 || s == "" {
		return false
	}
	s = strings.ToLower(s)
	for _, w := range a.stopwords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
