package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/hylaflow/hylaflow/cache"
)

// RunManifest lists the keys a run used (computed, cached or fetched). The
// remote's gc keeps the keys of the most recent manifests.
type RunManifest struct {
	Host     string    `json:"host"`
	Time     time.Time `json:"time"`
	LocalRun int64     `json:"local_run"` // the run's id in the pushing cache
	Status   string    `json:"status"`
	Keys     []string  `json:"keys"`
}

// manifestName names a manifest so that names sort by time.
func manifestName(m *RunManifest) string {
	host := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, m.Host)
	return fmt.Sprintf("runs/%s-%s-%d.json", m.Time.UTC().Format("20060102T150405.000000000Z"), host, m.LocalRun)
}

// PutManifest uploads a run manifest.
func (r *Remote) PutManifest(ctx context.Context, m *RunManifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	name := manifestName(m)
	return r.retry(ctx, "write "+name, r.opts.Timeout, func(ctx context.Context) error {
		return r.bucket.WriteAll(ctx, name, append(b, '\n'), &blob.WriterOptions{ContentType: "application/json"})
	})
}

// object is a listed object.
type object struct {
	name string
	size int64
	mod  time.Time
}

// list returns the objects under prefix, sorted by name.
func (r *Remote) list(ctx context.Context, prefix string) ([]object, error) {
	var out []object
	err := r.retry(ctx, "list "+prefix, r.opts.Timeout*4, func(ctx context.Context) error {
		out = out[:0]
		it := r.bucket.List(&blob.ListOptions{Prefix: prefix})
		for {
			o, err := it.Next(ctx)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if !o.IsDir {
				out = append(out, object{name: o.Key, size: o.Size, mod: o.ModTime})
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w", r.url, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// Stats summarises a remote.
type Stats struct {
	Records, Objects, Runs int
	Bytes                  int64 // of the payloads
	RecordBytes            int64
	Newest                 time.Time // the newest record's time
	// SlurmFiles and SlurmBytes count the Slurm executor's files under
	// slurm/ (task specs, done-records, submissions, job logs; see
	// ReadFile), which gc removes after their age limit.
	SlurmFiles int
	SlurmBytes int64
}

// Stats lists the remote and counts its records, payloads, run manifests
// and Slurm files.
func (r *Remote) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	for _, p := range []string{"keys/", "objects/", "runs/", "slurm/"} {
		objs, err := r.list(ctx, p)
		if err != nil {
			return s, err
		}
		for _, o := range objs {
			switch p {
			case "keys/":
				s.Records++
				s.RecordBytes += o.size
				if o.mod.After(s.Newest) {
					s.Newest = o.mod
				}
			case "objects/":
				s.Objects++
				s.Bytes += o.size
			case "slurm/":
				s.SlurmFiles++
				s.SlurmBytes += o.size
			default:
				s.Runs++
			}
		}
	}
	return s, nil
}

// VerifyReport lists what Verify found.
type VerifyReport struct {
	Records, Objects int // checked
	Bytes            int64
	Problems         []string
	// Orphans counts payloads no record names (left by a push that
	// stopped before its record, or by gc's grace period); not problems.
	Orphans int
	// Repaired says what a repairing Verify removed.
	Repaired []string
}

// Verify reads every record (its components must hash to its key, its
// payloads must exist with their sizes) and, with rehash, downloads every
// payload and checks its sha256. With repair it deletes the damaged
// payloads and the records that name damaged or missing payloads (those
// keys are pushed again by the next machine that computes them).
func (r *Remote) Verify(ctx context.Context, rehash, repair bool) (VerifyReport, error) {
	var rep VerifyReport
	records, err := r.list(ctx, "keys/")
	if err != nil {
		return rep, err
	}
	objs, err := r.list(ctx, "objects/")
	if err != nil {
		return rep, err
	}
	sizes := map[string]int64{}
	for _, o := range objs {
		d := o.name[strings.LastIndexByte(o.name, '/')+1:]
		if !hexRe.MatchString(d) || o.name != ObjectKey(d) {
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: not a payload (want objects/XX/SHA256)", o.name))
			continue
		}
		sizes[d] = o.size
	}
	damaged := map[string]string{} // digest → what is wrong
	if rehash {
		for _, o := range objs {
			d := o.name[strings.LastIndexByte(o.name, '/')+1:]
			if _, ok := sizes[d]; !ok {
				continue
			}
			rep.Objects++
			rep.Bytes += o.size
			err := r.retry(ctx, "read "+o.name, r.payloadTimeout(o.size), func(ctx context.Context) error {
				rd, err := r.Reader(ctx, Output{Digest: d, Size: o.size})
				if err != nil {
					return err
				}
				defer rd.Close()
				_, err = io.Copy(io.Discard, rd)
				return err
			})
			var de *cache.DigestError
			switch {
			case errors.As(err, &de):
				damaged[d] = fmt.Sprintf("content has sha256 %s", de.Got)
				rep.Problems = append(rep.Problems, fmt.Sprintf("%s: content has sha256 %s", o.name, de.Got))
			case err != nil:
				return rep, err
			}
		}
	}
	named := map[string]bool{}
	var badRecords []string
	for _, o := range records {
		key := strings.TrimSuffix(strings.TrimPrefix(o.name, "keys/"), ".json")
		rep.Records++
		rec, ok, err := r.Get(ctx, key)
		if errors.Is(err, cache.ErrCorrupt) || (err == nil && !ok) {
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: %v", o.name, err))
			badRecords = append(badRecords, o.name)
			continue
		}
		if err != nil {
			return rep, err
		}
		bad := false
		for _, out := range rec.Outputs {
			named[out.Digest] = true
			size, ok := sizes[out.Digest]
			switch {
			case !ok:
				rep.Problems = append(rep.Problems, fmt.Sprintf("%s (%s): output %s: payload %s is missing", o.name, rec.Address, out.Name, ObjectKey(out.Digest)))
				bad = true
			case size != out.Size:
				rep.Problems = append(rep.Problems, fmt.Sprintf("%s (%s): output %s: payload has %d bytes, the record says %d", o.name, rec.Address, out.Name, size, out.Size))
				damaged[out.Digest] = "wrong size"
				bad = true
			case damaged[out.Digest] != "":
				bad = true
			}
		}
		if bad {
			badRecords = append(badRecords, o.name)
		}
	}
	for d := range sizes {
		if !named[d] {
			rep.Orphans++
		}
	}
	if !repair {
		return rep, nil
	}
	for _, name := range badRecords {
		if err := r.Delete(ctx, name); err != nil {
			return rep, err
		}
	}
	ds := make([]string, 0, len(damaged))
	for d := range damaged {
		ds = append(ds, d)
	}
	sort.Strings(ds)
	for _, d := range ds {
		if err := r.Delete(ctx, ObjectKey(d)); err != nil {
			return rep, err
		}
	}
	if len(badRecords) > 0 {
		rep.Repaired = append(rep.Repaired, fmt.Sprintf("removed %d records naming damaged or missing payloads (the next push of those keys restores them)", len(badRecords)))
	}
	if len(ds) > 0 {
		rep.Repaired = append(rep.Repaired, fmt.Sprintf("removed %d damaged payloads", len(ds)))
	}
	return rep, nil
}

// GCOptions select what the remote's gc keeps: the keys named by the
// KeepRuns most recent run manifests, the records written within
// OlderThan (0: no age rule), and transitively the keys these keys'
// inputs name.
type GCOptions struct {
	KeepRuns  int
	OlderThan time.Duration
	DryRun    bool
	// Grace protects payloads no record names that are younger than it:
	// a push may be about to write their record (≤ 0: 1 hour).
	Grace time.Duration
	// SlurmAge is the age beyond which the Slurm executor's records and
	// logs under slurm/ are removed (≤ 0: 7 days): a job waits in a queue
	// for hours at most, and its driver reads them while it runs.
	SlurmAge time.Duration
}

// GCReport says what gc removed (or would remove).
type GCReport struct {
	Records, Objects, Runs int
	Slurm                  int   // Slurm records and logs removed
	Bytes                  int64 // of the payloads removed
	Kept                   int   // records kept
}

// GC removes the records gc's rules do not keep, then the payloads no
// remaining record names (older than the grace period), then the run
// manifests beyond KeepRuns. Records go first: a key is gone from the
// remote before its payloads, never the other way round.
func (r *Remote) GC(ctx context.Context, opts GCOptions) (GCReport, error) {
	var rep GCReport
	if opts.Grace <= 0 {
		opts.Grace = time.Hour
	}
	now := time.Now()
	runs, err := r.list(ctx, "runs/")
	if err != nil {
		return rep, err
	}
	keep := map[string]bool{}
	// Newest manifests first (names sort by time).
	for i := len(runs) - 1; i >= 0 && len(runs)-1-i < opts.KeepRuns; i-- {
		b, err := r.readSmall(ctx, runs[i].name)
		if err != nil {
			return rep, fmt.Errorf("remote %s: %s: %w", r.url, runs[i].name, err)
		}
		var m RunManifest
		if err := json.Unmarshal(b, &m); err != nil {
			return rep, fmt.Errorf("remote %s: %s: %w", r.url, runs[i].name, err)
		}
		for _, k := range m.Keys {
			keep[k] = true
		}
	}
	records, err := r.list(ctx, "keys/")
	if err != nil {
		return rep, err
	}
	recs := map[string]*Record{}
	for _, o := range records {
		key := strings.TrimSuffix(strings.TrimPrefix(o.name, "keys/"), ".json")
		if opts.OlderThan > 0 && now.Sub(o.mod) < opts.OlderThan {
			keep[key] = true
		}
		rec, ok, err := r.Get(ctx, key)
		if err != nil && !errors.Is(err, cache.ErrCorrupt) {
			return rep, err
		}
		if ok {
			recs[key] = rec
		}
	}
	// The inputs of kept keys are kept too.
	stack := make([]string, 0, len(keep))
	for k := range keep {
		stack = append(stack, k)
	}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		rec := recs[k]
		if rec == nil {
			continue
		}
		for _, in := range rec.KeyRecord().InputKeys() {
			if !keep[in] {
				keep[in] = true
				stack = append(stack, in)
			}
		}
	}
	named := map[string]bool{}
	for _, o := range records {
		key := strings.TrimSuffix(strings.TrimPrefix(o.name, "keys/"), ".json")
		if keep[key] && recs[key] != nil {
			rep.Kept++
			for _, out := range recs[key].Outputs {
				named[out.Digest] = true
			}
			continue
		}
		rep.Records++
		if !opts.DryRun {
			if err := r.Delete(ctx, o.name); err != nil {
				return rep, err
			}
		}
	}
	objs, err := r.list(ctx, "objects/")
	if err != nil {
		return rep, err
	}
	for _, o := range objs {
		d := o.name[strings.LastIndexByte(o.name, '/')+1:]
		if named[d] || now.Sub(o.mod) < opts.Grace {
			continue
		}
		rep.Objects++
		rep.Bytes += o.size
		if !opts.DryRun {
			if err := r.Delete(ctx, o.name); err != nil {
				return rep, err
			}
		}
	}
	if opts.SlurmAge <= 0 {
		opts.SlurmAge = 7 * 24 * time.Hour
	}
	slurm, err := r.list(ctx, "slurm/")
	if err != nil {
		return rep, err
	}
	for _, o := range slurm {
		if now.Sub(o.mod) < opts.SlurmAge {
			continue
		}
		rep.Slurm++
		if !opts.DryRun {
			if err := r.Delete(ctx, o.name); err != nil {
				return rep, err
			}
		}
	}
	for i := 0; i < len(runs)-opts.KeepRuns; i++ {
		rep.Runs++
		if !opts.DryRun {
			if err := r.Delete(ctx, runs[i].name); err != nil {
				return rep, err
			}
		}
	}
	return rep, nil
}

// Has reports whether the remote has an object named name.
func (r *Remote) Has(ctx context.Context, name string) (bool, error) {
	_, err := r.bucket.Attributes(ctx, name)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return false, nil
	}
	return err == nil, err
}
