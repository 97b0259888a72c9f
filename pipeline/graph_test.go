package pipeline

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// The collapsed view of the sweep fixture, without a run and styled by a
// run in which train.grid had one failure, train.single ran, source.data
// was cached and the collect blocks were not reached (not recorded):
// testdata/load/ok_sweep.collapsed*.{dot,mmd} (go test ./pipeline -update).
func TestCollapsedGraph(t *testing.T) {
	p, diags := Load(loadTestRegistry(t), filepath.Join("testdata", "load", "ok_sweep.hcl"), LoadOptions{})
	if diags.HasErrors() {
		t.Fatalf("%s", renderDiags(t, diags))
	}
	status := map[string]string{}
	for _, inst := range p.Instances {
		switch inst.Block {
		case "source.data", "source.empty_root":
			status[inst.Address] = "cached"
		case "train.grid":
			status[inst.Address] = "ran"
		case "train.single":
			status[inst.Address] = "ran"
		}
	}
	status[`train.grid["dataset=cora,seed=1"]`] = "failed"
	delete(status, `train.single["b"]`)

	golden(t, "ok_sweep.collapsed.dot", []byte(p.CollapsedDOT(nil)))
	golden(t, "ok_sweep.collapsed.mmd", []byte(p.CollapsedMermaid(nil)))
	dot := p.CollapsedDOT(status)
	golden(t, "ok_sweep.collapsed_run.dot", []byte(dot))
	golden(t, "ok_sweep.collapsed_run.mmd", []byte(p.CollapsedMermaid(status)))

	// One node per block, each instance edge counted once.
	blocks := map[string]bool{}
	for _, inst := range p.Instances {
		blocks[inst.Block] = true
	}
	edges := len(p.edges())
	nodes, counted := 0, 0
	for _, line := range strings.Split(dot, "\n") {
		if strings.Contains(line, " [label=") && !strings.Contains(line, " -> ") {
			nodes++
		}
		if i := strings.Index(line, " ×"); i >= 0 && strings.Contains(line, " -> ") {
			var n int
			if _, err := fmt.Sscan(line[i+len(" ×"):], &n); err == nil {
				counted += n
			}
		} else if strings.Contains(line, " -> ") {
			counted++
		}
	}
	if nodes != len(blocks) || counted != edges {
		t.Errorf("collapsed DOT has %d nodes for %d blocks and stands for %d edges of %d", nodes, len(blocks), counted, edges)
	}
	for _, want := range []string{
		`"train.grid" [label="train.grid\ntrain v2 ×6\n1 failed, 5 ran", style="rounded,filled", fillcolor="#f4cccc"]`,
		`"train.single" [label="train.single\ntrain v2 ×2\n1 ran, 1 not in the run", style="rounded,filled", fillcolor="#d9ead3"]`,
		`"collect.all" [label="collect.all\ncollect v1\n1 not in the run", style="rounded,dashed"]`,
	} {
		if !strings.Contains(dot, want) {
			t.Errorf("collapsed DOT lacks %s:\n%s", want, dot)
		}
	}
}
