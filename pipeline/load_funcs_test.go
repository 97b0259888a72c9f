package pipeline

import (
	"testing"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// Issue 35: toset's shortcut gives what the standard conversion gives, for
// the arguments it takes (tuples and lists of one primitive type) and for
// those it hands on (mixed types, nulls, unknowns, marks, empty, sets).
func TestToSetSameAsStdlib(t *testing.T) {
	std := stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType))
	strs := func(ss ...string) []cty.Value {
		var out []cty.Value
		for _, s := range ss {
			out = append(out, cty.StringVal(s))
		}
		return out
	}
	tests := []struct {
		name     string
		arg      cty.Value
		shortcut bool
	}{
		{"tuple of strings", cty.TupleVal(strs("b", "a", "c")), true},
		{"tuple with duplicates", cty.TupleVal(strs("a", "b", "a")), true},
		{"tuple of numbers", cty.TupleVal([]cty.Value{cty.NumberIntVal(3), cty.NumberFloatVal(0.5), cty.NumberIntVal(3)}), true},
		{"tuple of bools", cty.TupleVal([]cty.Value{cty.True, cty.False, cty.True}), true},
		{"list of strings", cty.ListVal(strs("x", "y")), true},
		{"mixed tuple", cty.TupleVal([]cty.Value{cty.StringVal("1"), cty.NumberIntVal(1), cty.NumberIntVal(2)}), false},
		{"tuple with a null", cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.NullVal(cty.String)}), false},
		{"tuple with an unknown", cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.UnknownVal(cty.String)}), false},
		{"tuple with a mark", cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b").Mark("secret")}), false},
		{"empty tuple", cty.EmptyTupleVal, false},
		{"tuple of lists", cty.TupleVal([]cty.Value{cty.ListVal(strs("a")), cty.ListVal(strs("b"))}), false},
		{"set", cty.SetVal(strs("a", "b")), false},
		{"null list", cty.NullVal(cty.List(cty.String)), false},
		{"unknown list", cty.UnknownVal(cty.List(cty.String)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := uniformPrimitives(tt.arg); got != tt.shortcut {
				t.Errorf("uniformPrimitives = %v, want %v", got, tt.shortcut)
			}
			want, wantErr := std.Call([]cty.Value{tt.arg})
			got, gotErr := toSetFunc.Call([]cty.Value{tt.arg})
			if (gotErr != nil) != (wantErr != nil) {
				t.Fatalf("error %v, standard %v", gotErr, wantErr)
			}
			if wantErr != nil {
				return
			}
			if !got.RawEquals(want) {
				t.Errorf("toset = %#v, standard %#v", got, want)
			}
		})
	}
}
