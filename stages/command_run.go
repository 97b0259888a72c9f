package stages

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/datasets/npy"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

const (
	// commandTailLines is how many of the program's last output lines a
	// failure shows; commandLogLines how many lines go to the stage's log.
	commandTailLines = 20
	commandLogLines  = 10000
	// commandVersionTimeout bounds version_argv.
	commandVersionTimeout = time.Minute
	// commandKillGrace is how long a program has after SIGTERM before its
	// process group gets SIGKILL.
	commandKillGrace = 2 * time.Second
	// commandMemPoll is how often the program group's memory is read.
	commandMemPoll = 200 * time.Millisecond
)

// commandRun runs the program: inputs written into a fresh work directory,
// argv's placeholders replaced, the program run in its own process group
// with a scrubbed environment, and the declared outputs read and checked.
func commandRun(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	p := job.Params
	work, err := os.MkdirTemp("", "hylaflow-command-")
	if err != nil {
		return nil, fmt.Errorf("command: work directory: %w", err)
	}
	defer os.RemoveAll(work)
	subst := map[string]string{
		"{dir}":     p.String("dir"),
		"{workdir}": work,
		"{seed}":    strconv.Itoa(p.Int("seed")),
		"{threads}": strconv.Itoa(max(1, job.Workers)),
	}
	env := commandBaseEnv(p.Strings("env"))
	env = append(env,
		"HYLAFLOW_SEED="+strconv.Itoa(p.Int("seed")),
		"HYLAFLOW_WORKDIR="+work,
		"HYLAFLOW_THREADS="+strconv.Itoa(max(1, job.Workers)))
	// The stage's share of the cores, for the usual numerical libraries
	// (unless declared in env, whose value then applies).
	for _, v := range []string{"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"} {
		if !slices.Contains(p.Strings("env"), v) {
			env = append(env, v+"="+strconv.Itoa(max(1, job.Workers)))
		}
	}
	if err := os.Mkdir(filepath.Join(work, "inputs"), 0o755); err != nil {
		return nil, fmt.Errorf("command: %w", err)
	}
	for slot, arts := range job.Inputs {
		name, ok := strings.CutPrefix(slot, "inputs.")
		if !ok || len(arts) != 1 {
			return nil, fmt.Errorf("command: unexpected input slot %q with %d artifacts", slot, len(arts))
		}
		file, err := commandWriteInput(filepath.Join(work, "inputs"), name, arts[0])
		if err != nil {
			return nil, fmt.Errorf("command: input %s: %w", name, err)
		}
		subst["{inputs."+name+"}"] = file
		env = append(env, "HYLAFLOW_INPUT_"+strings.ToUpper(name)+"="+file)
	}
	outs := commandOutputList(p)
	for _, o := range outs {
		if err := commandRelPath(o.Path); err != nil {
			return nil, fmt.Errorf("command: output %s: %w", o.Name, err)
		}
		full := filepath.Join(work, filepath.FromSlash(o.Path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, fmt.Errorf("command: output %s: %w", o.Name, err)
		}
		subst["{outputs."+o.Name+"}"] = full
		env = append(env, "HYLAFLOW_OUTPUT_"+strings.ToUpper(o.Name)+"="+full)
	}
	argv, err := commandExpand(p.Strings("argv"), subst)
	if err != nil {
		return nil, fmt.Errorf("command: %w", err)
	}
	limits := commandLimits{time: job.TimeLimit, memMB: job.MemLimitMB}
	tail, err := commandExec(ctx, argv, work, env, job.Logf, limits)
	if err != nil {
		return nil, err
	}
	maxBytes := int64(p.Int("max_output_mb")) << 20
	res := map[string]artifact.Artifact{}
	for _, o := range outs {
		a, err := commandReadOutput(work, o, maxBytes)
		if err != nil {
			return nil, &commandFailure{msg: fmt.Sprintf("command %s: output %s (%s, %s): %v", argv[0], o.Name, o.Kind, o.Path, err), tail: tail}
		}
		res[o.Name] = a
	}
	return res, nil
}

// commandExpand replaces the placeholders of argv; an {inputs.X} or
// {outputs.X} that names nothing declared is an error (other braces, as
// in a Python dict literal, are left alone).
func commandExpand(argv []string, subst map[string]string) ([]string, error) {
	out := make([]string, len(argv))
	for i, a := range argv {
		for _, m := range commandPlaceholderRE.FindAllString(a, -1) {
			if _, ok := subst[m]; !ok {
				return nil, fmt.Errorf("argv[%d] %q: %s names no declared %s", i, a, m, strings.SplitN(m[1:], ".", 2)[0])
			}
		}
		for k, v := range subst {
			a = strings.ReplaceAll(a, k, v)
		}
		out[i] = a
	}
	return out, nil
}

// commandBaseEnv is the scrubbed environment: PATH, HOME and LANG of this
// process (when set) and the declared variables.
func commandBaseEnv(declared []string) []string {
	var env []string
	for _, name := range append([]string{"PATH", "HOME", "LANG"}, declared...) {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// commandWriteInput writes one input artifact into dir: a metrics
// artifact as NAME.json (its metrics document), any other as NAME.npz, the
// artifact's own encoding (a bundle is a zip of .npy members numpy.load
// opens; its JSON members are NAME.json entries of the zip).
func commandWriteInput(dir, name string, a artifact.Artifact) (string, error) {
	if a.Kind() == schema.KindMetrics {
		b, err := a.MemberFile(schema.MemberMetrics)
		if err != nil {
			return "", err
		}
		file := filepath.Join(dir, name+".json")
		return file, os.WriteFile(file, b, 0o644)
	}
	file := filepath.Join(dir, name+".npz")
	f, err := os.Create(file)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriter(f)
	err = a.Encode(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return file, err
}

// commandLimits are what the program may use.
type commandLimits struct {
	time  time.Duration
	memMB int64
}

// commandFailure is the error of a program that failed, with the tail of
// its output.
type commandFailure struct {
	msg  string
	tail []string
}

func (e *commandFailure) Error() string {
	if len(e.tail) == 0 {
		return e.msg + " (it printed nothing)"
	}
	return e.msg + "; its last lines:\n    " + strings.Join(e.tail, "\n    ")
}

// commandExec runs argv in dir with env, in a process group of its own
// that is killed whole when ctx ends, when the time limit passes or when
// the group's memory exceeds the limit. Its stdout and stderr lines go to
// logf (the stage's log); a failure shows their tail.
func commandExec(ctx context.Context, argv []string, dir string, env []string, logf func(string, ...any), lim commandLimits) (tail []string, err error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if lim.time > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.time)
		defer cancel()
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("command: %w", err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("command: start %s: %w", argv[0], err)
	}
	pw.Close()
	pgid := cmd.Process.Pid
	var last commandTail
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		n := 0
		for sc.Scan() {
			line := strings.ToValidUTF8(sc.Text(), "\uFFFD")
			last.add(line)
			if n++; n <= commandLogLines {
				logf("%s", line)
			} else if n == commandLogLines+1 {
				logf("… (later lines are not logged)")
			}
		}
		io.Copy(io.Discard, pr)
		pr.Close()
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var peakMB int64
	var killedFor string
	tick := time.NewTicker(commandMemPoll)
	defer tick.Stop()
	var werr error
loop:
	for {
		select {
		case werr = <-waited:
			break loop
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) && lim.time > 0 {
				killedFor = fmt.Sprintf("ran longer than its time limit of %s (resources { time })", lim.time)
			} else {
				killedFor = "canceled"
			}
			commandKillGroup(pgid, waited, &werr)
			break loop
		case <-tick.C:
			if lim.memMB <= 0 {
				continue
			}
			mb := commandGroupRSS(pgid) >> 20
			peakMB = max(peakMB, mb)
			if mb > lim.memMB {
				killedFor = fmt.Sprintf("used %d MiB, more than its memory limit of %d MiB (resources { mem }, else run --mem)", mb, lim.memMB)
				commandKillGroup(pgid, waited, &werr)
				break loop
			}
		}
	}
	// Whatever the leader did, nothing of the group outlives the stage.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-logged
	lines := last.lines()
	switch {
	case killedFor == "canceled":
		return lines, ctx.Err()
	case killedFor != "":
		return lines, &commandFailure{msg: fmt.Sprintf("command %s %s and was killed", argv[0], killedFor), tail: lines}
	case werr != nil:
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			return lines, &commandFailure{msg: fmt.Sprintf("command %s failed: %v", argv[0], ee.ProcessState), tail: lines}
		}
		return lines, fmt.Errorf("command %s: %w", argv[0], werr)
	}
	return lines, nil
}

// commandKillGroup asks the group to stop (SIGTERM), then kills it
// (SIGKILL) after a grace period, and waits for the leader.
func commandKillGroup(pgid int, waited <-chan error, werr *error) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case *werr = <-waited:
	case <-time.After(commandKillGrace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		*werr = <-waited
	}
}

