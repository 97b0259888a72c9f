package cache

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/internal/filedigest"
)

// testHook, set by tests only, is called at the points of Store where a
// crash must leave the cache consistent: "temp-written" (payload bytes in the
// temp file, not yet fsynced), "renamed" (payload at its address, not yet
// indexed) and "indexing" (every payload in place, before the index
// transaction).
var testHook func(point string)

// objectPath returns the path of the payload with the given digest.
func (c *Cache) objectPath(digest string) string {
	return filepath.Join(c.dir, objectsDir, digest[:2], digest)
}

// validDigest reports whether d is a lower-case hex sha256.
func validDigest(d string) bool {
	if len(d) != 64 {
		return false
	}
	for i := 0; i < len(d); i++ {
		if !(d[i] >= '0' && d[i] <= '9' || d[i] >= 'a' && d[i] <= 'f') {
			return false
		}
	}
	return true
}

// Lookup returns the outputs stored for key, sorted by name. ok is false
// when the key is unknown or one of its payload files is missing. It never
// writes.
func (c *Cache) Lookup(key string) (refs []OutputRef, ok bool, err error) {
	if c.db == nil {
		return nil, false, nil
	}
	row, preloaded := c.takePreloaded(key)
	if !preloaded {
		rows, err := c.stLookup.Query(key)
		if err != nil {
			return nil, false, fmt.Errorf("cache %s: look up %s: %w", c.dir, key, wrapDamaged(err))
		}
		row, err = scanLookup(rows, func(string) *lookupRow { return &row })
		if err != nil {
			return nil, false, fmt.Errorf("cache %s: look up %s: %w", c.dir, key, err)
		}
	}
	return c.checkLookup(row)
}

// lookupRow is what the index holds for one key: whether it is known, its
// output count (NULL: not stored) and its outputs.
type lookupRow struct {
	found   bool
	outputs sql.NullInt64
	refs    []OutputRef
}

// scanLookup reads rows of (key, outputs, name, kind, digest, size) into
// the lookupRow that rowOf gives each key, and closes rows.
func scanLookup(rows *sql.Rows, rowOf func(key string) *lookupRow) (lookupRow, error) {
	defer rows.Close()
	var last lookupRow
	for rows.Next() {
		var key string
		var outputs sql.NullInt64
		var name, kind, digest sql.NullString
		var size sql.NullInt64
		if err := rows.Scan(&key, &outputs, &name, &kind, &digest, &size); err != nil {
			return last, err
		}
		r := rowOf(key)
		r.found, r.outputs = true, outputs
		if name.Valid {
			r.refs = append(r.refs, OutputRef{Key: key, Name: name.String, Kind: artifact.Kind(kind.String), Digest: digest.String, Size: size.Int64})
		}
		last = *r
	}
	return last, rows.Err()
}

// checkLookup finishes a lookup from the key's index row: the key is
// stored with all its outputs, and each payload file exists with its size.
func (c *Cache) checkLookup(row lookupRow) ([]OutputRef, bool, error) {
	refs := row.refs
	if !row.found || !row.outputs.Valid || int(row.outputs.Int64) != len(refs) {
		return nil, false, nil
	}
	for _, r := range refs {
		if !validDigest(r.Digest) {
			return nil, false, nil
		}
		// A payload of the wrong size is damaged (truncated, or replaced):
		// a miss, so the stage is recomputed and Store replaces the file.
		if info, err := os.Stat(c.objectPath(r.Digest)); err != nil || !info.Mode().IsRegular() || info.Size() != r.Size {
			return nil, false, nil
		}
	}
	return refs, true, nil
}

// PreloadLookups reads the index rows of keys in one query, so that the
// first Lookup of each of them, until done is called, needs no query of its
// own (a plan looks up hundreds of keys, one after the other). A preloaded
// row serves one Lookup and is then forgotten; any change this Cache makes
// to stored outputs forgets them all. The payload files are still checked
// by each Lookup. Errors are ignored: Lookup then queries as usual.
func (c *Cache) PreloadLookups(keys []string) (done func()) {
	done = c.forgetPreloaded
	if c.db == nil || len(keys) == 0 {
		return done
	}
	list, err := json.Marshal(keys)
	if err != nil {
		return done
	}
	rows, err := c.db.Query(`SELECT k.key, k.outputs, a.name, a.kind, a.digest, a.size FROM keys k
		LEFT JOIN artifacts a ON a.key = k.key WHERE k.key IN (SELECT value FROM json_each(?)) ORDER BY k.key, a.name`, string(list))
	if err != nil {
		return done
	}
	loaded := make(map[string]*lookupRow, len(keys))
	for _, k := range keys {
		loaded[k] = &lookupRow{} // absent from the index: not found
	}
	if _, err := scanLookup(rows, func(key string) *lookupRow {
		if r := loaded[key]; r != nil {
			return r
		}
		r := &lookupRow{}
		loaded[key] = r
		return r
	}); err != nil {
		return done
	}
	c.preMu.Lock()
	c.preloaded = loaded
	c.preMu.Unlock()
	return done
}

