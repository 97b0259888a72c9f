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
	for _, tc := range []struct {
		cands []string
		cases []struct{ in, want string }
	}{
		{[]string{"cora", "citeseer", "pubmed", "airport", "disease_nc"}, []struct{ in, want string }{
			{"corra", "cora"}, {"cor", "cora"}, {"pubmd", "pubmed"}, {"airprot", "airport"},
			{"disease_cn", "disease_nc"}, {"reddit", ""}, {"cora", ""}, {"co", ""},
		}},
		{[]string{"epochs", "seed", "lr", "dataset", "lambda_scale"}, []struct{ in, want string }{
			{"epocs", "epochs"}, {"epcohs", "epochs"}, {"sede", "seed"}, {"datset", "dataset"},
			{"lambda_scael", "lambda_scale"}, {"zzzzzz", ""}, {"l", ""}, {"epochs", ""},
		}},
	} {
		for _, c := range tc.cases {
			if got := DidYouMean(c.in, tc.cands); got != c.want {
				t.Errorf("DidYouMean(%q) = %q, want %q", c.in, got, c.want)
			}
		}
	}
}
