// Package remote is hylaflow's remote artifact store: a bucket or
// directory that several caches (laptops, CI, Slurm nodes) share, so that
// a stage computed on one machine is fetched, not recomputed, on the others.
//
// A remote is named by a URL:
//
//	s3://BUCKET/PREFIX      Amazon S3 or any S3-compatible server (MinIO,
//	                        SeaweedFS, Ceph): the standard AWS configuration
//	                        (AWS_ENDPOINT_URL, AWS_PROFILE, AWS_REGION, the
//	                        credential chain); path-style addressing when an
//	                        endpoint is set, as S3-compatible servers want
//	gs://BUCKET/PREFIX      Google Cloud Storage (application default credentials)
//	azblob://CONTAINER/PREFIX  Azure Blob Storage (AZURE_STORAGE_ACCOUNT, …)
//	file:///DIR             a directory, e.g. on a network file system
//
// Query parameters of the URL go to the driver (s3://b/p?region=eu-west-1&profile=lab).
//
// The cloud drivers (S3, GCS, Azure) are not linked into hylaflow: the
// hylaflow-remote helper, built beside it, serves a cloud bucket to it
// (package blobproxy), and is started only when a command first opens a
// cloud remote. Directory and memory remotes stay in process.
//
// It is built on gocloud.dev/blob rather than on the AWS SDK alone: one
// portable API (read, write with if-not-exists, list, delete, attributes)
// serves the four kinds of store with the same code and the same tests, so
// the directory remote that the unit tests use exercises the very paths
// the S3 remote takes, and gocloud's memblob is an in-process fake. The S3
// driver is the AWS SDK v2 underneath, so the standard configuration
// applies unchanged.
//
// Layout under the URL's prefix:
//
//	objects/ab/abcdef…   payloads (the bytes of the local cache's objects),
//	                     named by their sha256; written once
//	keys/KEY.json        a key's record (Record): the key's components,
//	                     its outputs with digests and sizes, the producer;
//	                     written once, after every payload it names
//	runs/ID.json         the keys a run used (RunManifest), for gc
//
// The record is the commit point: a key is on the remote once its record
// is, and its record is written only after all its payloads are complete
// (an object store makes an object visible only when its upload completes;
// the directory driver writes a temp file and renames it). Records and
// payloads are written with if-not-exists, so two machines pushing the
// same key both succeed and the first record stays; the second compares
// its digests with it and reports a divergence (a non-deterministic stage,
// or a dishonest producer) instead of overwriting.
//
// Every payload fetched is verified: its bytes must hash to the digest the
// record names, or it is reported and ignored, and the stage is computed.
// Network errors are retried a bounded number of times with backoff; then
// the caller (Store) continues without the remote and warns. A remote
// outage never fails a run that can compute.
//
// Trust: a digest proves the bytes are those the producer recorded, not
// that the producer computed the key honestly. Whoever can write to the
// remote can serve any bytes under a key; give write access to those you
// would let run your pipelines, and read-only credentials to the rest
// (docs/remote.md). `hylaflow cache verify --recompute N` recomputes a
// sample of fetched stages locally and compares digests.
package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // file://
	_ "gocloud.dev/blob/memblob"  // mem:// (tests)
	"gocloud.dev/gcerrors"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/remote/blobproxy"
)

// RecordFormat is the format number of the records this version writes.
const RecordFormat = 1

// maxRecord bounds the size of a record or manifest read from the remote.
const maxRecord = 16 << 20

// ErrNoRemote is returned by Open for an empty URL.
var ErrNoRemote = errors.New("remote: no remote configured")

// ErrDivergent marks a push whose key is on the remote already with other
// output digests than this machine computed.
var ErrDivergent = errors.New("remote: divergent record")

// Record is a key's record on the remote: the key's components (so the
// receiver can check that they hash to the key, and recompute it), its
// outputs, and who produced them.
type Record struct {
	Format      int                 `json:"format"`
	Key         string              `json:"key"`
	Address     string              `json:"address"`
	StageType   string              `json:"stage_type"`
	Version     string              `json:"version"`
	Params      map[string]string   `json:"params"`
	Inputs      map[string][]string `json:"inputs"`
	Fingerprint string              `json:"fingerprint,omitempty"`
	Outputs     []Output            `json:"outputs"`
	Producer    Producer            `json:"producer"`
}

