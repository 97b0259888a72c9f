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

// The commands' KEY[/OUTPUT]: the output may be left out, the key be a prefix.
func TestParseOutputRef(t *testing.T) {
	for _, c := range []struct {
		in   string
		want OutputID
	}{
		{"3fa2", OutputID{"3fa2", ""}},
		{"3fa2/features", OutputID{"3fa2", "features"}},
		{"3fa2/", OutputID{"3fa2", ""}},
		{"3fa2/dir/file", OutputID{"3fa2", "dir/file"}},
		{"", OutputID{}},
	} {
		if got := ParseOutputRef(c.in); got != c.want {
			t.Errorf("ParseOutputRef(%q) = %#v, want %#v", c.in, got, c.want)
		}
	}
}
