package cache

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mattn/go-sqlite3" // the "sqlite3" database/sql driver

	"github.com/hylaflow/hylaflow/internal/filedigest"
)

// The layout of a cache directory.
const (
	indexFile  = "index.db" // SQLite index (plus its -wal and -shm files)
	objectsDir = "objects"  // content-addressed payloads: objects/ab/abcdef…
	tmpDir     = "tmp"      // payloads being written: PID-START-RANDOM.tmp
)

// busyTimeout is how long an SQLite statement waits for another process's
// write transaction before it fails.
const busyTimeout = 60 * time.Second

// flushEvery bounds how long buffered last-used times and stage records
// wait before they are written (they are also written at FinishRun and Close).
const flushEvery = time.Second

// flushMax is the number of buffered entries that triggers a write.
const flushMax = 512

// stageRowsPerInsert bounds the rows of one INSERT of stage records (10
// parameters each, well under SQLite's limit of 32766).
const stageRowsPerInsert = 256

// migrations[i] brings the index from schema version i to i+1. The schema
// version is SQLite's user_version; append, never edit, to change the schema.
var migrations = []string{
	// 1: keys with their components, artifacts, run history and leases.
	`CREATE TABLE keys (
		key         TEXT PRIMARY KEY,
		address     TEXT NOT NULL,
		stage_type  TEXT NOT NULL,
		version     TEXT NOT NULL,
		params      TEXT NOT NULL,  -- JSON object: name → canonical JSON value
		inputs      TEXT NOT NULL,  -- JSON object: slot → ["KEY/OUTPUT", …]
		fingerprint TEXT NOT NULL,
		created     INTEGER NOT NULL, -- unix ns
		last_used   INTEGER NOT NULL, -- unix ns
		outputs     INTEGER           -- number of stored outputs; NULL: not stored
	) WITHOUT ROWID;
	CREATE INDEX keys_address ON keys(address, last_used);
	CREATE TABLE artifacts (
		key    TEXT NOT NULL,
		name   TEXT NOT NULL,
		kind   TEXT NOT NULL,
		digest TEXT NOT NULL,
		size   INTEGER NOT NULL,
		PRIMARY KEY (key, name)
	) WITHOUT ROWID;
	CREATE INDEX artifacts_digest ON artifacts(digest);
	CREATE TABLE runs (
		id       INTEGER PRIMARY KEY AUTOINCREMENT,
		pipeline TEXT NOT NULL,
		args     TEXT NOT NULL,     -- JSON array
		start    INTEGER NOT NULL,  -- unix ns
		duration INTEGER NOT NULL,  -- ns, 0 while running
		status   TEXT NOT NULL,
		host     TEXT NOT NULL,
		pid      INTEGER NOT NULL,
		pstart   TEXT NOT NULL      -- process start time (/proc/PID/stat field 22)
	);
	CREATE TABLE run_stages (
		run_id   INTEGER NOT NULL,
		seq      INTEGER NOT NULL,
		address  TEXT NOT NULL,
		key      TEXT NOT NULL,
		status   TEXT NOT NULL,
		reason   TEXT NOT NULL,
		start    INTEGER NOT NULL,
		duration INTEGER NOT NULL,
		error    TEXT NOT NULL,
		metrics  TEXT NOT NULL,     -- JSON object or ""
		PRIMARY KEY (run_id, seq)
	) WITHOUT ROWID;
	CREATE INDEX run_stages_key ON run_stages(key);
	CREATE TABLE leases (
		key     TEXT PRIMARY KEY,
		host    TEXT NOT NULL,
		pid     INTEGER NOT NULL,
		pstart  TEXT NOT NULL,
		claim   INTEGER NOT NULL,   -- claim number within the process
		expires INTEGER NOT NULL    -- unix ns
	) WITHOUT ROWID;`,
	// 2: each run's provenance (what produced it: build, inputs, machine),
	// a JSON object; '' for runs recorded before it existed.
	`ALTER TABLE runs ADD COLUMN provenance TEXT NOT NULL DEFAULT '';`,
	// 3: counters kept by the index. "removals" counts the transactions
	// that removed or replaced stored outputs (gc, clear, repair, a
	// damaged payload dropped, a key stored again), so that a plan made
	// before a run registered can tell whether its lookups still hold.
	`CREATE TABLE meta (
		name  TEXT PRIMARY KEY,
		value INTEGER NOT NULL
	) WITHOUT ROWID;
	INSERT INTO meta (name, value) VALUES ('removals', 0);`,
	// 4: what each file was when its contents were last hashed, so that a
	// file whose stamp did not change is not read again: a payload (path
	// objects/ab/abcd…, relative to the cache) or an outside file a key's
	// fingerprint hashes (its absolute path). Ctime and inode catch a
	// rewrite that kept the size and set the modification time back.
	`CREATE TABLE stamps (
		path     TEXT PRIMARY KEY,
		size     INTEGER NOT NULL,
		mtime    INTEGER NOT NULL, -- unix ns
		ctime    INTEGER NOT NULL, -- unix ns; 0 where the platform gives none
		inode    INTEGER NOT NULL, -- 0 where the platform gives none
		digest   TEXT NOT NULL,    -- hex sha256 of the contents
		verified INTEGER NOT NULL  -- unix ns: when the contents were hashed
	) WITHOUT ROWID;`,
	// 5: no index of stage records by key. No query looks stage records
	// up by key (history is read by run), and keeping that index made
	// every run's records random writes into a b-tree as large as the
	// whole history: a fully cached 502-stage rerun spent more in it than
	// in anything else once the history held a few dozen runs.
	`DROP INDEX IF EXISTS run_stages_key;`,
}

