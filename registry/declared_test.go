package registry

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/zclconf/go-cty/cty"
)

// declaredType has a Blocks parameter, declared outputs and a Named input.
func declaredType() *Type {
	return &Type{
		Name: "d", Version: "1",
		Params: []Param{{Name: "outs", Type: Blocks, Block: "out", Default: []map[string]string{},
			BlockAttrs: []BlockAttr{{Name: "kind", Required: true}}}},
		Inputs:  []Input{{Name: "in", Kind: artifact.KindAny, Named: true, Optional: true}},
		Outputs: []Output{{Name: "NAME", Kind: artifact.KindAny}},
		DeclaredOutputs: func(p Values) ([]Output, error) {
			var outs []Output
			for _, m := range p["outs"].([]map[string]string) {
				outs = append(outs, Output{Name: m["name"], Kind: artifact.Kind(m["kind"])})
			}
			return outs, nil
		},
		Run: func(context.Context, *Job) (map[string]artifact.Artifact, error) { return nil, nil },
	}
}

// TestBlocksParamEncoding: a Blocks value encodes as a JSON array of
// objects with sorted keys (the cache key's form), decodes back, and is
// copied deeply by CloneValue; an attribute cannot set it.
func TestBlocksParamEncoding(t *testing.T) {
	typ := declaredType()
	if err := New().Register(typ); err != nil {
		t.Fatal(err)
	}
	v := Values{"outs": []map[string]string{{"name": "m", "kind": "metrics"}, {"name": "a", "kind": "array"}}}
	enc, err := EncodeParams(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"kind":"metrics","name":"m"},{"kind":"array","name":"a"}]`; enc["outs"] != want {
		t.Errorf("encoded %s, want %s", enc["outs"], want)
	}
	dec, err := DecodeParams(typ, enc)
	if err != nil || !reflect.DeepEqual(dec, v) {
		t.Errorf("decoded %v, %v; want %v", dec, err, v)
	}
	if enc, _ := EncodeParams(typ, Values{"outs": []map[string]string(nil)}); enc["outs"] != "[]" {
		t.Errorf("nil blocks encode as %s, want []", enc["outs"])
	}
	c := CloneValue(v["outs"]).([]map[string]string)
	c[0]["kind"] = "file"
	if v["outs"].([]map[string]string)[0]["kind"] != "metrics" {
		t.Error("CloneValue shares the maps of a blocks value")
	}
	p, _ := typ.Param("outs")
	if _, err := p.FromCty(cty.StringVal("x")); err == nil || !strings.Contains(err.Error(), "out blocks") {
		t.Errorf("an attribute set a blocks parameter: %v", err)
	}
	bad := declaredType()
	bad.Params[0].Block = ""
	if err := New().Register(bad); err == nil {
		t.Error("a blocks parameter without its block type registered")
	}
}

// TestForInstanceAndNamedInputs: an instance's type has the outputs its
// parameters declare; "SLOT.NAME" is an input of a Named slot, nothing
// else is.
func TestForInstanceAndNamedInputs(t *testing.T) {
	typ := declaredType()
	it, err := typ.ForInstance(Values{"outs": []map[string]string{{"name": "m", "kind": "metrics"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(it.Outputs) != 1 || it.Outputs[0] != (Output{Name: "m", Kind: "metrics"}) || it.DeclaredOutputs != nil {
		t.Errorf("instance outputs %+v", it.Outputs)
	}
	if len(typ.Outputs) != 1 || typ.Outputs[0].Name != "NAME" {
		t.Errorf("ForInstance changed the registered type: %+v", typ.Outputs)
	}
	for _, c := range []struct {
		outs []map[string]string
		want string
	}{
		{nil, "declares no outputs"},
		{[]map[string]string{{"name": "a", "kind": "x"}, {"name": "a", "kind": "y"}}, "declared twice"},
	} {
		if _, err := typ.ForInstance(Values{"outs": c.outs}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ForInstance(%v) = %v, want %q", c.outs, err, c.want)
		}
	}
	if plain := (&Type{Name: "p"}); func() *Type { t, _ := plain.ForInstance(nil); return t }() != plain {
		t.Error("ForInstance copied a type without declared outputs")
	}
	for name, want := range map[string]bool{"in": true, "in.features": true, "in.": false, "out.x": false, "x": false} {
		if _, ok := typ.Input(name); ok != want {
			t.Errorf("Input(%q) = %v, want %v", name, ok, want)
		}
	}
}

// TestFingerprintParts: named parts round-trip, and the changes between
// two fingerprints are named; a plain digest has no parts.
func TestFingerprintParts(t *testing.T) {
	a, err := JoinFingerprint(map[string]string{"code b.py": "2", "code a.py": "1", "version": `"1.0"`})
	if err != nil {
		t.Fatal(err)
	}
	if want := "parts\ncode a.py\t1\ncode b.py\t2\nversion\t\"1.0\"\n"; a != want {
		t.Errorf("joined %q, want %q", a, want)
	}
	b, _ := JoinFingerprint(map[string]string{"code a.py": "9", "code c.py": "3", "version": `"1.0"`})
	got, ok := FingerprintChanges(a, b)
	if want := []string{"code a.py changed", "code b.py removed", "code c.py added"}; !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("changes %v (%v), want %v", got, ok, want)
	}
	if _, ok := FingerprintChanges("abc123", b); ok {
		t.Error("a plain digest has parts")
	}
	if _, err := JoinFingerprint(map[string]string{"x": "a\nb"}); err == nil {
		t.Error("a value with a newline joined")
	}
}