// Output is one output of a Record.
type Output struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Digest string `json:"sha256"`
	Size   int64  `json:"size"`
}

// Producer says who pushed a record.
type Producer struct {
	Hylaflow string    `json:"hylaflow"` // the producer's hylaflow version
	Host     string    `json:"host"`
	Time     time.Time `json:"time"`
}

// Bytes returns the total size of the record's outputs.
func (r *Record) Bytes() int64 {
	var n int64
	for _, o := range r.Outputs {
		n += o.Size
	}
	return n
}

// KeyRecord returns the cache key record the record describes.
func (r *Record) KeyRecord() *cache.KeyRecord {
	return &cache.KeyRecord{Key: r.Key, Address: r.Address, StageType: r.StageType, Version: r.Version,
		Params: r.Params, Inputs: r.Inputs, Fingerprint: r.Fingerprint}
}

// Refs returns the outputs as cache refs of the record's key.
func (r *Record) Refs() []cache.OutputRef {
	refs := make([]cache.OutputRef, len(r.Outputs))
	for i, o := range r.Outputs {
		refs[i] = cache.OutputRef{Key: r.Key, Name: o.Name, Kind: artifact.Kind(o.Kind), Digest: o.Digest, Size: o.Size}
	}
	return refs
}

// NewRecord builds the record of rec with refs (sorted by name).
func NewRecord(rec *cache.KeyRecord, refs []cache.OutputRef, producer Producer) *Record {
	r := &Record{Format: RecordFormat, Key: rec.Key, Address: rec.Address, StageType: rec.StageType,
		Version: rec.Version, Params: rec.Params, Inputs: rec.Inputs, Fingerprint: rec.Fingerprint, Producer: producer}
	if r.Params == nil {
		r.Params = map[string]string{}
	}
	if r.Inputs == nil {
		r.Inputs = map[string][]string{}
	}
	for _, ref := range refs {
		r.Outputs = append(r.Outputs, Output{Name: ref.Name, Kind: string(ref.Kind), Digest: ref.Digest, Size: ref.Size})
	}
	sort.Slice(r.Outputs, func(i, j int) bool { return r.Outputs[i].Name < r.Outputs[j].Name })
	return r
}

var hexRe = regexp.MustCompile(`^[0-9a-f]{64}$`)

// check validates a record read for key: its format, that its components
// hash to its key, and its outputs' digests and sizes.
func (r *Record) check(key string) error {
	if r.Format != RecordFormat {
		return fmt.Errorf("record format %d, this hylaflow reads %d", r.Format, RecordFormat)
	}
	if r.Key != key {
		return fmt.Errorf("record of key %q", r.Key)
	}
	if got := cache.ComputeKey(r.KeyRecord()); got != key {
		return fmt.Errorf("the record's components hash to %s, not to its key", got)
	}
	if len(r.Outputs) == 0 {
		return errors.New("the record lists no outputs")
	}
	for i, o := range r.Outputs {
		if !hexRe.MatchString(o.Digest) || o.Size < 0 || o.Name == "" {
			return fmt.Errorf("output %d (%q): want a name, a hex sha256 and a size ≥ 0", i, o.Name)
		}
		if i > 0 && r.Outputs[i-1].Name >= o.Name {
			return fmt.Errorf("outputs not sorted by name or duplicated at %q", o.Name)
		}
	}
	return nil
}

// sameOutputs reports whether a and b name the same outputs with the same digests.
func sameOutputs(a, b *Record) bool {
	if len(a.Outputs) != len(b.Outputs) {
		return false
	}
	for i := range a.Outputs {
		if a.Outputs[i].Name != b.Outputs[i].Name || a.Outputs[i].Digest != b.Outputs[i].Digest {
			return false
		}
	}
	return true
}

