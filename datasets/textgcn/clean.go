package textgcn

import (
	"bytes"
	"strings"
)

// CleanStr is TextGCN's clean_str (utils.py, after Kim's CNN_sentence) applied
// to one raw document read as Latin-1, so every byte is one character:
//
//  1. every character outside [A-Za-z0-9(),!?'`] becomes a space;
//  2. the contractions 's 've n't 're 'd 'll are split off (case-sensitive, in
//     that order);
//  3. , and ! are surrounded by spaces; ( ) ? become " \( ", " \) ", " \? "
//     (Python keeps the backslash of the unknown escape in re.sub's
//     replacement, so TextGCN's cleaned corpora contain the tokens \( \) \?);
//  4. runs of two or more spaces collapse to one, the ends are trimmed and the
//     text is lower-cased.
func CleanStr(raw string) string {
	b := make([]byte, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if cleanKeep(c) {
			b[i] = c
		} else {
			b[i] = ' '
		}
	}
	for _, r := range cleanContractions {
		b = bytes.ReplaceAll(b, r.old, r.new)
	}
	out := make([]byte, 0, len(b)+len(b)/4)
	for _, c := range b {
		switch c {
		case ',', '!':
			out = append(out, ' ', c, ' ')
		case '(', ')', '?':
			out = append(out, ' ', '\\', c, ' ')
		default:
			out = append(out, c)
		}
	}
	// Collapse runs of spaces (the only whitespace left), trim, lower-case.
	w := 0
	for i := 0; i < len(out); i++ {
		c := out[i]
		if c == ' ' && (w == 0 || out[w-1] == ' ') {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[w] = c
		w++
	}
	if w > 0 && out[w-1] == ' ' {
		w--
	}
	return string(out[:w])
}

// cleanKeep reports whether clean_str keeps byte c (regex [A-Za-z0-9(),!?'`]).
func cleanKeep(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '(', ')', ',', '!', '?', '\'', '`':
		return true
	}
	return false
}

var cleanContractions = []struct{ old, new []byte }{
	{[]byte("'s"), []byte(" 's")},
	{[]byte("'ve"), []byte(" 've")},
	{[]byte("n't"), []byte(" n't")},
	{[]byte("'re"), []byte(" 're")},
	{[]byte("'d"), []byte(" 'd")},
	{[]byte("'ll"), []byte(" 'll")},
}

// CleanOptions select TextGCN's word removal (remove_words.py).
type CleanOptions struct {
	// StopWords removes NLTK's English stop words (StopWords).
	StopWords bool
	// MinFreq removes words occurring fewer than MinFreq times in the whole
	// corpus (counted over all documents after CleanStr, stop words
	// included); 0 or 1 keeps every word.
	MinFreq int
}

// CleanOptionsFor returns the word removal TextGCN applies to corpus name:
// stop words and words rarer than minFreq are removed, except for MR ("mr"),
// whose sentences TextGCN only passes through CleanStr.
func CleanOptionsFor(name string, minFreq int) CleanOptions {
	if strings.EqualFold(name, "mr") {
		return CleanOptions{}
	}
	return CleanOptions{StopWords: true, MinFreq: minFreq}
}

// Clean applies CleanStr to every raw document and removes words as opts
// says, returning the cleaned documents (words joined by single spaces) in
// the same order, as TextGCN's remove_words.py writes NAME.clean.txt.
// A document may become empty.
func Clean(raw []string, opts CleanOptions) []string {
	tokens := make([][]string, len(raw))
	freq := make(map[string]int)
	for i, doc := range raw {
		tokens[i] = strings.Fields(CleanStr(doc))
		for _, w := range tokens[i] {
			freq[w]++
		}
	}
	out := make([]string, len(raw))
	var sb strings.Builder
	for i, words := range tokens {
		sb.Reset()
		for _, w := range words {
			if opts.StopWords && IsStopWord(w) {
				continue
			}
			if freq[w] < opts.MinFreq {
				continue
			}
			if sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(w)
		}
		out[i] = sb.String()
	}
	return out
}