// readOnlyMin is the oldest schema version a read-only open accepts
// without upgrading: the versions after it only add columns and tables
// whose absence readers handle (schema 1 has no runs.provenance: its runs
// show the provenance as not recorded; before schema 3 there is no meta
// table: Removals is unknown). A writing open always upgrades.
const readOnlyMin = 1

// Cache is an open cache directory. It is safe for concurrent use by the
// goroutines of one process, and several processes may open the same
// directory at once.
type Cache struct {
	dir      string
	absDir   string  // identifies the directory for claims within the process
	db       *sql.DB // nil: a read-only cache whose directory or index does not exist
	readOnly bool
	schema   int // the index's schema version (< len(migrations) only read-only)
	self     procID

	stLookup, stRecord, stLast *sql.Stmt

	// Buffered writes: last-used times, stage records and file stamps,
	// flushed together.
	bufMu   sync.Mutex
	touched map[string]int64 // key → unix ns
	stages  []bufferedStage
	stamps  map[string]stampRow // path (as in the stamps table) → row

	preMu     sync.Mutex
	preloaded map[string]*lookupRow // PreloadLookups' rows, by key
	lastFlush time.Time
	knownRuns map[int64]bool // runs that exist in the index

	claims claimState

	closeOnce sync.Once
	closeErr  error
}

type bufferedStage struct {
	run int64
	s   StageRecord
}

// Open opens (creating if needed) the cache in dir.
func Open(dir string) (*Cache, error) {
	return open(dir, false)
}

// OpenReadOnly opens the cache in dir for reading only, for commands that
// must never write (plan, dry runs). A directory without an index behaves
// as an empty cache. The writing methods return ErrReadOnly.
func OpenReadOnly(dir string) (*Cache, error) {
	return open(dir, true)
}

func open(dir string, readOnly bool) (*Cache, error) {
	c := &Cache{dir: dir, readOnly: readOnly, touched: map[string]int64{}, stamps: map[string]stampRow{},
		lastFlush: time.Now(), knownRuns: map[int64]bool{}}
	c.claims.init()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("cache %s: %w", dir, err)
	}
	c.absDir = abs
	path := filepath.Join(dir, indexFile)
	if readOnly {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return c, nil
		} else if err != nil {
			return nil, fmt.Errorf("cache %s: %w", dir, err)
		}
	} else {
		for _, d := range []string{dir, filepath.Join(dir, objectsDir), filepath.Join(dir, tmpDir)} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return nil, fmt.Errorf("cache %s: %w", dir, err)
			}
		}
	}
	self, err := currentProc()
	if err != nil {
		return nil, fmt.Errorf("cache %s: %w", dir, err)
	}
	c.self = self
	dsn := "file:" + dsnEscape(path) + fmt.Sprintf("?_busy_timeout=%d&_txlock=immediate", busyTimeout.Milliseconds())
	if readOnly {
		dsn += "&mode=ro"
	} else {
		dsn += "&_journal_mode=WAL&_synchronous=NORMAL"
	}
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("cache %s: open the index: %w", dir, err)
	}
	db.SetMaxIdleConns(4)
	c.db = db
	if err := c.migrateRetrying(); err != nil {
		db.Close()
		return nil, fmt.Errorf("cache %s: %w", dir, wrapDamaged(err))
	}
	if err := c.prepare(); err != nil {
		db.Close()
		return nil, fmt.Errorf("cache %s: %w", dir, wrapDamaged(err))
	}
	return c, nil
}

// dsnEscape percent-encodes the characters that end a path in an SQLite URI.
func dsnEscape(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}