// Options configure Open.
type Options struct {
	// Attempts is how many times an operation is tried before it fails
	// (≤ 0: 3). Not-found and permission errors are not retried. (The S3
	// driver's SDK also retries each request a few times itself.)
	Attempts int
	// Backoff is the wait before the first retry, doubled (with jitter)
	// before each further one (≤ 0: 200ms).
	Backoff time.Duration
	// Timeout bounds one attempt of a small operation (a record, a
	// listing page); a payload gets Timeout plus one second per MB (≤ 0: 30s).
	Timeout time.Duration
}

// Remote is an open remote store. It is safe for concurrent use.
type Remote struct {
	url    string
	bucket *blob.Bucket
	opts   Options
}

// Open opens the remote named by rawURL (see the package doc).
func Open(ctx context.Context, rawURL string, opts Options) (*Remote, error) {
	if rawURL == "" {
		return nil, ErrNoRemote
	}
	opts = opts.withDefaults()
	driverURL, prefix, err := driverURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w", Redact(rawURL), err)
	}
	b, err := openBucket(ctx, driverURL)
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w", Redact(rawURL), err)
	}
	if prefix != "" {
		b = blob.PrefixedBucket(b, prefix)
	}
	return &Remote{url: Redact(rawURL), bucket: b, opts: opts}, nil
}

// openBucket opens the bucket at a driver URL: in this process when its
// driver is linked (file:// and mem:// always; the cloud drivers only in
// the hylaflow-remote helper and in tests), else through the helper
// (package blobproxy says why the cloud drivers live there).
func openBucket(ctx context.Context, driverURL string) (*blob.Bucket, error) {
	u, err := url.Parse(driverURL)
	if err != nil {
		return nil, err
	}
	if blob.DefaultURLMux().ValidBucketScheme(u.Scheme) {
		return blob.OpenBucket(ctx, driverURL)
	}
	helper, err := blobproxy.Locate()
	if err != nil {
		return nil, err
	}
	return blobproxy.Start(ctx, helper, driverURL)
}

// withDefaults fills the unset options.
func (o Options) withDefaults() Options {
	if o.Attempts <= 0 {
		o.Attempts = 3
	}
	if o.Backoff <= 0 {
		o.Backoff = 200 * time.Millisecond
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	return o
}

// OpenBucket wraps an open bucket as a remote named name (tests, and
// callers that build their own bucket).
func OpenBucket(name string, b *blob.Bucket, opts Options) *Remote {
	return &Remote{url: name, bucket: b, opts: opts.withDefaults()}
}

// Redact returns rawURL without a password or secret query values, for messages.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	q := u.Query()
	for k := range q {
		if strings.Contains(strings.ToLower(k), "secret") || strings.Contains(strings.ToLower(k), "key") {
			q.Set(k, "REDACTED")
		}
	}
	u.RawQuery = q.Encode()
	return u.Redacted()
}

// driverURL turns a remote URL into the URL gocloud opens and the key
// prefix under which the remote lives: s3://b/p/q → s3://b?… and "p/q/".
// For s3:// with an endpoint configured (AWS_ENDPOINT_URL,
// AWS_ENDPOINT_URL_S3, or ?endpoint=) path-style addressing is the default.
func driverURL(raw string) (string, string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", err
	}
	switch u.Scheme {
	case "file":
		q := u.Query()
		// Temp files beside the final name: the rename that publishes a
		// payload stays within one file system.
		if !q.Has("no_tmp_dir") {
			q.Set("no_tmp_dir", "true")
		}
		if !q.Has("create_dir") {
			q.Set("create_dir", "true")
		}
		if !q.Has("metadata") {
			q.Set("metadata", "skip")
		}
		u.RawQuery = q.Encode()
		if u.Path == "" && u.Host != "." {
			return "", "", errors.New("file:// URL without a directory (want file:///abs/dir or file://./rel/dir)")
		}
		return u.String(), "", nil
	case "s3", "gs", "azblob", "mem":
	default:
		return "", "", fmt.Errorf("scheme %q: want s3://, gs://, azblob:// or file://", u.Scheme)
	}
	if u.Host == "" && u.Scheme != "mem" {
		return "", "", fmt.Errorf("%s:// URL without a bucket name", u.Scheme)
	}
	prefix := strings.Trim(u.Path, "/")
	if prefix != "" {
		prefix = path.Clean(prefix) + "/"
	}
	q := u.Query()
	if u.Scheme == "s3" && !q.Has("use_path_style") && !q.Has("s3ForcePathStyle") &&
		(q.Has("endpoint") || os.Getenv("AWS_ENDPOINT_URL") != "" || os.Getenv("AWS_ENDPOINT_URL_S3") != "") {
		q.Set("use_path_style", "true")
	}
	if u.Scheme == "s3" && !q.Has("region") && os.Getenv("AWS_REGION") == "" && os.Getenv("AWS_DEFAULT_REGION") == "" {
		// The SDK wants a region even for S3-compatible servers that
		// ignore it; a profile may still set its own.
		if !q.Has("profile") && os.Getenv("AWS_PROFILE") == "" {
			q.Set("region", "us-east-1")
		}
	}
	u.Path, u.RawQuery = "", q.Encode()
	return u.String(), prefix, nil
}

