package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/registry"
)

func keyTestTypes() (src, sink *registry.Type) {
	src = &registry.Type{Name: "src", Version: "1",
		Params:  []registry.Param{{Name: "n", Type: registry.Int, Default: 3}, {Name: "xs", Type: registry.Floats, Default: []float64{}}},
		Outputs: []registry.Output{{Name: "out", Kind: artifact.KindAny}}}
	sink = &registry.Type{Name: "sink", Version: "2",
		Params:  []registry.Param{{Name: "lr", Type: registry.Float, Default: 0.01}},
		Inputs:  []registry.Input{{Name: "in", Kind: artifact.KindAny, Many: true}, {Name: "opt", Kind: artifact.KindAny, Many: true, Optional: true}},
		Outputs: []registry.Output{{Name: "out", Kind: artifact.KindAny}},
		Fingerprint: func(v registry.Values) (string, error) {
			if v.Float("lr") < 0 {
				return "", errors.New("no data for a negative rate")
			}
			return "fp", nil
		}}
	return src, sink
}

// The key record is the one the cache has always been given: the same
// fields as a record built by hand, and the same key (pinned, so that a
// change of the parameter encoding or of ComputeKey shows here).
func TestKeyRecord(t *testing.T) {
	src, sink := keyTestTypes()
	rec, err := keyRecord(src, "src.a", registry.Values{"n": 3, "xs": []float64{0.5}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hand := &cache.KeyRecord{Address: "src.a", StageType: "src", Version: "1",
		Params: map[string]string{"n": "3", "xs": "[0.5]"}, Inputs: map[string][]string{}}
	cache.ComputeKey(hand)
	if rec.Key != hand.Key {
		t.Errorf("key %s, hand-built record %s", rec.Key, hand.Key)
	}
	const pinned = "df86755407d84ba7"
	if !strings.HasPrefix(rec.Key, pinned) {
		t.Errorf("key %s, pinned %s…", rec.Key, pinned)
	}

	ids := map[string][]cache.OutputID{"in": {{Key: rec.Key, Output: "out"}, {Key: "k2", Output: "out"}}}
	srec, err := keyRecord(sink, `sink["x"]`, registry.Values{"lr": 0.5}, ids)
	if err != nil {
		t.Fatal(err)
	}
	if got := srec.Inputs["in"]; len(got) != 2 || got[0] != rec.Key+"/out" || got[1] != "k2/out" || srec.Fingerprint != "fp" {
		t.Errorf("record %+v", srec)
	}
	// A slot present with no outputs is part of the key.
	ids["opt"] = nil
	empty, err := keyRecord(sink, `sink["x"]`, registry.Values{"lr": 0.5}, ids)
	if err != nil {
		t.Fatal(err)
	}
	if empty.Key == srec.Key {
		t.Error("an empty slot and an absent one give the same key")
	}

	for _, c := range []struct {
		typ    *registry.Type
		params registry.Values
		ids    map[string][]cache.OutputID
		want   string
	}{
		{sink, registry.Values{"lr": 0.5}, map[string][]cache.OutputID{"bad": nil}, `sink.b: stage type "sink" has no input "bad"`},
		{sink, registry.Values{"lr": -1.0}, nil, "sink.b: fingerprint of the data it reads: no data for a negative rate"},
		{sink, registry.Values{}, nil, `sink.b: parameter "lr" of stage type "sink" has no value`},
	} {
		if _, err := keyRecord(c.typ, "sink.b", c.params, c.ids); err == nil || err.Error() != c.want {
			t.Errorf("keyRecord error %v, want %q", err, c.want)
		}
	}
}

// A pipeline's plan and NewTask (exec-stage, tests) make the same key for
// the same stage, parameters and inputs.
func TestPlanAndNewTaskKeysAgree(t *testing.T) {
	src, sink := keyTestTypes()
	a := &pipeline.Instance{Address: "src.a", Block: "src.a", Type: src, Params: registry.Values{"n": 3, "xs": []float64{}}}
	b := &pipeline.Instance{Address: "sink.b", Block: "sink.b", Type: sink, Params: registry.Values{"lr": 0.01},
		Inputs: map[string][]pipeline.InputRef{"in": {{Producer: "src.a", Output: "out"}}}}
	plan, err := planKeys(&pipeline.Pipeline{Instances: []*pipeline.Instance{a, b}}, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ta, err := NewTask(src, "src.a", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := NewTask(sink, "sink.b", nil, map[string][]TaskInput{"in": {{Label: "src.a", Ref: cache.OutputRef{Key: ta.Key(), Name: "out"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Steps[0].Key() != ta.Key() || plan.Steps[1].Key() != tb.Key() {
		t.Errorf("plan keys %s %s, NewTask keys %s %s", plan.Steps[0].Key(), plan.Steps[1].Key(), ta.Key(), tb.Key())
	}
	if _, err := NewTask(sink, "sink.b", registry.Values{"lr": 0.1, "mu": 1}, nil); err == nil || !strings.Contains(err.Error(), `has no parameter "mu"`) {
		t.Errorf("undeclared parameter: %v", err)
	}
}
