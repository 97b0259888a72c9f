package registry

import (
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

func TestAddFunction(t *testing.T) {
	r := New()
	mk := func(string) function.Function {
		return function.New(&function.Spec{Type: function.StaticReturnType(cty.Bool), Impl: func([]cty.Value, cty.Type) (cty.Value, error) { return cty.True, nil }})
	}
	for _, name := range []string{"zeta", "alpha"} {
		if err := r.AddFunction(Function{Name: name, Make: mk}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		f    Function
		want string
	}{{Function{Name: "alpha", Make: mk}, "twice"}, {Function{Name: "", Make: mk}, "needs a name"}, {Function{Name: "beta"}, "needs a name and a Make"}} {
		if err := r.AddFunction(tc.f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddFunction(%q): error %v, want %q", tc.f.Name, err, tc.want)
		}
	}
	fs := r.Functions()
	if len(fs) != 2 || fs[0].Name != "alpha" || fs[1].Name != "zeta" {
		t.Errorf("Functions() = %v, want alpha, zeta", fs)
	}
}
