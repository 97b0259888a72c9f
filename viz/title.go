package viz

import (
	"strings"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// MaxTitleLines is how many lines FitTitle wraps a title into before it
// shortens the last one.
const MaxTitleLines = 3

// FitTitle returns title laid out to fit width when drawn with style (by
// the font metrics gonum/plot draws it with): unchanged when it fits,
// else wrapped at spaces into at most MaxTitleLines lines, a word wider
// than width alone, or a last line that would need more, shortened with
// "…". gonum/plot centres each line of a multi-line title, so a wrapped
// title stays whole inside the plot instead of being cut at both ends.
func FitTitle(style text.Style, title string, width vg.Length) string {
	fits := func(s string) bool { return style.Width(s) <= width }
	if title == "" || fits(title) {
		return title
	}
	words := strings.Fields(title)
	var lines []string
	line := ""
	for i, w := range words {
		switch {
		case line == "":
			line = w
		case fits(line + " " + w):
			line += " " + w
		default:
			if len(lines) == MaxTitleLines-1 {
				// The last line: as much as fits of the rest.
				return strings.Join(append(lines, shorten(line+" "+strings.Join(words[i:], " "), fits)), "\n")
			}
			lines, line = append(lines, shorten(line, fits)), w
		}
	}
	return strings.Join(append(lines, shorten(line, fits)), "\n")
}

// shorten returns s when it fits, else its longest prefix that fits with
// "…" appended, cut at a space when it can be (and after the first word).
func shorten(s string, fits func(string) bool) string {
	if fits(s) {
		return s
	}
	r := []rune(s)
	n := len(r)
	for n > 0 && !fits(strings.TrimRight(string(r[:n]), " ")+"…") {
		n--
	}
	cut := strings.TrimRight(string(r[:n]), " ")
	if i := strings.LastIndexByte(cut, ' '); i > 0 && n < len(r) && r[n] != ' ' {
		cut = strings.TrimRight(cut[:i], " ")
	}
	return cut + "…"
}