// URL returns the remote's URL (without secrets).
func (r *Remote) URL() string { return r.url }

// Close closes the remote.
func (r *Remote) Close() error { return r.bucket.Close() }

// Bucket returns the underlying bucket (for tests and maintenance).
func (r *Remote) Bucket() *blob.Bucket { return r.bucket }

// ObjectKey and RecordKey return the names of a payload and of a key's record.
func ObjectKey(digest string) string { return "objects/" + digest[:2] + "/" + digest }

// RecordKey returns the name of key's record.
func RecordKey(key string) string { return "keys/" + key + ".json" }

// Permanent reports whether err is not worth retrying: not found,
// permission denied, a failed precondition, a bad argument, cancellation.
func Permanent(err error) bool {
	switch gcerrors.Code(err) {
	case gcerrors.NotFound, gcerrors.PermissionDenied, gcerrors.FailedPrecondition, gcerrors.InvalidArgument,
		gcerrors.AlreadyExists, gcerrors.Unimplemented, gcerrors.Canceled:
		return true
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, cache.ErrCorrupt) || errors.Is(err, ErrDivergent)
}

// WithRetry runs op as retry does, for callers that compose a transfer
// of their own (fetching into the local cache).
func (r *Remote) WithRetry(ctx context.Context, what string, size int64, op func(ctx context.Context) error) error {
	return r.retry(ctx, what, r.payloadTimeout(size), op)
}

// retry runs op up to Attempts times while it fails with a transient
// error, waiting Backoff, 2·Backoff, … (with ±25% jitter) in between.
// Each attempt gets a context bounded by timeout.
func (r *Remote) retry(ctx context.Context, what string, timeout time.Duration, op func(ctx context.Context) error) error {
	wait := r.opts.Backoff
	var err error
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, timeout)
		err = op(actx)
		cancel()
		if err == nil || Permanent(err) || ctx.Err() != nil || attempt >= r.opts.Attempts {
			break
		}
		jitter := time.Duration(float64(wait) * (0.75 + 0.5*rand.Float64()))
		t := time.NewTimer(jitter)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: %w", what, ctx.Err())
		case <-t.C:
		}
		wait *= 2
	}
	if err != nil && !Permanent(err) && r.opts.Attempts > 1 {
		return fmt.Errorf("%s (after %d attempts): %w", what, r.opts.Attempts, err)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// payloadTimeout is the per-attempt bound of moving size bytes.
func (r *Remote) payloadTimeout(size int64) time.Duration {
	return r.opts.Timeout + time.Duration(size>>20)*time.Second
}

// Get returns key's record; ok is false when the remote has none. A
// record that does not parse, or whose components do not hash to key, is
// an error wrapping cache.ErrCorrupt.
func (r *Remote) Get(ctx context.Context, key string) (*Record, bool, error) {
	if !hexRe.MatchString(key) {
		return nil, false, fmt.Errorf("remote %s: key %q: want 64 hex digits", r.url, key)
	}
	var b []byte
	err := r.retry(ctx, "read "+RecordKey(key), r.opts.Timeout, func(ctx context.Context) error {
		var err error
		b, err = r.readSmall(ctx, RecordKey(key))
		return err
	})
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("remote %s: %w", r.url, err)
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, false, fmt.Errorf("remote %s: %s: %v: %w", r.url, RecordKey(key), err, cache.ErrCorrupt)
	}
	if err := rec.check(key); err != nil {
		return nil, false, fmt.Errorf("remote %s: %s: %v: %w", r.url, RecordKey(key), err, cache.ErrCorrupt)
	}
	return &rec, true, nil
}

