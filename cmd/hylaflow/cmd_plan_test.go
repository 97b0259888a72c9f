package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/planview"
)

// TestPlanCmdJSON: plan --json before and after a run of the report test
// pipeline: the schema's field names, every stage in run order with its
// key, status and reason, inputs naming keys of earlier stages, and the
// counts.
func TestPlanCmdJSON(t *testing.T) {
	dir := t.TempDir()
	file := testenv.WriteFile(t, dir, "p.hcl", reportTestPipeline)
	cdir := filepath.Join(dir, "cache")
	plan := func() (planview.Plan, map[string]json.RawMessage, []map[string]json.RawMessage) {
		t.Helper()
		code, out, errs := runCmdDispatch("plan", "--json", "--cache", cdir, file)
		if code != cli.ExitOK {
			t.Fatalf("plan --json: exit %d: %s", code, errs)
		}
		var p planview.Plan
		var top map[string]json.RawMessage
		var stages struct {
			Stages []map[string]json.RawMessage `json:"stages"`
		}
		for _, v := range []any{&p, &top, &stages} {
			if err := json.Unmarshal([]byte(out), v); err != nil {
				t.Fatalf("plan --json output: %v\n%s", err, out)
			}
		}
		return p, top, stages.Stages
	}
	cold, top, stages := plan()
	fields := func(m map[string]json.RawMessage) string {
		var k []string
		for s := range m {
			k = append(k, s)
		}
		slices.Sort(k)
		return strings.Join(k, " ")
	}
	if got, want := fields(top), "cache cached pipeline stages to_run"; got != want {
		t.Errorf("plan fields %q, want %q", got, want)
	}
	if got, want := fields(stages[0]), "address block inputs key mem_mb params reason status type version"; got != want {
		t.Errorf("stage fields %q, want %q", got, want)
	}
	if cold.Pipeline != file || cold.Cache != cdir || cold.ToRun != 12 || cold.Cached != 0 || len(cold.Stages) != 12 {
		t.Errorf("cold plan: pipeline %s cache %s to_run %d cached %d stages %d; want 12 to run", cold.Pipeline, cold.Cache, cold.ToRun, cold.Cached, len(cold.Stages))
	}
	hex64 := regexp.MustCompile(`^[0-9a-f]{64}$`)
	seen := map[string]bool{}
	for _, s := range cold.Stages {
		if !hex64.MatchString(s.Key) || s.Status != "run" || s.Reason != "never run" || s.Version == "" ||
			!strings.HasPrefix(s.Address, s.Type+".") || !strings.HasPrefix(s.Address, s.Block) {
			t.Errorf("cold stage %+v", s)
		}
		for slot, refs := range s.Inputs {
			for _, r := range refs {
				k, out, _ := strings.Cut(r, "/")
				if !seen[k] || out == "" {
					t.Errorf("%s: input %s = %s is not an output of an earlier stage", s.Address, slot, r)
				}
			}
		}
		seen[s.Key] = true
		// The memory estimate: known for a stage without inputs, null
		// while its inputs are not stored.
		if (s.MemMB != nil) != (len(s.Inputs) == 0) {
			t.Errorf("%s: mem_mb %v with %d inputs, want a value only without inputs", s.Address, s.MemMB, len(s.Inputs))
		}
	}
	tr := cold.Stages[slices.IndexFunc(cold.Stages, func(s planview.Step) bool { return s.Address == `train.h["0"]` })]
	if string(tr.Params["epochs"]) != "3" || len(tr.Inputs["features"]) != 1 || len(tr.Inputs["samples"]) != 1 {
		t.Errorf(`train.h["0"]: params %s, inputs %v`, tr.Params, tr.Inputs)
	}

	if code, _, errs := runCmdDispatch("run", "-q", "--cache", cdir, file); code != cli.ExitOK {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	warm, _, _ := plan()
	if warm.ToRun != 0 || warm.Cached != 12 {
		t.Errorf("after the run: to_run %d, cached %d; want 0, 12", warm.ToRun, warm.Cached)
	}
	for i, s := range warm.Stages {
		if s.Status != "cached" || s.Reason != "" || s.Key != cold.Stages[i].Key || s.Address != cold.Stages[i].Address {
			t.Errorf("after the run, stage %d: %+v (before: %s %s)", i, s, cold.Stages[i].Address, cold.Stages[i].Key)
		}
	}
}
