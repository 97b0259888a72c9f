package runner_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/stages"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// hungryType passes its input on after 60 ms and estimates its memory as
// factor × its input's size.
func hungryType(factor int64) *registry.Type {
	return &registry.Type{
		Name: "hungry", Version: "1", Hidden: true,
		Params:  []registry.Param{{Name: "tag", Type: registry.String, Default: "", Doc: "makes instances' keys differ"}},
		Inputs:  []registry.Input{{Name: "in", Kind: schema.KindValue}},
		Outputs: []registry.Output{{Name: "out", Kind: schema.KindValue}},
		EstimateMem: func(_ registry.Values, in map[string][]registry.InputSize) int64 {
			return factor * in["in"][0].Bytes
		},
		Run: func(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
			time.Sleep(60 * time.Millisecond)
			return map[string]artifact.Artifact{"out": job.Inputs["in"][0]}, nil
		},
	}
}

// memEvents records the stages at once and the "waits for memory" lines.
type memEvents struct {
	concurrency
	mu2   sync.Mutex
	waits []string
}

func (m *memEvents) Event(e runner.Event) {
	m.concurrency.Event(e)
	if e.Kind == runner.EventProgress && strings.HasPrefix(e.Msg, "waits for memory") {
		m.mu2.Lock()
		m.waits = append(m.waits, e.Address+": "+e.Msg)
		m.mu2.Unlock()
	}
}

// execEstimate: an 8 MiB vector (1 Mi float64) and four stages reading it.
const execEstimate = `
stage "random" "v" {
  n = 1048576
}
stage "hungry" "h" {
  for_each = toset(["a", "b", "c", "d"])
  in       = stage.random.v
  tag      = each.key
}
`

// Issue 19 item 6: stages are admitted by their type's estimate from their
// inputs' sizes, made once the inputs are stored; plan shows it when the
// inputs are stored and leaves it unknown until then; -v is told which
// stage waits for memory; the estimate is not in the keys.
func TestMemoryEstimateAdmission(t *testing.T) {
	for _, tc := range []struct {
		name     string
		factor   int64
		memMB    int64
		wantPeak int
		wantEst  int64
	}{
		{"3 × 8 MiB in 60 MiB: two at once", 3, 60, 2, 25},
		{"3 × 8 MiB in 100 MiB: all four", 3, 100, 4, 25},
		{"no estimator: the input's size, 4 in 40 MiB", 0, 40, 4, 9},
		{"no estimator: the input's size, 2 in 20 MiB", 0, 20, 2, 9},
		{"10 × 8 MiB, over the 60 MiB budget: one at a time", 10, 60, 1, 81},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := stages.Default()
			h := hungryType(tc.factor)
			if tc.factor == 0 {
				h.EstimateMem = nil
			}
			reg.MustRegister(h)
			p := execLoad(t, reg, execEstimate)
			c, _ := openCaches(t)
			plan, err := runner.MakePlan(p, c, runner.PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if s := plan.ByAddress[`hungry.h["a"]`]; s.MemKnown {
				t.Errorf("before the input is stored: estimate known (%d MiB)", s.MemMB)
			}
			if s := plan.ByAddress["random.v"]; !s.MemKnown || s.MemMB != 0 {
				t.Errorf("a stage without inputs: %d MiB known %v, want 0 known", s.MemMB, s.MemKnown)
			}
			obs := &memEvents{}
			r := execRun(t, p, c, runner.RunOptions{Jobs: 4, MemMB: tc.memMB, Observer: obs})
			if r.Status != runner.RunOK || r.Count(runner.StatusRan) != 5 {
				t.Fatalf("run: %s %v", r.Status, execStatuses(r))
			}
			if obs.peak != tc.wantPeak {
				t.Errorf("at most %d stages ran at once, want %d", obs.peak, tc.wantPeak)
			}
			if wantWaits := tc.wantPeak < 4; (len(obs.waits) > 0) != wantWaits {
				t.Errorf("wait messages %q, want some: %v", obs.waits, wantWaits)
			}
			for _, w := range obs.waits {
				if !strings.Contains(w, "needs about") || !strings.Contains(w, "budget (--mem)") {
					t.Errorf("wait message %q", w)
				}
			}
			overWarn := len(r.Warnings) > 0 && strings.Contains(r.Warnings[0], "more than the memory budget")
			if overWarn != (tc.wantEst > tc.memMB) {
				t.Errorf("warnings %q", r.Warnings)
			}
			// Once the input is stored, plan knows the estimate; the keys
			// are those of a plan before it (the estimate is no part of them).
			again, err := runner.MakePlan(p, c, runner.PlanOptions{Force: []string{"hungry.h"}})
			if err != nil {
				t.Fatal(err)
			}
			s := again.ByAddress[`hungry.h["a"]`]
			if !s.MemKnown || s.MemMB != tc.wantEst {
				t.Errorf("plan after the run: %d MiB known %v, want %d", s.MemMB, s.MemKnown, tc.wantEst)
			}
			if s.Key() != plan.ByAddress[`hungry.h["a"]`].Key() {
				t.Error("the key changed with the estimate known")
			}
		})
	}
}
