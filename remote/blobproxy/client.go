package blobproxy

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
)

// errHelperGone marks a request that failed because the helper process
// has exited.
var errHelperGone = errors.New("the hylaflow-remote helper has exited")

// newClient returns the driver of a bucket whose every operation is
// served by the server listening on the Unix socket socket (serve,
// ServeHelper); onClose runs when the bucket is closed (nil: nothing).
func newClient(socket string, onClose func() error) *client {
	c := &client{socket: socket, onClose: onClose}
	c.hc = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", c.socketPath())
		},
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     time.Minute,
	}}
	return c
}

// client is the gocloud driver that forwards to the server.
type client struct {
	hc      *http.Client
	onClose func() error
	// launch starts the helper that serves the bucket, on the first
	// request (nil: the server is up, at socket).
	launch func(ctx context.Context) (*process, error)

	mu        sync.Mutex
	socket    string
	proc      *process // the helper, once launched
	launchErr error    // why it could not be launched
	closed    bool
}

// socketPath is the server's socket.
func (c *client) socketPath() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.socket
}

// ensure launches the helper if it is not running yet. A launch that
// failed is not tried again, unless it failed because ctx ended.
func (c *client) ensure(ctx context.Context) error {
	if c.launch == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed:
		return errors.New("blobproxy: the bucket is closed")
	case c.proc != nil:
		return nil
	case c.launchErr != nil:
		return c.launchErr
	}
	p, err := c.launch(ctx)
	if err != nil {
		if ctx.Err() == nil {
			c.launchErr = err
		}
		return err
	}
	c.proc, c.socket = p, p.socket
	return nil
}

// gone returns why the helper is not serving: nil while it runs, or when
// there is no helper.
func (c *client) gone() error {
	c.mu.Lock()
	p := c.proc
	c.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.gone()
}

var _ driver.Bucket = (*client)(nil)

// base is the URL of every request: the host is not used (the transport
// dials the socket), only the path and query.
const base = "http://hylaflow-remote"

func (c *client) url(path string, q url.Values) string { return base + path + "?" + q.Encode() }

// do sends req and returns the response of a success (status 2xx); a
// failure response becomes its *Error.
func (c *client) do(req *http.Request) (*http.Response, error) {
	if err := c.ensure(req.Context()); err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if why := c.gone(); why != nil {
			return nil, fmt.Errorf("%w (%v): %w", errHelperGone, why, err)
		}
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, decodeError(resp)
	}
	return resp, nil
}

// call sends a request without a body and decodes a JSON reply into out
// (nil: none expected).
func (c *client) call(ctx context.Context, method, path string, q url.Values, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.url(path, q), nil)
	if err != nil {
		return err
	}
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("blobproxy: %s %s: decode the reply: %w", method, path, err)
	}
	return nil
}

func noAs(any) bool { return false }

func (c *client) ErrorCode(err error) gcerrors.ErrorCode { return errorCode(err) }

func (c *client) As(any) bool { return false }

func (c *client) ErrorAs(error, any) bool { return false }

func (c *client) Attributes(ctx context.Context, key string) (*driver.Attributes, error) {
	var a Attributes
	if err := c.call(ctx, http.MethodGet, "/attributes", url.Values{"key": {key}}, &a); err != nil {
		return nil, err
	}
	return &driver.Attributes{
		CacheControl: a.CacheControl, ContentDisposition: a.ContentDisposition,
		ContentEncoding: a.ContentEncoding, ContentLanguage: a.ContentLanguage,
		ContentType: a.ContentType, Metadata: a.Metadata, CreateTime: a.CreateTime,
		ModTime: a.ModTime, Size: a.Size, MD5: a.MD5, ETag: a.ETag, AsFunc: noAs,
	}, nil
}

func (c *client) ListPaged(ctx context.Context, opts *driver.ListOptions) (*driver.ListPage, error) {
	if opts.BeforeList != nil {
		if err := opts.BeforeList(noAs); err != nil {
			return nil, err
		}
	}
	q := url.Values{"prefix": {opts.Prefix}, "delimiter": {opts.Delimiter}, "size": {strconv.Itoa(opts.PageSize)}}
	if len(opts.PageToken) > 0 {
		q.Set("token", base64.RawURLEncoding.EncodeToString(opts.PageToken))
	}
	var p listPage
	if err := c.call(ctx, http.MethodGet, "/list", q, &p); err != nil {
		return nil, err
	}
	page := &driver.ListPage{Objects: make([]*driver.ListObject, len(p.Objects)), NextPageToken: p.Next}
	for i, o := range p.Objects {
		page.Objects[i] = &driver.ListObject{Key: o.Key, ModTime: o.ModTime, Size: o.Size, MD5: o.MD5, IsDir: o.IsDir, AsFunc: noAs}
	}
	return page, nil
}