// commandGroupRSS sums the resident memory of the processes of group pgid
// (from /proc; 0 where it cannot be read).
func commandGroupRSS(pgid int) int64 {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	page := int64(os.Getpagesize())
	var total int64
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …: comm may hold spaces, so split after ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 22 {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g != pgid && pid != pgid {
			continue
		}
		rss, _ := strconv.ParseInt(f[21], 10, 64) // field 24: rss in pages
		total += rss * page
	}
	return total
}

// commandTail keeps the last lines a program printed.
type commandTail struct {
	mu  sync.Mutex
	buf []string
}

func (t *commandTail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(line) > 500 {
		line = line[:500] + "…"
	}
	t.buf = append(t.buf, line)
	if len(t.buf) > commandTailLines {
		t.buf = t.buf[len(t.buf)-commandTailLines:]
	}
}

func (t *commandTail) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.buf...)
}

// versionMemo shares a version_argv's output between the instances
// planned at once (a for_each of many seeds runs it once, not once per
// seed); an entry older than versionFresh is run again, so a process that
// plans again later sees an upgrade.
var versionMemo sync.Map // string → *versionResult

const versionFresh = 2 * time.Second

type versionResult struct {
	once sync.Once
	at   time.Time
	out  string
	err  error
}

// commandVersion runs version_argv in dir with the stage's scrubbed
// environment and returns its output, trimmed.
func commandVersion(argv []string, dir string, declared []string) (string, error) {
	env := commandBaseEnv(declared)
	k := strings.Join(argv, "\x00") + "\x01" + dir + "\x01" + strings.Join(env, "\x00")
	fresh := &versionResult{at: time.Now()}
	v, loaded := versionMemo.LoadOrStore(k, fresh)
	if r := v.(*versionResult); loaded && time.Since(r.at) > versionFresh {
		versionMemo.CompareAndSwap(k, r, fresh)
		v, _ = versionMemo.Load(k)
	}
	r := v.(*versionResult)
	r.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), commandVersionTimeout)
		defer cancel()
		out, err := commandOutputOf(ctx, argv, dir, env)
		if err != nil {
			if ctx.Err() != nil {
				err = fmt.Errorf("ran longer than %s", commandVersionTimeout)
			}
			r.err = fmt.Errorf("version_argv %q: %w", argv, err)
			return
		}
		s := strings.TrimSpace(out)
		if len(s) > commandMaxVersion {
			r.err = fmt.Errorf("version_argv %q printed %d bytes, more than %d: print the versions only", argv, len(s), commandMaxVersion)
			return
		}
		r.out = s
	})
	return r.out, r.err
}

