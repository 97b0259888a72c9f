package runner_test

import (
	"path/filepath"
	"testing"

	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/stages"
)

// BenchmarkLoadFanout502 loads testdata/bench/fanout502.hcl and computes
// its 502 keys: what a fully cached run of it does before the cache.
func BenchmarkLoadFanout502(b *testing.B) {
	reg := stages.Default()
	file := filepath.Join("..", "testdata", "bench", "fanout502.hcl")
	b.ReportAllocs()
	for b.Loop() {
		p, diags := pipeline.Load(reg, file, pipeline.LoadOptions{})
		if diags.HasErrors() || len(p.Instances) != 502 {
			b.Fatal(diags.Error())
		}
		if _, err := runner.MakePlan(p, nil, runner.PlanOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
