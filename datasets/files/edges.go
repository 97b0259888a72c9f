package files

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
)

// edgeList is an edge file as read: one entry per data line.
type edgeList struct {
	// intIDs: every id is a canonical non-negative integer below 2^31 and
	// src/dst hold the ids; otherwise src/dst index names.
	intIDs   bool
	src, dst []int32
	names    []string  // !intIDs: the ids by first appearance
	weights  []float64 // nil without a weight column
	header   bool      // the first data line was a header
	cols     int       // 2, or 3 with weights
}

// edgeChunkBytes is the size of the blocks the edge reader hands to its
// parsers: large enough that a block's bookkeeping is negligible, small
// enough that a few in flight cost little memory.
const edgeChunkBytes = 8 << 20

// edgeFormat is what the first lines of an edge file say about it.
type edgeFormat struct {
	delim      delimiter
	cols       int
	headerLine int // the header's line number, 0 without one
}

// sniffEdges reads the first data lines of an edge file: the delimiter,
// the column count (2, or 3 with a weight) and whether a header is there.
func sniffEdges(path, name string) (edgeFormat, error) {
	rc, err := openText(path)
	if err != nil {
		return edgeFormat{}, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<16)
	var rows []row
	var d delimiter
	var buf [][]byte
	for line := 1; len(rows) < 2; line++ {
		b, err := readLine(br)
		if len(b) > maxLine {
			return edgeFormat{}, errAt(name, line, "line longer than %d bytes", maxLine)
		}
		if b = trimEOL(b); !skipLine(b) {
			if len(rows) == 0 {
				d = detectDelimiter(b)
			}
			buf = d.split(buf, b)
			r := row{line: line}
			for _, f := range buf {
				r.fields = append(r.fields, string(f))
			}
			rows = append(rows, r)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return edgeFormat{}, fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	if len(rows) == 0 {
		return edgeFormat{}, &Error{File: name, Msg: "empty file: no edge (want lines \"src dst\" or \"src dst weight\")"}
	}
	f := edgeFormat{delim: d, cols: len(rows[0].fields)}
	header := idHeader(rows)
	if !header && f.cols == 3 && !isNumber(rows[0].fields[2]) && (len(rows) < 2 || len(rows[1].fields) == 3 && isNumber(rows[1].fields[2])) {
		header = true // a weight column whose first entry is a name
	}
	if header {
		f.headerLine = rows[0].line
		if len(rows) > 1 {
			f.cols = len(rows[1].fields)
		} else {
			return edgeFormat{}, &Error{File: name, Msg: "empty file: a header and no edge"}
		}
	}
	if f.cols != 2 && f.cols != 3 {
		r := rows[0]
		if header {
			r = rows[1]
		}
		return edgeFormat{}, errAt(name, r.line, "%s, want 2 (src dst) or 3 (src dst weight)", columns(f.cols))
	}
	return f, nil
}

// chunk is a block of whole lines of an edge file.
type chunk struct {
	seq       int
	firstLine int
	data      []byte
}

// chunkResult is a parsed chunk.
type chunkResult struct {
	src, dst []int32
	w        []float64
	notInt   bool // an id is not a canonical integer: read the file as names
	err      error
}

// readEdges reads an edge file. Integer ids are parsed on up to workers
// goroutines, block by block, and the blocks' edges joined in file order;
// a file whose ids are names is read again sequentially.
func readEdges(ctx context.Context, path, name string, workers int) (*edgeList, error) {
	f, err := sniffEdges(path, name)
	if err != nil {
		return nil, err
	}
	el, err := readIntEdges(ctx, path, name, f, max(1, workers))
	if el != nil || err != nil {
		return el, err
	}
	return readNamedEdges(ctx, path, name, f)
}

// readIntEdges is the integer-id pass; (nil, nil) when an id is a name.
func readIntEdges(ctx context.Context, path, name string, f edgeFormat, workers int) (*edgeList, error) {
	rc, err := openText(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chunks := make(chan chunk, workers)
	var (
		mu      sync.Mutex
		results []chunkResult
		readErr error
	)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range chunks {
				r := parseIntChunk(c, name, f)
				mu.Lock()
				for len(results) <= c.seq {
					results = append(results, chunkResult{})
				}
				results[c.seq] = r
				mu.Unlock()
				if r.err != nil || r.notInt {
					cancel()
				}
			}
		}()
	}
	// The reader: blocks cut after their last newline, numbered in order.
	func() {
		defer close(chunks)
		line, seq := 1, 0
		var carry []byte
		for {
			buf := make([]byte, len(carry), len(carry)+edgeChunkBytes)
			copy(buf, carry)
			n, err := io.ReadFull(rc, buf[len(carry):cap(buf)])
			buf = buf[:len(carry)+n]
			eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
			if err != nil && !eof {
				readErr = fmt.Errorf("%s: after line %d: %w", name, line, err)
				return
			}
			cut := len(buf)
			if !eof {
				cut = bytes.LastIndexByte(buf, '\n') + 1
				if cut == 0 {
					if len(buf) > maxLine {
						readErr = errAt(name, line, "line longer than %d bytes", maxLine)
						return
					}
					carry = buf
					continue
				}
			}
			carry = buf[cut:]
			c := chunk{seq: seq, firstLine: line, data: buf[:cut:cut]}
			line += bytes.Count(c.data, []byte{'\n'})
			seq++
			select {
			case chunks <- c:
			case <-ctx.Done():
				return
			}
			if eof {
				return
			}
		}
	}()
	wg.Wait()
	if readErr != nil {
		return nil, readErr
	}
	total := 0
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		if r.notInt {
			return nil, nil
		}
		total += len(r.src)
	}
	if err := parent.Err(); err != nil {
		return nil, err
	}
	if total == 0 {
		return nil, &Error{File: name, Msg: "empty file: no edge"}
	}
	el := &edgeList{intIDs: true, src: make([]int32, 0, total), dst: make([]int32, 0, total), header: f.headerLine > 0, cols: f.cols}
	if f.cols == 3 {
		el.weights = make([]float64, 0, total)
	}
	for i := range results {
		el.src = append(el.src, results[i].src...)
		el.dst = append(el.dst, results[i].dst...)
		el.weights = append(el.weights, results[i].w...)
		results[i] = chunkResult{}
	}
	return el, nil
}

