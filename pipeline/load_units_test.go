package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// loadSrc writes src to a fresh directory and loads it.
func loadSrc(t testing.TB, src string, opts LoadOptions) (*Pipeline, hcl.Diagnostics) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "p.hcl")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(loadTestRegistry(t), file, opts)
}

func mustLoad(t *testing.T, src string, opts LoadOptions) *Pipeline {
	t.Helper()
	p, diags := loadSrc(t, src, opts)
	if diags.HasErrors() {
		t.Fatalf("unexpected diagnostics:\n%s", diags.Error())
	}
	return p
}

func refsOf(in *Instance, slot string) []string {
	var out []string
	for _, r := range in.Inputs[slot] {
		out = append(out, r.Producer+"."+r.Output)
	}
	return out
}

func TestLoadExpansion(t *testing.T) {
	cases := []struct {
		name     string
		expand   string // the for_each/matrix line(s) of stage "source" "s"
		param    string // name = ... using each.*
		wantKeys []string
		wantName []string // the name parameter per instance, in expansion order
	}{
		{"list of numbers keeps list order", `for_each = [10, 2, 0.5]`, `name = format("n%s", each.key)`,
			[]string{"10", "2", "0.5"}, []string{"n10", "n2", "n0.5"}},
		{"list of strings", `for_each = ["b", "a"]`, `name = each.value`,
			[]string{"b", "a"}, []string{"b", "a"}},
		{"set is sorted", `for_each = toset(["b", "a", "c"])`, `name = each.value`,
			[]string{"a", "b", "c"}, []string{"a", "b", "c"}},
		{"map by key", `for_each = { y = "why", x = "ex" }`, `name = "${each.key}:${each.value}"`,
			[]string{"x", "y"}, []string{"x:ex", "y:why"}},
		{"bools", `for_each = [true, false]`, `name = tostring(each.value)`,
			[]string{"true", "false"}, []string{"true", "false"}},
		{"matrix cross product, first dimension slowest", "matrix = {\n seed = [1, 0]\n dataset = [\"cora\", \"pubmed\"]\n}",
			`name = "${each.value.dataset}/${each.value.seed}"`,
			[]string{"dataset=cora,seed=1", "dataset=cora,seed=0", "dataset=pubmed,seed=1", "dataset=pubmed,seed=0"},
			[]string{"cora/1", "cora/0", "pubmed/1", "pubmed/0"}},
		{"empty for_each gives no instances", `for_each = []`, `name = "x"`, nil, nil},
		{"matrix with an empty dimension gives no instances", "matrix = {\n seed = [0, 1]\n dataset = []\n}", `name = "x"`, nil, nil},
		{"matrix switched off by a condition", "matrix = {\n seed = [0, 1]\n dataset = 1 > 2 ? [\"cora\"] : []\n}", `name = each.value.dataset`, nil, nil},
		{"matrix switched on by a condition", "matrix = {\n seed = [0]\n dataset = 1 < 2 ? [\"cora\"] : []\n}", `name = each.value.dataset`,
			[]string{"dataset=cora,seed=0"}, []string{"cora"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := fmt.Sprintf("stage \"source\" \"s\" {\n%s\n%s\n}\n", c.expand, c.param)
			if len(c.wantKeys) > 0 {
				src += "stage \"collect\" \"c\" {\n  runs = stage.source.s\n}\n"
			}
			p := mustLoad(t, src, LoadOptions{})
			var gotRefs, wantRefs, gotNames []string
			for _, k := range c.wantKeys {
				addr := fmt.Sprintf("source.s[%q]", k)
				inst, ok := p.ByAddress[addr]
				if !ok {
					t.Fatalf("no instance %s; have %v", addr, keysOf(p.ByAddress))
				}
				if inst.EachKey != k || inst.Block != "source.s" {
					t.Errorf("%s: EachKey %q Block %q", addr, inst.EachKey, inst.Block)
				}
				gotNames = append(gotNames, inst.Params.String("name"))
				wantRefs = append(wantRefs, addr+".graph")
			}
			if !reflect.DeepEqual(gotNames, c.wantName) {
				t.Errorf("names %q, want %q", gotNames, c.wantName)
			}
			if len(c.wantKeys) > 0 {
				gotRefs = refsOf(p.ByAddress["collect.c"], "runs")
				if !reflect.DeepEqual(gotRefs, wantRefs) {
					t.Errorf("a whole for_each stage gives its instances in expansion order:\n got %q\nwant %q", gotRefs, wantRefs)
				}
			}
			if want := len(c.wantKeys) + min(1, len(c.wantKeys)); len(p.Instances) != want {
				t.Errorf("%d instances, want %d", len(p.Instances), want)
			}
		})
	}
}

