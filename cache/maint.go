package cache

import (
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
)

// orphanGrace is the age below which gc leaves a payload file that no key
// refers to alone: another process may have just written it and be about
// to index it.
var orphanGrace = 10 * time.Minute

// staleTemp is the age after which gc removes a temp file even when it
// cannot tell whether its writer still runs (another host).
var staleTemp = 24 * time.Hour

// List returns every stored artifact, sorted by address, key and output name.
func (c *Cache) List() ([]ArtifactInfo, error) {
	if c.db == nil {
		return nil, nil
	}
	if err := c.flushIfWritable(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(`SELECT a.key, a.name, a.kind, a.digest, a.size, k.address, k.created, k.last_used
		FROM artifacts a JOIN keys k ON k.key = a.key ORDER BY k.address, a.key, a.name`)
	if err != nil {
		return nil, fmt.Errorf("cache %s: list: %w", c.dir, err)
	}
	defer rows.Close()
	var out []ArtifactInfo
	for rows.Next() {
		var a ArtifactInfo
		var kind string
		var created, used int64
		if err := rows.Scan(&a.Key, &a.Name, &kind, &a.Digest, &a.Size, &a.Address, &created, &used); err != nil {
			return nil, fmt.Errorf("cache %s: list: %w", c.dir, err)
		}
		a.Kind, a.Created, a.LastUsed = artifact.Kind(kind), fromUnixNano(created), fromUnixNano(used)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cache %s: list: %w", c.dir, err)
	}
	return out, nil
}

// Stats summarises the cache: stored keys, artifacts, distinct payloads and
// their bytes, and runs.
func (c *Cache) Stats() (Stats, error) {
	var s Stats
	if c.db == nil {
		return s, nil
	}
	err := c.db.QueryRow(`SELECT
		(SELECT count(*) FROM keys WHERE outputs IS NOT NULL),
		(SELECT count(*) FROM artifacts),
		(SELECT count(*) FROM (SELECT DISTINCT digest FROM artifacts)),
		(SELECT coalesce(sum(size), 0) FROM (SELECT digest, max(size) AS size FROM artifacts GROUP BY digest)),
		(SELECT count(*) FROM runs)`).Scan(&s.Keys, &s.Artifacts, &s.Objects, &s.Bytes, &s.Runs)
	if err != nil {
		return s, fmt.Errorf("cache %s: stats: %w", c.dir, wrapDamaged(err))
	}
	return s, nil
}

// indexedObject is a payload as the index sees it.
type indexedObject struct {
	size int64
	refs []string // "KEY/OUTPUT"
}

// indexedObjects returns every digest the index refers to.
func (c *Cache) indexedObjects(q interface {
	Query(string, ...any) (*sql.Rows, error)
}) (map[string]*indexedObject, error) {
	rows, err := q.Query(`SELECT key, name, digest, size FROM artifacts`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	objs := map[string]*indexedObject{}
	for rows.Next() {
		var key, name, digest string
		var size int64
		if err := rows.Scan(&key, &name, &digest, &size); err != nil {
			return nil, err
		}
		o := objs[digest]
		if o == nil {
			o = &indexedObject{size: size}
			objs[digest] = o
		}
		o.refs = append(o.refs, OutputID{Key: key, Output: name}.String())
	}
	return objs, rows.Err()
}

// objectFile is a file found under objects/.
type objectFile struct {
	path   string
	digest string // "" when the name is not a digest in its right directory
	size   int64
	mod    time.Time
}

// walkObjects lists the files under objects/.
func (c *Cache) walkObjects() ([]objectFile, error) {
	root := filepath.Join(c.dir, objectsDir)
	var files []objectFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == root {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) { // removed meanwhile
				return nil
			}
			return err
		}
		f := objectFile{path: path, size: info.Size(), mod: info.ModTime()}
		name := d.Name()
		if validDigest(name) && filepath.Dir(path) == filepath.Join(root, name[:2]) {
			f.digest = name
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cache %s: list the objects: %w", c.dir, err)
	}
	return files, nil
}

// Verify re-hashes every payload file and checks the index against the
// objects both ways: every indexed payload exists with its size and digest,
// every stored key has all its outputs, and every file under objects/ is a
// payload. Payloads no key refers to are counted as orphans, not problems.
// It never writes (beyond flushing this Cache's own buffered updates).
func (c *Cache) Verify() (VerifyReport, error) {
	return c.verify(false)
}

// Repair is Verify that also fixes what it finds, so the next run
// recomputes what was damaged: the keys whose payload is missing, has the
// wrong size or content, or whose outputs are incomplete lose their
// outputs (their key records stay, so plan can say why they rerun), damaged
// payload files and files under objects/ that are not payloads are
// removed. The report lists the problems found and, in Repaired, what was
// done; Unrepaired counts the problems left (a damaged index, which needs
// `hylaflow cache clear`).
func (c *Cache) Repair() (VerifyReport, error) {
	if err := c.writable(); err != nil {
		return VerifyReport{}, err
	}
	return c.verify(true)
}

func (c *Cache) verify(repair bool) (VerifyReport, error) {
	var rep VerifyReport
	if c.db == nil {
		return rep, nil
	}
	if err := c.flushIfWritable(); err != nil {
		return rep, err
	}
	var check string
	if err := c.db.QueryRow(`PRAGMA quick_check`).Scan(&check); err != nil {
		return rep, fmt.Errorf("cache %s: check the index: %w", c.dir, wrapDamaged(err))
	}
	if check != "ok" {
		rep.Problems = append(rep.Problems, fmt.Sprintf("index %s: %s (the index is damaged: 'hylaflow cache clear --yes' recreates it; payloads carry no keys, so what it indexed is recomputed)", filepath.Join(c.dir, indexFile), check))
		rep.Unrepaired++
	}
	objs, err := c.indexedObjects(c.db)
	if err != nil {
		return rep, fmt.Errorf("cache %s: verify: %w", c.dir, wrapDamaged(err))
	}
	rows, err := c.db.Query(`SELECT k.key, k.address, k.outputs, count(a.name) FROM keys k
		LEFT JOIN artifacts a ON a.key = k.key GROUP BY k.key HAVING k.outputs IS NULL AND count(a.name) > 0 OR k.outputs != count(a.name)`)
	if err != nil {
		return rep, fmt.Errorf("cache %s: verify: %w", c.dir, wrapDamaged(err))
	}
	var badKeys []string
	for rows.Next() {
		var key, addr string
		var want sql.NullInt64
		var have int
		if err := rows.Scan(&key, &addr, &want, &have); err != nil {
			rows.Close()
			return rep, fmt.Errorf("cache %s: verify: %w", c.dir, err)
		}
		badKeys = append(badKeys, key)
		if want.Valid {
			rep.Problems = append(rep.Problems, fmt.Sprintf("key %s (%s): %d outputs indexed, the key says %d", key, addr, have, want.Int64))
		} else {
			rep.Problems = append(rep.Problems, fmt.Sprintf("key %s (%s): %d outputs indexed for a key that is not stored", key, addr, have))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return rep, fmt.Errorf("cache %s: verify: %w", c.dir, err)
	}
	files, err := c.walkObjects()
	if err != nil {
		return rep, err
	}
	seen := map[string]bool{}
	damaged := map[string]bool{} // digest → remove the file when dropping its keys
	var strays []string
	h := sha256.New()
	for _, f := range files {
		if f.digest == "" {
			rep.Problems = append(rep.Problems, fmt.Sprintf("object %s: not a payload (name is not its sha256 under objects/XX/)", f.path))
			strays = append(strays, f.path)
			continue
		}
		rep.Checked++
		seen[f.digest] = true
		got, size, err := hashFile(f.path, h)
		if errors.Is(err, fs.ErrNotExist) {
			delete(seen, f.digest)
			continue
		}
		if err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("object %s: %v", f.path, err))
			rep.Unrepaired++
			continue
		}
		o := objs[f.digest]
		if got != f.digest {
			who := "no key"
			if o != nil {
				who = strings.Join(o.refs, ", ")
			}
			rep.Problems = append(rep.Problems, fmt.Sprintf("object %s: content has sha256 %s (payload of %s)", f.path, got, who))
			damaged[f.digest] = true
			continue
		}
		if o == nil {
			rep.Orphans++
			continue
		}
		if size != o.size {
			rep.Problems = append(rep.Problems, fmt.Sprintf("object %s: %d bytes, the index says %d (payload of %s)", f.path, size, o.size, strings.Join(o.refs, ", ")))
			damaged[f.digest] = false // the file is sound; the index entry is not
		}
	}
	digests := make([]string, 0, len(objs))
	for d := range objs {
		digests = append(digests, d)
	}
	sort.Strings(digests)
	for _, d := range digests {
		if !seen[d] {
			rep.Problems = append(rep.Problems, fmt.Sprintf("payload %s of %s is missing", d, strings.Join(objs[d].refs, ", ")))
			damaged[d] = false
		}
	}
	if !repair {
		return rep, nil
	}

	// Repair: every problem above except a damaged index or an unreadable
	// file is fixed by dropping the keys concerned (their records stay)
	// and removing files that are not sound payloads.
	dropped := 0
	for _, k := range badKeys {
		err := c.withTx(func(tx *sql.Tx) error {
			if _, err := tx.Exec(`UPDATE keys SET outputs = NULL WHERE key = ?`, k); err != nil {
				return err
			}
			if _, err := tx.Exec(`DELETE FROM artifacts WHERE key = ?`, k); err != nil {
				return err
			}
			return countRemoval(tx)
		})
		if err != nil {
			return rep, fmt.Errorf("cache %s: repair key %s: %w", c.dir, k, err)
		}
		dropped++
	}
	ds := make([]string, 0, len(damaged))
	for d := range damaged {
		ds = append(ds, d)
	}
	sort.Strings(ds)
	removed := 0
	for _, d := range ds {
		n, err := c.dropDigestErr(d, damaged[d])
		if err != nil {
			return rep, fmt.Errorf("cache %s: repair payload %s: %w", c.dir, d, err)
		}
		dropped += n
		if damaged[d] {
			removed++
		}
	}
	for _, p := range strays {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return rep, fmt.Errorf("cache %s: repair: %w", c.dir, err)
		}
		removed++
	}
	if dropped > 0 {
		rep.Repaired = append(rep.Repaired, fmt.Sprintf("dropped the outputs of %d keys (the next run recomputes them)", dropped))
	}
	if removed > 0 {
		rep.Repaired = append(rep.Repaired, fmt.Sprintf("removed %d damaged or stray files under %s", removed, filepath.Join(c.dir, objectsDir)))
	}
	return rep, nil
}

