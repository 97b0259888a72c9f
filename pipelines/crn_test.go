package pipelines_test

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// TestCommonRandomNumbers: draws depend on the seed and the stage type only.
// Changing the classifier's learning rate (and the epochs) leaves the
// initial Z bit-identical, changing λ's scale leaves Ω and B bit-identical
// and scales Λ exactly, and another seed draws another Z.
func TestCommonRandomNumbers(t *testing.T) {
	c := openCache(t)
	res := run(t, load(t, "testdata/crn.hcl", nil), c)
	member := func(address, output, name string) *mat.Dense {
		t.Helper()
		b := loadBundle(t, c, res, address, output)
		m, err := b.Dense(name)
		if err != nil {
			t.Fatalf("%s: %v", address, err)
		}
		return m
	}
	floats := func(address, name string) []float64 {
		t.Helper()
		v, err := loadBundle(t, c, res, address, "samples").Floats(name)
		if err != nil {
			t.Fatalf("%s: %v", address, err)
		}
		return v
	}
	if !mat.Equal(member(`sample.s["s1"]`, "samples", schema.MemberOmega), member(`sample.s["s2"]`, "samples", schema.MemberOmega)) {
		t.Error("scale 0.1 and 0.2 with one seed drew different Ω")
	}
	b1, b2 := floats(`sample.s["s1"]`, schema.MemberB), floats(`sample.s["s2"]`, schema.MemberB)
	l1, l2 := floats(`sample.s["s1"]`, schema.MemberLambda), floats(`sample.s["s2"]`, schema.MemberLambda)
	for j := range l1 {
		if b1[j] != b2[j] || l2[j] != 2*l1[j] {
			t.Fatalf("feature %d: b %v vs %v, λ %v vs %v (want the same b and twice λ)", j, b1[j], b2[j], l1[j], l2[j])
		}
	}
	z1, z2 := member(`train.t["lr1"]`, "model", schema.MemberZ), member(`train.t["lr2"]`, "model", schema.MemberZ)
	if !mat.Equal(z1, z2) {
		t.Error("lr_classifier 0.1 and 0.5 (and 3 vs 5 epochs) with one seed started from different Z")
	}
	if w1, w2 := member(`train.t["lr1"]`, "model", schema.MemberW), member(`train.t["lr2"]`, "model", schema.MemberW); mat.Equal(w1, w2) {
		t.Error("two learning rates trained the same classifier: the test would not see a difference")
	}
	if mat.Equal(z1, member(`train.t["seed4"]`, "model", schema.MemberZ)) {
		t.Error("seeds 3 and 4 drew the same initial Z")
	}
}

// loadBundle decodes output of the stage at address in res.
func loadBundle(t *testing.T, c *cache.Cache, res *runner.RunResult, address, output string) *bundle.Bundle {
	t.Helper()
	s, ok := res.ByAddress[address]
	if !ok {
		t.Fatalf("no stage %s in the run", address)
	}
	for _, ref := range s.Outputs {
		if ref.Name != output {
			continue
		}
		a, err := c.Load(ref)
		if err != nil {
			t.Fatal(err)
		}
		b, ok := a.(*bundle.Bundle)
		if !ok {
			t.Fatalf("%s.%s is a %T, want a bundle", address, output, a)
		}
		return b
	}
	t.Fatalf("%s has no output %q", address, output)
	return nil
}
