package pipeline

import (
	"bytes"
	"fmt"
	"os"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// MaxStringBytes bounds the length of one string: a quoted literal or a
// heredoc in a source, a -var value, and every string a variable, a local
// value or a stage parameter evaluates to. Real pipelines hold strings of
// a few hundred bytes; a parameter string is copied into every instance,
// its cache key and the index, so a long one multiplies.
const MaxStringBytes = 1 << 20

// DefaultMaxInstances bounds the number of stage instances of a pipeline,
// all blocks together (one block is bounded by the same number on its
// own). Planning costs about 140 µs and 4 KB per instance, so 100 000
// instances plan in about 15 s; the paper's largest table has 1 248.
// HYLAFLOW_MAX_INSTANCES (or LoadOptions.MaxInstances) raises or lowers it.
const DefaultMaxInstances = 100000

// MaxInstancesEnv names the environment variable that overrides
// DefaultMaxInstances.
const MaxInstancesEnv = "HYLAFLOW_MAX_INSTANCES"

// maxInstancesFrom returns the total instance cap: opt when positive, else
// the environment's HYLAFLOW_MAX_INSTANCES, else DefaultMaxInstances.
func maxInstancesFrom(opt int) (int, error) {
	if opt > 0 {
		return opt, nil
	}
	env := os.Getenv(MaxInstancesEnv)
	if env == "" {
		return DefaultMaxInstances, nil
	}
	n, err := strconv.Atoi(env)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s=%q is not a whole number ≥ 1", MaxInstancesEnv, env)
	}
	return n, nil
}

// longString returns the length of the first string in v (at any depth)
// longer than MaxStringBytes, or 0 when there is none.
func longString(v cty.Value) int {
	if v == cty.NilVal || !v.IsWhollyKnown() || v.IsNull() {
		return 0
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		if n := len(v.AsString()); n > MaxStringBytes {
			return n
		}
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType() || ty.IsMapType() || ty.IsObjectType():
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			if n := longString(k); n > 0 {
				return n
			}
			if n := longString(e); n > 0 {
				return n
			}
		}
	}
	return 0
}

// stringTooLong is the detail of a diagnostic about a string of n bytes
// in what ("the value of variable \"x\"").
func stringTooLong(what string, n int) string {
	return fmt.Sprintf("%s holds a string of %d bytes, more than the limit of %d (1 MiB); pipelines pass names, paths and short texts, and read data from files.", what, n, MaxStringBytes)
}

// MaxNesting bounds how deeply brackets, braces, parentheses, strings and
// template interpolations may nest in HCL source. The HCL parser recurses
// once per level and a deep enough input (about 70 000 levels) overflows
// the goroutine stack, a fatal error no recover can catch
// (hashicorp/hcl#809), so sources are scanned for their depth before they
// are parsed. Real pipelines nest fewer than 20 levels.
const MaxNesting = 256

// CheckNesting scans HCL source (a configuration file, or an expression
// such as a -var value) and returns an error diagnostic at the first place
// where the nesting exceeds MaxNesting, or at the start of the first quoted
// string or heredoc longer than MaxStringBytes, else nil. It follows comments,
// quoted strings with their escapes, heredocs and ${…}/%{…} templates well
// enough to count depth; malformed input is left to the parser.
func CheckNesting(src []byte, filename string) hcl.Diagnostics {
	type frame struct {
		kind  byte   // '(', '[', '{' brackets; 's' quoted string; 'h' heredoc; 'i' template interpolation
		term  []byte // heredoc terminator
		start int    // byte offset where a string or heredoc starts
		pos   hcl.Pos
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
	// pop ends the innermost frame at byte i; a string or heredoc longer
	// than MaxStringBytes is an error at its start.
	pop := func(i int) hcl.Diagnostics {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := i - f.start - 1 // a quoted string's contents; a heredoc's from its <<
		if (f.kind == 's' || f.kind == 'h') && n > MaxStringBytes {
			what := "This string"
			if f.kind == 'h' {
				what = "This heredoc"
			}
			return hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "String too long",
				Detail:   stringTooLong(what, n),
				Subject:  &hcl.Range{Filename: filename, Start: f.pos, End: f.pos},
			}}
		}
		return nil
	}
	push := func(f frame, i int) hcl.Diagnostics {
		f.start, f.pos = i, hcl.Pos{Line: line, Column: col, Byte: i}
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
					if d := pop(i); d != nil {
						return d
					}
					n = end
					break
				}
			}
			switch {
			case top == 's' && c == '\\' && len(rest) > 1:
				n = 2
			case top == 's' && c == '"':
				if d := pop(i); d != nil {
					return d
				}
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