// GC removes the keys (with their records) and payloads that opts does not
// keep. Kept are: the keys the KeepRuns most recent runs used, the keys of
// runs still in progress, keys claimed by a live process, keys used within
// OlderThan (when > 0), and, transitively, the keys these keys' inputs name.
// gc also removes payload files no key refers to (older than a grace
// period, as another process may be about to index them), temp files of
// dead writers and stale leases. Run history is kept. With DryRun nothing
// is removed and the report says what would be.
func (c *Cache) GC(opts GCOptions) (GCReport, error) {
	var rep GCReport
	if c.db == nil {
		return rep, nil
	}
	if !opts.DryRun {
		if err := c.writable(); err != nil {
			return rep, err
		}
		if err := c.flush(); err != nil {
			return rep, err
		}
	}
	now := time.Now()
	var before map[string]*indexedObject
	var doomed []string
	mark := func(q interface {
		Query(string, ...any) (*sql.Rows, error)
	}) error {
		keep, err := c.gcKeep(q, opts, now)
		if err != nil {
			return err
		}
		if before, err = c.indexedObjects(q); err != nil {
			return err
		}
		rows, err := q.Query(`SELECT key FROM keys`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				return err
			}
			if !keep[k] {
				doomed = append(doomed, k)
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rep.Removed, err = gcDescribe(q, keep)
		return err
	}
	if opts.DryRun {
		if err := mark(c.db); err != nil {
			return rep, fmt.Errorf("cache %s: gc: %w", c.dir, err)
		}
	} else {
		err := c.withTx(func(tx *sql.Tx) error {
			if err := mark(tx); err != nil {
				return err
			}
			for _, k := range doomed {
				if _, err := tx.Exec(`DELETE FROM artifacts WHERE key = ?`, k); err != nil {
					return err
				}
				if _, err := tx.Exec(`DELETE FROM keys WHERE key = ?`, k); err != nil {
					return err
				}
			}
			if len(doomed) > 0 {
				if err := countRemoval(tx); err != nil {
					return err
				}
			}
			if c.schema >= 4 {
				// Stamps of payloads no key refers to any more (their
				// files go below, or are orphans).
				if _, err := tx.Exec(`DELETE FROM stamps WHERE path LIKE ? || '/%'
					AND substr(path, length(?) + 5) NOT IN (SELECT digest FROM artifacts)`, objectsDir, objectsDir); err != nil {
					return err
				}
			}
			_, err := tx.Exec(`DELETE FROM leases WHERE expires < ?`, now.UnixNano())
			return err
		})
		if err != nil {
			return rep, fmt.Errorf("cache %s: gc: %w", c.dir, err)
		}
	}
	rep.Keys = len(doomed)

	// Payloads still referenced after the sweep.
	var after map[string]*indexedObject
	if opts.DryRun {
		gone := map[string]bool{}
		for _, k := range doomed {
			gone[k] = true
		}
		after = map[string]*indexedObject{}
		for d, o := range before {
			for _, r := range o.refs {
				if !gone[r[:strings.IndexByte(r, '/')]] {
					after[d] = o
					break
				}
			}
		}
	} else {
		var err error
		if after, err = c.indexedObjects(c.db); err != nil {
			return rep, fmt.Errorf("cache %s: gc: %w", c.dir, err)
		}
	}
	files, err := c.walkObjects()
	if err != nil {
		return rep, err
	}
	for _, f := range files {
		if f.digest != "" && after[f.digest] != nil {
			continue
		}
		if f.digest != "" && before[f.digest] == nil && now.Sub(f.mod) < orphanGrace {
			continue // maybe just written by a process about to index it
		}
		if f.digest == "" && now.Sub(f.mod) < orphanGrace {
			continue
		}
		rep.Objects++
		rep.Bytes += f.size
		if !opts.DryRun {
			if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return rep, fmt.Errorf("cache %s: gc: %w", c.dir, err)
			}
		}
	}
	// Temp files of writers that died.
	tmps, err := os.ReadDir(filepath.Join(c.dir, tmpDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return rep, fmt.Errorf("cache %s: gc: %w", c.dir, err)
	}
	for _, e := range tmps {
		info, err := e.Info()
		if err != nil {
			continue
		}
		p, ok := parseTempName(c.self.host, e.Name())
		if ok && c.self.state(p) != procDead && now.Sub(info.ModTime()) < staleTemp {
			continue
		}
		if !ok && now.Sub(info.ModTime()) < staleTemp {
			continue
		}
		rep.Bytes += info.Size()
		if !opts.DryRun {
			os.Remove(filepath.Join(c.dir, tmpDir, e.Name()))
		}
	}
	return rep, nil
}

// gcDescribe lists the keys not in keep with their outputs, by address and key.
func gcDescribe(q interface {
	Query(string, ...any) (*sql.Rows, error)
}, keep map[string]bool) ([]GCKey, error) {
	rows, err := q.Query(`SELECT k.key, k.address, a.name, a.kind, a.digest, a.size
		FROM keys k LEFT JOIN artifacts a ON a.key = k.key ORDER BY k.address, k.key, a.name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []GCKey
	for rows.Next() {
		var key, address string
		var name, kind, digest sql.NullString
		var size sql.NullInt64
		if err := rows.Scan(&key, &address, &name, &kind, &digest, &size); err != nil {
			return nil, err
		}
		if keep[key] {
			continue
		}
		if n := len(out); n == 0 || out[n-1].Key != key {
			out = append(out, GCKey{Key: key, Address: address})
		}
		if name.Valid {
			g := &out[len(out)-1]
			g.Outputs = append(g.Outputs, OutputRef{Key: key, Name: name.String, Kind: artifact.Kind(kind.String),
				Digest: digest.String, Size: size.Int64})
		}
	}
	return out, rows.Err()
}

// gcKeep returns the set of keys gc keeps.
func (c *Cache) gcKeep(q interface {
	Query(string, ...any) (*sql.Rows, error)
}, opts GCOptions, now time.Time) (map[string]bool, error) {
	keep := map[string]bool{}
	collect := func(query string, args ...any) error {
		rows, err := q.Query(query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				return err
			}
			keep[k] = true
		}
		return rows.Err()
	}
	if opts.KeepRuns > 0 {
		if err := collect(`SELECT DISTINCT s.key FROM run_stages s
			WHERE s.run_id IN (SELECT id FROM runs ORDER BY id DESC LIMIT ?)`, opts.KeepRuns); err != nil {
			return nil, err
		}
	}
	// Runs in progress: their stages may not be recorded yet, so keep
	// everything used since they started.
	rows, err := q.Query(`SELECT id, start, host, pid, pstart FROM runs WHERE status = 'running'`)
	if err != nil {
		return nil, err
	}
	var since int64 = -1
	for rows.Next() {
		var id, start int64
		var p procID
		if err := rows.Scan(&id, &start, &p.host, &p.pid, &p.start); err != nil {
			rows.Close()
			return nil, err
		}
		if c.self.state(p) != procDead && (since < 0 || start < since) {
			since = start
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if since >= 0 {
		if err := collect(`SELECT key FROM keys WHERE last_used >= ?`, since); err != nil {
			return nil, err
		}
	}
	if opts.OlderThan > 0 {
		if err := collect(`SELECT key FROM keys WHERE last_used >= ?`, now.Add(-opts.OlderThan).UnixNano()); err != nil {
			return nil, err
		}
	}
	if err := collect(`SELECT key FROM leases WHERE expires >= ?`, now.UnixNano()); err != nil {
		return nil, err
	}
	// Inputs of kept keys, transitively.
	inputs := map[string][]string{}
	rows, err = q.Query(`SELECT key, inputs FROM keys`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var k, js string
		if err := rows.Scan(&k, &js); err != nil {
			rows.Close()
			return nil, err
		}
		var m map[string][]string
		if json.Unmarshal([]byte(js), &m) == nil {
			for _, refs := range m {
				for _, r := range refs {
					if i := strings.IndexByte(r, '/'); i > 0 {
						inputs[k] = append(inputs[k], r[:i])
					}
				}
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	stack := make([]string, 0, len(keep))
	for k := range keep {
		stack = append(stack, k)
	}
	for len(stack) > 0 {
		k := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, in := range inputs[k] {
			if !keep[in] {
				keep[in] = true
				stack = append(stack, in)
			}
		}
	}
	return keep, nil
}

// Clear removes every key, payload and run. Leases and the temp files of
// live writers stay.
func (c *Cache) Clear() error {
	if err := c.writable(); err != nil {
		return err
	}
	c.bufMu.Lock()
	clear(c.touched)
	clear(c.stamps)
	c.stages = c.stages[:0]
	c.bufMu.Unlock()
	err := c.withTx(func(tx *sql.Tx) error {
		for _, t := range []string{"artifacts", "keys", "run_stages", "runs", "stamps"} {
			if _, err := tx.Exec(`DELETE FROM ` + t); err != nil {
				return err
			}
		}
		return countRemoval(tx)
	})
	if err != nil {
		return fmt.Errorf("cache %s: clear: %w", c.dir, wrapDamaged(err))
	}
	files, err := c.walkObjects()
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cache %s: clear: %w", c.dir, err)
		}
	}
	return nil
}

// Reset empties the cache in dir without reading its index, for an index
// SQLite cannot read (see ErrIndexDamaged): it removes index.db with its
// WAL files and every payload under objects/, leaving the temp files of
// writers that still run, and Open then creates a fresh index. Payload
// files carry no key, so nothing of the old index can be kept. A process
// that still has the old index open keeps writing to the removed file;
// what it stores is lost (recomputed by the next run). It returns the
// number of payload files and bytes removed.
func Reset(dir string) (files int, bytes int64, err error) {
	if info, err := os.Stat(dir); err != nil {
		return 0, 0, fmt.Errorf("cache %s: %w", dir, err)
	} else if !info.IsDir() {
		return 0, 0, fmt.Errorf("cache %s: not a directory", dir)
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		p := filepath.Join(dir, indexFile+suffix)
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, 0, fmt.Errorf("cache %s: reset: %w", dir, err)
		}
	}
	c := &Cache{dir: dir}
	objs, err := c.walkObjects()
	if err != nil {
		return 0, 0, err
	}
	for _, f := range objs {
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return files, bytes, fmt.Errorf("cache %s: reset: %w", dir, err)
		}
		files++
		bytes += f.size
	}
	return files, bytes, nil
}
