package registry

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// codecType declares one parameter of every type.
func codecType() *Type {
	return &Type{Name: "t", Version: "1", Params: []Param{
		{Name: "s", Type: String, Default: ""}, {Name: "i", Type: Int, Default: 0},
		{Name: "f", Type: Float, Default: 0.0}, {Name: "b", Type: Bool, Default: false},
		{Name: "ss", Type: Strings, Default: []string{}}, {Name: "is", Type: Ints, Default: []int{}},
		{Name: "fs", Type: Floats, Default: []float64{}}, {Name: "p", Type: Path, Default: ""},
	}}
}

// TestEncodeParams pins the canonical encoding cache keys are computed
// from: a change here changes every key.
func TestEncodeParams(t *testing.T) {
	v := Values{"s": "a \"q\" <b> ü", "i": -7, "f": 0.1, "b": true, "ss": []string{"x", ""},
		"is": []int{1, -2}, "fs": []float64{1e-300, 2.5}, "p": "/data/x"}
	want := map[string]string{"s": `"a \"q\" <b> ü"`, "i": "-7", "f": "0.1", "b": "true", "ss": `["x",""]`,
		"is": "[1,-2]", "fs": "[1e-300,2.5]", "p": `"/data/x"`}
	enc, err := EncodeParams(codecType(), v)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(enc) != fmt.Sprint(want) {
		t.Errorf("EncodeParams = %v\nwant %v", enc, want)
	}
	dec, err := DecodeParams(codecType(), enc)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(dec) != fmt.Sprint(v) {
		t.Errorf("round trip %v, want %v", dec, v)
	}

	// Nil lists encode as empty ones; whole floats without a fraction.
	v = Values{"s": "", "i": 0, "f": 3.0, "b": false, "ss": []string(nil), "is": []int(nil), "fs": []float64(nil), "p": ""}
	enc, err = EncodeParams(codecType(), v)
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]string{"ss": "[]", "is": "[]", "fs": "[]", "f": "3"} {
		if enc[name] != w {
			t.Errorf("%s encoded as %s, want %s", name, enc[name], w)
		}
	}
}

// TestKeyOmitDefault: a parameter added with KeyOmitDefault leaves the
// encoding (so every existing key) as it was while it holds its default,
// enters it otherwise, and decodes to its default when the record lacks it.
func TestKeyOmitDefault(t *testing.T) {
	old := codecType()
	added := codecType()
	added.Params = append(added.Params,
		Param{Name: "att", Type: Bool, Default: false, KeyOmitDefault: true},
		Param{Name: "k", Type: Float, Default: 2.0, KeyOmitDefault: true},
		Param{Name: "tags", Type: Strings, Default: []string{}, KeyOmitDefault: true})
	base := Values{"s": "x", "i": 3, "f": 0.5, "b": true, "ss": []string{"a"}, "is": []int{}, "fs": []float64{1}, "p": ""}
	encOld, err := EncodeParams(old, base)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		att   bool
		k     float64
		tags  []string
		extra map[string]string // the entries beyond the old type's
	}{
		{false, 2, []string{}, nil},
		{false, 2, nil, nil}, // nil encodes as the default's []
		{true, 2, []string{}, map[string]string{"att": "true"}},
		{false, 0.5, []string{"t"}, map[string]string{"k": "0.5", "tags": `["t"]`}},
	}
	for _, c := range cases {
		v := Values{"att": c.att, "k": c.k, "tags": c.tags}
		for name, x := range base {
			v[name] = x
		}
		enc, err := EncodeParams(added, v)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		want := map[string]string{}
		for name, x := range encOld {
			want[name] = x
		}
		for name, x := range c.extra {
			want[name] = x
		}
		if fmt.Sprint(enc) != fmt.Sprint(want) {
			t.Errorf("%+v: encoded %v\nwant %v", c, enc, want)
		}
		dec, err := DecodeParams(added, enc)
		if err != nil {
			t.Fatalf("%+v: decode: %v", c, err)
		}
		if got, want := fmt.Sprint(dec["att"], dec["k"], dec["tags"]), fmt.Sprint(c.att, c.k, c.tags); got != want {
			t.Errorf("%+v: decoded %s, want %s", c, got, want)
		}
	}
}

