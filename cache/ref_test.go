package cache

import (
	"slices"
	"testing"
)

func TestOutputID(t *testing.T) {
	cases := []struct {
		in      string
		want    OutputID
		wantErr bool
	}{
		{"abc/features", OutputID{"abc", "features"}, false},
		{"abc/dir/file", OutputID{"abc", "dir/file"}, false},
		{"abc", OutputID{}, true},
		{"/features", OutputID{}, true},
		{"abc/", OutputID{}, true},
		{"", OutputID{}, true},
	}
	for _, c := range cases {
		got, err := ParseOutputID(c.in)
		if (err != nil) != c.wantErr || got != c.want {
			t.Errorf("ParseOutputID(%q) = %v, %v; want %v (error %v)", c.in, got, err, c.want, c.wantErr)
		}
		if err == nil && got.String() != c.in {
			t.Errorf("ParseOutputID(%q).String() = %q", c.in, got.String())
		}
	}
	if id := (OutputRef{Key: "k", Name: "model"}).ID(); id != (OutputID{"k", "model"}) || id.String() != "k/model" {
		t.Errorf("OutputRef.ID() = %v", id)
	}
}

func TestKeyRecordInputKeys(t *testing.T) {
	rec := &KeyRecord{Inputs: map[string][]string{
		"samples": {"k3/samples"}, "features": {"k1/features", "k2/features", "k1/features"}, "none": {},
	}}
	want := []string{"k1", "k2", "k1", "k3"}
	if got := rec.InputKeys(); !slices.Equal(got, want) {
		t.Errorf("InputKeys = %v, want %v", got, want)
	}
}
