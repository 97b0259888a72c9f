// Package filedigest hashes files' contents for cache keys: the dataset
// sources' fingerprints and the command stage's code files. Within one
// process a digest is remembered by path, size and modification time, so
// planning and running hash each file once; a file modified within the
// last few seconds is hashed again every time, because a same-size edit
// inside the file system's timestamp granularity would otherwise be served
// the old digest (git's "racy clean" case).
package filedigest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// RacyWindow is how recent a modification must be for Sum not to remember
// the digest: well above the coarse clocks file systems stamp modification
// times with.
const RacyWindow = 2 * time.Second

var memo sync.Map // key → string

type key struct {
	path        string
	size, mtime int64
}

// Sum returns the hex SHA-256 of the contents of the file at path.
func Sum(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	k := key{path, st.Size(), st.ModTime().UnixNano()}
	if v, ok := memo.Load(k); ok {
		return v.(string), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if time.Since(st.ModTime()) > RacyWindow {
		memo.Store(k, sum)
	}
	return sum, nil
}
