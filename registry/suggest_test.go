package registry

import "testing"

func TestEditDistance(t *testing.T) {
	dists := []struct {
		a, b string
		d    int
	}{{"", "abc", 3}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"λx", "xλ", 1}, {"same", "same", 0}}
	for _, c := range dists {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	cands := []string{"cora", "citeseer", "pubmed", "airport", "disease_nc"}
	cases := []struct{ in, want string }{
		{"corra", "cora"}, {"cor", "cora"}, {"pubmd", "pubmed"}, {"airprot", "airport"},
		{"disease_cn", "disease_nc"}, {"reddit", ""}, {"cora", ""}, {"co", ""},
	}
	for _, c := range cases {
		if got := DidYouMean(c.in, cands); got != c.want {
			t.Errorf("DidYouMean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
