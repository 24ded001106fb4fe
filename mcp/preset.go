package mcp

import (
	"fmt"
	"slices"
	"strings"
)

// Presets choose which tools a server lists, across toolsets, for clients
// that put every listed tool into the model's context: the fewer tools, the
// less context they cost on every turn. A preset is applied on top of
// Options.Toolsets and Options.ReadOnly: a tool is listed only if all three
// let it through. BENCHMARKS.md has each preset's measured size, and
// TestToolBudget keeps it under its budget.
const (
	// PresetFull lists every tool (the default).
	PresetFull = "full"
	// PresetMinimal lists what an agent needs to read, find, edit, create
	// and take back: read_content, search_content, edit_content, the batch
	// tools that create and replace files, and undo.
	PresetMinimal = "minimal"
)

// Presets lists the preset names, smallest first.
var Presets = []string{PresetMinimal, PresetFull}

// PresetBudgets are the model-facing bytes each preset is held to: tool
// names, descriptions and input schemas as a client receives them, plus the
// server's instructions. The tests fail past them. Issue 59 raised them from
// 5,000 and 14,000: allow_read_only on every tool that writes existing
// files (a person's read-only file is refused without it) and one line of
// instructions naming it.
var PresetBudgets = map[string]int{PresetMinimal: 5150, PresetFull: 14500}

// presetTools are the tools of each preset; nil means every tool.
var presetTools = map[string][]string{
	PresetMinimal: {"read_content", "search_content", "edit_content", "file_create_new", "file_replace", "undo"},
	PresetFull:    nil,
}

// PresetTools returns the tools a preset lists before toolsets and
// read-only narrow it; nil for a preset of every tool.
func PresetTools(name string) []string { return slices.Clone(presetTools[name]) }

// CheckPreset returns an error naming the presets when name is not one
// ("" is the default, full).
func CheckPreset(name string) error {
	if _, ok := presetTools[name]; !ok && name != "" {
		return fmt.Errorf("unknown preset %q (choose from %s)", name, strings.Join(Presets, ", "))
	}
	return nil
}

// toolsetOn reports whether a toolset is enabled. The history toolset's
// resources follow it, whatever the preset: resources cost the model no
// context until a client reads them.
func (s *Server) toolsetOn(toolset string) bool {
	return s.opts.Toolsets == nil || slices.Contains(s.opts.Toolsets, toolset)
}

// enabled reports whether a tool of a toolset is listed under the server's
// toolsets and preset.
func (s *Server) enabled(toolset, tool string) bool {
	names := presetTools[s.opts.Preset]
	return s.toolsetOn(toolset) && (names == nil || slices.Contains(names, tool))
}
