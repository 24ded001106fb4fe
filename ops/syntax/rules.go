package syntax

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// langRules maps node types of one grammar to symbol rules, and names the
// node types that merely wrap a declaration.
type langRules struct {
	symbols map[string]rule
	wrap    map[string]wrapKind
}

// rules is the per-language symbol table. Clojure, JSON and Markdown have
// their own outliners.
var rules = map[string]langRules{}

func init() {
	js := langRules{
		symbols: map[string]rule{
			"function_declaration":           simple(KindFunction),
			"generator_function_declaration": simple(KindFunction),
			"function_signature":             simple(KindFunction),
			"class_declaration":              simple(KindClass),
			"abstract_class_declaration":     simple(KindClass),
			"method_definition":              simple(KindMethod),
			"method_signature":               simple(KindMethod),
			"abstract_method_signature":      simple(KindMethod),
			"public_field_definition":        simple(KindField),
			"field_definition":               jsField,
			"interface_declaration":          simple(KindInterface),
			"type_alias_declaration":         simple(KindType),
			"enum_declaration":               simple(KindEnum),
			"internal_module":                simple(KindModule),
			"module":                         simple(KindModule),
			"variable_declarator":            jsVariable,
		},
		wrap: map[string]wrapKind{"export_statement": wrapRange, "lexical_declaration": wrapRange,
			"variable_declaration": wrapRange, "ambient_declaration": wrapRange, "expression_statement": wrapRange},
	}
	rules["javascript"], rules["typescript"], rules["tsx"] = js, js, js

	rules["go"] = langRules{
		symbols: map[string]rule{
			"function_declaration": simple(KindFunction),
			"method_declaration":   goMethod,
			"type_spec":            goType,
			"type_alias":           simple(KindType),
			"const_spec":           simple(KindConst),
			"var_spec":             simple(KindVar),
			"field_declaration":    simple(KindField),
			"method_elem":          simple(KindMethod),
			"method_spec":          simple(KindMethod),
		},
		wrap: map[string]wrapKind{"type_declaration": wrapRange, "const_declaration": wrapRange, "var_declaration": wrapRange},
	}
	rules["python"] = langRules{
		symbols: map[string]rule{
			"function_definition": simple(KindFunction),
			"class_definition":    simple(KindClass),
			"assignment":          pyAssignment,
		},
		wrap: map[string]wrapKind{"decorated_definition": wrapFull, "expression_statement": wrapRange},
	}
	rules["rust"] = langRules{symbols: map[string]rule{
		"function_item":           simple(KindFunction),
		"function_signature_item": simple(KindFunction),
		"struct_item":             simple(KindStruct),
		"union_item":              simple(KindStruct),
		"enum_item":               simple(KindEnum),
		"trait_item":              simple(KindTrait),
		"impl_item":               rustImpl,
		"mod_item":                simple(KindModule),
		"const_item":              simple(KindConst),
		"static_item":             simple(KindVar),
		"type_item":               simple(KindType),
		"macro_definition":        simple(KindMacro),
		"field_declaration":       simple(KindField),
	}}
	rules["java"] = langRules{symbols: map[string]rule{
		"class_declaration":           simple(KindClass),
		"record_declaration":          simple(KindClass),
		"interface_declaration":       simple(KindInterface),
		"annotation_type_declaration": simple(KindInterface),
		"enum_declaration":            simple(KindEnum),
		"method_declaration":          simple(KindMethod),
		"constructor_declaration":     simple(KindMethod),
		"field_declaration":           simple(KindField),
	}}
	c := langRules{
		symbols: map[string]rule{
			"function_definition":  cFunction,
			"struct_specifier":     cTag(KindStruct),
			"union_specifier":      cTag(KindStruct),
			"enum_specifier":       cTag(KindEnum),
			"class_specifier":      cTag(KindClass),
			"type_definition":      simple(KindType),
			"alias_declaration":    simple(KindType),
			"preproc_def":          simple(KindConst),
			"preproc_function_def": simple(KindMacro),
			"namespace_definition": simple(KindModule),
			"field_declaration":    cField,
		},
		wrap: map[string]wrapKind{"template_declaration": wrapRange},
	}
	rules["c"], rules["cpp"] = c, c
	rules["csharp"] = langRules{symbols: map[string]rule{
		"class_declaration":                 simple(KindClass),
		"record_declaration":                simple(KindClass),
		"struct_declaration":                simple(KindStruct),
		"interface_declaration":             simple(KindInterface),
		"enum_declaration":                  simple(KindEnum),
		"method_declaration":                simple(KindMethod),
		"constructor_declaration":           simple(KindMethod),
		"property_declaration":              simple(KindProperty),
		"namespace_declaration":             simple(KindModule),
		"file_scoped_namespace_declaration": simple(KindModule),
	}}
	rules["ruby"] = langRules{symbols: map[string]rule{
		"class":            simple(KindClass),
		"module":           simple(KindModule),
		"method":           simple(KindFunction),
		"singleton_method": simple(KindFunction),
	}}
	rules["php"] = langRules{symbols: map[string]rule{
		"class_declaration":     simple(KindClass),
		"interface_declaration": simple(KindInterface),
		"trait_declaration":     simple(KindTrait),
		"enum_declaration":      simple(KindEnum),
		"function_definition":   simple(KindFunction),
		"method_declaration":    simple(KindMethod),
		"namespace_definition":  simple(KindModule),
	}}
	rules["kotlin"] = langRules{symbols: map[string]rule{
		"class_declaration":    kotlinClass,
		"object_declaration":   simple(KindClass),
		"function_declaration": simple(KindFunction),
		"property_declaration": kotlinProperty,
	}}
	rules["scala"] = langRules{symbols: map[string]rule{
		"class_definition":     simple(KindClass),
		"object_definition":    simple(KindClass),
		"trait_definition":     simple(KindTrait),
		"enum_definition":      simple(KindEnum),
		"function_definition":  simple(KindFunction),
		"function_declaration": simple(KindFunction),
		"val_definition":       named(KindVar, "pattern"),
		"var_definition":       named(KindVar, "pattern"),
		"type_definition":      simple(KindType),
	}}
	rules["swift"] = langRules{symbols: map[string]rule{
		"class_declaration":             swiftClass,
		"protocol_declaration":          simple(KindInterface),
		"function_declaration":          simple(KindFunction),
		"protocol_function_declaration": simple(KindMethod),
		"init_declaration":              func(*sitter.Node, []byte) (symInfo, bool) { return symInfo{kind: KindMethod, name: "init"}, true },
		"property_declaration":          swiftProperty,
		"typealias_declaration":         simple(KindType),
	}}
	rules["lua"] = langRules{symbols: map[string]rule{
		"function_statement":   luaFunction,
		"function_declaration": luaFunction,
	}}
	rules["bash"] = langRules{symbols: map[string]rule{"function_definition": simple(KindFunction)}}
	rules["groovy"] = langRules{symbols: map[string]rule{
		"class_definition":    simple(KindClass),
		"function_definition": named(KindFunction, "function"),
	}}
	rules["elixir"] = langRules{symbols: map[string]rule{"call": elixirCall}}
	rules["ocaml"] = langRules{
		symbols: map[string]rule{
			"let_binding":    ocamlLet,
			"type_binding":   simple(KindType),
			"module_binding": simple(KindModule),
			"class_binding":  simple(KindClass),
		},
		wrap: map[string]wrapKind{"value_definition": wrapRange, "type_definition": wrapRange, "module_definition": wrapRange, "class_definition": wrapRange},
	}
	rules["elm"] = langRules{symbols: map[string]rule{
		"value_declaration": func(n *sitter.Node, src []byte) (symInfo, bool) {
			if left := childOfType(n, "function_declaration_left"); left != nil {
				return symInfo{kind: KindFunction, name: firstIdent(left, src)}, true
			}
			return symInfo{}, false
		},
		"type_declaration":       simple(KindType),
		"type_alias_declaration": simple(KindType),
	}}
	rules["protobuf"] = langRules{symbols: map[string]rule{
		"message": simple(KindStruct),
		"enum":    simple(KindEnum),
		"service": simple(KindInterface),
		"rpc":     simple(KindMethod),
		"field":   simple(KindField),
	}}
	sqlObject := func(k Kind) rule {
		return func(n *sitter.Node, src []byte) (symInfo, bool) {
			if ref := childOfType(n, "object_reference", "identifier"); ref != nil {
				return symInfo{kind: k, name: ref.Content(src)}, true
			}
			return symInfo{}, false
		}
	}
	rules["sql"] = langRules{
		symbols: map[string]rule{
			"create_table":    sqlObject(KindTable),
			"create_view":     sqlObject(KindTable),
			"create_function": sqlObject(KindFunction),
			"create_type":     sqlObject(KindType),
			"create_index":    sqlObject(KindKey),
		},
		wrap: map[string]wrapKind{"statement": wrapRange},
	}
	keyOf := func(k Kind) rule {
		return func(n *sitter.Node, src []byte) (symInfo, bool) {
			if key := childOfType(n, "bare_key", "dotted_key", "quoted_key"); key != nil {
				return symInfo{kind: k, name: unquote(key.Content(src))}, true
			}
			return symInfo{}, false
		}
	}
	rules["toml"] = langRules{symbols: map[string]rule{
		"table": keyOf(KindTable), "table_array_element": keyOf(KindTable), "pair": keyOf(KindKey),
	}}
	yamlKey := func(n *sitter.Node, src []byte) (symInfo, bool) {
		return symInfo{kind: KindKey, name: unquote(fieldText(n, "key", src))}, true
	}
	rules["yaml"] = langRules{symbols: map[string]rule{"block_mapping_pair": yamlKey, "flow_pair": yamlKey}}
	rules["hcl"] = langRules{symbols: map[string]rule{"block": hclBlock, "attribute": simple(KindKey)}}
	rules["cue"] = langRules{symbols: map[string]rule{
		"field": func(n *sitter.Node, src []byte) (symInfo, bool) {
			if l := childOfType(n, "label"); l != nil {
				return symInfo{kind: KindKey, name: unquote(strings.TrimSuffix(l.Content(src), "?"))}, true
			}
			return symInfo{}, false
		},
	}}
	cssRule := func(n *sitter.Node, src []byte) (symInfo, bool) {
		return symInfo{kind: KindRule, name: header(n, src)}, true
	}
	rules["css"] = langRules{symbols: map[string]rule{
		"rule_set": cssRule, "media_statement": cssRule, "keyframes_statement": cssRule,
		"supports_statement": cssRule, "at_rule": cssRule,
	}}
	markup := langRules{symbols: map[string]rule{
		"element": htmlElement, "script_element": htmlElement, "style_element": htmlElement,
	}}
	rules["html"], rules["svelte"] = markup, markup
	rules["dockerfile"] = langRules{symbols: map[string]rule{
		"from_instruction": func(n *sitter.Node, src []byte) (symInfo, bool) {
			if as := n.ChildByFieldName("as"); as != nil {
				return symInfo{kind: KindStage, name: as.Content(src)}, true
			}
			if img := childOfType(n, "image_spec"); img != nil {
				return symInfo{kind: KindStage, name: img.Content(src)}, true
			}
			return symInfo{}, false
		},
	}}
}