func TestEncodeParamsErrors(t *testing.T) {
	full := func(name string, x any) Values {
		v := Values{"s": "", "i": 0, "f": 0.0, "b": false, "ss": []string{}, "is": []int{}, "fs": []float64{}, "p": ""}
		v[name] = x
		return v
	}
	cases := []struct {
		v    Values
		want string
	}{
		{Values{"s": "x"}, `parameter "i" of stage type "t" has no value`},
		{full("s", 1), `parameter "s" of stage type "t": value 1 (int) is not a string`},
		{full("f", math.NaN()), `parameter "f" of stage type "t": NaN is not a finite number`},
		{full("fs", []float64{1, math.Inf(-1)}), `parameter "fs" of stage type "t": element 1 (-Inf) is not a finite number`},
		{full("extra", 1), `stage type "t" has no parameter "extra"`},
	}
	for _, c := range cases {
		_, err := EncodeParams(codecType(), c.v)
		if err == nil || err.Error() != c.want {
			t.Errorf("EncodeParams(%v) error %v, want %q", c.v, err, c.want)
		}
	}
}

func TestDecodeParamsErrors(t *testing.T) {
	good := map[string]string{"s": `""`, "i": "0", "f": "0", "b": "false", "ss": "[]", "is": "[]", "fs": "[]", "p": `""`}
	cases := []struct {
		name, raw, want string
	}{
		{"i", "1.5", `parameter "i" (int) of stage type "t": value 1.5:`},
		{"b", `"true"`, `parameter "b" (bool) of stage type "t"`},
		{"is", "[1] [2]", "trailing data after the value"},
		{"extra", "1", `the key record has parameter "extra", which stage type "t" does not declare`},
	}
	for _, c := range cases {
		enc := map[string]string{}
		for k, v := range good {
			enc[k] = v
		}
		enc[c.name] = c.raw
		if _, err := DecodeParams(codecType(), enc); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("DecodeParams(%s = %s) error %v, want it to contain %q", c.name, c.raw, err, c.want)
		}
	}
	delete(good, "s")
	if _, err := DecodeParams(codecType(), good); err == nil || !strings.Contains(err.Error(), `parameter "s" of stage type "t" is missing`) {
		t.Errorf("missing parameter: %v", err)
	}
}

func TestFromCty(t *testing.T) {
	nums := func(xs ...float64) cty.Value {
		var vs []cty.Value
		for _, x := range xs {
			vs = append(vs, cty.NumberFloatVal(x))
		}
		return cty.ListVal(vs)
	}
	cases := []struct {
		p       Param
		v       cty.Value
		want    string // fmt.Sprint of the value
		wantErr string
	}{
		{Param{Type: String}, cty.StringVal("x"), "x", ""},
		{Param{Type: String, Enum: []string{"sum", "mean"}}, cty.StringVal("mean"), "mean", ""},
		{Param{Type: String, Enum: []string{"sum", "mean"}}, cty.StringVal("maen"), "", `must be one of "sum", "mean"; got "maen". Did you mean "mean"?`},
		{Param{Type: Path}, cty.StringVal("data/x"), "data/x", ""},
		{Param{Type: Bool}, cty.True, "true", ""},
		{Param{Type: Int}, cty.NumberIntVal(-3), "-3", ""},
		{Param{Type: Int}, cty.NumberFloatVal(2.5), "", "must be a whole number, got 2.5"},
		{Param{Type: Int, Range: AtLeast(1)}, cty.NumberIntVal(0), "", "must be ≥ 1, got 0"},
		{Param{Type: Int}, cty.MustParseNumberVal("1e30"), "", "is out of range: 1e+30"},
		{Param{Type: Float}, cty.NumberFloatVal(0.1), "0.1", ""},
		{Param{Type: Float, Range: Above(0)}, cty.NumberFloatVal(0), "", "must be > 0, got 0"},
		{Param{Type: Float}, cty.MustParseNumberVal("1e400"), "", "is out of range: 1e+400"},
		{Param{Type: Strings}, cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}), "[a b]", ""},
		{Param{Type: Ints}, nums(1, 2), "[1 2]", ""},
		{Param{Type: Ints}, nums(1, 2.5), "", "element 1 must be a whole number, got 2.5"},
		{Param{Type: Ints, Range: Between(1, 4)}, nums(1, 5), "", "element 1 must be between 1 and 4, got 5"},
		{Param{Type: Floats}, nums(0.5, -1), "[0.5 -1]", ""},
		{Param{Type: Floats, Range: AtLeast(0)}, nums(0.5, -1), "", "element 1 must be ≥ 0, got -1"},
		{Param{Type: "matrix"}, cty.StringVal("x"), "", `has an unsupported type "matrix"`},
	}
	for _, c := range cases {
		got, err := c.p.FromCty(c.v)
		switch {
		case c.wantErr != "":
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%s FromCty(%#v) error %v, want %q", c.p.Type, c.v, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("%s FromCty(%#v): %v", c.p.Type, c.v, err)
		case fmt.Sprint(got) != c.want:
			t.Errorf("%s FromCty(%#v) = %v, want %s", c.p.Type, c.v, got, c.want)
		default:
			if err := checkValue(c.p.Type, got); err != nil {
				t.Errorf("%s FromCty(%#v) gave a value of the wrong Go type: %v", c.p.Type, c.v, err)
			}
		}
	}
}

