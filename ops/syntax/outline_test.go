package syntax_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/journalfs/journal/ops/syntax"
)

func fixture(t *testing.T, rel string) (string, []byte) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "syntax", filepath.FromSlash(rel))
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, src
}

func outline(t *testing.T, rel string) *syntax.FileOutline {
	t.Helper()
	name, src := fixture(t, rel)
	o, err := syntax.Outline(name, src)
	if err != nil {
		t.Fatalf("Outline(%s): %v", rel, err)
	}
	if !o.Supported {
		t.Fatalf("Outline(%s): language %q not supported", rel, o.Language)
	}
	return o
}

// want is "kind path start-end" or "kind path start-end full=N".
type want struct {
	path      string
	kind      syntax.Kind
	start     int
	end       int
	fullStart int // 0: same as start
}

func TestOutline_Languages(t *testing.T) {
	tests := []struct {
		file string
		lang string
		want []want
	}{
		{"go/service.go", "go", []want{
			{"MaxUsers", syntax.KindConst, 6, 6, 5},
			{"UserService", syntax.KindStruct, 9, 11, 8},
			{"Finder.Find", syntax.KindMethod, 15, 15, 0},
			{"UserService.findById", syntax.KindMethod, 19, 21, 18},
			{"helper", syntax.KindFunction, 23, 23, 0},
		}},
		{"python/service.py", "python", []want{
			{"MAX_USERS", syntax.KindConst, 3, 3, 0},
			{"UserService", syntax.KindClass, 6, 20, 0},
			{"UserService.limit", syntax.KindVar, 9, 9, 0},
			{"UserService.find_by_id", syntax.KindMethod, 14, 17, 11}, // decorators + comment
			{"UserService.find_by_id.inner", syntax.KindFunction, 15, 16, 0},
			{"UserService.save", syntax.KindMethod, 19, 20, 0},
		}},
		{"typescript/service.ts", "typescript", []want{
			{"UserService", syntax.KindClass, 5, 14, 3}, // doc comment + @Injectable()
			{"UserService.cache", syntax.KindField, 6, 6, 0},
			{"UserService.findById@9", syntax.KindMethod, 9, 11, 8}, // overloaded by a signature on line 13
			{"Repo.get", syntax.KindMethod, 17, 17, 0},
			{"Id", syntax.KindType, 20, 20, 0},
			{"handler", syntax.KindFunction, 22, 22, 0},
			{"Color", syntax.KindEnum, 26, 26, 0},
		}},
		{"tsx/app.tsx", "tsx", []want{{"App", syntax.KindFunction, 1, 3, 0}}},
		{"javascript/app.js", "javascript", []want{
			{"MAX", syntax.KindConst, 2, 2, 0},
			{"Greeter.constructor", syntax.KindMethod, 5, 7, 0},
			{"Greeter.greet", syntax.KindMethod, 9, 11, 0},
			{"arrow", syntax.KindFunction, 18, 18, 0},
		}},
		{"rust/lib.rs", "rust", []want{
			{"Point", syntax.KindStruct, 5, 7, 3}, // /// doc + #[derive]
			{"Point.new", syntax.KindMethod, 11, 13, 10},
			{"Shape.area", syntax.KindMethod, 17, 17, 0},
			{"tests.it_works", syntax.KindFunction, 23, 23, 22},
		}},
		{"java/UserService.java", "java", []want{
			{"UserService", syntax.KindClass, 7, 21, 3}, // javadoc + @Service
			{"UserService.count", syntax.KindField, 8, 8, 0},
			{"Repo.save", syntax.KindMethod, 24, 24, 0},
		}},
		{"c/main.c", "c", []want{
			{"MAX", syntax.KindConst, 3, 3, 0},
			{"point", syntax.KindStruct, 6, 8, 5},
			{"pair_t", syntax.KindType, 10, 12, 0},
			{"add", syntax.KindFunction, 14, 16, 0},
		}},
		{"cpp/shape.cpp", "cpp", []want{
			{"geo.Shape.area@7", syntax.KindMethod, 7, 7, 0},
			{"geo.Shape.area@11", syntax.KindMethod, 11, 13, 0},
			{"geo.Shape.name", syntax.KindMethod, 8, 8, 0},
			{"twice", syntax.KindFunction, 17, 18, 0},
		}},
		{"csharp/Service.cs", "csharp", []want{
			{"Demo.UserService", syntax.KindClass, 7, 16, 5},
			{"Demo.UserService.Count", syntax.KindProperty, 9, 9, 0},
			{"Demo.UserService.FindById", syntax.KindMethod, 12, 15, 11},
		}},
		{"ruby/service.rb", "ruby", []want{
			{"Accounts.UserService", syntax.KindClass, 3, 11, 2},
			{"Accounts.UserService.find_by_id", syntax.KindMethod, 4, 6, 0},
			{"helper", syntax.KindFunction, 14, 15, 0},
		}},
		{"php/service.php", "php", []want{{"UserService.findById", syntax.KindMethod, 7, 10, 6}}},
		{"kotlin/Service.kt", "kotlin", []want{{"UserService.findById", syntax.KindMethod, 5, 5, 0}, {"Registry.all", syntax.KindMethod, 11, 11, 0}}},
		{"scala/Service.scala", "scala", []want{{"UserService.findById", syntax.KindMethod, 4, 4, 0}, {"Repo", syntax.KindTrait, 12, 14, 0}}},
		{"swift/Service.swift", "swift", []want{{"UserService.findById", syntax.KindMethod, 7, 9, 0}, {"Point", syntax.KindStruct, 12, 14, 0}}},
		{"lua/mod.lua", "lua", []want{{"M.find_by_id", syntax.KindMethod, 4, 6, 3}, {"helper", syntax.KindFunction, 11, 12, 0}}},
		{"bash/deploy.sh", "bash", []want{{"build", syntax.KindFunction, 3, 5, 2}, {"deploy", syntax.KindFunction, 7, 9, 0}}},
		{"elixir/service.ex", "elixir", []want{{"Demo.UserService.find_by_id", syntax.KindFunction, 4, 6, 0}, {"Demo.UserService.helper", syntax.KindFunction, 8, 8, 0}}},
		{"ocaml/main.ml", "ocaml", []want{{"add", syntax.KindFunction, 3, 3, 0}, {"Util.twice", syntax.KindFunction, 6, 6, 0}}},
		{"elm/Main.elm", "elm", []want{{"update", syntax.KindFunction, 8, 9, 7}}},
		{"protobuf/user.proto", "protobuf", []want{{"User.Address.city", syntax.KindField, 8, 8, 0}, {"UserService.FindById", syntax.KindMethod, 15, 15, 0}}},
		{"sql/schema.sql", "sql", []want{{"users", syntax.KindTable, 1, 4, 0}}},
		{"toml/Cargo.toml", "toml", []want{{"package", syntax.KindTable, 1, 3, 0}, {"dependencies.serde", syntax.KindKey, 6, 6, 0}}},
		{"yaml/ci.yaml", "yaml", []want{{"jobs.build.runs-on", syntax.KindKey, 7, 7, 0}}},
		{"hcl/main.tf", "hcl", []want{{"resource aws_instance web", syntax.KindBlock, 5, 10, 0}}},
		{"css/site.css", "css", []want{{".btn, .btn-primary", syntax.KindRule, 5, 7, 0}}},
		{"cue/schema.cue", "cue", []want{{"#User.age", syntax.KindKey, 5, 5, 0}}},
		{"groovy/build.groovy", "groovy", []want{{"Greeter.greet", syntax.KindMethod, 2, 4, 0}}},
		{"html/index.html", "html", []want{{"html.body.div#main", syntax.KindElement, 7, 9, 0}}},
		{"svelte/App.svelte", "svelte", []want{{"main#app", syntax.KindElement, 5, 7, 0}}},
		{"dockerfile/Dockerfile", "dockerfile", []want{{"build", syntax.KindStage, 1, 1, 0}}},
		{"json/config.json", "json", []want{{"server", syntax.KindKey, 3, 6, 0}, {"server.tls.enabled", syntax.KindKey, 5, 5, 0}, {"users.[0].id", syntax.KindKey, 8, 8, 0}}},
		{"markdown/README.md", "markdown", []want{
			{"Title", syntax.KindHeading, 1, 16, 0},
			{"Title.Install", syntax.KindHeading, 5, 9, 0}, // "# not a heading" is in a code fence
			{"Title.Sub", syntax.KindHeading, 13, 16, 0},
			{"Appendix", syntax.KindHeading, 18, 18, 0},
		}},
		{"clojure/core.clj", "clojure", []want{
			{"demo.core", syntax.KindModule, 1, 2, 0},
			{"limit", syntax.KindVar, 5, 5, 4},
			{"greet", syntax.KindFunction, 7, 10, 0},
			{"helper", syntax.KindFunction, 12, 12, 0},
			{"comment.scratch", syntax.KindVar, 23, 23, 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			o := outline(t, tt.file)
			if o.Language != tt.lang {
				t.Errorf("language = %q, want %q", o.Language, tt.lang)
			}
			for _, w := range tt.want {
				s, err := syntax.Resolve(o, w.path)
				if err != nil {
					t.Errorf("Resolve(%q): %v", w.path, err)
					continue
				}
				full := w.fullStart
				if full == 0 {
					full = w.start
				}
				if s.Kind != w.kind || s.Range.StartLine != w.start || s.Range.EndLine != w.end || s.Full.StartLine != full {
					t.Errorf("%s = %s %d-%d full %d, want %s %d-%d full %d", w.path,
						s.Kind, s.Range.StartLine, s.Range.EndLine, s.Full.StartLine, w.kind, w.start, w.end, full)
				}
			}
		})
	}
}

func TestOutline_Children(t *testing.T) {
	o := outline(t, "python/service.py")
	cls, err := syntax.Resolve(o, "UserService")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cls.Children {
		names = append(names, c.Name+":"+string(c.Kind))
	}
	if got, want := strings.Join(names, " "), "limit:var find_by_id:method save:method"; got != want {
		t.Errorf("children = %q, want %q", got, want)
	}
}

func TestOutline_Bytes(t *testing.T) {
	name, src := fixture(t, "python/service.py")
	o, _ := syntax.Outline(name, src)
	s, _ := syntax.Resolve(o, "UserService.find_by_id")
	if got := string(src[s.Range.StartByte:s.Range.EndByte]); !strings.HasPrefix(got, "def find_by_id") || !strings.HasSuffix(got, "return inner()") {
		t.Errorf("range text = %q", got)
	}
	if got := string(src[s.Full.StartByte:s.Full.EndByte]); !strings.HasPrefix(got, "# cached lookup\n    @functools.lru_cache") {
		t.Errorf("full text = %q", got)
	}
}

func TestOutline_CRLF(t *testing.T) {
	name, src := fixture(t, "javascript/crlf.js")
	if !strings.Contains(string(src), "\r\n") {
		t.Fatal("fixture lost its CRLF line endings")
	}
	o, err := syntax.Outline(name, src)
	if err != nil {
		t.Fatal(err)
	}
	s, err := syntax.Resolve(o, "A.foo")
	if err != nil {
		t.Fatal(err)
	}
	if s.Range.StartLine != 2 || s.Range.EndLine != 4 || o.Lines != 5 {
		t.Errorf("A.foo %d-%d, lines %d; want 2-4, 5", s.Range.StartLine, s.Range.EndLine, o.Lines)
	}
	if got := string(src[s.Range.StartByte:s.Range.EndByte]); got != "foo() {\r\n    return 1;\r\n  }" {
		t.Errorf("range text = %q", got)
	}
}

func TestOutline_Unknown(t *testing.T) {
	o, err := syntax.Outline("notes.xyz", []byte("hello\nworld\n"))
	if err != nil {
		t.Fatal(err)
	}
	if o.Supported || o.Language != "" || len(o.Symbols) != 0 || o.Lines != 2 {
		t.Errorf("got %+v, want unsupported with 2 lines", o)
	}
}

func TestEnclosing(t *testing.T) {
	o := outline(t, "python/service.py")
	tests := []struct {
		line int
		want string
	}{
		{16, "UserService.find_by_id.inner"},
		{12, "UserService.find_by_id"}, // decorator line
		{9, "UserService.limit"},
		{7, "UserService"},
		{1, ""},
	}
	for _, tt := range tests {
		got := ""
		if s := syntax.Enclosing(o, tt.line); s != nil {
			got = s.Path
		}
		if got != tt.want {
			t.Errorf("Enclosing(%d) = %q, want %q", tt.line, got, tt.want)
		}
	}
}
