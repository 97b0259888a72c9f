// Package filedigest hashes files' contents for cache keys: the dataset
// sources' fingerprints and the command stage's code files. A digest is
// remembered with the file's Stamp — size, modification and change times,
// inode — within one process, so planning and running hash each file once,
// and across processes by a Store (the cache's index, installed with Use):
// a file whose stamp is unchanged is not read again.
//
// A file modified or changed within the last few seconds is hashed again
// every time and never remembered, because a same-size edit inside the
// file system's timestamp granularity would otherwise be served the old
// digest (git's "racy clean" case). Every write through the file system
// sets the change time, which no user call can set back (unlike the
// modification time), so an edit with the modification time restored is
// still seen.
package filedigest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// RacyWindow is how recent a modification must be for Sum not to remember
// the digest: well above the coarse clocks file systems stamp modification
// times with. (A variable only so that tests can shorten it.)
var RacyWindow = 2 * time.Second

var memo sync.Map // key → string

type key struct {
	path  string
	stamp Stamp
}

// hashed counts the files Sum read (for tests).
var hashed atomic.Int64

// Stamp is what the file system says about one version of a file's
// contents: a write changes at least the change time (Ctime), a
// replacement the inode. Ctime and Inode are 0 where the platform does not
// give them (then the size and modification time alone are compared).
type Stamp struct {
	Size  int64
	Mtime int64 // unix ns
	Ctime int64 // unix ns
	Inode uint64
}

// StampOf returns the stamp of a file from its FileInfo.
func StampOf(fi fs.FileInfo) Stamp {
	s := Stamp{Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
	s.Ctime, s.Inode = sysStamp(fi)
	return s
}

// Settled reports whether a digest taken now of a file with stamp s may be
// remembered: its last modification and change are older than RacyWindow,
// so any later write gives it another stamp.
func Settled(s Stamp, now time.Time) bool {
	limit := now.Add(-RacyWindow).UnixNano()
	return s.Mtime < limit && s.Ctime < limit
}

// Store remembers digests across processes (the cache's index).
// FileDigest returns the digest recorded for path with the stamp it had
// then; RecordFileDigest records one (it may buffer the write). Both must
// be safe for concurrent use.
type Store interface {
	FileDigest(path string) (stamp Stamp, digest string, ok bool)
	RecordFileDigest(path string, stamp Stamp, digest string)
}

var (
	storeMu sync.RWMutex
	store   Store
)

// Use makes s the Store Sum consults (nil: none).
func Use(s Store) {
	storeMu.Lock()
	store = s
	storeMu.Unlock()
}

// Release stops using s if it is the Store in use (a cache being closed).
func Release(s Store) {
	storeMu.Lock()
	if store == s {
		store = nil
	}
	storeMu.Unlock()
}

func currentStore() Store {
	storeMu.RLock()
	defer storeMu.RUnlock()
	return store
}

// Sum returns the hex SHA-256 of the contents of the file at path (made
// absolute for the Store, so that every working directory shares it).
func Sum(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	stamp := StampOf(st)
	k := key{path, stamp}
	if v, ok := memo.Load(k); ok {
		return v.(string), nil
	}
	s := currentStore()
	abs := path
	if s != nil {
		if a, err := filepath.Abs(path); err == nil {
			abs = a
			if was, sum, ok := s.FileDigest(abs); ok && was == stamp && Settled(stamp, time.Now()) {
				memo.Store(k, sum)
				return sum, nil
			}
		} else {
			s = nil
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	hashed.Add(1)
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	// The stamp was taken before the read: a write during it changes the
	// stamp, so what is remembered under the old one is never served.
	if Settled(stamp, time.Now()) {
		memo.Store(k, sum)
		if s != nil {
			s.RecordFileDigest(abs, stamp, sum)
		}
	}
	return sum, nil
}