// readSmall reads a bounded object whole.
func (r *Remote) readSmall(ctx context.Context, name string) ([]byte, error) {
	rd, err := r.bucket.NewReader(ctx, name, nil)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	b, err := io.ReadAll(io.LimitReader(rd, maxRecord+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxRecord {
		return nil, fmt.Errorf("%s: larger than %d bytes: %w", name, maxRecord, cache.ErrCorrupt)
	}
	return b, nil
}

// Reader opens the payload o for reading, verifying it as it is read (see
// cache.NewVerifyingReader): bytes that do not hash to o.Digest with
// o.Size end in an error wrapping cache.ErrCorrupt. It is not retried; a
// caller retries the whole transfer (WithRetry).
func (r *Remote) Reader(ctx context.Context, o Output) (io.ReadCloser, error) {
	rd, err := r.bucket.NewReader(ctx, ObjectKey(o.Digest), nil)
	if err != nil {
		return nil, fmt.Errorf("remote %s: %s: %w", r.url, ObjectKey(o.Digest), err)
	}
	return cache.NewVerifyingReader(rd, o.Digest, o.Size), nil
}

// rawReader opens the payload o without verifying it: for callers that
// hash what they read themselves (cache.Ingest checks digest and size).
func (r *Remote) rawReader(ctx context.Context, o Output) (io.ReadCloser, error) {
	rd, err := r.bucket.NewReader(ctx, ObjectKey(o.Digest), nil)
	if err != nil {
		return nil, fmt.Errorf("remote %s: %s: %w", r.url, ObjectKey(o.Digest), err)
	}
	return rd, nil
}

// PutResult says what Put did.
type PutResult struct {
	// Uploaded counts the payloads uploaded (the others were there), and
	// Bytes their size.
	Uploaded int
	Bytes    int64
	// Existed is true when the record was on the remote already (with the
	// same digests; other digests give ErrDivergent).
	Existed bool
}

// Put uploads rec's payloads that the remote lacks (each read through
// open, which must return its raw bytes), then rec itself, each with
// if-not-exists: the record is the commit point, so a reader never sees a
// record whose payloads are incomplete. A record there already is left
// alone: with the same digests Put succeeds (Existed), with others it
// returns an error wrapping ErrDivergent. A payload whose bytes do not hash
// to its digest (a damaged local payload) is never uploaded: the upload is
// aborted and the error wraps cache.ErrCorrupt.
func (r *Remote) Put(ctx context.Context, rec *Record, open func(Output) (io.ReadCloser, error)) (PutResult, error) {
	var res PutResult
	if err := rec.check(rec.Key); err != nil {
		return res, fmt.Errorf("remote %s: push %s: %w", r.url, rec.Key, err)
	}
	if old, ok, err := r.Get(ctx, rec.Key); err != nil && !errors.Is(err, cache.ErrCorrupt) {
		return res, err
	} else if ok && !sameOutputs(rec, old) {
		return r.existing(ctx, rec, old)
	} else if ok {
		res.Existed = true
	}
	// Payloads first (also for a record there already: a payload removed
	// as damaged is uploaded again, which heals the key).
	for _, o := range rec.Outputs {
		uploaded, err := r.putObject(ctx, o, open)
		if err != nil {
			return res, fmt.Errorf("remote %s: push %s/%s: %w", r.url, rec.Key, o.Name, err)
		}
		if uploaded {
			res.Uploaded++
			res.Bytes += o.Size
		}
	}
	if res.Existed {
		return res, nil
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return res, err
	}
	b = append(b, '\n')
	err = r.retry(ctx, "write "+RecordKey(rec.Key), r.opts.Timeout, func(ctx context.Context) error {
		return r.bucket.WriteAll(ctx, RecordKey(rec.Key), b, &blob.WriterOptions{ContentType: "application/json", IfNotExist: true})
	})
	if gcerrors.Code(err) == gcerrors.FailedPrecondition {
		// Another machine committed the key meanwhile.
		old, ok, gerr := r.Get(ctx, rec.Key)
		if gerr != nil {
			return res, gerr
		}
		if ok {
			r2, err := r.existing(ctx, rec, old)
			r2.Uploaded, r2.Bytes = res.Uploaded, res.Bytes
			return r2, err
		}
	}
	if err != nil {
		return res, fmt.Errorf("remote %s: push %s: %w", r.url, rec.Key, err)
	}
	return res, nil
}

// existing is Put's outcome when the remote has old for rec's key.
func (r *Remote) existing(ctx context.Context, rec, old *Record) (PutResult, error) {
	if sameOutputs(rec, old) {
		return PutResult{Existed: true}, nil
	}
	var diffs []string
	for _, o := range rec.Outputs {
		found := false
		for _, p := range old.Outputs {
			if p.Name == o.Name {
				found = true
				if p.Digest != o.Digest {
					diffs = append(diffs, fmt.Sprintf("%s: remote %.12s…, here %.12s…", o.Name, p.Digest, o.Digest))
				}
			}
		}
		if !found {
			diffs = append(diffs, o.Name+": not in the remote record")
		}
	}
	return PutResult{Existed: true}, fmt.Errorf("remote %s: key %s (%s) was pushed by %s (hylaflow %s) with other outputs: %s; the remote record stays: %w",
		r.url, rec.Key, rec.Address, old.Producer.Host, old.Producer.Hylaflow, strings.Join(diffs, "; "), ErrDivergent)
}

// putObject uploads one payload unless the remote has it with its size.
func (r *Remote) putObject(ctx context.Context, o Output, open func(Output) (io.ReadCloser, error)) (bool, error) {
	name := ObjectKey(o.Digest)
	var attrs *blob.Attributes
	err := r.retry(ctx, "stat "+name, r.opts.Timeout, func(ctx context.Context) error {
		var err error
		attrs, err = r.bucket.Attributes(ctx, name)
		return err
	})
	switch {
	case err == nil && attrs.Size == o.Size:
		return false, nil
	case err == nil:
		// A wrong-sized object under a digest name is damage (an upload
		// that a broken server kept half of): replace it.
		if err := r.bucket.Delete(ctx, name); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return false, fmt.Errorf("replace the damaged %s (%d bytes, want %d): %w", name, attrs.Size, o.Size, err)
		}
	case gcerrors.Code(err) != gcerrors.NotFound:
		return false, err
	}
	uploaded := true
	err = r.retry(ctx, "upload "+name, r.payloadTimeout(o.Size), func(ctx context.Context) error {
		src, err := open(o)
		if err != nil {
			return err
		}
		defer src.Close()
		// Canceling the writer's context before Close discards the upload:
		// a failed or damaged copy never becomes visible.
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		w, err := r.bucket.NewWriter(wctx, name, &blob.WriterOptions{ContentType: "application/octet-stream", IfNotExist: true})
		if err != nil {
			return err
		}
		if _, err := io.Copy(w, src); err != nil {
			cancel()
			w.Close()
			return err
		}
		err = w.Close()
		if gcerrors.Code(err) == gcerrors.FailedPrecondition {
			uploaded = false // another machine uploaded it meanwhile
			return nil
		}
		return err
	})
	return uploaded, err
}

// Delete removes an object by name (not found is not an error).
func (r *Remote) Delete(ctx context.Context, name string) error {
	err := r.retry(ctx, "delete "+name, r.opts.Timeout, func(ctx context.Context) error {
		return r.bucket.Delete(ctx, name)
	})
	if err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("remote %s: %w", r.url, err)
	}
	return nil
}
