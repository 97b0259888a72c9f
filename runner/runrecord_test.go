package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/runner/executortest"
)

// Run and Execute record RunOptions.Provenance with the run in a store
// that keeps provenance; without one the run has none; a store that
// refuses it fails the run before anything runs.
func TestRunRecordsProvenance(t *testing.T) {
	p := execLoad(t, nil, execFanout)
	doc := []byte(`{"go":"go1.99","vars":{"x":"1"}}`)
	for _, tc := range []struct {
		name string
		doc  []byte
		run  func(c runner.RunStore, opts runner.RunOptions) (*runner.RunResult, error)
	}{
		{"Run", doc, func(c runner.RunStore, opts runner.RunOptions) (*runner.RunResult, error) {
			return runner.Run(context.Background(), p, c, opts)
		}},
		{"Execute", doc, func(c runner.RunStore, opts runner.RunOptions) (*runner.RunResult, error) {
			plan, err := runner.MakePlan(p, c, opts.PlanOptions)
			if err != nil {
				return nil, err
			}
			return runner.Execute(context.Background(), plan, c, opts, time.Now())
		}},
		{"none", nil, func(c runner.RunStore, opts runner.RunOptions) (*runner.RunResult, error) {
			return runner.Run(context.Background(), p, c, opts)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := openCaches(t)
			res, err := tc.run(c, runner.RunOptions{Jobs: 1, Provenance: tc.doc})
			if err != nil || res.Status != runner.RunOK {
				t.Fatalf("run: %v %v", res, err)
			}
			d, err := c.Run(res.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if string(d.Provenance) != string(tc.doc) {
				t.Errorf("provenance %q, want %q", d.Provenance, tc.doc)
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		c, _ := openCaches(t)
		_, err := runner.Run(context.Background(), p, c, runner.RunOptions{Jobs: 1, Provenance: []byte("{not json")})
		if err == nil || !strings.Contains(err.Error(), "provenance") {
			t.Fatalf("run with a bad provenance document: %v", err)
		}
		runs, _ := c.Runs(0)
		if len(runs) != 1 || runs[0].Status != runner.RunFailed || runs[0].Stages != 0 {
			t.Errorf("the refused run's record: %+v", runs)
		}
	})
	t.Run("store without provenance", func(t *testing.T) {
		s := executortest.NewMemStore()
		if res, err := runner.Run(context.Background(), p, s, runner.RunOptions{Jobs: 1, Provenance: doc}); err != nil || res.Status != runner.RunOK {
			t.Fatalf("run on a store that keeps no provenance: %v %v", res, err)
		}
	})
}
