package registry

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/stages/schema"
)

func TestRange(t *testing.T) {
	cases := []struct {
		r           *Range
		str, req    string
		in, outside []float64
	}{
		{AtLeast(1), "≥ 1", "≥ 1", []float64{1, 2, 1e9}, []float64{0, 0.999, -1, math.NaN()}},
		{Above(0), "> 0", "> 0", []float64{1e-300, 3}, []float64{0, -1}},
		{Between(1, 4096), "1 … 4096", "between 1 and 4096", []float64{1, 4096}, []float64{0, 4097}},
		{AtLeast(0).Below(1), "≥ 0 and < 1", "≥ 0 and < 1", []float64{0, 0.5}, []float64{1, -0.1}},
		{Above(0).AtMost(10), "> 0 and ≤ 10", "> 0 and ≤ 10", []float64{10, 0.1}, []float64{0, 10.5}},
		{Range{}.Below(1), "< 1", "< 1", []float64{-1, 0.99}, []float64{1, 2}},
		{Between(0, 1<<20), "0 … 1048576", "between 0 and 1048576", []float64{1 << 20}, []float64{1<<20 + 1}},
		{nil, "", "", []float64{-1e300, 0, math.NaN()}, nil},
	}
	for _, c := range cases {
		if got := c.r.String(); got != c.str {
			t.Errorf("String() = %q, want %q", got, c.str)
		}
		if got := c.r.Requirement(); got != c.req {
			t.Errorf("Requirement() = %q, want %q", got, c.req)
		}
		for _, x := range c.in {
			if !c.r.Contains(x) {
				t.Errorf("%s should contain %v", c.str, x)
			}
		}
		for _, x := range c.outside {
			if c.r.Contains(x) {
				t.Errorf("%s should not contain %v", c.str, x)
			}
		}
	}
}

func TestFormatNumber(t *testing.T) {
	for x, want := range map[float64]string{1e6: "1000000", 0.5: "0.5", -1: "-1", 1e20: "1e+20", 1e-4: "0.0001"} {
		if got := FormatNumber(x); got != want {
			t.Errorf("FormatNumber(%v) = %q, want %q", x, got, want)
		}
	}
}

func TestRegisterChecksRanges(t *testing.T) {
	run := func(context.Context, *Job) (map[string]artifact.Artifact, error) { return nil, nil }
	out := []Output{{Name: "out", Kind: schema.KindValue}}
	cases := []struct {
		p       Param
		wantErr string
	}{
		{Param{Name: "n", Type: Int, Default: 3, Range: AtLeast(1)}, ""},
		{Param{Name: "n", Type: Int, Required: true, Range: AtLeast(1)}, ""},
		{Param{Name: "n", Type: Int, Default: 0, Range: AtLeast(1)}, `default 0 of "n" is outside its range ≥ 1`},
		{Param{Name: "xs", Type: Floats, Default: []float64{0.5, 2}, Range: Between(0, 1)}, `default 2 of "xs" is outside its range 0 … 1`},
		{Param{Name: "s", Type: String, Default: "a", Range: AtLeast(1)}, "a range needs a numeric type, not string"},
		{Param{Name: "n", Type: Int, Required: true, Range: Above(1).AtMost(1)}, "empty range > 1 and ≤ 1"},
		{Param{Name: "n", Type: Int, Required: true, Range: Between(2, 1)}, "empty range 2 … 1"},
		{Param{Name: "n", Type: Int, Required: true, KeyOmitDefault: true}, `parameter "n" is required, so it has no default to leave out of the key`},
		{Param{Name: "n", Type: Int, Default: 0, KeyOmitDefault: true}, ""},
	}
	for _, c := range cases {
		err := New().Register(&Type{Name: "x", Version: "1", Run: run, Outputs: out, Params: []Param{c.p}})
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%+v: %v", c.p, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%+v: got %v, want an error containing %q", c.p, err, c.wantErr)
		}
	}
}

func TestProblemConstructors(t *testing.T) {
	p := Problemf("name", "Unknown dataset", "no %q", "corra")
	w := Warningf("", "Missing data files", "%d missing", 3)
	if p.Param != "name" || p.Warning || p.Summary != "Unknown dataset" || p.Detail != `no "corra"` {
		t.Errorf("Problemf: %+v", p)
	}
	if w.Param != "" || !w.Warning || w.Detail != "3 missing" {
		t.Errorf("Warningf: %+v", w)
	}
}