func keysOf[V any](m map[string]V) []string { return sortedNames(m) }

func TestLoadReferences(t *testing.T) {
	src := `
stage "source" "g" {
  for_each = toset(["a", "b"])
  name     = each.key
}
stage "train" "t" {
  for_each = toset(["a", "b"])
  data     = stage.source.g[each.key]
  seed     = strlen(each.key)
}
stage "collect" "explicit" {
  runs     = [stage.train.t["b"].metrics, stage.source.g["a"].meta, stage.train.t["a"]]
  baseline = stage.train.t["a"].metrics
}
stage "collect" "map" {
  runs = { z = stage.train.t["a"], a = stage.train.t["b"] }
}
stage "collect" "splat" {
  runs = values(stage.train.t)[*].metrics
}
stage "pass" "none" {
}
`
	p := mustLoad(t, src, LoadOptions{})
	tests := []struct {
		addr, slot string
		want       []string
	}{
		{`train.t["a"]`, "data", []string{`source.g["a"].graph`}},
		{`train.t["b"]`, "data", []string{`source.g["b"].graph`}},
		{"collect.explicit", "runs", []string{`train.t["b"].metrics`, `source.g["a"].meta`, `train.t["a"].model`}},
		{"collect.explicit", "baseline", []string{`train.t["a"].metrics`}},
		// objects of references are ordered by declaration/expansion, not by their keys
		{"collect.map", "runs", []string{`train.t["a"].model`, `train.t["b"].model`}},
		{"collect.splat", "runs", []string{`train.t["a"].metrics`, `train.t["b"].metrics`}},
		{"pass.none", "in", nil},
	}
	for _, tc := range tests {
		if got := refsOf(p.ByAddress[tc.addr], tc.slot); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s.%s = %q, want %q", tc.addr, tc.slot, got, tc.want)
		}
	}
	// Producers come before consumers; ties are broken by address.
	pos := map[string]int{}
	for i, inst := range p.Instances {
		pos[inst.Address] = i
	}
	for _, inst := range p.Instances {
		for _, refs := range inst.Inputs {
			for _, r := range refs {
				if pos[r.Producer] >= pos[inst.Address] {
					t.Errorf("%s is ordered after its consumer %s", r.Producer, inst.Address)
				}
			}
		}
	}
	if got := p.Instances[0].Address; got != "pass.none" {
		t.Errorf("first instance %s, want pass.none (no inputs, smallest address)", got)
	}
	if p.ByAddress[`train.t["b"]`].Params.Int("seed") != 1 {
		t.Error("seed = strlen(each.key) not evaluated per instance")
	}
}

func TestLoadCycleNamesEveryStage(t *testing.T) {
	src := `
stage "pass" "a" {
  in = stage.pass.d
}
stage "pass" "b" {
  in = stage.pass.a
}
stage "pass" "c" {
  in = stage.pass.b
}
stage "pass" "d" {
  in = stage.pass.c
}
stage "pass" "free" {
}
`
	p, diags := loadSrc(t, src, LoadOptions{})
	if p != nil || len(diags) != 1 {
		t.Fatalf("want exactly one cycle diagnostic, got %d: %s", len(diags), diags.Error())
	}
	d := diags[0]
	if d.Summary != "Dependency cycle" || d.Subject == nil || d.Subject.Start.Line != 2 {
		t.Fatalf("diagnostic %+v", d)
	}
	for i, name := range []string{"a", "b", "c", "d"} {
		want := fmt.Sprintf("pass.%s (declared at %s:%d,1-", name, filepath.Base(d.Subject.Filename), 2+3*i)
		if !strings.Contains(strings.ReplaceAll(d.Detail, filepath.Dir(d.Subject.Filename)+"/", ""), want) {
			t.Errorf("cycle detail lacks %q:\n%s", want, d.Detail)
		}
	}
	if strings.Contains(d.Detail, "free") {
		t.Errorf("stage outside the cycle named: %s", d.Detail)
	}
}

