package datasets

import (
	"strings"
	"testing"
)

// SourceParams is the union of the sources' declarations: in source name
// order, a name two sources share listed once with both docs; sources
// that disagree on a parameter, and malformed declarations, are errors.
func TestSourceParams(t *testing.T) {
	seed := ParamSpec{Name: "seed", Kind: ParamInt, Default: 0, Min: Bound(0), Doc: "generator seed"}
	defer RegisterForTest(stubSource{name: "zgen", params: []ParamSpec{
		seed, {Name: "nodes", Kind: ParamInt, Default: 0, Min: Bound(0), Doc: "number of nodes"}}})()
	defer RegisterForTest(stubSource{name: "atext", params: []ParamSpec{
		{Name: "view", Kind: ParamString, Default: "a", Enum: []string{"a", "b"}, Doc: "which graph"},
		{Name: "seed", Kind: ParamInt, Default: 0, Min: Bound(0), Doc: "validation draw"},
		{Name: "frac", Kind: ParamFloat, Default: 0.1, Min: Bound(0), Below: Bound(1)}}})()
	defer RegisterForTest(stubSource{name: "files"})()
	got, err := SourceParams()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, p := range got {
		lines = append(lines, p.Name+" | "+p.Doc)
	}
	want := "view | atext: which graph\nseed | atext: validation draw; zgen: generator seed\nfrac | \nnodes | zgen: number of nodes"
	if s := strings.Join(lines, "\n"); s != want {
		t.Errorf("union:\n%s\nwant\n%s", s, want)
	}
	if got[1].Min == nil || *got[1].Min != 0 || got[2].Below == nil || *got[2].Below != 1 {
		t.Errorf("bounds lost: %+v %+v", got[1], got[2])
	}

	for _, tt := range []struct {
		name string
		spec ParamSpec
		want string
	}{
		{"another default", ParamSpec{Name: "seed", Kind: ParamInt, Default: 1, Min: Bound(0)}, "dataset sources atext and bad declare parameter seed differently"},
		{"another kind", ParamSpec{Name: "seed", Kind: ParamFloat, Default: 0.0, Min: Bound(0)}, "declare parameter seed differently"},
		{"another bound", ParamSpec{Name: "seed", Kind: ParamInt, Default: 0}, "declare parameter seed differently"},
		{"another enum", ParamSpec{Name: "view", Kind: ParamString, Default: "a", Enum: []string{"a"}}, "declare parameter view differently"},
		{"no name", ParamSpec{Kind: ParamInt, Default: 0}, "dataset source bad: a parameter without a name"},
		{"no kind", ParamSpec{Name: "x", Default: 0}, "parameter x: unknown kind 0"},
		{"default of another type", ParamSpec{Name: "x", Kind: ParamFloat, Default: 1}, "parameter x: default 1 is not a float64"},
		{"no default", ParamSpec{Name: "x", Kind: ParamBool}, "parameter x: default <nil> is not a bool"},
		{"enum without its default", ParamSpec{Name: "x", Kind: ParamString, Default: "c", Enum: []string{"a"}}, "an enum is for a string parameter and holds its default"},
		{"bounds of a string", ParamSpec{Name: "x", Kind: ParamString, Default: "", Min: Bound(0)}, "bounds are for a number"},
	} {
		unregister := RegisterForTest(stubSource{name: "bad", params: []ParamSpec{tt.spec}})
		_, err := SourceParams()
		unregister()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}
