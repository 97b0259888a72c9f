package registry

// DidYouMean returns the candidate closest to name by edit distance when
// it is close enough to be a likely typo, else "".
func DidYouMean(name string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := editDistance(name, c)
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	limit := 2
	switch n := len([]rune(name)); {
	case n <= 2:
		return "" // every short name is "close" to every other
	case n <= 4:
		limit = 1
	}
	if bestDist < 0 || bestDist > limit || best == name {
		return ""
	}
	return best
}

// editDistance is the optimal-string-alignment distance between a and b
// (Levenshtein plus adjacent transpositions, so "epcohs" is one edit from
// "epochs"), by runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