func TestLoadVariables(t *testing.T) {
	src := `
variable "seeds" {
  type    = list(number)
  default = [0]
}
variable "name" {
  type    = string
  default = "cora"
}
variable "any" {
  default = "text"
}
variable "flag" {
  type    = bool
  default = false
}
stage "source" "s" {
  for_each = var.seeds
  name     = "${var.name}-${var.any}"
  flag     = var.flag
}
`
	varFile := filepath.Join(t.TempDir(), "v.hcl")
	if err := os.WriteFile(varFile, []byte("name = \"from-file\"\nseeds = [4]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		opts      LoadOptions
		wantNames []string // name param per instance in order
		wantErr   string
	}{
		{"defaults", LoadOptions{}, []string{"cora-text"}, ""},
		{"list expression", LoadOptions{Vars: map[string]string{"seeds": "[1, 2]"}}, []string{"cora-text", "cora-text"}, ""},
		{"string var takes the text literally", LoadOptions{Vars: map[string]string{"name": "[1]"}}, []string{"[1]-text"}, ""},
		{"untyped var: expression", LoadOptions{Vars: map[string]string{"any": "1 + 2"}}, []string{"cora-3"}, ""},
		{"untyped var: not an expression, so a string", LoadOptions{Vars: map[string]string{"any": "cora citeseer"}}, []string{"cora-cora citeseer"}, ""},
		{"bool from text", LoadOptions{Vars: map[string]string{"flag": "true"}}, []string{"cora-text"}, ""},
		{"var file", LoadOptions{VarFiles: []string{varFile}}, []string{"from-file-text"}, ""},
		{"-var overrides var file", LoadOptions{VarFiles: []string{varFile}, Vars: map[string]string{"name": "flag"}}, []string{"flag-text"}, ""},
		{"unknown -var", LoadOptions{Vars: map[string]string{"sedes": "[1]"}}, nil, `Did you mean "seeds"?`},
		{"wrong type", LoadOptions{Vars: map[string]string{"seeds": `["x"]`}}, nil, `is not a list(number)`},
		{"bool wrong", LoadOptions{Vars: map[string]string{"flag": "maybe"}}, nil, `variable "flag" is not a bool`},
		{"missing var file", LoadOptions{VarFiles: []string{filepath.Join(t.TempDir(), "none.hcl")}}, nil, "could not be read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, diags := loadSrc(t, src, c.opts)
			if c.wantErr != "" {
				if p != nil || !strings.Contains(diags.Error(), c.wantErr) {
					t.Fatalf("want an error containing %q, got %v", c.wantErr, diags.Error())
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			var names []string
			for _, inst := range p.Instances {
				names = append(names, inst.Params.String("name"))
			}
			if !reflect.DeepEqual(names, c.wantNames) {
				t.Errorf("names %q, want %q", names, c.wantNames)
			}
			if c.name == "bool from text" && !p.Instances[0].Params.Bool("flag") {
				t.Error("flag not set from -var flag=true")
			}
		})
	}
}

func TestLoadParamConversion(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "abs")
	src := fmt.Sprintf(`
stage "source" "s" {
  name    = 42
  n       = "12"
  rate    = 1
  flag    = "true"
  sizes   = ["1", 2]
  weights = [1, "0.25"]
  tags    = [1, true]
  root    = %q
}
stage "source" "rel" {
  name = "x"
  root = "sub/../data"
}
stage "source" "nulls" {
  name = "x"
  n    = null
}
`, abs)
	p := mustLoad(t, src, LoadOptions{})
	s := p.ByAddress["source.s"].Params
	want := map[string]any{
		"name": "42", "n": 12, "rate": 1.0, "flag": true, "sizes": []int{1, 2},
		"weights": []float64{1, 0.25}, "tags": []string{"1", "true"}, "root": abs, "mode": "plain",
	}
	for k, v := range want {
		if !reflect.DeepEqual(s[k], v) {
			t.Errorf("%s = %#v, want %#v", k, s[k], v)
		}
	}
	if got, want := p.ByAddress["source.rel"].Params.String("root"), filepath.Join(p.Dir, "data"); got != want {
		t.Errorf("relative path resolved to %q, want %q", got, want)
	}
	if got := p.ByAddress["source.nulls"].Params.Int("n"); got != 10 {
		t.Errorf("n = null should take the default 10, got %d", got)
	}
	if len(p.ByAddress["source.s"].Params) != 9 {
		t.Errorf("every declared parameter must be filled in: %v", p.ByAddress["source.s"].Params)
	}
}

func TestLoadListsNotShared(t *testing.T) {
	reg := loadTestRegistry(t)
	src := `
pipeline "p" {
  defaults "source" {
    tags = ["a", "b"]
  }
}
stage "source" "x" {
  for_each = toset(["1", "2"])
  name     = "x"
}
`
	p, diags := LoadSource(reg, filepath.Join(t.TempDir(), "p.hcl"), []byte(src), LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	one, two := p.ByAddress[`source.x["1"]`].Params, p.ByAddress[`source.x["2"]`].Params
	one.Strings("tags")[0] = "changed"
	if two.Strings("tags")[0] != "a" {
		t.Error("instances share the slice of a pipeline default")
	}
	p2, _ := LoadSource(reg, filepath.Join(t.TempDir(), "q.hcl"), []byte("stage \"source\" \"y\" {\n  name = \"y\"\n}\n"), LoadOptions{})
	if p2.Instances[0].Params.Ints("sizes") == nil {
		t.Fatal("an empty list default became nil")
	}
}

func TestParseResources(t *testing.T) {
	mems := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4G", 4096, true}, {"512M", 512, true}, {"2048", 2048, true}, {"1.5GB", 1536, true},
		{"1T", 1 << 20, true}, {"100K", 1, true}, {"4gib", 4096, true}, {"0", 0, false},
		{"lots", 0, false}, {"-1G", 0, false}, {"4X", 0, false},
	}
	for _, m := range mems {
		got, err := parseMem(m.in)
		if (err == nil) != m.ok || got != m.want {
			t.Errorf("parseMem(%q) = %d, %v; want %d ok=%v", m.in, got, err, m.want, m.ok)
		}
	}
	times := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1h", time.Hour, true}, {"90m", 90 * time.Minute, true}, {"2d", 48 * time.Hour, true},
		{"1d12h", 36 * time.Hour, true}, {"0s", 0, false}, {"forever", 0, false}, {"-1h", 0, false},
	}
	for _, tc := range times {
		got, err := parseTime(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseTime(%q) = %v, %v; want %v ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestFileFunctionSandbox(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	for path, body := range map[string]string{outside: "secret", filepath.Join(dir, "in.txt"): "inside"} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin.txt"), []byte{0xff, 0xfe}, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ rel, want, err string }{
		{"in.txt", "inside", ""},
		{"./sub/../in.txt", "inside", ""}, // cleaned lexically
		{"missing.txt", "", "no such file"},
		{"link.txt", "", "leaves the pipeline's directory"},
		{"../x", "", "leaves the pipeline's directory"},
		{outside, "", "absolute paths are not allowed"},
		{"bin.txt", "", "not valid UTF-8"},
		{".", "", "not a regular file"},
	}
	for _, c := range cases {
		b, err := readSandboxed(dir, c.rel)
		if c.err == "" {
			if err != nil || string(b) != c.want {
				t.Errorf("file(%q) = %q, %v; want %q", c.rel, b, err, c.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("file(%q): error %v, want one containing %q", c.rel, err, c.err)
		}
	}
}

func TestLoadDeterministic(t *testing.T) {
	reg := loadTestRegistry(t)
	file := filepath.Join("testdata", "load", "ok_sweep.hcl")
	var first string
	for i := 0; i < 5; i++ {
		p, diags := Load(reg, file, LoadOptions{})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		got := string(dumpPipeline(p)) + p.DOT() + p.Mermaid()
		if i == 0 {
			first = got
		} else if got != first {
			t.Fatal("two loads of the same file differ")
		}
	}
}

func TestLoadSourceMatchesLoad(t *testing.T) {
	reg := loadTestRegistry(t)
	file := filepath.Join("testdata", "load", "ok_sweep.hcl")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	a, d1 := Load(reg, file, LoadOptions{})
	b, d2 := LoadSource(reg, file, src, LoadOptions{})
	if d1.HasErrors() || d2.HasErrors() {
		t.Fatal(d1.Error(), d2.Error())
	}
	if string(dumpPipeline(a)) != string(dumpPipeline(b)) {
		t.Error("LoadSource and Load disagree")
	}
}

// bigPipeline is 1 source, an n-way for_each fan-out and 1 sink.
func bigPipeline(n int) string {
	return fmt.Sprintf(`
variable "seeds" {
  default = range(%d)
}
stage "source" "data" {
  name = "cora"
}
stage "train" "fan" {
  for_each = var.seeds
  data     = stage.source.data
  seed     = each.value
  epochs   = 10 + each.value %% 7
  lr       = 0.01
}
stage "collect" "all" {
  runs = stage.train.fan
}
`, n)
}

func TestLoadFanOut(t *testing.T) {
	p := mustLoad(t, bigPipeline(500), LoadOptions{})
	if len(p.Instances) != 502 {
		t.Fatalf("%d instances, want 502", len(p.Instances))
	}
	if p.Instances[0].Address != "source.data" || p.Instances[501].Address != "collect.all" {
		t.Errorf("order: first %s, last %s", p.Instances[0].Address, p.Instances[501].Address)
	}
	runs := p.ByAddress["collect.all"].Inputs["runs"]
	if len(runs) != 500 || runs[0].Producer != `train.fan["0"]` || runs[499].Producer != `train.fan["499"]` {
		t.Errorf("fan-in: %d refs, first %v, last %v", len(runs), runs[0], runs[len(runs)-1])
	}
	if got := p.ByAddress[`train.fan["13"]`].Params.Int("epochs"); got != 16 {
		t.Errorf("epochs = %d, want 16", got)
	}
}

func BenchmarkLoad502(b *testing.B) {
	reg := loadTestRegistry(b)
	file := filepath.Join(b.TempDir(), "big.hcl")
	if err := os.WriteFile(file, []byte(bigPipeline(500)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if p, diags := Load(reg, file, LoadOptions{}); diags.HasErrors() || len(p.Instances) != 502 {
			b.Fatal(diags.Error())
		}
	}
}

// FuzzLoad feeds arbitrary sources to the loader: it must never panic, and
// it returns a pipeline exactly when there are no errors.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "load", "*.hcl"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(bigPipeline(3)))
	reg := loadTestRegistry(f)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src []byte) {
		p, diags := LoadSource(reg, filepath.Join(dir, "fuzz.hcl"), src, LoadOptions{})
		if (p == nil) != diags.HasErrors() {
			t.Fatalf("pipeline %v with errors=%v", p != nil, diags.HasErrors())
		}
		if p != nil {
			_ = p.DOT()
			_ = p.Mermaid()
			if len(p.Instances) != len(p.ByAddress) {
				t.Fatal("Instances and ByAddress disagree")
			}
		}
		var sb strings.Builder
		if err := WriteDiagnostics(&sb, diags, 80, false); err != nil {
			t.Fatal(err)
		}
	})
}

// A function of the stage registry is callable from a pipeline and gets
// the pipeline's directory; one named like a built-in is a diagnostic.
func TestLoadRegistryFunctions(t *testing.T) {
	reg := loadTestRegistry(t)
	var gotDir string
	dirFunc := func(dir string) function.Function {
		return function.New(&function.Spec{
			Params: []function.Parameter{{Name: "s", Type: cty.String}},
			Type:   function.StaticReturnType(cty.String),
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				gotDir = dir
				return cty.StringVal("from-" + args[0].AsString()), nil
			},
		})
	}
	if err := reg.AddFunction(registry.Function{Name: "where", Make: dirFunc}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "p.hcl")
	src := `stage "source" "a" { name = where("x") }`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, diags := Load(reg, file, LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if got := p.ByAddress["source.a"].Params.String("name"); got != "from-x" {
		t.Errorf("name = %q, want from-x", got)
	}
	if gotDir != filepath.Dir(file) {
		t.Errorf("the function got directory %q, want the pipeline's %q", gotDir, filepath.Dir(file))
	}
	if err := reg.AddFunction(registry.Function{Name: "file", Make: dirFunc}); err != nil {
		t.Fatal(err)
	}
	if _, diags := Load(reg, file, LoadOptions{}); !diags.HasErrors() || !strings.Contains(diags.Error(), "function file has the name of a built-in function") {
		t.Errorf("a registry function named file: diagnostics %v", diags)
	}
}
