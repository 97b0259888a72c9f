package textgcn

import "testing"

// BenchmarkLoad measures Load (read, clean if needed, vocabulary, TF-IDF,
// PPMI) and Adjacency for every real corpus.
func BenchmarkLoad(b *testing.B) {
	root := testRoot(b)
	for _, s := range realStats {
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				c, err := Load(root, s.name, Options{})
				if err != nil {
					b.Fatal(err)
				}
				c.Adjacency()
			}
		})
	}
}
