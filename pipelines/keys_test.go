package pipelines_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/stages"
)

// keyCases are the -var combinations of table1.hcl and table2.hcl that the
// pipelines' headers, the docs, the tests and CI (.ci/reduced.sh) use.
var keyCases = []struct {
	file string
	vars []string // NAME=VALUE, as -var takes them
}{
	{"table1.hcl", nil},
	{"table1.hcl", []string{"hyperparameters=appendix"}},
	{"table1.hcl", []string{"hyperparameters=json50d"}},
	{"table1.hcl", []string{"hyperparameters=grid"}},
	{"table1.hcl", []string{"hyperparameters=validated"}},
	{"table1.hcl", []string{"seeds=[0,1]", "epochs=5"}},
	{"table1.hcl", []string{"seeds=[0,1]", "epochs=10"}},
	{"table1.hcl", []string{"seeds=[0]", "epochs=2", "reddit=off"}},
	{"table1.hcl", []string{"reddit=off"}},
	{"table1.hcl", []string{"reddit=files"}},
	{"table1.hcl", []string{"baselines=long"}},
	{"table1.hcl", []string{"baselines=off"}},
	{"table1.hcl", []string{"hyla_gcn=false"}},
	{"table1.hcl", []string{"baselines=off", "hyla_gcn=false", "reddit=off"}},
	{"table1.hcl", []string{"airport_split=disjoint", "seeds=[0,1]"}},
	{"table1.hcl", []string{"baselines=long", "seeds=[0,1]", "epochs=10", "hyperparameters=validated"}},
	{"table2.hcl", nil},
	{"table2.hcl", []string{"seeds=[0,1]", "epochs=20"}},
	{"table2.hcl", []string{"seeds=[0]", "epochs=2", `datasets=["r8"]`}},
	{"table2.hcl", []string{`datasets=["r8","mr","ohsumed"]`, "seeds=[0]"}},
	{"table2.hcl", []string{`datasets=["r8"]`, "seeds=[1]", `settings=["transductive"]`}},
	{"table2.hcl", []string{`settings=["inductive"]`}},
	{"table2.hcl", []string{"baselines=off"}},
	{"table2.hcl", []string{"hyperparameters=json"}},
	{"table2.hcl", []string{"hyperparameters=validated", "baselines=off"}},
}