// migrateRetrying runs migrate, retrying for up to busyTimeout while
// another process holds the lock. The busy handler does not cover opening a
// connection: when two processes open a new index at once, one of them may
// get SQLITE_BUSY from the journal-mode switch to WAL that runs as the
// connection opens, and only a fresh connection can succeed.
func (c *Cache) migrateRetrying() error {
	deadline := time.Now().Add(busyTimeout)
	wait := 5 * time.Millisecond
	for {
		err := c.migrate()
		var se sqlite3.Error
		if err == nil || !errors.As(err, &se) || (se.Code != sqlite3.ErrBusy && se.Code != sqlite3.ErrLocked) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// migrate brings the schema to the current version.
func (c *Cache) migrate() error {
	var v int
	if err := c.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("read the index %s: %w", filepath.Join(c.dir, indexFile), err)
	}
	if v > len(migrations) {
		return fmt.Errorf("the index has schema version %d; this hylaflow knows versions up to %d (upgrade hylaflow)", v, len(migrations))
	}
	c.schema = v
	if v == len(migrations) {
		return nil
	}
	if c.readOnly && v >= readOnlyMin {
		return nil
	}
	if c.readOnly {
		return fmt.Errorf("the index has schema version %d, want %d: run a writing command (hylaflow run) once to upgrade it", v, len(migrations))
	}
	tx, err := c.db.Begin()
	if err != nil {
		return fmt.Errorf("upgrade the index: %w", err)
	}
	defer tx.Rollback()
	if err := tx.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil { // another process may have upgraded it
		return fmt.Errorf("upgrade the index: %w", err)
	}
	for ; v < len(migrations); v++ {
		if _, err := tx.Exec(migrations[v]); err != nil {
			return fmt.Errorf("upgrade the index to schema version %d: %w", v+1, err)
		}
	}
	if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, v)); err != nil {
		return fmt.Errorf("upgrade the index: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("upgrade the index: %w", err)
	}
	c.schema = v
	return nil
}

// prepare prepares the statements of the hot read paths.
func (c *Cache) prepare() error {
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = c.db.Prepare(q)
		return st
	}
	c.stLookup = prep(`SELECT k.key, k.outputs, a.name, a.kind, a.digest, a.size FROM keys k
		LEFT JOIN artifacts a ON a.key = k.key WHERE k.key = ? ORDER BY a.name`)
	c.stRecord = prep(`SELECT key, address, stage_type, version, params, inputs, fingerprint FROM keys WHERE key = ?`)
	c.stLast = prep(`SELECT key, address, stage_type, version, params, inputs, fingerprint FROM keys
		WHERE address = ? ORDER BY last_used DESC, created DESC LIMIT 1`)
	if err != nil {
		return fmt.Errorf("prepare the index statements: %w", err)
	}
	return nil
}

// Close writes buffered updates and closes the index. Leases still held are
// released. Close is idempotent.
func (c *Cache) Close() error {
	c.closeOnce.Do(func() {
		c.claims.stop(c)
		filedigest.Release(c)
		if c.db == nil {
			return
		}
		err := c.flush()
		for _, st := range []*sql.Stmt{c.stLookup, c.stRecord, c.stLast} {
			if st != nil {
				st.Close()
			}
		}
		if cerr := c.db.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("cache %s: close the index: %w", c.dir, cerr)
		}
		c.closeErr = err
	})
	return c.closeErr
}

// Dir returns the cache directory.
func (c *Cache) Dir() string { return c.dir }

// writable returns ErrReadOnly for a read-only cache.
func (c *Cache) writable() error {
	if c.readOnly {
		return fmt.Errorf("cache %s: %w", c.dir, ErrReadOnly)
	}
	return nil
}

// withTx runs f in an immediate write transaction.
func (c *Cache) withTx(f func(tx *sql.Tx) error) error {
	if err := c.writable(); err != nil {
		return err
	}
	tx, err := c.db.Begin()
	if err != nil {
		return fmt.Errorf("cache %s: begin a write transaction: %w", c.dir, err)
	}
	c.forgetPreloaded() // what this process writes is looked up afresh
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("cache %s: commit: %w", c.dir, err)
	}
	return nil
}

// flush writes the buffered last-used times and stage records.
func (c *Cache) flush() error {
	c.bufMu.Lock()
	defer c.bufMu.Unlock()
	return c.flushLocked(nil)
}

