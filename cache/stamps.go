package cache

import (
	"database/sql"
	"path/filepath"
	"time"

	"github.com/hylaflow/hylaflow/internal/filedigest"
)

// RehashAfter is how long a digest verified by hashing a file is trusted
// while the file's stamp (size, modification and change times, inode)
// stays the same: after it, the next check reads the file again. It bounds
// how long damage that no stamp shows (the storage corrupting bytes under
// the file system) can go unseen by runs; `hylaflow cache verify` and
// every load of a payload read it in full anyway.
var RehashAfter = 7 * 24 * time.Hour

// stampRow is a row of the stamps table: a file's stamp when its contents
// were last hashed, the digest, and when.
type stampRow struct {
	stamp    filedigest.Stamp
	digest   string
	verified int64 // unix ns
}

// payloadStampPath is the stamps table's path of the payload with digest.
func payloadStampPath(digest string) string {
	return objectsDir + "/" + digest[:2] + "/" + digest
}

// writeStamps writes buffered stamp rows in tx.
func writeStamps(tx *sql.Tx, rows map[string]stampRow) error {
	if len(rows) == 0 {
		return nil
	}
	st, err := tx.Prepare(`INSERT OR REPLACE INTO stamps (path, size, mtime, ctime, inode, digest, verified) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer st.Close()
	for path, r := range rows {
		if _, err := st.Exec(path, r.stamp.Size, r.stamp.Mtime, r.stamp.Ctime, int64(r.stamp.Inode), r.digest, r.verified); err != nil {
			return err
		}
	}
	return nil
}

// hasStamps reports whether the index keeps stamps (schema 4 on; a
// read-only open of an older index does not).
func (c *Cache) hasStamps() bool { return c.db != nil && c.schema >= 4 }

// readStamp returns the stamp row of path: a buffered one, else the
// index's (ok false when there is none, or the index keeps no stamps).
func (c *Cache) readStamp(path string) (r stampRow, ok bool) {
	if !c.hasStamps() {
		return r, false
	}
	c.bufMu.Lock()
	r, ok = c.stamps[path]
	c.bufMu.Unlock()
	if ok {
		return r, true
	}
	var inode int64
	err := c.db.QueryRow(`SELECT size, mtime, ctime, inode, digest, verified FROM stamps WHERE path = ?`, path).
		Scan(&r.stamp.Size, &r.stamp.Mtime, &r.stamp.Ctime, &inode, &r.digest, &r.verified)
	if err != nil { // no row, or an index error: the caller hashes the file
		return stampRow{}, false
	}
	r.stamp.Inode = uint64(inode)
	return r, true
}

// fresh reports whether r may be trusted now: its stamp was settled when
// the file was hashed, within RehashAfter.
func (r stampRow) fresh() bool {
	at := time.Unix(0, r.verified)
	return time.Since(at) <= RehashAfter && filedigest.Settled(r.stamp, at)
}

// trustedDigest returns the digest recorded for path when the file still
// has the stamp it had then and the row is fresh; "" otherwise.
func (c *Cache) trustedDigest(path string, now filedigest.Stamp) string {
	r, ok := c.readStamp(path)
	if !ok || r.stamp != now || !r.fresh() {
		return ""
	}
	return r.digest
}

// recordStamp buffers the stamp a file had when it was hashed to digest
// (written with the next flush), unless the stamp is not settled yet or
// the cache is read-only.
func (c *Cache) recordStamp(path string, s filedigest.Stamp, digest string, hashed time.Time) {
	if c.readOnly || !c.hasStamps() || !filedigest.Settled(s, hashed) {
		return
	}
	c.bufMu.Lock()
	c.stamps[path] = stampRow{stamp: s, digest: digest, verified: hashed.UnixNano()}
	c.bufMu.Unlock()
}

// FileDigest implements filedigest.Store: the digest of the outside file
// at path (absolute) as last hashed, with its stamp then. ok is false when
// none is recorded or it is older than RehashAfter.
func (c *Cache) FileDigest(path string) (filedigest.Stamp, string, bool) {
	r, ok := c.readStamp(path)
	if !ok || !r.fresh() {
		return filedigest.Stamp{}, "", false
	}
	return r.stamp, r.digest, true
}

// RecordFileDigest implements filedigest.Store: it buffers the digest of
// the outside file at path (absolute) with its stamp.
func (c *Cache) RecordFileDigest(path string, s filedigest.Stamp, digest string) {
	if !filepath.IsAbs(path) {
		return // the table's relative paths are the cache's payloads
	}
	c.recordStamp(path, s, digest, time.Now())
}

// UseForFileDigests makes the cache's index the store of outside files'
// digests (filedigest.Use) until it is closed: a fingerprint then reads a
// data file again only when its stamp changed since a process last hashed
// it.
func (c *Cache) UseForFileDigests() {
	if c.db != nil {
		filedigest.Use(c)
	}
}
