package table

import (
	"math"
	"strings"
	"testing"
)

func ptr(v float64) *float64 { return &v }

// TestSummarize checks the mean and the sample std against values whose
// std is known in closed form.
func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []float64
		mean   float64
		std    *float64
	}{
		{"none", nil, 0, nil},
		{"one value: no spread", []float64{72.1}, 72.1, nil},
		{"two values", []float64{70, 72}, 71, ptr(math.Sqrt(2))},
		// Σ(x−5)² = 32 over n−1 = 7 (the population std would be 2).
		{"eight values", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, ptr(math.Sqrt(32.0 / 7))},
		{"equal values", []float64{66, 66, 66}, 66, ptr(0)},
		{"80, 82, 84", []float64{80, 82, 84}, 82, ptr(2)},
	} {
		s := Summarize(tc.values)
		if s.N != len(tc.values) || math.Abs(s.Mean-tc.mean) > 1e-12 {
			t.Errorf("%s: mean %v over %d, want %v over %d", tc.name, s.Mean, s.N, tc.mean, len(tc.values))
		}
		switch {
		case tc.std == nil && s.Std != nil:
			t.Errorf("%s: std %v, want none", tc.name, *s.Std)
		case tc.std != nil && (s.Std == nil || math.Abs(*s.Std-*tc.std) > 1e-12):
			t.Errorf("%s: std %v, want %v", tc.name, s.Std, *tc.std)
		}
	}
}

func TestSpreadText(t *testing.T) {
	for _, tc := range []struct {
		s     Spread
		prec  int
		text  string
		textN string
	}{
		{Spread{Mean: 72.06, Std: ptr(0.354), N: 3}, 1, "72.1 ± 0.4", "72.1 ± 0.4 (n = 3)"},
		{Spread{Mean: 72.06, Std: ptr(0.354), N: 3}, 2, "72.06 ± 0.35", "72.06 ± 0.35 (n = 3)"},
		{Spread{Mean: 72.1, N: 1}, 1, "72.1 (n = 1)", "72.1 (n = 1)"},
		// A single run never shows a std, even one given as 0.
		{Spread{Mean: 75, Std: ptr(0), N: 1}, 2, "75.00 (n = 1)", "75.00 (n = 1)"},
		// The paper's Reddit cells: a mean without std, count unknown.
		{Spread{Mean: 94.9}, 1, "94.9", "94.9"},
		{Spread{Mean: 82.5, Std: ptr(0.5)}, 1, "82.5 ± 0.5", "82.5 ± 0.5"},
		{Spread{Mean: 66, Std: ptr(0), N: 10}, 1, "66.0 ± 0.0", "66.0 ± 0.0 (n = 10)"},
		{Spread{Mean: 0.8123, Std: ptr(0.01234), N: 2}, 4, "0.8123 ± 0.0123", "0.8123 ± 0.0123 (n = 2)"},
	} {
		if got := tc.s.Text(tc.prec); got != tc.text {
			t.Errorf("%+v.Text(%d) = %q, want %q", tc.s, tc.prec, got, tc.text)
		}
		if got := tc.s.TextN(tc.prec); got != tc.textN {
			t.Errorf("%+v.TextN(%d) = %q, want %q", tc.s, tc.prec, got, tc.textN)
		}
	}
	for _, tc := range []struct {
		v    float64
		want string
	}{{0.4, "+0.4"}, {-2.14, "-2.1"}, {0, "+0.0"}, {math.Copysign(0, -1), "+0.0"}, {-0.04, "-0.0"}} {
		if got := Signed(tc.v, 1); got != tc.want {
			t.Errorf("Signed(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestParse: a document of evaluate version ≤ 3 (population std, no
// std_ddof, no column order) is read with the sample std and the order in
// which its cells name datasets and models; a version-4 document as it is;
// an unknown convention or a malformed document is an error naming
// table.json.
func TestParse(t *testing.T) {
	old := `{"title":"T","metric":"test accuracy","unit":"percent","cells":[
		{"dataset":"cora","model":"sgc","runs":2,"mean":81,"std":1,"status":"ok"},
		{"dataset":"cora","model":"hyla-sgc","runs":1,"mean":80,"std":0,"status":"ok"},
		{"dataset":"pubmed","model":"hyla-sgc","runs":0,"mean":null,"std":null,"status":"missing (no runs)"}]}`
	d, err := Parse([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if d.StdDDOF != SampleDDOF || strings.Join(d.Datasets, ",") != "cora,pubmed" || strings.Join(d.Models, ",") != "sgc,hyla-sgc" {
		t.Errorf("old document: ddof %d, datasets %v, models %v", d.StdDDOF, d.Datasets, d.Models)
	}
	if c := d.Cell("cora", "sgc"); c == nil || c.Std == nil || math.Abs(*c.Std-math.Sqrt(2)) > 1e-12 {
		t.Errorf("old population std 1 over 2 runs: got %+v, want the sample std √2", c)
	}
	if c := d.Cell("cora", "hyla-sgc"); c == nil || c.Std != nil || c.Result() != "80.0 (n = 1)" {
		t.Errorf("one run: got %+v, want no std", c)
	}
	if c := d.Cell("pubmed", "hyla-sgc"); c == nil || c.Result() != "no runs" {
		t.Errorf("missing cell: got %+v", c)
	}

	b, err := Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"std_ddof": 1`) || !strings.HasSuffix(string(b), "}\n") {
		t.Errorf("Marshal: %s", b)
	}
	again, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if c := again.Cell("cora", "sgc"); c == nil || math.Abs(*c.Std-math.Sqrt(2)) > 1e-12 {
		t.Errorf("a version-4 document is converted again: %+v", c)
	}

	for _, bad := range []string{`{"std_ddof": 2, "cells": []}`, `{"cells": 3}`, `{"cells":[{"runs":-1}]}`, `not json`} {
		if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), "table.json") {
			t.Errorf("Parse(%s): error %v, want one naming table.json", bad, err)
		}
	}
}
