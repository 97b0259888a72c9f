package planview

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/stages"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// store is a PlanStore holding the outputs of the keys in stored.
type store struct{ stored map[string]bool }

func (s store) Lookup(key string) ([]cache.OutputRef, bool, error) {
	if s.stored[key] {
		return []cache.OutputRef{{Key: key, Name: "out", Size: 3 << 20}}, true, nil
	}
	return nil, false, nil
}

func (store) LastRecord(string) (*cache.KeyRecord, bool, error) { return nil, false, nil }

// plan plans a three-stage pipeline against st.
func plan(t *testing.T, st store) *runner.Plan {
	t.Helper()
	file := filepath.Join(t.TempDir(), "p.hcl")
	src := "stage \"value\" \"a\" { values = [1, 2] }\nstage \"scale\" \"s\" {\n  in     = stage.value.a\n  factor = 2\n}\n" +
		"stage \"sum\" \"all\" { in = [stage.scale.s] }\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, diags := pipeline.Load(stages.Default(), file, pipeline.LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	pl, err := runner.MakePlan(p, st, runner.PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// Write lists each step with its reason, keys on request, and the
// counts (golden testdata/write.golden; keys masked); JSON holds the same.
func TestWriteAndJSON(t *testing.T) {
	cold := plan(t, store{})
	var b bytes.Buffer
	Write(&b, cold, false)
	first := cold.Steps[0].Key()
	b.WriteString("-- with keys, value.a stored\n")
	warm := plan(t, store{map[string]bool{first: true}})
	Write(&b, warm, true)
	// scale.s has no estimator: it counts its stored 3 MiB input; sum.all's
	// input is not stored.
	b.WriteString("-- with memory, value.a stored\n")
	WriteMem(&b, warm, false, true)
	got := b.String()
	for _, s := range warm.Steps {
		got = strings.ReplaceAll(got, s.Key()[:12], "KEY")
	}
	golden := filepath.Join("testdata", "write.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update once)", err)
	}
	if got != string(want) {
		t.Errorf("differs from %s; got:\n%s\nwant:\n%s", golden, got, want)
	}

	var all bytes.Buffer
	Write(&all, plan(t, store{map[string]bool{cold.Steps[0].Key(): true, cold.Steps[1].Key(): true, cold.Steps[2].Key(): true}}), false)
	if !strings.HasSuffix(all.String(), "nothing to do: all 3 stages cached\n") {
		t.Errorf("all cached:\n%s", all.String())
	}

	js, err := json.Marshal(JSON("p.hcl", "CACHE", warm))
	if err != nil {
		t.Fatal(err)
	}
	var doc Plan
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Pipeline != "p.hcl" || doc.Cache != "CACHE" || doc.ToRun != 2 || doc.Cached != 1 || len(doc.Stages) != 3 {
		t.Fatalf("plan JSON %s", js)
	}
	a, s := doc.Stages[0], doc.Stages[1]
	if a.Address != "value.a" || a.Status != "cached" || a.Reason != "" || a.Key != first || a.Type != "value" ||
		string(a.Params["values"]) != "[1,2]" || len(a.Inputs) != 0 {
		t.Errorf("value.a: %+v", a)
	}
	if s.Status != "run" || s.Reason == "" || len(s.Inputs["in"]) != 1 || !strings.HasPrefix(s.Inputs["in"][0], first+"/") {
		t.Errorf("scale.s: %+v", s)
	}
}