// flushLocked writes the buffers (c.bufMu held), and runs also(tx) in the
// same transaction if it is not nil.
func (c *Cache) flushLocked(also func(tx *sql.Tx) error) error {
	c.lastFlush = time.Now()
	if len(c.touched) == 0 && len(c.stages) == 0 && len(c.stamps) == 0 && also == nil {
		return nil
	}
	err := c.withTx(func(tx *sql.Tx) error {
		if err := writeStamps(tx, c.stamps); err != nil {
			return fmt.Errorf("cache %s: record file stamps: %w", c.dir, err)
		}
		if len(c.touched) > 0 {
			st, err := tx.Prepare(`UPDATE keys SET last_used = max(last_used, ?) WHERE key = ?`)
			if err != nil {
				return fmt.Errorf("cache %s: record uses: %w", c.dir, err)
			}
			defer st.Close()
			for key, t := range c.touched {
				if _, err := st.Exec(t, key); err != nil {
					return fmt.Errorf("cache %s: record the use of %s: %w", c.dir, key, err)
				}
			}
		}
		if len(c.stages) > 0 {
			// Stage numbers continue a run's records in the index (another
			// Cache may have written some), assigned inside this
			// immediate transaction.
			next, err := tx.Prepare(`SELECT coalesce(max(seq) + 1, 0) FROM run_stages WHERE run_id = ?`)
			if err != nil {
				return fmt.Errorf("cache %s: record stages: %w", c.dir, err)
			}
			defer next.Close()
			seqs := map[int64]int64{}
			var args []any
			rows := 0
			// insert writes the rows gathered in args, in one statement
			// (a run whose record was cleared meanwhile gets none).
			insert := func() error {
				if rows == 0 {
					return nil
				}
				q := `INSERT INTO run_stages (run_id, seq, address, key, status, reason, start, duration, error, metrics)
					SELECT * FROM (VALUES ` + strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?), ", rows-1) + `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?))
					WHERE EXISTS (SELECT 1 FROM runs WHERE id = column1)`
				_, err := tx.Exec(q, args...)
				args, rows = args[:0], 0
				return err
			}
			for _, b := range c.stages {
				seq, ok := seqs[b.run]
				if !ok {
					if err := next.QueryRow(b.run).Scan(&seq); err != nil {
						return fmt.Errorf("cache %s: record stages of run %d: %w", c.dir, b.run, err)
					}
				}
				seqs[b.run] = seq + 1
				args = append(args, b.run, seq, b.s.Address, b.s.Key, b.s.Status, b.s.Reason,
					unixNano(b.s.Start), int64(b.s.Duration), b.s.Error, metricsJSON(b.s.Metrics))
				if rows++; rows == stageRowsPerInsert {
					if err := insert(); err != nil {
						return fmt.Errorf("cache %s: record stages: %w", c.dir, err)
					}
				}
			}
			if err := insert(); err != nil {
				return fmt.Errorf("cache %s: record stages: %w", c.dir, err)
			}
		}
		if also != nil {
			return also(tx)
		}
		return nil
	})
	if err != nil {
		return err
	}
	clear(c.touched)
	clear(c.stamps)
	c.stages = c.stages[:0]
	return nil
}

// maybeFlushLocked flushes when the buffers are full or old (c.bufMu held).
func (c *Cache) maybeFlushLocked() error {
	if len(c.touched)+len(c.stages) >= flushMax || time.Since(c.lastFlush) >= flushEvery {
		return c.flushLocked(nil)
	}
	return nil
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// ErrIndexDamaged marks an index.db that SQLite cannot read (not a
// database, or a malformed page). Payload files carry no key, so the index
// cannot be rebuilt from them: Reset (hylaflow cache clear --yes) removes
// the index and the payloads, and the next run recomputes what it needs.
var ErrIndexDamaged = errors.New("cache: the index is damaged")

// indexDamaged reports whether err is SQLite saying the database file is
// damaged.
func indexDamaged(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB)
}

// wrapDamaged returns err wrapped with ErrIndexDamaged and the recovery
// advice when it shows a damaged index, else err.
func wrapDamaged(err error) error {
	if !indexDamaged(err) {
		return err
	}
	return fmt.Errorf("%w: %w%s", ErrIndexDamaged, err, damagedIndexHint(err))
}

// damagedIndexHint is the recovery advice appended to an error that shows a
// damaged index ("" for other errors).
func damagedIndexHint(err error) string {
	if !indexDamaged(err) {
		return ""
	}
	return " (recover with 'hylaflow cache clear --yes': it removes the index with the payloads it indexed and starts an empty cache; payload files carry no keys, so the index cannot be rebuilt from them)"
}

// Removals returns the index's count of transactions that removed or
// replaced stored outputs (gc, clear, repair, a damaged payload dropped, a
// key stored again), or -1 when the index does not keep it (a read-only
// open of an older schema, or no index). A caller that looked keys up, then
// pinned them (Pin) and finds the same count, knows that every lookup
// still holds: nothing was removed in between, and nothing pinned can be
// removed while its run is live.
func (c *Cache) Removals() (int64, error) {
	if c.db == nil || c.schema < 3 {
		return -1, nil
	}
	var n int64
	if err := c.db.QueryRow(`SELECT value FROM meta WHERE name = 'removals'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("cache %s: read the removals count: %w", c.dir, wrapDamaged(err))
	}
	return n, nil
}

// countRemoval adds one to the removals count in tx (see Removals).
func countRemoval(tx *sql.Tx) error {
	_, err := tx.Exec(`UPDATE meta SET value = value + 1 WHERE name = 'removals'`)
	return err
}
