package runner_test

import (
	"path/filepath"
	"testing"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/runner"
)

// ReadOnlyStore reads a missing cache as empty, passes a cache's answers
// through and never re-hashes payloads.
func TestReadOnlyStore(t *testing.T) {
	var empty any = runner.ReadOnlyStore{}
	s := empty.(runner.PlanStore)
	if refs, ok, err := s.Lookup("k"); refs != nil || ok || err != nil {
		t.Errorf("Lookup of no cache: %v, %v, %v", refs, ok, err)
	}
	if rec, ok, err := s.LastRecord("a.b"); rec != nil || ok || err != nil {
		t.Errorf("LastRecord of no cache: %v, %v, %v", rec, ok, err)
	}
	if sh := empty.(runner.ShapeStore).Shapes(cache.OutputRef{}); sh != nil {
		t.Errorf("Shapes of no cache: %v", sh)
	}
	c, err := cache.Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := any(c).(runner.PayloadChecker); !ok {
		t.Fatal("the cache is no PayloadChecker: nothing to hide")
	}
	var wrapped any = runner.ReadOnlyStore{S: c}
	if _, ok := wrapped.(runner.PayloadChecker); ok {
		t.Error("ReadOnlyStore lets plan re-hash payloads")
	}
	rec := &cache.KeyRecord{Address: "a.b", StageType: "value", Version: "1", Params: map[string]string{}, Inputs: map[string][]string{}}
	cache.ComputeKey(rec)
	if _, err := c.Store(rec, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := wrapped.(runner.PlanStore).Lookup(rec.Key); !ok || err != nil {
		t.Errorf("Lookup of a stored key: %v, %v", ok, err)
	}
}
