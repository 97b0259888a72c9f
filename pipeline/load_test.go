package pipeline

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/load")

func loadTestRun(context.Context, *registry.Job) (map[string]artifact.Artifact, error) {
	return nil, fmt.Errorf("test stages do not run")
}

// loadTestCheck is the source type's Check hook: names come from a small
// catalogue, and a directed graph takes no flag.
func loadTestCheck(p registry.Values) []registry.Problem {
	var out []registry.Problem
	if name := p.String("name"); strings.HasPrefix(name, "cat:") {
		known := []string{"cat:cora", "cat:citeseer"}
		if !slices.Contains(known, name) {
			detail := fmt.Sprintf("%q is not in the catalogue", name)
			if s := registry.DidYouMean(name, known); s != "" {
				detail += fmt.Sprintf("; did you mean %q?", s)
			}
			out = append(out, registry.Problemf("name", "Unknown dataset", "%s", detail))
		}
	}
	if p.String("mode") == "directed" && p.Bool("flag") {
		out = append(out, registry.Problemf("flag", "Conflicting parameters", "A directed source takes no flag."))
	}
	if p.Int("n") == 13 {
		out = append(out, registry.Warningf("", "Unlucky size", "n = 13 is allowed but unlucky."))
	}
	return out
}

// loadTestRegistry is a registry of test-only stage types covering every
// parameter type, an enum, a required parameter, and single, many and
// optional input slots.
func loadTestRegistry(t testing.TB) *registry.Registry {
	t.Helper()
	r := registry.New()
	for _, typ := range []*registry.Type{
		{
			Name: "source", Version: "1", Doc: "Makes a graph.", Run: loadTestRun,
			Params: []registry.Param{
				{Name: "name", Type: registry.String, Required: true, Doc: "dataset name"},
				{Name: "n", Type: registry.Int, Default: 10, Doc: "number of nodes"},
				{Name: "root", Type: registry.Path, Default: "", Doc: "data root"},
				{Name: "mode", Type: registry.String, Default: "plain", Enum: []string{"plain", "weighted", "directed"}},
				{Name: "rate", Type: registry.Float, Default: 0.5},
				{Name: "tags", Type: registry.Strings, Default: []string{}},
				{Name: "sizes", Type: registry.Ints, Range: registry.AtLeast(0), Default: []int{}},
				{Name: "weights", Type: registry.Floats, Range: registry.Between(0, 1), Default: []float64{}},
				{Name: "flag", Type: registry.Bool, Default: false},
			},
			Check:   loadTestCheck,
			Outputs: []registry.Output{{Name: "graph", Kind: schema.KindGraph}, {Name: "meta", Kind: schema.KindValue}},
		},
		{
			Name: "train", Version: "2", Doc: "Trains a model.", Run: loadTestRun,
			Params: []registry.Param{
				{Name: "seed", Type: registry.Int, Default: 0},
				{Name: "epochs", Type: registry.Int, Range: registry.AtLeast(1), Default: 100},
				{Name: "lr", Type: registry.Float, Range: registry.Above(0).AtMost(10), Default: 0.01},
			},
			Inputs:  []registry.Input{{Name: "data", Kind: schema.KindGraph, Doc: "the graph"}},
			Outputs: []registry.Output{{Name: "model", Kind: schema.KindModel}, {Name: "metrics", Kind: schema.KindMetrics}},
		},
		{
			Name: "collect", Version: "1", Doc: "Collects runs.", Run: loadTestRun,
			Params: []registry.Param{{Name: "title", Type: registry.String, Default: "results"}},
			Inputs: []registry.Input{
				{Name: "runs", Kind: artifact.KindAny, Many: true},
				{Name: "baseline", Kind: schema.KindMetrics, Optional: true},
			},
			Outputs: []registry.Output{{Name: "table", Kind: schema.KindTable}},
		},
		{
			Name: "pass", Version: "1", Doc: "Passes a value on.", Run: loadTestRun,
			Inputs:  []registry.Input{{Name: "in", Kind: artifact.KindAny, Optional: true}},
			Outputs: []registry.Output{{Name: "out", Kind: schema.KindValue}},
		},
	} {
		if err := r.Register(typ); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// golden compares got with testdata/load/NAME, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "load", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./pipeline -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s\nwant:\n%s", path, got, want)
	}
}