// takePreloaded returns and forgets the preloaded row of key.
func (c *Cache) takePreloaded(key string) (lookupRow, bool) {
	c.preMu.Lock()
	defer c.preMu.Unlock()
	r, ok := c.preloaded[key]
	if !ok {
		return lookupRow{}, false
	}
	delete(c.preloaded, key)
	return *r, true
}

// forgetPreloaded drops every preloaded row (stored outputs changed).
func (c *Cache) forgetPreloaded() {
	c.preMu.Lock()
	c.preloaded = nil
	c.preMu.Unlock()
}

// CheckPayloads checks that the payload files of refs are sound: each
// exists with the size the index records and, if rehash is set, the sha256
// it is named by. The first problem is returned as an error naming the
// file and what was expected, wrapping ErrNotFound (no file) or ErrCorrupt
// (wrong size or content). The runner re-hashes the outputs the user reads
// (the pipeline's leaves) before serving them from the cache; Load
// re-hashes every payload it reads anyway.
//
// A file is not read again when its stamp (size, modification and change
// times, inode) is the one it had when it was last hashed, less than
// RehashAfter ago: a rewrite through the file system changes the stamp.
// The stamps of sound files are buffered and written with the next flush
// (nothing else is written).
func (c *Cache) CheckPayloads(refs []OutputRef, rehash bool) error {
	var h hash.Hash
	for _, r := range refs {
		if !validDigest(r.Digest) {
			return fmt.Errorf("cache %s: %s/%s: digest %q is not a hex sha256: %w", c.dir, r.Key, r.Name, r.Digest, ErrCorrupt)
		}
		path := c.objectPath(r.Digest)
		info, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cache %s: %s/%s: payload %s is missing: %w", c.dir, r.Key, r.Name, path, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("cache %s: %s/%s: %w", c.dir, r.Key, r.Name, err)
		}
		if info.Size() != r.Size {
			return fmt.Errorf("cache %s: %s/%s: payload %s has %d bytes, the index says %d: %w", c.dir, r.Key, r.Name, path, info.Size(), r.Size, ErrCorrupt)
		}
		if !rehash {
			continue
		}
		stamp, spath := filedigest.StampOf(info), payloadStampPath(r.Digest)
		if c.trustedDigest(spath, stamp) == r.Digest {
			continue
		}
		if h == nil {
			h = sha256.New()
		}
		got, _, err := hashFile(path, h)
		if err != nil {
			return fmt.Errorf("cache %s: %s/%s: %w", c.dir, r.Key, r.Name, err)
		}
		if got != r.Digest {
			return fmt.Errorf("cache %s: %s/%s: payload %s has sha256 %s, the index says %s: %w", c.dir, r.Key, r.Name, path, got, r.Digest, ErrCorrupt)
		}
		// The stamp was taken before the read: a write during it changed
		// the file's stamp, so the one recorded is never served for it.
		c.recordStamp(spath, stamp, got, time.Now())
	}
	return nil
}

// scanRecord reads a key record from a row of (key, address, stage_type,
// version, params, inputs, fingerprint).
func (c *Cache) scanRecord(row *sql.Row, what string) (*KeyRecord, bool, error) {
	var rec KeyRecord
	var params, inputs string
	err := row.Scan(&rec.Key, &rec.Address, &rec.StageType, &rec.Version, &params, &inputs, &rec.Fingerprint)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cache %s: %s: %w", c.dir, what, err)
	}
	if err := json.Unmarshal([]byte(params), &rec.Params); err != nil {
		return nil, false, fmt.Errorf("cache %s: %s: key %s: params column: %w", c.dir, what, rec.Key, err)
	}
	if err := json.Unmarshal([]byte(inputs), &rec.Inputs); err != nil {
		return nil, false, fmt.Errorf("cache %s: %s: key %s: inputs column: %w", c.dir, what, rec.Key, err)
	}
	return &rec, true, nil
}

