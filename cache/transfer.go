package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// The transfer API moves payloads between this cache and another store
// (a remote, see package remote) as raw bytes, without decoding them:
// OpenPayload reads one out, Ingest writes a key's payloads in and indexes
// the key. Both verify digests, so bytes that do not match their name are
// never served and never indexed.

// IngestOutput is one output of a key being ingested: its ref (Key is
// set by Ingest) and a function opening the payload's bytes.
type IngestOutput struct {
	Ref  OutputRef
	Open func() (io.ReadCloser, error)
}

// DigestError reports a payload whose bytes do not hash to the digest
// they were announced with. It wraps ErrCorrupt.
type DigestError struct {
	Want, Got string
	Size      int64 // bytes read
	WantSize  int64
}

func (e *DigestError) Error() string {
	if e.Got == "" {
		return fmt.Sprintf("payload %s: more bytes than the %d announced", e.Want, e.WantSize)
	}
	return fmt.Sprintf("payload %s: the bytes read (%d of %d) have sha256 %s", e.Want, e.Size, e.WantSize, e.Got)
}

// Unwrap makes errors.Is(err, ErrCorrupt) true.
func (e *DigestError) Unwrap() error { return ErrCorrupt }

// HasPayload reports whether the payload with digest is in objects/ with
// size bytes (its content is not re-hashed).
func (c *Cache) HasPayload(digest string, size int64) bool {
	if !validDigest(digest) {
		return false
	}
	info, err := os.Stat(c.objectPath(digest))
	return err == nil && info.Mode().IsRegular() && info.Size() == size
}

// OpenPayload opens the stored payload of ref for reading its raw bytes.
// The reader verifies the digest as it goes: its final Read returns an
// error wrapping ErrCorrupt (a *DigestError) instead of io.EOF when the
// bytes do not match, so a copy that ends without error copied sound bytes.
func (c *Cache) OpenPayload(ref OutputRef) (io.ReadCloser, error) {
	if !validDigest(ref.Digest) {
		return nil, fmt.Errorf("cache %s: open %s/%s: digest %q is not a hex sha256", c.dir, ref.Key, ref.Name, ref.Digest)
	}
	f, err := os.Open(c.objectPath(ref.Digest))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cache %s: open %s/%s: payload %s is missing: %w", c.dir, ref.Key, ref.Name, ref.Digest, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("cache %s: open %s/%s: %w", c.dir, ref.Key, ref.Name, err)
	}
	return NewVerifyingReader(f, ref.Digest, ref.Size), nil
}

// NewVerifyingReader returns a reader of r that hashes what passes through
// it: at the end of r it returns io.EOF only if exactly size bytes with
// sha256 digest were read, else a *DigestError. Closing it closes r.
func NewVerifyingReader(r io.ReadCloser, digest string, size int64) io.ReadCloser {
	return &verifyingReader{r: r, want: digest, size: size, h: sha256.New()}
}

type verifyingReader struct {
	r    io.ReadCloser
	want string
	size int64
	n    int64
	h    interface {
		io.Writer
		Sum([]byte) []byte
	}
}

func (v *verifyingReader) Read(p []byte) (int, error) {
	n, err := v.r.Read(p)
	v.h.Write(p[:n])
	v.n += int64(n)
	if v.n > v.size {
		return n, &DigestError{Want: v.want, Size: v.n, WantSize: v.size}
	}
	if errors.Is(err, io.EOF) {
		if got := hex.EncodeToString(v.h.Sum(nil)); got != v.want || v.n != v.size {
			return n, &DigestError{Want: v.want, Got: got, Size: v.n, WantSize: v.size}
		}
	}
	return n, err
}

func (v *verifyingReader) Close() error { return v.r.Close() }

// Ingest writes the payloads of rec.Key from outs into objects/ (each
// written to a temp file, fsynced and renamed like Store's; a payload
// present already with its size is not written again) and then indexes the
// key with those outputs in one transaction. Each payload's bytes must
// hash to its ref's digest and have its size: otherwise nothing is indexed
// and the error wraps ErrCorrupt (a *DigestError). A crash leaves the key
// absent or complete, as with Store.
func (c *Cache) Ingest(rec *KeyRecord, outs []IngestOutput) ([]OutputRef, error) {
	if err := c.writable(); err != nil {
		return nil, err
	}
	if rec.Key == "" {
		return nil, fmt.Errorf("cache %s: ingest: the record of %s has no key", c.dir, rec.Address)
	}
	refs := make([]OutputRef, len(outs))
	for i, o := range outs {
		ref := o.Ref
		ref.Key = rec.Key
		if !validDigest(ref.Digest) {
			return nil, fmt.Errorf("cache %s: ingest %s/%s: digest %q is not a hex sha256", c.dir, rec.Key, ref.Name, ref.Digest)
		}
		refs[i] = ref
		if c.HasPayload(ref.Digest, ref.Size) {
			continue
		}
		src, err := o.Open()
		if err != nil {
			return nil, fmt.Errorf("cache %s: ingest %s/%s: %w", c.dir, rec.Key, ref.Name, err)
		}
		digest, size, err := c.writeObject(func(w io.Writer) error {
			_, err := io.Copy(w, io.LimitReader(src, ref.Size+1))
			return err
		})
		src.Close()
		if err != nil {
			return nil, fmt.Errorf("cache %s: ingest %s/%s: %w", c.dir, rec.Key, ref.Name, err)
		}
		if digest != ref.Digest || size != ref.Size {
			// The file is named by its own content, so it is a sound
			// (orphan) payload that gc removes; only the key is refused.
			return nil, fmt.Errorf("cache %s: ingest %s/%s: %w", c.dir, rec.Key, ref.Name,
				&DigestError{Want: ref.Digest, Got: digest, Size: size, WantSize: ref.Size})
		}
	}
	if err := c.indexOutputs(rec, refs); err != nil {
		return nil, fmt.Errorf("cache %s: ingest %s (%s): index: %w", c.dir, rec.Key, rec.Address, wrapDamaged(err))
	}
	return refs, nil
}

// KeysRecordedWith returns the distinct keys of the stage records whose
// reason starts with prefix (remote.OriginPrefix: the stages served from
// payloads fetched from a remote), the most recently recorded first.
func (c *Cache) KeysRecordedWith(prefix string) ([]string, error) {
	if c.db == nil {
		return nil, nil
	}
	if err := c.flushIfWritable(); err != nil {
		return nil, err
	}
	rows, err := c.db.Query(`SELECT key FROM run_stages WHERE substr(reason, 1, ?) = ?
		GROUP BY key ORDER BY max(run_id) DESC, key`, len(prefix), prefix)
	if err != nil {
		return nil, fmt.Errorf("cache %s: %w", c.dir, wrapDamaged(err))
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("cache %s: %w", c.dir, err)
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}