func (c *client) NewRangeReader(ctx context.Context, key string, offset, length int64, opts *driver.ReaderOptions) (driver.Reader, error) {
	q := url.Values{"key": {key}, "offset": {strconv.FormatInt(offset, 10)}, "length": {strconv.FormatInt(length, 10)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url("/object", q), nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.do(req)
	if err != nil {
		return nil, err
	}
	var a Attributes
	if err := json.Unmarshal([]byte(resp.Header.Get("X-Blob-Attributes")), &a); err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("blobproxy: read %s: the object's attributes: %w", key, err)
	}
	want := max(a.Size-offset, 0)
	if length >= 0 {
		want = min(want, length)
	}
	if opts != nil && opts.BeforeRead != nil {
		if err := opts.BeforeRead(noAs); err != nil {
			resp.Body.Close()
			return nil, err
		}
	}
	return &reader{body: resp.Body, left: want,
		attrs: driver.ReaderAttributes{ContentType: a.ContentType, ModTime: a.ModTime, Size: a.Size}}, nil
}

// reader is an object's bytes as the server streams them; it reports an
// unexpected EOF when the stream ends before the bytes the object has.
type reader struct {
	body  io.ReadCloser
	left  int64
	attrs driver.ReaderAttributes
}

func (r *reader) Read(p []byte) (int, error) {
	n, err := r.body.Read(p)
	r.left -= int64(n)
	if err == io.EOF && r.left != 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (r *reader) Close() error                         { return r.body.Close() }
func (r *reader) Attributes() *driver.ReaderAttributes { return &r.attrs }
func (r *reader) As(any) bool                          { return false }
func (c *client) SignedURL(context.Context, string, *driver.SignedURLOptions) (string, error) {
	return "", &Error{Code: gcerrors.Unimplemented, Message: "blobproxy: signed URLs are not served by the helper"}
}

func (c *client) NewTypedWriter(ctx context.Context, key, contentType string, opts *driver.WriterOptions) (driver.Writer, error) {
	o := writeOptions{ContentType: contentType, CacheControl: opts.CacheControl, ContentDisposition: opts.ContentDisposition,
		ContentEncoding: opts.ContentEncoding, ContentLanguage: opts.ContentLanguage, ContentMD5: opts.ContentMD5,
		Metadata: opts.Metadata, IfNotExist: opts.IfNotExist}
	hdr, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, c.url("/object", url.Values{"key": {key}}), pr)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Blob-Options", base64.StdEncoding.EncodeToString(hdr)) // metadata may hold any bytes
	req.ContentLength = -1                                                   // chunked: the server knows a body that ended early
	if opts.BeforeWrite != nil {
		if err := opts.BeforeWrite(noAs); err != nil {
			return nil, err
		}
	}
	w := &writer{ctx: ctx, pw: pw, finished: make(chan struct{})}
	go func() {
		resp, err := c.do(req)
		if err == nil {
			resp.Body.Close()
		}
		w.err = err
		close(w.finished)
		pr.CloseWithError(err) // a Write blocked on a failed request returns
	}()
	return w, nil
}

// writer streams an object's bytes to the server; Close reports whether
// the server stored them.
type writer struct {
	ctx      context.Context
	pw       *io.PipeWriter
	finished chan struct{} // closed when the request is over; err is its outcome
	err      error
}

func (w *writer) Write(p []byte) (int, error) {
	n, err := w.pw.Write(p)
	if err != nil {
		// The request ended before its body did: its outcome says why
		// (the transport may close the body before it returns).
		<-w.finished
		if w.err != nil {
			err = w.err
		}
	}
	return n, err
}

// Close ends the body and waits for the server's verdict. A canceled
// context aborts the body instead, so the server never sees it complete
// and stores nothing.
func (w *writer) Close() error {
	if err := w.ctx.Err(); err != nil {
		w.pw.CloseWithError(err)
		<-w.finished
		return err
	}
	w.pw.Close()
	<-w.finished
	return w.err
}

func (c *client) Copy(ctx context.Context, dstKey, srcKey string, opts *driver.CopyOptions) error {
	if opts != nil && opts.BeforeCopy != nil {
		if err := opts.BeforeCopy(noAs); err != nil {
			return err
		}
	}
	return c.call(ctx, http.MethodPost, "/copy", url.Values{"dst": {dstKey}, "src": {srcKey}}, nil)
}

func (c *client) Delete(ctx context.Context, key string, opts *driver.DeleteOptions) error {
	if opts != nil && opts.BeforeDelete != nil {
		if err := opts.BeforeDelete(noAs); err != nil {
			return err
		}
	}
	return c.call(ctx, http.MethodDelete, "/object", url.Values{"key": {key}}, nil)
}

func (c *client) Close() error {
	c.hc.CloseIdleConnections()
	c.mu.Lock()
	c.closed = true
	p := c.proc
	c.mu.Unlock()
	if p != nil {
		p.stop()
	}
	if c.onClose != nil {
		return c.onClose()
	}
	return nil
}
