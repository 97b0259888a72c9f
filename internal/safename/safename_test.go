package safename

import (
	"strings"
	"testing"
)

func TestReadable(t *testing.T) {
	for in, want := range map[string]string{
		`evaluate.reddit["synthetic"]`: "evaluate.reddit-synthetic",
		"table1":                       "table1",
		"a b":                          "a-b",
		"a/b":                          "a-b",
		"a?b":                          "a-b",
		"../../etc/passwd":             "etc-passwd",
		"..":                           "_",
		"":                             "_",
		".hidden":                      "hidden",
		"naïve\x1b[31m":                "na-ve-31m",
		"lr=0.01,k=2":                  "lr=0.01,k=2",
	} {
		if got := Readable(in); got != want {
			t.Errorf("Readable(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Readable(strings.Repeat("x", 300)); len(got) != 200 {
		t.Errorf("a 300-byte input gives %d bytes, want 200", len(got))
	}
}

func TestNames(t *testing.T) {
	inputs := []string{`evaluate.t["a b"]`, `evaluate.t["a/b"]`, `evaluate.t["a?b"]`, "Table", "table", "other", "other"}
	got, err := Names(inputs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		`evaluate.t["a b"]`: "evaluate.t-a-b~",
		`evaluate.t["a/b"]`: "evaluate.t-a-b~",
		`evaluate.t["a?b"]`: "evaluate.t-a-b~",
		"Table":             "Table~",
		"table":             "table~",
		"other":             "other",
	}
	if len(got) != len(want) {
		t.Fatalf("Names: %d names %v, want %d", len(got), got, len(want))
	}
	seen := map[string]bool{}
	for in, prefix := range want {
		name := got[in]
		if !strings.HasPrefix(name, prefix) || strings.HasSuffix(prefix, "~") && len(name) != len(prefix)+10 {
			t.Errorf("%q → %q, want %q plus 10 hex digits if it ends in ~", in, name, prefix)
		}
		if seen[strings.ToLower(name)] {
			t.Errorf("%q → %q is not distinct", in, name)
		}
		seen[strings.ToLower(name)] = true
		if strings.ContainsAny(name, `/\?"* `) || strings.HasPrefix(name, ".") {
			t.Errorf("%q → %q is not a safe name", in, name)
		}
	}
	// The same input gets the same name whatever the other inputs' order.
	rev := make([]string, len(inputs))
	for i, s := range inputs {
		rev[len(inputs)-1-i] = s
	}
	got2, err := Names(rev)
	if err != nil {
		t.Fatal(err)
	}
	for in, name := range got {
		if got2[in] != name {
			t.Errorf("%q → %q, then %q in another order", in, name, got2[in])
		}
	}
}
