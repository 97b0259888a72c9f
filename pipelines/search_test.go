package pipelines_test

import (
	"slices"
	"sort"
	"testing"

	"github.com/hylaflow/hylaflow/runner"
)

// The validation grid runs on an HGCN dataset (one split and precompute per
// seed) and on a Planetoid one (one precompute), reports one validation
// cell per (s, lr_e, lr_c) over the seeds, and widening a list plans only
// the new cells.
func TestSearchGrid(t *testing.T) {
	root := dataRoot(t)
	for _, tt := range []struct {
		dataset     string
		precomputes int
	}{{"disease", 2}, {"cora", 1}} {
		t.Run(tt.dataset, func(t *testing.T) {
			vars := map[string]string{
				"dataset": tt.dataset, "seeds": "[0, 1]", "scales": "[0.1, 1]", "lr_es": "[0.5]",
				"lr_cs": "[0.01]", "epochs": "3", "data_root": root,
			}
			p := load(t, "search.hcl", vars)
			pre := 0
			for _, inst := range p.Instances {
				if inst.Type.Name == "precompute" {
					pre++
				}
			}
			if pre != tt.precomputes {
				t.Errorf("%d precompute stages, want %d (shared by every cell)", pre, tt.precomputes)
			}
			c := openCache(t)
			res := run(t, p, c)
			cells := evaluateTable(t, c, res, "evaluate.validation")
			var models []string
			for _, cell := range cells {
				models = append(models, cell.Model)
				if cell.Dataset != tt.dataset || cell.Runs != 2 {
					t.Errorf("cell %s/%s has %d runs, want %s with 2", cell.Dataset, cell.Model, cell.Runs, tt.dataset)
				}
				for _, v := range cell.Values {
					if v < 0 || v > 100 {
						t.Errorf("cell %s: validation accuracy %v outside [0, 100]", cell.Model, v)
					}
				}
			}
			if want := []string{"s=0.1 lr_e=0.5 lr_c=0.01", "s=1 lr_e=0.5 lr_c=0.01"}; !slices.Equal(models, want) {
				t.Errorf("cells %q, want %q", models, want)
			}

			vars["lr_cs"] = "[0.01, 0.1]"
			plan, err := runner.MakePlan(load(t, "search.hcl", vars), c, runner.PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var runs []string
			for _, s := range plan.Steps {
				if !s.Cached {
					runs = append(runs, s.Instance.Address)
				}
			}
			sort.Strings(runs)
			want := []string{"evaluate.validation"}
			for _, s := range []string{"0.1", "1"} {
				for _, seed := range []string{"0", "1"} {
					want = append(want, `train.d["lr_c=0.1,lr_e=0.5,scale=`+s+`,seed=`+seed+`"]`)
				}
			}
			sort.Strings(want)
			if !slices.Equal(runs, want) {
				t.Errorf("adding lr_c = 0.1 plans %q, want %q", runs, want)
			}
		})
	}
}

// The quickstart's validation grid shares the quickstart's dataset, split
// and normalisation (cached by a quickstart run), reports one validation cell
// per model and setting, and widening a list plans only the new cells.
func TestQuickstartSearchGrid(t *testing.T) {
	c := openCache(t)
	run(t, load(t, "quickstart.hcl", map[string]string{"seeds": "[0]", "epochs": "3"}), c)
	vars := map[string]string{"seeds": "[0, 1]", "ks": "[1]", "lr_cs": "[0.01]", "scales": "[0.5]", "lr_es": "[1]", "epochs": "3"}
	p := load(t, "quickstart-search.hcl", vars)
	plan, err := runner.MakePlan(p, c, runner.PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"dataset.disease", "split.disease", "normalize.disease"} {
		if s := plan.ByAddress[a]; s == nil || !s.Cached {
			t.Errorf("%s is not cached after the quickstart's run: the grid must share its data stages", a)
		}
	}
	res := run(t, p, c)
	var models []string
	for _, cell := range evaluateTable(t, c, res, "evaluate.validation") {
		models = append(models, cell.Model)
		if cell.Dataset != "synthetic_disease" || cell.Runs != 2 {
			t.Errorf("cell %s/%s has %d runs, want synthetic_disease with 2", cell.Dataset, cell.Model, cell.Runs)
		}
	}
	sort.Strings(models)
	if want := []string{"hyla-sgc k=1 s=0.5 lr_e=1 lr_c=0.01", "rff-sgc k=1 s=0.5 lr_e=1 lr_c=0.01", "sgc k=1 lr_c=0.01"}; !slices.Equal(models, want) {
		t.Errorf("cells %q, want %q", models, want)
	}

	vars["ks"] = "[1, 2]"
	plan, err = runner.MakePlan(load(t, "quickstart-search.hcl", vars), c, runner.PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, s := range plan.Steps {
		if !s.Cached {
			runs = append(runs, s.Instance.Address)
		}
	}
	sort.Strings(runs)
	want := []string{"evaluate.validation", `precompute.k["2"]`}
	for _, m := range []string{"hyla", "rff"} {
		for _, seed := range []string{"0", "1"} {
			want = append(want, `train.`+m+`["k=2,lr_c=0.01,lr_e=1,scale=0.5,seed=`+seed+`"]`)
		}
	}
	want = append(want, `train.sgc["k=2,lr_c=0.01,seed=0"]`, `train.sgc["k=2,lr_c=0.01,seed=1"]`)
	sort.Strings(want)
	if !slices.Equal(runs, want) {
		t.Errorf("adding K = 2 plans %q, want %q", runs, want)
	}
}
