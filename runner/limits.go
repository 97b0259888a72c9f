package runner

import (
	"bytes"
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// MaxNesting bounds how deeply brackets, braces, parentheses, strings and
// template interpolations may nest in HCL source. The HCL parser recurses
// once per level and a deep enough input (about 70 000 levels) overflows
// the goroutine stack, a fatal error no recover can catch
// (hashicorp/hcl#809), so sources are scanned for their depth before they
// are parsed. Real pipelines nest fewer than 20 levels.
const MaxNesting = 256

// CheckNesting scans HCL source (a configuration file, or an expression
// such as a -var value) and returns an error diagnostic at the first place
// where the nesting exceeds MaxNesting, else nil. It follows comments,
// quoted strings with their escapes, heredocs and ${…}/%{…} templates well
// enough to count depth; malformed input is left to the parser.
func CheckNesting(src []byte, filename string) hcl.Diagnostics {
	type frame struct {
		kind byte   // '(', '[', '{' brackets; 's' quoted string; 'h' heredoc; 'i' template interpolation
		term []byte // heredoc terminator
	}
	var stack []frame
	line, col := 1, 1
	advance := func(n int, i int) {
		for k := i; k < i+n && k < len(src); k++ {
			if src[k] == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
	}
	push := func(f frame, i int) hcl.Diagnostics {
		stack = append(stack, f)
		if len(stack) > MaxNesting {
			pos := hcl.Pos{Line: line, Column: col, Byte: i}
			return hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Nesting too deep",
				Detail:   fmt.Sprintf("Brackets, strings and templates nest more than %d levels deep here; hylaflow refuses such input before parsing it (the HCL parser would overflow its stack).", MaxNesting),
				Subject:  &hcl.Range{Filename: filename, Start: pos, End: pos},
			}}
		}
		return nil
	}
	atLineStart := true
	for i := 0; i < len(src); {
		top := byte(0)
		if len(stack) > 0 {
			top = stack[len(stack)-1].kind
		}
		c := src[i]
		rest := src[i:]
		n := 1
		switch top {
		case 's', 'h':
			if top == 'h' && atLineStart {
				end := bytes.IndexByte(rest, '\n')
				if end < 0 {
					end = len(rest)
				}
				if bytes.Equal(bytes.TrimSpace(rest[:end]), stack[len(stack)-1].term) {
					stack = stack[:len(stack)-1]
					n = end
					break
				}
			}
			switch {
			case top == 's' && c == '\\' && len(rest) > 1:
				n = 2
			case top == 's' && c == '"':
				stack = stack[:len(stack)-1]
			case bytes.HasPrefix(rest, []byte("$${")) || bytes.HasPrefix(rest, []byte("%%{")):
				n = 3
			case bytes.HasPrefix(rest, []byte("${")) || bytes.HasPrefix(rest, []byte("%{")):
				if d := push(frame{kind: 'i'}, i); d != nil {
					return d
				}
				n = 2
			}
		default:
			switch {
			case c == '#' || bytes.HasPrefix(rest, []byte("//")):
				end := bytes.IndexByte(rest, '\n')
				if end < 0 {
					end = len(rest)
				}
				n = end
			case bytes.HasPrefix(rest, []byte("/*")):
				end := bytes.Index(rest[2:], []byte("*/"))
				if end < 0 {
					n = len(rest)
				} else {
					n = end + 4
				}
			case c == '"':
				if d := push(frame{kind: 's'}, i); d != nil {
					return d
				}
			case bytes.HasPrefix(rest, []byte("<<")):
				j := 2
				if j < len(rest) && rest[j] == '-' {
					j++
				}
				k := j
				for k < len(rest) && (rest[k] == '_' || rest[k] >= 'a' && rest[k] <= 'z' || rest[k] >= 'A' && rest[k] <= 'Z' || rest[k] >= '0' && rest[k] <= '9') {
					k++
				}
				nl := bytes.IndexByte(rest, '\n')
				if k > j && nl >= k && len(bytes.TrimSpace(rest[k:nl])) == 0 {
					if d := push(frame{kind: 'h', term: append([]byte(nil), rest[j:k]...)}, i); d != nil {
						return d
					}
					n = nl + 1
				} else {
					n = 2
				}
			case c == '(' || c == '[' || c == '{':
				if d := push(frame{kind: c}, i); d != nil {
					return d
				}
			case c == ')' || c == ']' || c == '}':
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
			}
		}
		if n < 1 {
			n = 1
		}
		advance(n, i)
		i += n
		atLineStart = i > 0 && src[i-1] == '\n'
	}
	return nil
}
