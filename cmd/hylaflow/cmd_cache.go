package main

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
	"github.com/hylaflow/hylaflow/sparse"
)

func init() {
	registerCommand(&command{
		Name:    "cache",
		Summary: "inspect, verify, export from and clean the artifact cache",
		Run:     withExitCode(cacheCmdRun),
	})
}

const cacheCmdUsage = `Usage: hylaflow cache SUBCOMMAND [flags]

Subcommands:
  ls       list the stored artifacts (--json for machine-readable output)
  stats    count keys, artifacts, payloads, bytes and runs, by stage type (--json)
  verify   re-hash every payload and check the index; exit 1 on problems
  gc       remove what recent runs and recent use do not keep
  clear    remove everything (needs --yes)
  export   KEY[/OUTPUT] FILE: copy an artifact out of the cache

Every subcommand takes --cache DIR and --help.

Where the cache is: --cache DIR, else $HYLAFLOW_CACHE, else found as git
finds its repository: the nearest directory named .hylaflow in the start
directory or above it, stopping at the repository root (the directory
holding .git). run and plan start from the pipeline file's directory, the
other commands from the working directory. When there is none, run creates
it at the repository root, or beside the pipeline file outside a
repository. So 'hylaflow run pipelines/quickstart.hcl' in a clone and
'cd pipelines && hylaflow run quickstart.hcl' share CLONE/.hylaflow, and
every command anywhere in the clone uses it. run says where it is.
 Artifacts are zip files of .npy/.json members: numpy.load opens
them, and scipy.sparse.load_npz opens those holding one unnamed sparse matrix.
`

var cacheCmdSubUsage = map[string]string{
	"ls": `Usage: hylaflow cache ls [--json] [--sort ORDER] [--cache DIR] [PREFIX...]

Lists every stored artifact: its key (first 12 hex digits; any unique prefix
works with export), output name, kind, payload size, the stage instance
that made it, when it was stored and when it was last used. With PREFIX
arguments only the artifacts whose stage address (e.g. train.cora) or key
starts with one of them are listed.
  --sort ORDER   stage (default: by stage address, key, output), size (largest
                 first), stored or used (oldest first)
  --json         one JSON array of {key, output, kind, digest, size, address,
                 created, last_used}
`,
	"stats": `Usage: hylaflow cache stats [--json] [--cache DIR]

Summarises the cache: stored keys (stage results), artifacts (outputs),
distinct payload files and their bytes, and recorded runs; then the
artifacts and their bytes per stage type, largest first.
  --json   one JSON object {dir, keys, artifacts, objects, bytes, runs,
           by_stage_type: [{type, artifacts, bytes}]}
`,
	"verify": `Usage: hylaflow cache verify [--repair] [--cache DIR]

Re-hashes every payload and checks the index against the payload files both
ways. Prints each problem on its own line and exits 1 if there is any.
Payload files no key refers to (left by a killed process) are reported as
orphans; they are harmless and gc removes them.
  --repair   fix what was found: keys whose payload is missing, truncated or
             damaged lose their outputs (the next run recomputes them) and
             damaged or stray files are removed; exits 0 when everything
             found was fixed. A damaged index cannot be repaired (payloads
             carry no keys): 'hylaflow cache clear --yes' starts afresh.
`,
	"gc": `Usage: hylaflow cache gc [--keep-runs N] [--older-than D] [--dry-run] [--cache DIR]

Removes stored keys and payloads that are not kept. Kept are: everything the
N most recent runs used or made (and, transitively, their inputs), runs in
progress, keys being computed, and with --older-than everything used within
that time. Run history is kept.
  --keep-runs N    runs whose artifacts are kept (default 5)
  --older-than D   also keep whatever was used within D (e.g. 36h, 7d, 2w);
                   default: no age rule
  --dry-run        only say what would be removed, and list it: key,
                   output, kind, size and stage of every artifact, and
                   their total
`,
	"clear": `Usage: hylaflow cache clear --yes [--cache DIR]

Removes every stored key, payload and run from the cache. Without --yes it
only says what it would remove. When the index (index.db) is damaged, clear
--yes removes it with every payload and creates an empty cache: this is the
recovery from a damaged index.
`,
	"export": `Usage: hylaflow cache export KEY[/OUTPUT] FILE [--member NAME] [--cache DIR]

Copies the payload of one artifact to FILE (written completely or not at
all, mode 0666 less the umask; "-" writes to stdout), after checking its
digest. KEY may be any unique prefix of a key shown by 'hylaflow cache ls'
or 'hylaflow runs show'; OUTPUT may be left out when the key has only one
output. In Python: numpy.load(FILE) gives every member, e.g.
numpy.load(FILE)["values"]; scipy.sparse.load_npz(FILE) reads an artifact
holding a single unnamed sparse matrix.

  --member NAME   write only that member, as a file other tools open: a
                  sparse matrix (a graph's adj, a precompute's S) as an .npz
                  that scipy.sparse.load_npz reads, a dense matrix or vector
                  as an .npy (numpy.load), a JSON member as JSON, a file
                  member (chart.png) as its bytes
`,
}