func renderDiags(t *testing.T, diags hcl.Diagnostics) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteDiagnostics(&b, diags, 0, false); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// dumpPipeline renders a loaded pipeline for golden files, with the
// pipeline's directory replaced by <dir>.
func dumpPipeline(p *Pipeline) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "pipeline %q: %q\n", p.Name, p.Description)
	for _, inst := range p.Instances {
		fmt.Fprintf(&b, "\n%s (%s v%s, block %s, key %q)\n", inst.Address, inst.Type.Name, inst.Type.Version, inst.Block, inst.EachKey)
		if r := inst.Resources; r != (Resources{}) {
			fmt.Fprintf(&b, "  resources: cpus=%d mem=%dMiB time=%s gpus=%d\n", r.CPUs, r.MemMB, r.Time, r.GPUs)
		}
		for _, name := range sortedNames(inst.Params) {
			v := fmt.Sprintf("%#v", inst.Params[name])
			if s, ok := inst.Params[name].(string); ok && filepath.IsAbs(s) {
				rel, err := filepath.Rel(p.Dir, s)
				if err != nil {
					panic(err)
				}
				v = fmt.Sprintf("%q", "<dir>/"+filepath.ToSlash(rel))
			}
			fmt.Fprintf(&b, "  %s = %s\n", name, v)
		}
		for _, slot := range sortedNames(inst.Inputs) {
			var refs []string
			for _, r := range inst.Inputs[slot] {
				refs = append(refs, r.Producer+"."+r.Output)
			}
			fmt.Fprintf(&b, "  %s <- %s\n", slot, strings.Join(refs, ", "))
		}
	}
	return []byte(b.String())
}

func fixtures(t *testing.T, prefix string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "load", prefix+"*.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".vars.hcl") {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// TestLoadDiagnostics loads every testdata/load/bad_*.hcl and compares the
// rendered diagnostics (with snippets) to bad_*.golden.
func TestLoadDiagnostics(t *testing.T) {
	reg := loadTestRegistry(t)
	files := fixtures(t, "bad_")
	if len(files) < 15 {
		t.Fatalf("only %d negative fixtures", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".hcl")
		t.Run(name, func(t *testing.T) {
			p, diags := Load(reg, file, LoadOptions{})
			if p != nil || !diags.HasErrors() {
				t.Fatalf("Load accepted %s", file)
			}
			for _, d := range diags {
				if d.Subject == nil {
					t.Errorf("diagnostic without a source range: %s: %s", d.Summary, d.Detail)
				}
			}
			golden(t, name+".golden", renderDiags(t, diags))
		})
	}
}

func TestLoadDiagnosticsJSON(t *testing.T) {
	_, diags := Load(loadTestRegistry(t), filepath.Join("testdata", "load", "bad_unknown_param.hcl"), LoadOptions{})
	var b bytes.Buffer
	if err := WriteDiagnosticsJSON(&b, diags); err != nil {
		t.Fatal(err)
	}
	golden(t, "bad_unknown_param.json", b.Bytes())
}

// TestLoadValid loads the ok_*.hcl fixtures and compares the expanded,
// resolved pipeline and its DOT and Mermaid renderings to golden files.
func TestLoadValid(t *testing.T) {
	reg := loadTestRegistry(t)
	for _, file := range fixtures(t, "ok_") {
		name := strings.TrimSuffix(filepath.Base(file), ".hcl")
		t.Run(name, func(t *testing.T) {
			opts := LoadOptions{}
			if name == "ok_vars" {
				opts.VarFiles = []string{filepath.Join("testdata", "load", "ok_vars.vars.hcl")}
				opts.Vars = map[string]string{"seeds": "[3, 10, 4]", "name": "1e3"}
			}
			p, diags := Load(reg, file, opts)
			if diags.HasErrors() {
				t.Fatalf("%s", renderDiags(t, diags))
			}
			golden(t, name+".golden", dumpPipeline(p))
			golden(t, name+".dot", []byte(p.DOT()))
			golden(t, name+".mmd", []byte(p.Mermaid()))
		})
	}
}