// LastKeysOf returns, for each of addresses that a run of the pipeline
// named pipeline planned (ran it or found it cached), the key the latest
// such run planned, for plan reasons that compare a pipeline with its own
// history, not with another pipeline's instance of the same address. Keys
// whose record the index no longer holds (gc) are passed over for an
// earlier run's. An address no run of the pipeline planned is absent.
//
// The runs are read newest first, and reading stops once every address is
// found: a rerun of the same pipeline reads one run's stages, however long
// the history. Only keys are read; Record gives the components of the few
// a plan explains.
func (c *Cache) LastKeysOf(pipeline string, addresses []string) (map[string]string, error) {
	out := make(map[string]string, len(addresses))
	if c.db == nil || len(addresses) == 0 {
		return out, nil
	}
	c.bufMu.Lock()
	pending := len(c.stages) > 0
	c.bufMu.Unlock()
	if pending {
		if err := c.flush(); err != nil {
			return nil, err
		}
	}
	want := make(map[string]bool, len(addresses))
	for _, a := range addresses {
		want[a] = true
	}
	runs, err := c.db.Query(`SELECT id FROM runs WHERE pipeline = ? ORDER BY id DESC`, pipeline)
	if err != nil {
		return nil, fmt.Errorf("cache %s: runs of %s: %w", c.dir, pipeline, wrapDamaged(err))
	}
	var ids []int64
	for runs.Next() {
		var id int64
		if err := runs.Scan(&id); err != nil {
			runs.Close()
			return nil, fmt.Errorf("cache %s: runs of %s: %w", c.dir, pipeline, err)
		}
		ids = append(ids, id)
	}
	runs.Close()
	if err := runs.Err(); err != nil {
		return nil, fmt.Errorf("cache %s: runs of %s: %w", c.dir, pipeline, err)
	}
	for _, id := range ids {
		if len(out) == len(want) {
			break
		}
		// Within a run a later record of an address replaces an earlier one.
		rows, err := c.db.Query(`SELECT s.address, s.key FROM run_stages s JOIN keys k ON k.key = s.key
			WHERE s.run_id = ? ORDER BY s.seq DESC`, id)
		if err != nil {
			return nil, fmt.Errorf("cache %s: stages of run %d: %w", c.dir, id, err)
		}
		found := map[string]string{}
		for rows.Next() {
			var addr, key string
			if err := rows.Scan(&addr, &key); err != nil {
				rows.Close()
				return nil, fmt.Errorf("cache %s: stages of run %d: %w", c.dir, id, err)
			}
			if _, seen := found[addr]; !seen && want[addr] {
				found[addr] = key
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("cache %s: stages of run %d: %w", c.dir, id, err)
		}
		for addr, key := range found {
			if _, ok := out[addr]; !ok {
				out[addr] = key
			}
		}
	}
	return out, nil
}

// Record returns the key record stored for key (its components), whether or
// not its outputs are still stored.
func (c *Cache) Record(key string) (rec *KeyRecord, ok bool, err error) {
	if c.db == nil {
		return nil, false, nil
	}
	return c.scanRecord(c.stRecord.QueryRow(key), "record of "+key)
}

// LastRecord returns the key record of the most recent run of address
// (stored or used), for plan reasons. ok is false if it never ran.
func (c *Cache) LastRecord(address string) (rec *KeyRecord, ok bool, err error) {
	if c.db == nil {
		return nil, false, nil
	}
	c.bufMu.Lock()
	pending := len(c.touched) > 0
	c.bufMu.Unlock()
	if pending {
		if err := c.flush(); err != nil {
			return nil, false, err
		}
	}
	return c.scanRecord(c.stLast.QueryRow(address), "last record of "+address)
}

// ResolveKey returns the one stored key that starts with prefix (a full
// key resolves to itself). It fails with an error wrapping ErrNotFound when
// no key matches, and names the candidates when several do.
func (c *Cache) ResolveKey(prefix string) (string, error) {
	prefix = strings.ToLower(strings.TrimSpace(prefix))
	if prefix == "" {
		return "", fmt.Errorf("cache %s: empty key prefix: %w", c.dir, ErrBadKey)
	}
	for i := 0; i < len(prefix); i++ {
		if !(prefix[i] >= '0' && prefix[i] <= '9' || prefix[i] >= 'a' && prefix[i] <= 'f') {
			return "", fmt.Errorf("cache %s: key %q: want hex digits: %w", c.dir, prefix, ErrBadKey)
		}
	}
	if c.db == nil {
		return "", fmt.Errorf("cache %s: no key %s: %w", c.dir, prefix, ErrNotFound)
	}
	rows, err := c.db.Query(`SELECT key FROM keys WHERE key >= ? AND key < ? ORDER BY key LIMIT 6`, prefix, prefix+"g")
	if err != nil {
		return "", fmt.Errorf("cache %s: resolve %s: %w", c.dir, prefix, err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return "", fmt.Errorf("cache %s: resolve %s: %w", c.dir, prefix, err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("cache %s: resolve %s: %w", c.dir, prefix, err)
	}
	switch len(keys) {
	case 0:
		return "", fmt.Errorf("cache %s: no key starts with %s: %w", c.dir, prefix, ErrNotFound)
	case 1:
		return keys[0], nil
	}
	more := ""
	if len(keys) > 5 {
		keys, more = keys[:5], ", …"
	}
	return "", fmt.Errorf("cache %s: key prefix %s is ambiguous: %s%s (give more digits): %w", c.dir, prefix, strings.Join(keys, ", "), more, ErrBadKey)
}

// Load reads and decodes one artifact, verifying its digest. On a mismatch
// it drops every key with that payload from the index, removes the payload
// file and returns an error wrapping ErrCorrupt. A missing payload file
// drops the keys too and returns an error wrapping ErrNotFound.
func (c *Cache) Load(ref OutputRef) (artifact.Artifact, error) {
	if !validDigest(ref.Digest) {
		return nil, fmt.Errorf("cache %s: load %s/%s: digest %q is not a hex sha256", c.dir, ref.Key, ref.Name, ref.Digest)
	}
	path := c.objectPath(ref.Digest)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		c.dropDigest(ref.Digest, false)
		return nil, fmt.Errorf("cache %s: load %s/%s: payload %s is missing: %w", c.dir, ref.Key, ref.Name, path, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("cache %s: load %s/%s: %w", c.dir, ref.Key, ref.Name, err)
	}
	defer f.Close()
	got, size, err := hashContents(f, sha256.New())
	if err != nil {
		return nil, fmt.Errorf("cache %s: load %s/%s: read %s: %w", c.dir, ref.Key, ref.Name, path, err)
	}
	if got != ref.Digest {
		c.dropDigest(ref.Digest, true)
		return nil, fmt.Errorf("cache %s: load %s/%s: payload %s has sha256 %s (%d bytes), the index says %s: %w",
			c.dir, ref.Key, ref.Name, path, got, size, ref.Digest, ErrCorrupt)
	}
	a, err := artifact.Decode(f, size, path)
	if err != nil {
		// The bytes are the ones stored, so this is a codec problem (or a
		// payload written by another version), not damage.
		return nil, fmt.Errorf("cache %s: load %s/%s: %w", c.dir, ref.Key, ref.Name, err)
	}
	return a, nil
}

// dropDigest removes from the index the outputs of every key that has a
// payload with digest (their records stay), so those keys are recomputed,
// and removes the payload file if remove is set. Errors are ignored: the
// caller reports the original problem, and a key left in the index fails
// its next load the same way.
func (c *Cache) dropDigest(digest string, remove bool) {
	if c.readOnly || c.db == nil {
		return
	}
	c.dropDigestErr(digest, remove)
}

// dropDigestErr is dropDigest reporting the index error; it returns the
// number of keys whose outputs were dropped.
func (c *Cache) dropDigestErr(digest string, remove bool) (int, error) {
	var n int64
	err := c.withTx(func(tx *sql.Tx) error {
		res, err := tx.Exec(`UPDATE keys SET outputs = NULL WHERE key IN (SELECT key FROM artifacts WHERE digest = ?)`, digest)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		res, err = tx.Exec(`DELETE FROM artifacts WHERE key IN (SELECT key FROM artifacts WHERE digest = ?)`, digest)
		if err != nil {
			return err
		}
		if gone, _ := res.RowsAffected(); n > 0 || gone > 0 {
			return countRemoval(tx)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if remove {
		if err := os.Remove(c.objectPath(digest)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return int(n), err
		}
	}
	return int(n), nil
}

// Store writes the outputs of rec.Key and returns their refs, sorted by
// name. Each payload is encoded into a temp file inside the cache
// directory, fsynced and renamed to its content address (identical payloads
// share one file), the directory is fsynced, and then one index transaction
// replaces the key's outputs. A crash at any point leaves the key either
// complete or absent.
func (c *Cache) Store(rec *KeyRecord, outputs map[string]artifact.Artifact) ([]OutputRef, error) {
	if err := c.writable(); err != nil {
		return nil, err
	}
	if rec.Key == "" {
		return nil, fmt.Errorf("cache %s: store: the record of %s has no key", c.dir, rec.Address)
	}
	names := make([]string, 0, len(outputs))
	for n := range outputs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if outputs[n] == nil {
			return nil, fmt.Errorf("cache %s: store %s (%s): output %q is nil", c.dir, rec.Key, rec.Address, n)
		}
	}
	// The payloads are written concurrently, so their fsyncs overlap.
	refs := make([]OutputRef, len(names))
	errs := make([]error, len(names))
	write := func(i int) {
		a := outputs[names[i]]
		digest, size, err := c.writeObject(func(w io.Writer) error { return artifact.Encode(w, a) })
		refs[i] = OutputRef{Key: rec.Key, Name: names[i], Kind: a.Kind(), Digest: digest, Size: size}
		errs[i] = err
	}
	if len(names) == 1 {
		write(0)
	} else {
		var wg sync.WaitGroup
		for i := range names {
			wg.Add(1)
			go func() {
				defer wg.Done()
				write(i)
			}()
		}
		wg.Wait()
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("cache %s: store %s (%s): output %q: %w", c.dir, rec.Key, rec.Address, names[i], err)
		}
	}
	if testHook != nil {
		testHook("indexing")
	}
	if err := c.indexOutputs(rec, refs); err != nil {
		return nil, fmt.Errorf("cache %s: store %s (%s): index: %w", c.dir, rec.Key, rec.Address, wrapDamaged(err))
	}
	return refs, nil
}

// indexOutputs records rec (inserting its key record, or updating the
// address, last-used time and output count of an existing one) and replaces
// the key's outputs by refs, in one transaction. The payloads must be in
// objects/ already.
func (c *Cache) indexOutputs(rec *KeyRecord, refs []OutputRef) error {
	params, inputs := rec.Params, rec.Inputs
	if params == nil {
		params = map[string]string{}
	}
	if inputs == nil {
		inputs = map[string][]string{}
	}
	now := time.Now().UnixNano()
	err := c.withTx(func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO keys (key, address, stage_type, version, params, inputs, fingerprint, created, last_used, outputs)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET address = excluded.address, last_used = excluded.last_used, outputs = excluded.outputs`,
			rec.Key, rec.Address, rec.StageType, rec.Version, mustJSON(params), mustJSON(inputs), rec.Fingerprint, now, now, len(refs))
		if err != nil {
			return err
		}
		res, err := tx.Exec(`DELETE FROM artifacts WHERE key = ?`, rec.Key)
		if err != nil {
			return err
		}
		if replaced, _ := res.RowsAffected(); replaced > 0 {
			// The key was stored already: its old payloads may go with
			// the next gc, so a plan that looked it up must look again.
			if err := countRemoval(tx); err != nil {
				return err
			}
		}
		for _, r := range refs {
			if _, err := tx.Exec(`INSERT INTO artifacts (key, name, kind, digest, size) VALUES (?, ?, ?, ?, ?)`,
				r.Key, r.Name, string(r.Kind), r.Digest, r.Size); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.bufMu.Lock()
	delete(c.touched, rec.Key)
	c.bufMu.Unlock()
	return nil
}

// objectWriters recycles the write buffers of writeObject: clearing a fresh
// 1 MiB buffer per payload costs more than writing a small payload, which
// dominates runs of many tiny artifacts (docs/performance.md).
var objectWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 1<<20) }}

// writeObject writes a payload through write into a temp file, fsyncs it,
// renames it to its content address and fsyncs the directory.
func (c *Cache) writeObject(write func(io.Writer) error) (digest string, size int64, err error) {
	tmp, err := c.createTemp()
	if err != nil {
		return "", 0, err
	}
	tmpName := tmp.Name()
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmpName)
		}
	}()
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(tmp, h)}
	bw := objectWriters.Get().(*bufio.Writer)
	bw.Reset(cw)
	defer func() {
		bw.Reset(nil)
		objectWriters.Put(bw)
	}()
	if err := write(bw); err != nil {
		return "", 0, err
	}
	if err := bw.Flush(); err != nil {
		return "", 0, fmt.Errorf("write %s: %w", tmpName, err)
	}
	if testHook != nil {
		testHook("temp-written")
	}
	digest = hex.EncodeToString(h.Sum(nil))
	final := c.objectPath(digest)
	if info, err := os.Stat(final); err == nil && info.Mode().IsRegular() && info.Size() == cw.n {
		// Stored already (by another key or process)? Only a file whose
		// content has this digest is kept: a damaged one (a flipped byte
		// keeps the size) is replaced by the fresh payload below, so a
		// recompute (run --force, --no-cache) heals it. A kept file's mtime
		// is bumped so gc's grace period covers the index update that
		// follows.
		if got, _, err := hashFile(final, sha256.New()); err == nil && got == digest {
			tmp.Close()
			os.Remove(tmpName)
			now := time.Now()
			os.Chtimes(final, now, now)
			return digest, cw.n, nil
		}
	}
	if err := tmp.Sync(); err != nil {
		return "", 0, fmt.Errorf("fsync %s: %w", tmpName, err)
	}
	if err := tmp.Close(); err != nil {
		return "", 0, fmt.Errorf("close %s: %w", tmpName, err)
	}
	sub := filepath.Dir(final)
	if _, err := os.Stat(sub); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return "", 0, err
		}
		if err := syncDir(filepath.Dir(sub)); err != nil {
			return "", 0, err
		}
	}
	if err := os.Chmod(tmpName, 0o444); err != nil {
		return "", 0, err
	}
	if err := os.Rename(tmpName, final); err != nil {
		return "", 0, err
	}
	if err := syncDir(sub); err != nil {
		return "", 0, err
	}
	if testHook != nil {
		testHook("renamed")
	}
	return digest, cw.n, nil
}

// createTemp creates a temp file in the cache's tmp directory, named after
// this process so gc can tell the files of dead writers.
func (c *Cache) createTemp() (*os.File, error) {
	dir := filepath.Join(c.dir, tmpDir)
	for range 10 {
		var b [8]byte
		rand.Read(b[:])
		name := filepath.Join(dir, tempName(c.self, hex.EncodeToString(b[:])))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrNotExist) {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
			continue
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("create a temp file in %s: too many attempts", dir)
}

// tempName is PID-START-RANDOM.tmp.
func tempName(p procID, random string) string {
	return fmt.Sprintf("%d-%s-%s.tmp", p.pid, p.start, random)
}

// parseTempName returns the writer of a temp file named by tempName.
func parseTempName(host, name string) (procID, bool) {
	base, ok := strings.CutSuffix(name, ".tmp")
	if !ok {
		return procID{}, false
	}
	parts := strings.SplitN(base, "-", 3)
	if len(parts) != 3 {
		return procID{}, false
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil {
		return procID{}, false
	}
	return procID{host: host, pid: pid, start: parts[1]}, true
}

// syncDir fsyncs a directory so a rename in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Touch marks the key as used now (for gc's age rule and LastRecord). The
// update is buffered and written with the next flush (FinishRun, Close, or
// when the buffer is full or a second old).
func (c *Cache) Touch(key string) error {
	if err := c.writable(); err != nil {
		return err
	}
	c.bufMu.Lock()
	defer c.bufMu.Unlock()
	c.touched[key] = time.Now().UnixNano()
	return c.maybeFlushLocked()
}

// Export writes the payload of key's output (name "" = the only output, or
// the first by name) to file, verifying its digest. The file is written to
// a temp file beside it and renamed, so it is either complete or untouched.
func (c *Cache) Export(key, output, file string) error {
	refs, ok, err := c.Lookup(key)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("cache %s: export: key %s has no stored outputs: %w", c.dir, key, ErrNotFound)
	}
	var ref *OutputRef
	for i := range refs {
		if output == "" || refs[i].Name == output {
			ref = &refs[i]
			break
		}
	}
	if ref == nil {
		names := make([]string, len(refs))
		for i, r := range refs {
			names[i] = r.Name
		}
		return fmt.Errorf("cache %s: export: key %s has no output %q (have %s): %w", c.dir, key, output, strings.Join(names, ", "), ErrNotFound)
	}
	src, err := os.Open(c.objectPath(ref.Digest))
	if err != nil {
		return fmt.Errorf("cache %s: export %s/%s: %w", c.dir, key, ref.Name, err)
	}
	defer src.Close()
	out, err := createUserFile(filepath.Dir(file), "."+filepath.Base(file)+".")
	if err != nil {
		return fmt.Errorf("export %s/%s: %w", key, ref.Name, err)
	}
	outName := out.Name()
	fail := func(err error) error {
		out.Close()
		os.Remove(outName)
		return err
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(out, h), src); err != nil {
		return fail(fmt.Errorf("export %s/%s to %s: %w", key, ref.Name, file, err))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != ref.Digest {
		c.dropDigest(ref.Digest, true)
		return fail(fmt.Errorf("cache %s: export %s/%s: payload has sha256 %s, the index says %s: %w", c.dir, key, ref.Name, got, ref.Digest, ErrCorrupt))
	}
	if err := out.Sync(); err != nil {
		return fail(fmt.Errorf("export %s/%s: fsync %s: %w", key, ref.Name, outName, err))
	}
	if err := out.Close(); err != nil {
		return fail(fmt.Errorf("export %s/%s: close %s: %w", key, ref.Name, outName, err))
	}
	if err := os.Rename(outName, file); err != nil {
		os.Remove(outName)
		return fmt.Errorf("export %s/%s: %w", key, ref.Name, err)
	}
	return nil
}

// createUserFile creates a new temp file in dir, named prefix + random +
// ".tmp", for a file the user gets (renamed into place once written): with
// the mode os.Create gives, 0666 less the umask, where os.CreateTemp would
// give 0600.
func createUserFile(dir, prefix string) (*os.File, error) {
	for try := 0; ; try++ {
		var b [8]byte
		rand.Read(b[:])
		name := filepath.Join(dir, prefix+hex.EncodeToString(b[:])+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, err
	}
}

// filesHashed counts hashFile's calls (read by tests).
var filesHashed atomic.Int64

// hashFile returns the hex sha256 and size of a file.
func hashFile(path string, h hash.Hash) (string, int64, error) {
	filesHashed.Add(1)
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h.Reset()
	got, n, err := hashContents(f, h)
	if err != nil {
		return "", 0, fmt.Errorf("read %s: %w", path, err)
	}
	return got, n, nil
}

// hashContents hashes the rest of f with h: its hex digest and the bytes
// read. The buffer has the file's size up to 1 MiB, so that a small
// payload (a leaf's table) is not read through a megabyte of fresh memory.
func hashContents(f *os.File, h hash.Hash) (string, int64, error) {
	size := int64(1 << 20)
	if info, err := f.Stat(); err == nil {
		size = min(max(info.Size(), 4096), size)
	}
	// f as a plain reader: *os.File's WriteTo would copy through a
	// buffer of its own.
	n, err := io.CopyBuffer(h, struct{ io.Reader }{f}, make([]byte, size))
	if err != nil {
		return "", n, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// mustJSON marshals maps of strings (which cannot fail).
func mustJSON[V string | []string](m map[string]V) string {
	b, _ := json.Marshal(m)
	return string(b)
}

// metricsJSON marshals the finite entries of m ("" when there are none).
func metricsJSON(m map[string]float64) string {
	finite := make(map[string]float64, len(m))
	for k, v := range m {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			finite[k] = v
		}
	}
	if len(finite) == 0 {
		return ""
	}
	b, _ := json.Marshal(finite)
	return string(b)
}

// Shapes returns the shapes of the arrays in ref's payload by member name
// (artifact.Shapes: array headers only, the data is not read or hashed),
// or nil when the payload is missing or its format cannot tell. Memory
// estimates use it; nothing else should trust it.
func (c *Cache) Shapes(ref OutputRef) map[string][]int {
	if !validDigest(ref.Digest) {
		return nil
	}
	f, err := os.Open(c.objectPath(ref.Digest))
	if err != nil {
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil
	}
	return artifact.Shapes(f, info.Size())
}
