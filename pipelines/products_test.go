package pipelines_test

import (
	"fmt"
	"testing"

	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/stages"
)

// products.hcl: the full size is ogbn-products' shape (2,449,029 nodes,
// 61,859,140 edges, 100 features, 47 classes), tiny keeps the features
// and classes; every seed trains HyLa-SGC inductive (on the precompute
// with X_train) and transductive, both read by the evaluate stage.
func TestProductsPipeline(t *testing.T) {
	for _, c := range []struct {
		size         string
		nodes, edges int
	}{{"full", 2449029, 61859140}, {"tiny", 4000, 100000}} {
		p := load(t, "products.hcl", map[string]string{"size": c.size, "seeds": "[0,1]"})
		trains, inductive := 0, map[string]bool{}
		for _, inst := range p.Instances {
			switch inst.Block {
			case "dataset.products":
				got := fmt.Sprint(inst.Params.Int("nodes"), inst.Params.Int("edges"), inst.Params.Int("features"), inst.Params.Int("classes"))
				if want := fmt.Sprint(c.nodes, c.edges, 100, 47); got != want {
					t.Errorf("%s: dataset nodes, edges, features, classes = %s, want %s", c.size, got, want)
				}
			case "precompute.products":
				inductive[inst.Address] = inst.Params.Bool("inductive")
			case "train.products":
				trains++
			case "evaluate.products":
				if n := len(inst.Inputs["runs"]); n != 4 {
					t.Errorf("%s: evaluate reads %d runs, want 4 (2 settings × 2 seeds)", c.size, n)
				}
			}
		}
		if trains != 4 || fmt.Sprint(inductive) != `map[precompute.products["inductive"]:true precompute.products["transductive"]:false]` {
			t.Errorf("%s: %d train stages, precomputes %v", c.size, trains, inductive)
		}
	}
	if _, diags := pipeline.Load(stages.Default(), "products.hcl", pipeline.LoadOptions{Vars: map[string]string{"size": "huge"}}); !diags.HasErrors() {
		t.Error("size = huge was accepted")
	}
}