// cacheCmdNow is the clock used for relative ages (tests may replace it).
var cacheCmdNow = time.Now

func cacheCmdRun(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, cacheCmdUsage)
		return exitUsage
	}
	sub := args[0]
	switch sub {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, cacheCmdUsage)
		return exitOK
	}
	usage, ok := cacheCmdSubUsage[sub]
	if !ok {
		fmt.Fprintf(stderr, "hylaflow cache: unknown subcommand %q\n\n%s", sub, cacheCmdUsage)
		return exitUsage
	}
	name := "cache " + sub
	fs := cliFlagSet(name)
	dir := fs.String("cache", "", "cache directory")
	var asJSON, dryRun, yes, repair *bool
	var member *string
	var keepRuns *int
	var olderThan, sortBy *string
	switch sub {
	case "ls", "stats":
		asJSON = fs.Bool("json", false, "JSON output")
		if sub == "ls" {
			sortBy = fs.String("sort", "stage", "order: stage, size, stored or used")
		}
	case "gc":
		keepRuns = fs.Int("keep-runs", 5, "runs whose artifacts are kept")
		olderThan = fs.String("older-than", "", "keep whatever was used within this time")
		dryRun = fs.Bool("dry-run", false, "only say what would be removed")
	case "clear":
		yes = fs.Bool("yes", false, "really remove everything")
	case "verify":
		repair = fs.Bool("repair", false, "drop damaged entries so the next run recomputes them")
	case "export":
		member = fs.String("member", "", "write only this member")
	}
	pos, err := cliParse(fs, args[1:])
	if err != nil {
		return cliFlagError(err, stdout, stderr, name, usage)
	}
	wantArgs := 0
	if sub == "export" {
		wantArgs = 2
	}
	if len(pos) != wantArgs && sub != "ls" {
		fmt.Fprintf(stderr, "hylaflow %s: want %d arguments, got %d\n\n%s", name, wantArgs, len(pos), usage)
		return exitUsage
	}
	if sub == "ls" && !slices.Contains([]string{"stage", "size", "stored", "used"}, *sortBy) {
		fmt.Fprintf(stderr, "hylaflow cache ls: --sort %q: want stage, size, stored or used\n", *sortBy)
		return exitUsage
	}
	var age time.Duration
	if sub == "gc" {
		if *olderThan != "" {
			if age, err = cacheCmdParseAge(*olderThan); err != nil {
				fmt.Fprintf(stderr, "hylaflow cache gc: --older-than: %v\n", err)
				return exitUsage
			}
		}
		if *keepRuns < 0 {
			fmt.Fprintf(stderr, "hylaflow cache gc: --keep-runs %d: want 0 or more\n", *keepRuns)
			return exitUsage
		}
	}
	cdir, err := cliCacheDir(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow %s: %v\n", name, err)
		return exitStageFailed
	}
	var c *cache.Cache
	switch {
	case sub == "gc" || sub == "clear" || sub == "verify" && *repair:
		if _, err := os.Stat(cdir); err != nil {
			fmt.Fprintf(stderr, "hylaflow %s: no cache at %s: %v\n", name, cdir, err)
			return exitStageFailed
		}
		c, err = cache.Open(cdir)
		if sub == "clear" && *yes && errors.Is(err, cache.ErrIndexDamaged) {
			return cacheCmdReset(cdir, stdout, stderr)
		}
	default:
		// Reading commands never create or modify a cache.
		c, err = cache.OpenReadOnly(cdir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow %s: %v\n", name, err)
		return exitStageFailed
	}
	defer c.Close()

	switch sub {
	case "ls":
		err = cacheCmdLs(c, pos, *sortBy, *asJSON, stdout)
	case "stats":
		err = cacheCmdStats(c, *asJSON, stdout)
	case "verify":
		return cacheCmdVerify(c, *repair, stdout, stderr)
	case "gc":
		err = cacheCmdGC(c, cache.GCOptions{KeepRuns: *keepRuns, OlderThan: age, DryRun: *dryRun}, stdout)
	case "clear":
		var code int
		code, err = cacheCmdClear(c, *yes, stdout, stderr)
		if err == nil {
			return code
		}
		if *yes && errors.Is(err, cache.ErrIndexDamaged) {
			c.Close()
			return cacheCmdReset(cdir, stdout, stderr)
		}
	case "export":
		if *member != "" {
			err = cacheCmdExportMember(c, pos[0], *member, pos[1], stdout, stderr)
		} else {
			err = cacheCmdExport(c, pos[0], pos[1], stdout, stderr)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow %s: %v\n", name, err)
		if sub == "export" {
			return exitCodeOf(err) // an unknown key or output is exit 2
		}
		return exitStageFailed
	}
	return exitOK
}

// cacheCmdParseAge parses a Go duration or a number of days (7d) or weeks (2w).
func cacheCmdParseAge(s string) (time.Duration, error) {
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

// cacheCmdSize formats a byte count with binary units.
func cacheCmdSize(n int64) string {
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

// cacheCmdAge formats how long ago t was, relative to now.
func cacheCmdAge(t, now time.Time) string {
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

// cacheCmdDuration formats a stage or run duration compactly.
func cacheCmdDuration(d time.Duration) string {
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

// cacheCmdShortKey abbreviates a key for tables.
func cacheCmdShortKey(k string) string {
	if len(k) > 12 {
		return k[:12]
	}
	return k
}

// cacheCmdTime formats a timestamp for JSON output ("" for the zero time).
func cacheCmdTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func cacheCmdWriteJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// cacheCmdArtifactJSON is one element of `cache ls --json`.
type cacheCmdArtifactJSON struct {
	Key      string `json:"key"`
	Output   string `json:"output"`
	Kind     string `json:"kind"`
	Digest   string `json:"digest"`
	Size     int64  `json:"size"`
	Address  string `json:"address"`
	Created  string `json:"created"`
	LastUsed string `json:"last_used"`
}

func cacheCmdLs(c *cache.Cache, prefixes []string, sortBy string, asJSON bool, w io.Writer) error {
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
		out := make([]cacheCmdArtifactJSON, len(list))
		for i, a := range list {
			out[i] = cacheCmdArtifactJSON{Key: a.Key, Output: a.Name, Kind: string(a.Kind), Digest: a.Digest,
				Size: a.Size, Address: a.Address, Created: cacheCmdTime(a.Created), LastUsed: cacheCmdTime(a.LastUsed)}
		}
		return cacheCmdWriteJSON(w, out)
	}
	if len(list) == 0 {
		if len(all) > 0 {
			_, err := fmt.Fprintf(w, "none of the %d artifacts in %s matches %s\n", len(all), c.Dir(), strings.Join(prefixes, " "))
			return err
		}
		_, err := fmt.Fprintf(w, "the cache %s holds no artifacts\n", c.Dir())
		return err
	}
	now := cacheCmdNow()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tOUTPUT\tKIND\tSIZE\tSTAGE\tSTORED\tUSED")
	var total int64
	for _, a := range list {
		total += a.Size
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cacheCmdShortKey(a.Key), a.Name, a.Kind,
			cacheCmdSize(a.Size), a.Address, cacheCmdAge(a.Created, now), cacheCmdAge(a.LastUsed, now))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	noun := "artifacts"
	if len(list) == 1 {
		noun = "artifact"
	}
	_, err = fmt.Fprintf(w, "%d %s, %s\n", len(list), noun, cacheCmdSize(total))
	return err
}

// cacheCmdStatsJSON is the output of `cache stats --json`.
type cacheCmdStatsJSON struct {
	Dir       string `json:"dir"`
	Keys      int    `json:"keys"`
	Artifacts int    `json:"artifacts"`
	Objects   int    `json:"objects"`
	Bytes     int64  `json:"bytes"`
	Runs      int    `json:"runs"`
	// ByStage breaks the artifacts down by stage type, largest first.
	ByStage []cacheCmdStageStat `json:"by_stage_type"`
}

// cacheCmdStageStat is the artifacts of one stage type (payloads shared
// between artifacts count for each).
type cacheCmdStageStat struct {
	Type      string `json:"type"`
	Artifacts int    `json:"artifacts"`
	Bytes     int64  `json:"bytes"`
}

// cacheCmdByStage groups artifacts by the stage type of their address
// (the part before the first '.'), largest total first.
func cacheCmdByStage(list []cache.ArtifactInfo) []cacheCmdStageStat {
	idx := map[string]int{}
	out := []cacheCmdStageStat{}
	for _, a := range list {
		typ, _, _ := strings.Cut(a.Address, ".")
		i, ok := idx[typ]
		if !ok {
			i = len(out)
			idx[typ] = i
			out = append(out, cacheCmdStageStat{Type: typ})
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

func cacheCmdStats(c *cache.Cache, asJSON bool, w io.Writer) error {
	s, err := c.Stats()
	if err != nil {
		return err
	}
	list, err := c.List()
	if err != nil {
		return err
	}
	byStage := cacheCmdByStage(list)
	if asJSON {
		return cacheCmdWriteJSON(w, cacheCmdStatsJSON{Dir: c.Dir(), Keys: s.Keys, Artifacts: s.Artifacts,
			Objects: s.Objects, Bytes: s.Bytes, Runs: s.Runs, ByStage: byStage})
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "cache\t%s\n", c.Dir())
	fmt.Fprintf(tw, "keys\t%d\tstage results\n", s.Keys)
	fmt.Fprintf(tw, "artifacts\t%d\toutputs of those stages\n", s.Artifacts)
	fmt.Fprintf(tw, "payloads\t%d\tdistinct files, %s\n", s.Objects, cacheCmdSize(s.Bytes))
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
		fmt.Fprintf(tw, "  %s\t%d %s\t%s\n", b.Type, b.Artifacts, noun, cacheCmdSize(b.Bytes))
	}
	return tw.Flush()
}

func cacheCmdVerify(c *cache.Cache, repair bool, stdout, stderr io.Writer) int {
	verify := c.Verify
	if repair {
		verify = c.Repair
	}
	rep, err := verify()
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow cache verify: %v\n", err)
		return exitStageFailed
	}
	orphans := ""
	if rep.Orphans > 0 {
		orphans = fmt.Sprintf("; %d orphan payload files (harmless, gc removes them)", rep.Orphans)
	}
	if len(rep.Problems) == 0 {
		fmt.Fprintf(stdout, "checked %d payloads: no problems%s\n", rep.Checked, orphans)
		return exitOK
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(stdout, p)
	}
	fmt.Fprintf(stdout, "checked %d payloads: %d problems%s\n", rep.Checked, len(rep.Problems), orphans)
	if !repair {
		fmt.Fprintln(stdout, "(hylaflow cache verify --repair drops the damaged entries so the next run recomputes them)")
		return exitStageFailed
	}
	for _, r := range rep.Repaired {
		fmt.Fprintf(stdout, "repaired: %s\n", r)
	}
	if rep.Unrepaired > 0 {
		fmt.Fprintf(stdout, "%d problems left unrepaired\n", rep.Unrepaired)
		return exitStageFailed
	}
	return exitOK
}

// cacheCmdReset empties a cache whose index SQLite cannot read (clear --yes).
func cacheCmdReset(dir string, stdout, stderr io.Writer) int {
	fmt.Fprintf(stderr, "hylaflow cache clear: %s is damaged (SQLite cannot read it); removing it with every payload\n", filepath.Join(dir, "index.db"))
	files, bytes, err := cache.Reset(dir)
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow cache clear: %v\n", err)
		return exitStageFailed
	}
	c, err := cache.Open(dir)
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow cache clear: recreate the index: %v\n", err)
		return exitStageFailed
	}
	if err := c.Close(); err != nil {
		fmt.Fprintf(stderr, "hylaflow cache clear: %v\n", err)
		return exitStageFailed
	}
	fmt.Fprintf(stdout, "removed the damaged index and %d payload files (%s) from %s; created an empty index\n", files, cacheCmdSize(bytes), dir)
	return exitOK
}

func cacheCmdGC(c *cache.Cache, opts cache.GCOptions, w io.Writer) error {
	rep, err := c.GC(opts)
	if err != nil {
		return err
	}
	verb := "removed"
	if opts.DryRun {
		verb = "would remove"
	}
	_, err = fmt.Fprintf(w, "%s %d keys and %d payload files (%s); kept the artifacts of the %d most recent runs\n",
		verb, rep.Keys, rep.Objects, cacheCmdSize(rep.Bytes), opts.KeepRuns)
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
			fmt.Fprintf(tw, "%s\t-\t-\t-\t%s\n", cacheCmdShortKey(g.Key), g.Address)
		}
		for _, o := range g.Outputs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", cacheCmdShortKey(g.Key), o.Name, o.Kind, cacheCmdSize(o.Size), g.Address)
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
	_, err = fmt.Fprintf(w, "%d %s, %s (shared payloads stay with the keys kept)\n", n, noun, cacheCmdSize(total))
	return err
}

func cacheCmdClear(c *cache.Cache, yes bool, stdout, stderr io.Writer) (int, error) {
	s, err := c.Stats()
	if err != nil {
		return 0, err
	}
	what := fmt.Sprintf("%d keys, %d payload files (%s) and %d runs", s.Keys, s.Objects, cacheCmdSize(s.Bytes), s.Runs)
	if !yes {
		fmt.Fprintf(stderr, "hylaflow cache clear: would remove %s from %s; pass --yes to do it\n", what, c.Dir())
		return exitUsage, nil
	}
	if err := c.Clear(); err != nil {
		return 0, err
	}
	fmt.Fprintf(stdout, "removed %s from %s\n", what, c.Dir())
	return exitOK, nil
}

// cacheCmdLookupRef resolves a "KEY[/OUTPUT]" reference (KEY may be a
// unique prefix) to the full key and its stored outputs.
func cacheCmdLookupRef(c *cache.Cache, ref string) (prefix, output, key string, refs []cache.OutputRef, err error) {
	prefix, output, _ = strings.Cut(ref, "/")
	if key, err = c.ResolveKey(prefix); err != nil {
		return
	}
	ok := false
	if refs, ok, err = c.Lookup(key); err == nil && !ok {
		err = fmt.Errorf("key %s has no stored outputs (a payload file is missing; rerun the pipeline)", key)
	}
	return
}

func cacheCmdExport(c *cache.Cache, ref, file string, stdout, stderr io.Writer) error {
	prefix, output, key, refs, err := cacheCmdLookupRef(c, ref)
	if err != nil {
		return err
	}
	if output == "" && len(refs) > 1 {
		names := make([]string, len(refs))
		for i, r := range refs {
			names[i] = r.Name
		}
		return &cliUsageError{msg: fmt.Sprintf("key %s has %d outputs (%s): name one as %s/OUTPUT", cacheCmdShortKey(key), len(refs),
			strings.Join(names, ", "), prefix)}
	}
	w, target := stdout, file
	if file == "-" {
		// Export to a temp file (the digest is checked before anything is
		// written), then copy it to stdout; the message goes to stderr.
		tmp, err := os.MkdirTemp("", "hylaflow-export-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		w, target = stderr, filepath.Join(tmp, "artifact.npz")
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
			_, err = fmt.Fprintf(w, "wrote %s: %s/%s (%s, %s)\n", file, cacheCmdShortKey(key), r.Name, r.Kind, cacheCmdSize(r.Size))
			if err == nil {
				err = cacheCmdSparseHint(c, r, w)
			}
			return err
		}
	}
	return nil
}

// cacheCmdSparseHint names the artifact's named sparse members, which
// scipy.sparse.load_npz cannot read from the whole artifact, and how to
// get each as a file it reads.
func cacheCmdSparseHint(c *cache.Cache, ref cache.OutputRef, w io.Writer) error {
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
		if v, _ := a.Member(n); n != "" {
			if _, isSparse := v.(*sparse.CSR); isSparse {
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	_, err = fmt.Fprintf(w, "sparse members %s: for scipy.sparse.load_npz, export one with --member %s\n",
		strings.Join(names, ", "), names[0])
	return err
}

// cacheCmdExportMember writes one member of an artifact to file (see
// bundle.WriteMember), completely or not at all.
func cacheCmdExportMember(c *cache.Cache, ref, member, file string, stdout, stderr io.Writer) error {
	prefix, output, key, refs, err := cacheCmdLookupRef(c, ref)
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
		return &cliUsageError{msg: fmt.Sprintf("key %s: name one output of %s as %s/OUTPUT", cacheCmdShortKey(key), strings.Join(names, ", "), prefix)}
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
		w, file = stderr, "stdout"
	} else if err := cacheCmdWriteFile(file, b.Bytes()); err != nil {
		return err
	}
	note := ""
	if e := filepath.Ext(file); ext != "" && e != ext && file != "stdout" {
		note = fmt.Sprintf(" (a %s file)", ext)
	}
	_, err = fmt.Fprintf(w, "wrote %s%s: member %s of %s/%s (%s, %s)\n", file, note, member, cacheCmdShortKey(key), r.Name,
		r.Kind, cacheCmdSize(int64(b.Len())))
	return err
}

// cacheCmdWriteFile writes b to file through a temp file in its directory
// (fsynced, then renamed), with the mode os.Create gives.
func cacheCmdWriteFile(file string, b []byte) error {
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