// parseIntChunk parses the lines of one block with integer ids.
func parseIntChunk(c chunk, name string, f edgeFormat) chunkResult {
	var r chunkResult
	est := len(c.data)/12 + 1
	r.src, r.dst = make([]int32, 0, est), make([]int32, 0, est)
	if f.cols == 3 {
		r.w = make([]float64, 0, est)
	}
	var fields [][]byte
	data := c.data
	for line := c.firstLine; len(data) > 0; line++ {
		i := bytes.IndexByte(data, '\n')
		var b []byte
		if i < 0 {
			b, data = data, nil
		} else {
			b, data = data[:i], data[i+1:]
		}
		b = bytes.TrimSuffix(b, []byte{'\r'})
		if line == f.headerLine || skipLine(b) {
			continue
		}
		fields = f.delim.split(fields, b)
		if len(fields) != f.cols {
			r.err = errAt(name, line, "%s, want %d like the first edge line", columns(len(fields)), f.cols)
			return r
		}
		u, ok1 := canonicalInt(fields[0])
		v, ok2 := canonicalInt(fields[1])
		if !ok1 || !ok2 {
			r.notInt = true
			return r
		}
		r.src = append(r.src, u)
		r.dst = append(r.dst, v)
		if f.cols == 3 {
			w, msg := parseWeight(fields[2])
			if msg != "" {
				r.err = errAt(name, line, "weight %s", msg)
				return r
			}
			r.w = append(r.w, w)
		}
	}
	return r
}

// parseWeight parses an edge weight: a positive finite number (the
// normalisation D^-1/2 (A+I) D^-1/2 needs positive degrees).
func parseWeight(b []byte) (float64, string) {
	w, err := strconv.ParseFloat(string(b), 64)
	switch {
	case err != nil:
		return 0, fmt.Sprintf("%q is not a number", clip(string(b)))
	case math.IsNaN(w) || math.IsInf(w, 0) || w <= 0:
		return 0, fmt.Sprintf("%s: want a positive finite number", clip(string(b)))
	}
	return w, ""
}

// readNamedEdges reads an edge file whose ids are names, numbering them by
// first appearance.
func readNamedEdges(ctx context.Context, path, name string, f edgeFormat) (*edgeList, error) {
	rc, err := openText(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<20)
	el := &edgeList{header: f.headerLine > 0, cols: f.cols}
	index := map[string]int32{}
	id := func(b []byte) (int32, error) {
		if k, ok := index[string(b)]; ok {
			return k, nil
		}
		if len(el.names) >= math.MaxInt32 {
			return 0, errors.New("more than 2^31-1 distinct node ids")
		}
		k := int32(len(el.names))
		s := string(b)
		index[s] = k
		el.names = append(el.names, s)
		return k, nil
	}
	var fields [][]byte
	for line := 1; ; line++ {
		if line%(1<<16) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		b, err := readLine(br)
		if len(b) > maxLine {
			return nil, errAt(name, line, "line longer than %d bytes", maxLine)
		}
		if b = trimEOL(b); line != f.headerLine && !skipLine(b) {
			fields = f.delim.split(fields, b)
			if len(fields) != f.cols {
				return nil, errAt(name, line, "%s, want %d like the first edge line", columns(len(fields)), f.cols)
			}
			if len(fields[0]) == 0 || len(fields[1]) == 0 {
				return nil, errAt(name, line, "empty node id")
			}
			u, err1 := id(fields[0])
			v, err2 := id(fields[1])
			if err := errors.Join(err1, err2); err != nil {
				return nil, errAt(name, line, "%v", err)
			}
			el.src = append(el.src, u)
			el.dst = append(el.dst, v)
			if f.cols == 3 {
				w, msg := parseWeight(fields[2])
				if msg != "" {
					return nil, errAt(name, line, "weight %s", msg)
				}
				el.weights = append(el.weights, w)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	if len(el.src) == 0 {
		return nil, &Error{File: name, Msg: "empty file: no edge"}
	}
	return el, nil
}

// lineOf finds the first data line of an edge file naming id (for the
// error about an id no table has; the parallel pass keeps no line numbers).
func lineOf(path string, f edgeFormat, id string) int {
	rc, err := openText(path)
	if err != nil {
		return 0
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<20)
	var fields [][]byte
	for line := 1; ; line++ {
		b, err := readLine(br)
		if b = trimEOL(b); line != f.headerLine && !skipLine(b) {
			fields = f.delim.split(fields, b)
			if len(fields) >= 2 && (string(fields[0]) == id || string(fields[1]) == id) {
				return line
			}
		}
		if err != nil {
			return 0
		}
	}
}

// columns says "1 column" or "N columns".
func columns(n int) string {
	if n == 1 {
		return "1 column"
	}
	return fmt.Sprintf("%d columns", n)
}