// commandOutputOf runs argv in its own process group (killed whole when
// ctx ends) and returns what it printed on stdout (at most a little more
// than commandMaxVersion bytes are kept); a failure carries its stderr's
// last lines. Warnings on stderr stay out of the key.
func commandOutputOf(ctx context.Context, argv []string, dir string, env []string) (string, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr commandCapped
	stdout.max, stderr.max = commandMaxVersion+1, 64<<10
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second // a child that keeps the pipes open does not hold Wait
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil {
		lines := strings.Split(strings.TrimSpace(stderr.b.String()), "\n")
		if len(lines) > commandTailLines {
			lines = lines[len(lines)-commandTailLines:]
		}
		return "", &commandFailure{msg: fmt.Sprintf("%v", err), tail: lines}
	}
	if stdout.b.Len() > commandMaxVersion {
		return "", fmt.Errorf("printed more than %d bytes: print the versions only", commandMaxVersion)
	}
	return stdout.b.String(), nil
}

// commandCapped keeps at most max bytes written to it.
type commandCapped struct {
	b   bytes.Buffer
	max int
}

func (c *commandCapped) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// commandReadOutput reads and checks one declared output file.
func commandReadOutput(work string, o commandOutput, maxBytes int64) (artifact.Artifact, error) {
	full := filepath.Join(work, filepath.FromSlash(o.Path))
	st, err := os.Lstat(full)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, errors.New("the program did not write it")
	case err != nil:
		return nil, err
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	case st.Size() > maxBytes:
		return nil, fmt.Errorf("%d bytes, more than the limit of %d MiB (max_output_mb)", st.Size(), maxBytes>>20)
	}
	b, err := os.ReadFile(full)
	if err != nil {
		return nil, err
	}
	base := path.Base(o.Path)
	k := commandKinds[o.Kind]
	a := bundle.New(k)
	switch o.Kind {
	case "metrics":
		doc, err := commandMetrics(b)
		if err != nil {
			return nil, err
		}
		if err := a.SetJSON(schema.MemberMetrics, doc); err != nil {
			return nil, err
		}
	case "array":
		arr, err := npy.Read(bytes.NewReader(b), int64(len(b)), o.Path, "")
		if err != nil {
			return nil, err
		}
		if err := commandSetArray(a, "array", arr); err != nil {
			return nil, err
		}
	case "arrays":
		ar, err := npy.NewArchive(bytes.NewReader(b), int64(len(b)), o.Path)
		if err != nil {
			return nil, err
		}
		names := ar.Names()
		if len(names) == 0 {
			return nil, errors.New("the archive holds no arrays")
		}
		for _, n := range names {
			arr, err := ar.Array(n)
			if err != nil {
				return nil, err
			}
			if err := commandSetArray(a, n, arr); err != nil {
				return nil, err
			}
		}
	case "table":
		if err := commandCheckTable(base, b); err != nil {
			return nil, err
		}
		a.SetFile(base, b)
	case "figure":
		if err := commandCheckFigure(base, b); err != nil {
			return nil, err
		}
		a.SetFile(base, b)
	default: // file
		a.SetFile(base, b)
	}
	// The bundle format has its own rules for names (a member named like
	// the manifest, a sparse-looking name): check by encoding.
	if err := a.Encode(io.Discard); err != nil {
		return nil, err
	}
	return a, nil
}