func TestParamTypeTable(t *testing.T) {
	cases := []struct {
		pt       ParamType
		cty      cty.Type
		friendly string
	}{
		{String, cty.String, "a string"}, {Path, cty.String, "a path (string)"}, {Int, cty.Number, "a whole number"},
		{Float, cty.Number, "a number"}, {Bool, cty.Bool, "a bool"}, {Strings, cty.List(cty.String), "a list of strings"},
		{Ints, cty.List(cty.Number), "a list of whole numbers"}, {Floats, cty.List(cty.Number), "a list of numbers"},
		{Blocks, cty.DynamicPseudoType, "blocks"},
	}
	for _, c := range cases {
		if !c.pt.Known() || !c.pt.CtyType().Equals(c.cty) || c.pt.Friendly() != c.friendly {
			t.Errorf("%s: known %v, cty %#v, friendly %q", c.pt, c.pt.Known(), c.pt.CtyType(), c.pt.Friendly())
		}
	}
	if len(cases) != len(codecs) {
		t.Errorf("%d parameter types in the codec table, %d tested", len(codecs), len(cases))
	}
	if ParamType("x").Known() || ParamType("x").CtyType() != cty.NilType || ParamType("x").Friendly() != "x" {
		t.Error("an unknown type is known")
	}
}

func TestComplete(t *testing.T) {
	typ := &Type{Name: "t", Version: "1", Params: []Param{
		{Name: "n", Type: Int, Required: true}, {Name: "xs", Type: Floats, Default: []float64{1, 2}},
	}}
	full, err := typ.Complete(Values{"n": 3})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(full) != "map[n:3 xs:[1 2]]" {
		t.Errorf("Complete = %v", full)
	}
	full.Floats("xs")[0] = 9
	if typ.Params[1].Default.([]float64)[0] != 1 {
		t.Error("Complete shares the default's slice")
	}
	for _, c := range []struct {
		v    Values
		want string
	}{
		{Values{}, `parameter "n" of stage type "t" is required`},
		{Values{"n": 1, "m": 2}, `stage type "t" has no parameter "m"`},
	} {
		if _, err := typ.Complete(c.v); err == nil || err.Error() != c.want {
			t.Errorf("Complete(%v) error %v, want %q", c.v, err, c.want)
		}
	}
}

func TestCloneValue(t *testing.T) {
	for _, v := range []any{[]string{"a"}, []int{1}, []float64{1}} {
		c := CloneValue(v)
		if fmt.Sprint(c) != fmt.Sprint(v) {
			t.Errorf("CloneValue(%v) = %v", v, c)
		}
		switch x := c.(type) {
		case []string:
			x[0] = "b"
		case []int:
			x[0] = 2
		case []float64:
			x[0] = 2
		}
		if fmt.Sprint(c) == fmt.Sprint(v) {
			t.Errorf("CloneValue(%v) shares storage", v)
		}
	}
	if CloneValue(3) != 3 || CloneValue("s") != "s" {
		t.Error("CloneValue changed a scalar")
	}
}

func TestQuoteList(t *testing.T) {
	for _, c := range []struct {
		xs    []string
		limit int
		want  string
	}{
		{nil, 3, "(none)"},
		{[]string{"a", "b"}, 3, `"a", "b"`},
		{[]string{"a", "b", "c", "d"}, 2, `"a", "b", … (4 in all)`},
	} {
		if got := QuoteList(c.xs, c.limit); got != c.want {
			t.Errorf("QuoteList(%q, %d) = %s, want %s", c.xs, c.limit, got, c.want)
		}
	}
}
