// Package cacheops is what the cache maintenance commands do, as
// functions writing what people (or --json readers) read: list and
// summarise the stored artifacts, verify and repair the payloads, collect
// garbage, clear, and export an artifact or one member of it as a file
// other tools open. It also formats sizes, ages and durations the way the
// cache and run listings show them.
package cacheops

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/cache"
)

// ParseAge parses a Go duration or a number of days (7d) or weeks (2w).
func ParseAge(s string) (time.Duration, error) {
	if n := len(s); n > 1 && (s[n-1] == 'd' || s[n-1] == 'w') {
		v, err := strconv.ParseFloat(s[:n-1], 64)
		if err != nil || v < 0 || v > 1e5 {
			return 0, fmt.Errorf("%q: want a duration such as 36h, 7d or 2w", s)
		}
		unit := 24 * time.Hour
		if s[n-1] == 'w' {
			unit *= 7
		}
		return time.Duration(v * float64(unit)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q: want a duration such as 36h, 7d or 2w", s)
	}
	return d, nil
}

// Size formats a byte count with binary units.
func Size(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
}

// Age formats how long ago t was, relative to now.
func Age(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < 0:
		return "in the future"
	case d < time.Second:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
}

// Duration formats a stage or run duration compactly.
func Duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Millisecond:
		return "<1ms"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// ShortKey abbreviates a key for tables.
func ShortKey(k string) string {
	if len(k) > 12 {
		return k[:12]
	}
	return k
}

// Time formats a timestamp for JSON output ("" for the zero time).
func Time(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// WriteJSON writes v as indented JSON and a newline.
func WriteJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// ArtifactJSON is one element of `cache ls --json`.
type ArtifactJSON struct {
	Key      string `json:"key"`
	Output   string `json:"output"`
	Kind     string `json:"kind"`
	Digest   string `json:"digest"`
	Size     int64  `json:"size"`
	Address  string `json:"address"`
	Created  string `json:"created"`
	LastUsed string `json:"last_used"`
}

// SortOrders are the orders List knows: by stage address, key and output
// (the cache's own order), by size (largest first), by when stored or
// last used (oldest first).
var SortOrders = []string{"stage", "size", "stored", "used"}

// ListOptions selects and orders what List prints.
type ListOptions struct {
	// Prefixes keeps only the artifacts whose stage address or key starts
	// with one of them (all when empty).
	Prefixes []string
	Sort     string    // one of SortOrders ("" is stage)
	JSON     bool      // one JSON array of ArtifactJSON instead of a table
	Now      time.Time // the time ages are relative to (zero: time.Now())
}

// List prints the stored artifacts as a table with a total line (key
// prefix, output, kind, size, stage, stored and used ages), or as JSON.
func List(w io.Writer, c *cache.Cache, opts ListOptions) error {
	prefixes, sortBy, asJSON := opts.Prefixes, opts.Sort, opts.JSON
	all, err := c.List()
	if err != nil {
		return err
	}
	list := slices.Clone(all)
	if len(prefixes) > 0 {
		list = nil
		for _, a := range all {
			for _, p := range prefixes {
				if strings.HasPrefix(a.Address, p) || strings.HasPrefix(a.Key, strings.ToLower(p)) {
					list = append(list, a)
					break
				}
			}
		}
	}
	// List's order is the "stage" order; the others keep it among equals.
	switch sortBy {
	case "size":
		sort.SliceStable(list, func(i, j int) bool { return list[i].Size > list[j].Size })
	case "stored":
		sort.SliceStable(list, func(i, j int) bool { return list[i].Created.Before(list[j].Created) })
	case "used":
		sort.SliceStable(list, func(i, j int) bool { return list[i].LastUsed.Before(list[j].LastUsed) })
	}
	if asJSON {
		out := make([]ArtifactJSON, len(list))
		for i, a := range list {
			out[i] = ArtifactJSON{Key: a.Key, Output: a.Name, Kind: string(a.Kind), Digest: a.Digest,
				Size: a.Size, Address: a.Address, Created: Time(a.Created), LastUsed: Time(a.LastUsed)}
		}
		return WriteJSON(w, out)
	}
	if len(list) == 0 {
		if len(all) > 0 {
			_, err := fmt.Fprintf(w, "none of the %d artifacts in %s matches %s\n", len(all), c.Dir(), strings.Join(prefixes, " "))
			return err
		}
		_, err := fmt.Fprintf(w, "the cache %s holds no artifacts\n", c.Dir())
		return err
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tOUTPUT\tKIND\tSIZE\tSTAGE\tSTORED\tUSED")
	var total int64
	for _, a := range list {
		total += a.Size
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", ShortKey(a.Key), a.Name, a.Kind,
			Size(a.Size), a.Address, Age(a.Created, now), Age(a.LastUsed, now))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	noun := "artifacts"
	if len(list) == 1 {
		noun = "artifact"
	}
	_, err = fmt.Fprintf(w, "%d %s, %s\n", len(list), noun, Size(total))
	return err
}

// StatsJSON is the output of `cache stats --json`.
type StatsJSON struct {
	Dir       string `json:"dir"`
	Keys      int    `json:"keys"`
	Artifacts int    `json:"artifacts"`
	Objects   int    `json:"objects"`
	Bytes     int64  `json:"bytes"`
	Runs      int    `json:"runs"`
	// ByStage breaks the artifacts down by stage type, largest first.
	ByStage []StageStat `json:"by_stage_type"`
}

// StageStat is the artifacts of one stage type (payloads shared
// between artifacts count for each).
type StageStat struct {
	Type      string `json:"type"`
	Artifacts int    `json:"artifacts"`
	Bytes     int64  `json:"bytes"`
}

// ByStage groups artifacts by the stage type of their address
// (the part before the first '.'), largest total first.
func ByStage(list []cache.ArtifactInfo) []StageStat {
	idx := map[string]int{}
	out := []StageStat{}
	for _, a := range list {
		typ, _, _ := strings.Cut(a.Address, ".")
		i, ok := idx[typ]
		if !ok {
			i = len(out)
			idx[typ] = i
			out = append(out, StageStat{Type: typ})
		}
		out[i].Artifacts++
		out[i].Bytes += a.Size
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Bytes != out[j].Bytes {
			return out[i].Bytes > out[j].Bytes
		}
		return out[i].Type < out[j].Type
	})
	return out
}

// Stats prints the cache's counts (keys, artifacts, payloads and their
// bytes, runs) and the artifacts by stage type, largest first, or the same
// as one JSON object (StatsJSON).
func Stats(w io.Writer, c *cache.Cache, asJSON bool) error {
	s, err := c.Stats()
	if err != nil {
		return err
	}
	list, err := c.List()
	if err != nil {
		return err
	}
	byStage := ByStage(list)
	if asJSON {
		return WriteJSON(w, StatsJSON{Dir: c.Dir(), Keys: s.Keys, Artifacts: s.Artifacts,
			Objects: s.Objects, Bytes: s.Bytes, Runs: s.Runs, ByStage: byStage})
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "cache\t%s\n", c.Dir())
	fmt.Fprintf(tw, "keys\t%d\tstage results\n", s.Keys)
	fmt.Fprintf(tw, "artifacts\t%d\toutputs of those stages\n", s.Artifacts)
	fmt.Fprintf(tw, "payloads\t%d\tdistinct files, %s\n", s.Objects, Size(s.Bytes))
	fmt.Fprintf(tw, "runs\t%d\trecorded (hylaflow runs)\n", s.Runs)
	if err := tw.Flush(); err != nil || len(byStage) == 0 {
		return err
	}
	fmt.Fprintln(w, "\nby stage type:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, b := range byStage {
		noun := "artifacts"
		if b.Artifacts == 1 {
			noun = "artifact"
		}
		fmt.Fprintf(tw, "  %s\t%d %s\t%s\n", b.Type, b.Artifacts, noun, Size(b.Bytes))
	}
	return tw.Flush()
}

// Verify re-hashes every payload and checks the index both ways (with
// repair, Repair: what is damaged is dropped) and prints each problem, a
// count and what was repaired. clean is false when problems remain: any
// without repair, the unrepaired ones with it.
func Verify(w io.Writer, c *cache.Cache, repair bool) (clean bool, err error) {
	verify := c.Verify
	if repair {
		verify = c.Repair
	}
	rep, err := verify()
	if err != nil {
		return false, err
	}
	orphans := ""
	if rep.Orphans > 0 {
		orphans = fmt.Sprintf("; %d orphan payload files (harmless, gc removes them)", rep.Orphans)
	}
	if len(rep.Problems) == 0 {
		fmt.Fprintf(w, "checked %d payloads: no problems%s\n", rep.Checked, orphans)
		return true, nil
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(w, p)
	}
	fmt.Fprintf(w, "checked %d payloads: %d problems%s\n", rep.Checked, len(rep.Problems), orphans)
	if !repair {
		fmt.Fprintln(w, "(hylaflow cache verify --repair drops the damaged entries so the next run recomputes them)")
		return false, nil
	}
	for _, r := range rep.Repaired {
		fmt.Fprintf(w, "repaired: %s\n", r)
	}
	if rep.Unrepaired > 0 {
		fmt.Fprintf(w, "%d problems left unrepaired\n", rep.Unrepaired)
		return false, nil
	}
	return true, nil
}

// Open opens the cache in dir for a maintenance command: to read (ls,
// stats, verify, export), never creating or modifying it; or, with write
// (gc, clear, verify --repair), a cache that must exist already.
func Open(dir string, write bool) (*cache.Cache, error) {
	if !write {
		return cache.OpenReadOnly(dir)
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("no cache at %s: %w", dir, err)
	}
	return cache.Open(dir)
}

// ClearDir removes every key, payload and run of the cache in dir (Clear)
// and says what went. A cache whose index SQLite cannot read, found when
// it opens or clears, is reset instead (Reset), after damaged is called
// with the index's path.
func ClearDir(w io.Writer, dir string, damaged func(index string)) error {
	reset := func() error {
		damaged(filepath.Join(dir, "index.db"))
		return Reset(w, dir)
	}
	c, err := Open(dir, true)
	if errors.Is(err, cache.ErrIndexDamaged) {
		return reset()
	} else if err != nil {
		return err
	}
	err = Clear(w, c)
	c.Close()
	if errors.Is(err, cache.ErrIndexDamaged) {
		return reset()
	}
	return err
}

// Reset empties the cache in dir whose index SQLite cannot read
// (cache.Reset: the index and every payload go), creates an empty index
// and says what it removed.
func Reset(w io.Writer, dir string) error {
	files, bytes, err := cache.Reset(dir)
	if err != nil {
		return err
	}
	c, err := cache.Open(dir)
	if err != nil {
		return fmt.Errorf("recreate the index: %w", err)
	}
	if err := c.Close(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "removed the damaged index and %d payload files (%s) from %s; created an empty index\n", files, Size(bytes), dir)
	return err
}

// GC removes what opts does not keep (cache.GC) and says how much; a dry
// run lists what it would remove, one line per stored output, and the
// total.
func GC(w io.Writer, c *cache.Cache, opts cache.GCOptions) error {
	rep, err := c.GC(opts)
	if err != nil {
		return err
	}
	verb := "removed"
	if opts.DryRun {
		verb = "would remove"
	}
	_, err = fmt.Fprintf(w, "%s %d keys and %d payload files (%s); kept the artifacts of the %d most recent runs\n",
		verb, rep.Keys, rep.Objects, Size(rep.Bytes), opts.KeepRuns)
	if err != nil || !opts.DryRun || len(rep.Removed) == 0 {
		return err
	}
	// The dry run lists them: one line per stored output (a key without
	// outputs on a line of its own), as cache ls does.
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tOUTPUT\tKIND\tSIZE\tSTAGE")
	var total int64
	n := 0
	for _, g := range rep.Removed {
		if len(g.Outputs) == 0 {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t%s\n", ShortKey(g.Key), g.Address)
		}
		for _, o := range g.Outputs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", ShortKey(g.Key), o.Name, o.Kind, Size(o.Size), g.Address)
			total += o.Size
			n++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	noun := "artifacts"
	if n == 1 {
		noun = "artifact"
	}
	_, err = fmt.Fprintf(w, "%d %s, %s (shared payloads stay with the keys kept)\n", n, noun, Size(total))
	return err
}

// Contents says what the cache holds, as Clear reports it: keys,
// payload files (and their bytes) and runs.
func Contents(c *cache.Cache) (string, error) {
	s, err := c.Stats()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d keys, %d payload files (%s) and %d runs", s.Keys, s.Objects, Size(s.Bytes), s.Runs), nil
}

// Clear removes every stored key, payload and run, and says what went.
func Clear(w io.Writer, c *cache.Cache) error {
	what, err := Contents(c)
	if err != nil {
		return err
	}
	if err := c.Clear(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "removed %s from %s\n", what, c.Dir())
	return err
}

// RefError is a KEY[/OUTPUT] reference that names no single output of a
// stored key: the key has several and OUTPUT is not given, or not one of
// them.
type RefError struct{ msg string }

func (e *RefError) Error() string { return e.msg }

// lookupRef resolves a "KEY[/OUTPUT]" reference (KEY may be a
// unique prefix) to the full key and its stored outputs.
func lookupRef(c *cache.Cache, ref string) (prefix, output, key string, refs []cache.OutputRef, err error) {
	id := cache.ParseOutputRef(ref)
	prefix, output = id.Key, id.Output
	if key, err = c.ResolveKey(prefix); err != nil {
		return
	}
	ok := false
	if refs, ok, err = c.Lookup(key); err == nil && !ok {
		err = fmt.Errorf("key %s has no stored outputs (a payload file is missing; rerun the pipeline)", key)
	}
	return
}

// Export copies the payload of the artifact ref ("KEY[/OUTPUT]", KEY any
// unique key prefix; OUTPUT may be left out when the key has one) to file
// after checking its digest, and says so on w (with a hint naming its
// sparse members). File "-" is stdout, and the message then goes to msgs.
func Export(stdout, msgs io.Writer, c *cache.Cache, ref, file string) error {
	w := stdout
	prefix, output, key, refs, err := lookupRef(c, ref)
	if err != nil {
		return err
	}
	if output == "" && len(refs) > 1 {
		names := make([]string, len(refs))
		for i, r := range refs {
			names[i] = r.Name
		}
		return &RefError{fmt.Sprintf("key %s has %d outputs (%s): name one as %s/OUTPUT", ShortKey(key), len(refs),
			strings.Join(names, ", "), prefix)}
	}
	// A file named *.json or *.npy asks for one member in that format,
	// not the whole artifact's archive: export the artifact's one member
	// when it has that form, else say what to do.
	if ext := strings.ToLower(filepath.Ext(file)); file != "-" && (ext == ".json" || ext == ".npy") {
		for _, r := range refs {
			if output != "" && r.Name != output {
				continue
			}
			art, err := c.Load(r)
			if err != nil {
				return err
			}
			a, err := bundle.From(art)
			if err != nil {
				break // another format: written as stored
			}
			names := a.Names()
			var raw json.RawMessage
			if len(names) == 1 && (a.JSON(names[0], &raw) == nil) == (ext == ".json") {
				return ExportMember(stdout, msgs, c, ref, names[0], file)
			}
			return &RefError{fmt.Sprintf("%s ends in %s, but %s/%s holds %d member(s) (%s) and not one %s member: give a .npz "+
				"file for the whole artifact, or export one member with --member NAME", file, ext, ShortKey(key), r.Name,
				len(names), strings.Join(names, ", "), strings.TrimPrefix(ext, "."))}
		}
	}
	target := file
	if file == "-" {
		// Export to a temp file (the digest is checked before anything is
		// written), then copy it to stdout; the message goes to msgs.
		tmp, err := os.MkdirTemp("", "hylaflow-export-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		w, target = msgs, filepath.Join(tmp, "artifact.npz")
	}
	if err := c.Export(key, output, target); err != nil {
		return err
	}
	if file == "-" {
		f, err := os.Open(target)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := io.Copy(stdout, f); err != nil {
			return fmt.Errorf("writing to stdout: %w", err)
		}
		file = "stdout"
	}
	for _, r := range refs {
		if output == "" || r.Name == output {
			_, err = fmt.Fprintf(w, "wrote %s: %s/%s (%s, %s)\n", file, ShortKey(key), r.Name, r.Kind, Size(r.Size))
			if err == nil {
				err = sparseHint(c, r, w)
			}
			return err
		}
	}
	return nil
}

// sparseHint names the artifact's named sparse members, which
// scipy.sparse.load_npz cannot read from the whole artifact, and how to
// get each as a file it reads.
func sparseHint(c *cache.Cache, ref cache.OutputRef, w io.Writer) error {
	art, err := c.Load(ref)
	if err != nil {
		return err
	}
	a, err := bundle.From(art)
	if err != nil {
		return nil // another format: no numpy members to hint at
	}
	var names []string
	for _, n := range a.Names() {
		if _, err := a.Sparse(n); err == nil && n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil
	}
	_, err = fmt.Fprintf(w, "sparse members %s: for scipy.sparse.load_npz, export one with --member %s\n",
		strings.Join(names, ", "), names[0])
	return err
}

// ExportMember writes member of the artifact ref (as for Export) to file,
// completely or not at all, as a file other tools open
// (bundle.WriteMember: a sparse matrix as .npz, a dense one as .npy,
// JSON as JSON, a file member as its bytes), and says so on w; file "-"
// is stdout, and the message then goes to msgs.
func ExportMember(stdout, msgs io.Writer, c *cache.Cache, ref, member, file string) error {
	prefix, output, key, refs, err := lookupRef(c, ref)
	if err != nil {
		return err
	}
	var r *cache.OutputRef
	for i := range refs {
		if output == "" && len(refs) == 1 || refs[i].Name == output {
			r = &refs[i]
		}
	}
	if r == nil {
		names := make([]string, len(refs))
		for i, x := range refs {
			names[i] = x.Name
		}
		return &RefError{fmt.Sprintf("key %s: name one output of %s as %s/OUTPUT", ShortKey(key), strings.Join(names, ", "), prefix)}
	}
	art, err := c.Load(*r)
	if err != nil {
		return err
	}
	a, err := bundle.From(art)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	ext, err := bundle.WriteMember(&b, a, member)
	if err != nil {
		return err
	}
	w := stdout
	if file == "-" {
		if _, err := stdout.Write(b.Bytes()); err != nil {
			return fmt.Errorf("writing to stdout: %w", err)
		}
		w, file = msgs, "stdout"
	} else if err := writeFileAtomic(file, b.Bytes()); err != nil {
		return err
	}
	note := ""
	if e := filepath.Ext(file); ext != "" && e != ext && file != "stdout" {
		note = fmt.Sprintf(" (a %s file)", ext)
	}
	_, err = fmt.Fprintf(w, "wrote %s%s: member %s of %s/%s (%s, %s)\n", file, note, member, ShortKey(key), r.Name,
		r.Kind, Size(int64(b.Len())))
	return err
}

// writeFileAtomic writes b to file through a temp file in its directory
// (fsynced, then renamed), with the mode os.Create gives.
func writeFileAtomic(file string, b []byte) error {
	var tmp *os.File
	var err error
	for try := 0; ; try++ {
		tmp, err = os.OpenFile(fmt.Sprintf("%s.%d-%d.tmp", file, os.Getpid(), try), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) || try > 100 {
			break
		}
	}
	if err != nil {
		return err
	}
	name := tmp.Name()
	if _, err = tmp.Write(b); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, file)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}