// commandMetrics reads a metrics document: a JSON object whose values are
// finite numbers, strings or booleans (nested values are refused, so that
// evaluate and runs diff see every number).
func commandMetrics(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		if bytes.Contains(b, []byte("NaN")) || bytes.Contains(b, []byte("Infinity")) {
			return nil, fmt.Errorf("not JSON: NaN and Infinity are not JSON numbers (Python's json.dump writes them); metrics hold finite numbers: %w", err)
		}
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	if doc == nil {
		return nil, errors.New("not a JSON object (null)")
	}
	for k, v := range doc {
		switch x := v.(type) {
		case json.Number:
			f, err := x.Float64()
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("%q is %s, not a finite number", k, x)
			}
			doc[k] = f
		case string, bool:
		default:
			return nil, fmt.Errorf("%q is a %T: metrics hold numbers, strings and booleans only", k, v)
		}
	}
	return doc, nil
}

// commandSetArray stores a decoded .npy array as a bundle member: a 2-D
// numeric array as a dense matrix, a 1-D integer or bool array as ints, a
// 1-D float array as floats.
func commandSetArray(a *bundle.Bundle, name string, arr *npy.Array) error {
	switch {
	case len(arr.Shape) == 2 && arr.Floats != nil || len(arr.Shape) == 2 && arr.Len() == 0:
		d, err := arr.Dense()
		if err != nil {
			return fmt.Errorf("array %s: %w", name, err)
		}
		a.SetDense(name, d)
	case len(arr.Shape) == 1 && arr.Ints != nil:
		v := make([]int, len(arr.Ints))
		for i, x := range arr.Ints {
			v[i] = int(x)
		}
		a.SetInts(name, v)
	case len(arr.Shape) == 1 && arr.Floats != nil:
		a.SetFloats(name, arr.Floats)
	case len(arr.Shape) == 1 && arr.Len() == 0:
		a.SetFloats(name, []float64{})
	default:
		return fmt.Errorf("array %s has shape %v and kind %q: outputs hold 1-D or 2-D numeric arrays", name, arr.Shape, arr.Kind)
	}
	return nil
}

// commandCheckTable checks a table file by its extension: CSV parses with
// rows of equal width, JSON is valid, Markdown is UTF-8 text.
func commandCheckTable(name string, b []byte) error {
	switch strings.ToLower(path.Ext(name)) {
	case ".csv":
		r := csv.NewReader(bytes.NewReader(b))
		rows, err := r.ReadAll()
		if err != nil {
			return fmt.Errorf("not a CSV table: %w", err)
		}
		if len(rows) == 0 {
			return errors.New("the CSV table is empty")
		}
	case ".json":
		if !json.Valid(b) {
			return errors.New("not valid JSON")
		}
	default:
		if !utf8.Valid(b) {
			return errors.New("not UTF-8 text")
		}
	}
	return nil
}

// commandCheckFigure checks a PNG's header and an SVG's root element.
func commandCheckFigure(name string, b []byte) error {
	if strings.ToLower(path.Ext(name)) == ".png" {
		if _, err := png.DecodeConfig(bytes.NewReader(b)); err != nil {
			return fmt.Errorf("not a PNG image: %w", err)
		}
		return nil
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("not an SVG image: %w", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if se.Name.Local != "svg" {
				return fmt.Errorf("not an SVG image: the root element is <%s>", se.Name.Local)
			}
			return nil
		}
	}
}