// keyRegistry is the stage library with what does not come from the
// pipeline file taken out of the keys: every type's Version is one constant
// and no type fingerprints its outside data (a stage version bump or a
// changed data file changes the real keys, not the pipelines), and
// dataset_present says false (the Reddit files are absent, as on CI).
func keyRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	def := stages.Default()
	r := registry.New()
	for _, name := range def.Names() {
		typ, _ := def.Lookup(name)
		c := *typ
		c.Version, c.Fingerprint = "pinned", nil
		if err := r.Register(&c); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range def.Functions() {
		if f.Name == "dataset_present" {
			f.Make = func(string) function.Function {
				return function.New(&function.Spec{
					Params:   []function.Parameter{{Name: "name", Type: cty.String}},
					VarParam: &function.Parameter{Name: "root", Type: cty.String},
					Type:     function.StaticReturnType(cty.Bool),
					Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
						return cty.False, nil
					},
				})
			}
		}
		if err := r.AddFunction(f); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestTableKeys pins the cache key of every stage instance of table1.hcl and
// table2.hcl, under every -var combination of keyCases, to
// testdata/keys.golden: a rewrite of the pipelines (matrix for setproduct
// maps, new variables) must give the same address → key map, so that it
// reuses every cached artifact. The keys leave out the stage versions and
// the data fingerprints (keyRegistry): those change with the stage code
// and the data, not with the pipeline text. A deliberate change of a
// pipeline's stages or of a parameter schema rewrites the golden file with
// `go test ./pipelines -run TestTableKeys -update`; its diff shows which
// instances the change touches.
func TestTableKeys(t *testing.T) {
	reg := keyRegistry(t)
	// pairs: "address key" → the cases (indexes into keyCases) that plan it.
	pairs := map[string][]int{}
	var out strings.Builder
	for i, kc := range keyCases {
		vars := map[string]string{}
		for _, v := range kc.vars {
			name, value, _ := strings.Cut(v, "=")
			vars[name] = value
		}
		p, diags := pipeline.Load(reg, kc.file, pipeline.LoadOptions{Vars: vars})
		if diags.HasErrors() {
			t.Fatalf("%s %v: %s", kc.file, kc.vars, diags.Error())
		}
		plan, err := runner.MakePlan(p, nil, runner.PlanOptions{})
		if err != nil {
			t.Fatalf("%s %v: %v", kc.file, kc.vars, err)
		}
		for _, s := range plan.Steps {
			pair := s.Instance.Address + " " + s.Key()[:16]
			pairs[pair] = append(pairs[pair], i)
		}
		fmt.Fprintf(&out, "# case %d: %s %s (%d instances)\n", i, kc.file, strings.Join(kc.vars, " "), len(plan.Steps))
	}
	lines := make([]string, 0, len(pairs))
	for pair, cases := range pairs {
		lines = append(lines, pair+" "+caseRanges(cases))
	}
	sort.Strings(lines)
	for _, l := range lines {
		out.WriteString(l + "\n")
	}
	got := out.String()
	golden := filepath.Join("testdata", "keys.golden")
	if *updateGolden {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", golden)
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the instances or keys of table1.hcl/table2.hcl differ from %s (a rewrite must keep them; after a deliberate change of the stages or a parameter schema: go test ./pipelines -run TestTableKeys -update):\n%s", golden, lineDiff(string(want), got))
	}
}

// caseRanges writes ascending case numbers as ranges: 0-4,7,9-10.
func caseRanges(cases []int) string {
	var parts []string
	for i := 0; i < len(cases); {
		j := i
		for j+1 < len(cases) && cases[j+1] == cases[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprint(cases[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", cases[i], cases[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// lineDiff lists the lines only in want (-) and only in got (+), at most
// 40 of them.
func lineDiff(want, got string) string {
	inWant, inGot := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(want, "\n") {
		inWant[l] = true
	}
	for _, l := range strings.Split(got, "\n") {
		inGot[l] = true
	}
	var diff []string
	for l := range inWant {
		if !inGot[l] {
			diff = append(diff, "- "+l)
		}
	}
	for l := range inGot {
		if !inWant[l] {
			diff = append(diff, "+ "+l)
		}
	}
	sort.Strings(diff)
	if len(diff) > 40 {
		diff = append(diff[:40], fmt.Sprintf("… and %d more", len(diff)-40))
	}
	return strings.Join(diff, "\n")
}

// TestTableScopes: the datasets, models and settings variables leave out
// every stage that no listed column, row and setting needs, and keep the
// keys of the stages they keep (only the tables, which read fewer runs,
// change).
func TestTableScopes(t *testing.T) {
	reg := keyRegistry(t)
	plan := func(t *testing.T, file string, vars map[string]string) *runner.Plan {
		t.Helper()
		p, diags := pipeline.Load(reg, file, pipeline.LoadOptions{Vars: vars})
		if diags.HasErrors() {
			t.Fatalf("%s %v: %s", file, vars, diags.Error())
		}
		pl, err := runner.MakePlan(p, nil, runner.PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	cases := []struct {
		name, file string
		vars       map[string]string
		want       map[string]int // stage block → instances
	}{
		{"table1 on Cora", "table1.hcl", map[string]string{"datasets": `["cora"]`}, map[string]int{
			"dataset.planetoid": 1, "normalize.planetoid": 1, "normalize.planetoid_sgc": 1,
			"precompute.planetoid_hyla": 1, "precompute.planetoid_rff": 1, "precompute.planetoid_sgc": 1,
			"sample.planetoid_hyla": 2, "train.planetoid_hyla": 2, "sample.planetoid_rff": 2, "train.planetoid_rff": 2, "train.planetoid_sgc": 2,
			"gcn.planetoid": 2, "gat.planetoid": 2, "hgcn.planetoid": 2, "lgcn.planetoid": 2, "hnn.planetoid": 2,
			"sample.hyla_gcn": 2, "hyla_gcn.planetoid": 2,
			"evaluate.table1": 1, "evaluate.table1_val": 1, "evaluate.table1_gnn": 1, "evaluate.table1_hyp": 1,
			"evaluate.table1_hylagcn": 1, "evaluate.table1_hylagcn_val": 1, "evaluate.table1_one_protocol": 1,
		}},
		{"table1 SGC and GCN on Airport", "table1.hcl", map[string]string{"datasets": `["airport"]`, "models": `["sgc", "gcn"]`}, map[string]int{
			"dataset.hgcn": 1, "normalize.hgcn_sgc": 1, "augment.hgcn_sgc": 1, "normalize.hgcn_gnn": 1, "augment.hgcn_gnn": 1,
			"hgcn_split.hgcn": 2, "precompute.hgcn_sgc": 2, "train.hgcn_sgc": 2, "gcn.hgcn": 2,
			"evaluate.table1": 1, "evaluate.table1_val": 1, "evaluate.table1_gnn": 1,
		}},
		{"table1 HyLa-SGC on Reddit and Disease", "table1.hcl", map[string]string{"datasets": `["disease", "reddit"]`, "models": `["hyla-sgc"]`}, map[string]int{
			"dataset.hgcn": 1, "normalize.hgcn": 1, "hgcn_split.hgcn": 2, "precompute.hgcn_hyla": 2, "sample.hgcn_hyla": 2, "train.hgcn_hyla": 2,
			"evaluate.table1": 1, "evaluate.table1_val": 1, "evaluate.table1_one_protocol": 1,
			"dataset.reddit": 1, "normalize.reddit": 1, "precompute.reddit": 1, "sample.reddit": 2, "train.reddit": 2, "evaluate.reddit": 1,
		}},
		{"table1 HGCN's protocol on Disease", "table1.hcl", map[string]string{"datasets": `["disease"]`, "models": `["sgc", "hgcn"]`, "baselines": "long"}, map[string]int{
			"dataset.hgcn": 1, "normalize.hgcn_sgc": 1, "hgcn_split.hgcn": 2, "precompute.hgcn_sgc": 2, "train.hgcn_sgc": 2,
			"hgcn.hgcn": 2, "hgcn.hgcn_long": 2, "dataset.disease_lp": 1, "linkpred.disease": 1,
			"evaluate.table1": 1, "evaluate.table1_val": 1, "evaluate.table1_hyp": 1, "evaluate.linkpred": 1,
		}},
		{"table2 TextGCN, inductive, R8", "table2.hcl", map[string]string{"datasets": `["r8"]`, "models": `["textgcn"]`, "settings": `["inductive"]`}, map[string]int{
			"dataset.corpus_ind": 1, "normalize.corpus_ind": 1, "textgcn.ind": 2, "evaluate.inductive_textgcn": 1,
		}},
		{"table2 SGC and LR on MR", "table2.hcl", map[string]string{"datasets": `["mr"]`, "models": `["sgc", "lr"]`}, map[string]int{
			"dataset.corpus": 1, "normalize.corpus": 1, "precompute.corpus": 1, "train.textsgc": 2,
			"dataset.docs": 1, "normalize.docs": 1, "precompute.docs": 1, "train.lr": 2,
			"evaluate.transductive": 1, "evaluate.inductive": 1,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.vars["seeds"] = "[0, 1]"
			scoped := plan(t, c.file, c.vars)
			fullVars := map[string]string{"seeds": "[0, 1]"}
			if b, ok := c.vars["baselines"]; ok {
				fullVars["baselines"] = b
			}
			full := plan(t, c.file, fullVars)
			got := map[string]int{}
			for _, s := range scoped.Steps {
				got[s.Instance.Block]++
				if strings.HasPrefix(s.Instance.Block, "evaluate.") {
					continue
				}
				f, ok := full.ByAddress[s.Instance.Address]
				if !ok {
					t.Errorf("%s is not in the unscoped pipeline", s.Instance.Address)
				} else if f.Key() != s.Key() {
					t.Errorf("%s: key %.12s scoped, %.12s in the unscoped pipeline", s.Instance.Address, s.Key(), f.Key())
				}
			}
			for _, b := range sortedNames(got, c.want) {
				if got[b] != c.want[b] {
					t.Errorf("%s: %d instances, want %d", b, got[b], c.want[b])
				}
			}
		})
	}
}

// sortedNames is the union of the maps' keys, sorted.
func sortedNames(ms ...map[string]int) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}
