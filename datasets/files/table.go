package files

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Error is a problem in one of the user's files: the file's name (relative
// to the dataset's path), the line (CSV and text files) or member (npz),
// and what was expected.
type Error struct {
	File   string
	Line   int    // 1-based; 0 when the problem is not on one line
	Member string // npz member, "" otherwise
	Msg    string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.Member != "":
		return fmt.Sprintf("%s: member %s: %s", e.File, e.Member, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func errAt(file string, line int, format string, args ...any) error {
	return &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// maxLine bounds one line of a table (a features.csv row of 100k columns
// fits); a longer line is an error, not an allocation the file dictates.
const maxLine = 64 << 20

// openText opens a text file, decompressing it when its name ends in .gz.
func openText(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(path, ".gz") {
		return f, nil
	}
	z, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: not a gzip file: %w", path, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{z, f}, nil
}

// delimiter says how a table's fields are separated: ',' or '\t', or 0 for
// runs of spaces and tabs.
type delimiter byte

// detectDelimiter looks at a table's first data line: a comma makes it
// comma-separated, else a tab tab-separated, else whitespace-separated.
func detectDelimiter(line []byte) delimiter {
	switch {
	case bytes.IndexByte(line, ',') >= 0:
		return ','
	case bytes.IndexByte(line, '\t') >= 0:
		return '\t'
	}
	return 0
}

// split appends the fields of line to dst: separated by d, each trimmed of
// surrounding spaces and of one pair of enclosing double quotes (as pandas
// writes string ids). Commas inside quotes are not supported.
func (d delimiter) split(dst [][]byte, line []byte) [][]byte {
	dst = dst[:0]
	if d == 0 {
		for {
			i := 0
			for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
				i++
			}
			line = line[i:]
			if len(line) == 0 {
				return dst
			}
			j := 0
			for j < len(line) && line[j] != ' ' && line[j] != '\t' {
				j++
			}
			dst = append(dst, unquote(line[:j]))
			line = line[j:]
		}
	}
	for {
		i := bytes.IndexByte(line, byte(d))
		if i < 0 {
			return append(dst, unquote(bytes.TrimSpace(line)))
		}
		dst = append(dst, unquote(bytes.TrimSpace(line[:i])))
		line = line[i+1:]
	}
}

func unquote(b []byte) []byte {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		return b[1 : len(b)-1]
	}
	return b
}

// skipLine reports a blank line or a comment ('#' or '%' first, as SNAP's
// and MatrixMarket's edge lists have).
func skipLine(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	return len(t) == 0 || t[0] == '#' || t[0] == '%'
}

// trimEOL drops a trailing "\n" or "\r\n".
func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'})
}

// row is one data line of a table.
type row struct {
	line   int
	fields []string
}

// readTable reads every data line of a small table (labels, split
// files), skipping blank and comment lines. name is the file's name in
// errors.
func readTable(path, name string) ([]row, error) {
	var rows []row
	err := scanRows(path, name, func(line int, fields [][]byte) error {
		r := row{line: line, fields: make([]string, len(fields))}
		for i, f := range fields {
			r.fields[i] = string(f)
		}
		rows = append(rows, r)
		return nil
	})
	return rows, err
}

// scanRows calls fn with the fields of every data line of a text table
// (blank and comment lines skipped; the delimiter detected on the first
// data line); fields are only valid during the call. An empty table is
// an error.
func scanRows(path, name string, fn func(line int, fields [][]byte) error) error {
	rc, err := openText(path)
	if err != nil {
		return err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<20)
	var d delimiter
	var buf [][]byte
	rows := 0
	for line := 1; ; line++ {
		b, err := readLine(br)
		if len(b) > 0 {
			if len(b) > maxLine {
				return errAt(name, line, "line longer than %d bytes", maxLine)
			}
			b = trimEOL(b)
			if !skipLine(b) {
				if rows == 0 {
					d = detectDelimiter(b)
				}
				rows++
				buf = d.split(buf, b)
				if err := fn(line, buf); err != nil {
					return err
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	if rows == 0 {
		return &Error{File: name, Msg: "empty file: no data line (blank and # comment lines are skipped)"}
	}
	return nil
}

// readLine returns the next line with its end of line, at most maxLine+1
// bytes of it (the caller reports a longer one).
func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		b, err := br.ReadSlice('\n')
		if out == nil && err == nil {
			return b, nil
		}
		out = append(out, b...)
		if len(out) > maxLine {
			return out, nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return out, err
	}
}

// parseFloat parses a feature value; NaN and ±Inf are rejected.
func parseFloat(s string) (float64, string) {
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, fmt.Sprintf("%q is not a number", clip(s))
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Sprintf("%s is not a finite number", clip(s))
	}
	return v, ""
}

// isNumber reports whether s parses as a float.
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil || errors.Is(err, strconv.ErrRange)
}

// canonicalInt parses s as a non-negative decimal integer below 2^31
// written without sign or leading zeros (so that "07" stays a name distinct
// from "7"); ok is false otherwise.
func canonicalInt(s []byte) (int32, bool) {
	if len(s) == 0 || len(s) > 10 || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	var v int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if v > math.MaxInt32 {
		return 0, false
	}
	return int32(v), true
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// headerWords are the column names that make a first line a header.
var headerWords = map[string]bool{
	"src": true, "source": true, "from": true, "u": true, "node1": true, "id1": true, "head": true, "source_id": true, "src_id": true,
	"dst": true, "target": true, "to": true, "v": true, "node2": true, "id2": true, "tail": true, "target_id": true, "dst_id": true,
	"weight": true, "w": true, "id": true, "node": true, "node_id": true, "name": true, "label": true, "class": true, "y": true,
	"category": true, "split": true, "set": true, "part": true, "fold": true,
}

// isHeaderWord reports a known column name (case-insensitive).
func isHeaderWord(s string) bool { return headerWords[strings.ToLower(strings.TrimSpace(s))] }

// idHeader reports whether the first row of a table whose first column
// holds node ids is a header: every field a known column name, or its id
// not an integer while the second row's is.
func idHeader(rows []row) bool {
	if len(rows) == 0 {
		return false
	}
	all := true
	for _, f := range rows[0].fields {
		all = all && isHeaderWord(f)
	}
	if all {
		return true
	}
	if len(rows) > 1 && len(rows[0].fields) > 0 && len(rows[1].fields) > 0 {
		_, a := canonicalInt([]byte(rows[0].fields[0]))
		_, b := canonicalInt([]byte(rows[1].fields[0]))
		return !a && b
	}
	return false
}
