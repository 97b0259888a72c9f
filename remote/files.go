package remote

import (
	"context"
	"fmt"
	"io"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// The remote also carries small mutable files that are not part of the
// content-addressed store: the Slurm executor's task specs, done-records,
// submission records and job logs (under slurm/, see executor/slurm).
// They are read and written whole, with the remote's retries; a write
// replaces the file (an object store makes the new version visible only
// when its upload completes, so a reader sees the old file or the new one,
// never a part).

// ReadFile reads the file name whole; ok is false when there is none. A
// file larger than limit bytes is an error.
func (r *Remote) ReadFile(ctx context.Context, name string, limit int64) (b []byte, ok bool, err error) {
	err = r.retry(ctx, "read "+name, r.opts.Timeout, func(ctx context.Context) error {
		rd, err := r.bucket.NewReader(ctx, name, nil)
		if err != nil {
			return err
		}
		defer rd.Close()
		b, err = io.ReadAll(io.LimitReader(rd, limit+1))
		if err != nil {
			return err
		}
		if int64(len(b)) > limit {
			return fmt.Errorf("%s: larger than %d bytes", name, limit)
		}
		return nil
	})
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("remote %s: %w", r.url, err)
	}
	return b, true, nil
}

// ReadTail returns the last n bytes of the file name (all of it when it
// is shorter); ok is false when there is none.
func (r *Remote) ReadTail(ctx context.Context, name string, n int64) (b []byte, ok bool, err error) {
	err = r.retry(ctx, "read "+name, r.opts.Timeout, func(ctx context.Context) error {
		attrs, err := r.bucket.Attributes(ctx, name)
		if err != nil {
			return err
		}
		off := max(0, attrs.Size-n)
		rd, err := r.bucket.NewRangeReader(ctx, name, off, attrs.Size-off, nil)
		if err != nil {
			return err
		}
		defer rd.Close()
		b, err = io.ReadAll(io.LimitReader(rd, n))
		return err
	})
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("remote %s: %w", r.url, err)
	}
	return b, true, nil
}

// WriteFile writes (or replaces) the file name with data.
func (r *Remote) WriteFile(ctx context.Context, name, contentType string, data []byte) error {
	err := r.retry(ctx, "write "+name, r.payloadTimeout(int64(len(data))), func(ctx context.Context) error {
		return r.bucket.WriteAll(ctx, name, data, &blob.WriterOptions{ContentType: contentType})
	})
	if err != nil {
		return fmt.Errorf("remote %s: %w", r.url, err)
	}
	return nil
}
