package blobproxy

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// serve serves bucket on l until ctx is done.
func serve(ctx context.Context, l net.Listener, bucket *blob.Bucket) error {
	srv := &http.Server{Handler: handler(bucket), BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case <-ctx.Done():
		srv.Close()
		<-done
		return nil
	case err := <-done:
		return fmt.Errorf("blobproxy: serve: %w", err)
	}
}

// ServeHelper is the helper process's main loop: it opens the bucket at
// bucketURL (with whatever drivers the calling binary links), serves it on
// socket, tells the parent on stdout that it is ready (or why it could
// not start), and returns when stdin reaches EOF — when the parent closes
// it or dies — so that a helper never outlives its hylaflow.
func ServeHelper(bucketURL, socket string, stdin io.Reader, stdout io.Writer) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fail := func(err error) error {
		fmt.Fprintf(stdout, "error: %v\n", err)
		return err
	}
	abstract := strings.HasPrefix(socket, "@")
	switch {
	case abstract && !abstractSockets:
		return fail(fmt.Errorf("abstract socket %q: not on this system", socket))
	case abstract:
	case !filepath.IsAbs(socket):
		return fail(fmt.Errorf("the socket path %q is not absolute", socket))
	default:
		if fi, err := os.Stat(filepath.Dir(socket)); err != nil || fi.Mode().Perm()&0o077 != 0 {
			return fail(fmt.Errorf("the socket's directory %s must exist and be private to this user (mode 0700)", filepath.Dir(socket)))
		}
		// Leave nothing behind, even when the parent exits without
		// stopping the helper: the socket, then its directory if empty.
		defer os.Remove(filepath.Dir(socket))
		defer os.Remove(socket)
	}
	bucket, err := blob.OpenBucket(ctx, bucketURL)
	if err != nil {
		return fail(err)
	}
	defer bucket.Close()
	l, err := net.Listen("unix", socket)
	if err != nil {
		return fail(err)
	}
	if abstract {
		// An abstract socket has no file permissions: only the process
		// that started the helper may use its credentials.
		l = peerListener{l, os.Getppid()}
	}
	if _, err := io.WriteString(stdout, readyLine()); err != nil {
		l.Close()
		return err
	}
	go func() {
		io.Copy(io.Discard, bufio.NewReader(stdin)) // until the parent is gone
		cancel()
	}()
	return serve(ctx, l, bucket)
}

// handler returns the HTTP handler that serves bucket (see the package doc).
func handler(bucket *blob.Bucket) http.Handler {
	s := &server{b: bucket}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /attributes", s.attributes)
	mux.HandleFunc("GET /list", s.list)
	mux.HandleFunc("GET /object", s.read)
	mux.HandleFunc("PUT /object", s.write)
	mux.HandleFunc("DELETE /object", s.delete)
	mux.HandleFunc("POST /copy", s.copy)
	return mux
}

type server struct{ b *blob.Bucket }

// defaultPageSize is a listing's page size when the client asks for none
// (gocloud's drivers default to 1000).
const defaultPageSize = 1000

// fail writes err as a failure response.
func fail(w http.ResponseWriter, err error) {
	code := gcerrors.Code(err)
	if e := (*Error)(nil); errors.As(err, &e) {
		code = e.Code
	}
	msg := err.Error()
	if inner := errors.Unwrap(err); inner != nil {
		// The bucket's error wraps the driver's: the client's bucket
		// wraps it again, with the key and code, so send the driver's.
		msg = inner.Error()
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(statusOf(code))
	json.NewEncoder(w).Encode(wireError{Code: code, Message: msg})
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func toWire(a *blob.Attributes) Attributes {
	return Attributes{
		CacheControl: a.CacheControl, ContentDisposition: a.ContentDisposition,
		ContentEncoding: a.ContentEncoding, ContentLanguage: a.ContentLanguage,
		ContentType: a.ContentType, Metadata: a.Metadata, CreateTime: a.CreateTime,
		ModTime: a.ModTime, Size: a.Size, MD5: a.MD5, ETag: a.ETag,
	}
}

func (s *server) attributes(w http.ResponseWriter, r *http.Request) {
	a, err := s.b.Attributes(r.Context(), r.URL.Query().Get("key"))
	if err != nil {
		fail(w, err)
		return
	}
	reply(w, toWire(a))
}

func (s *server) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	size, _ := strconv.Atoi(q.Get("size"))
	if size <= 0 {
		size = defaultPageSize
	}
	token := blob.FirstPageToken
	if t := q.Get("token"); t != "" {
		var err error
		if token, err = base64.RawURLEncoding.DecodeString(t); err != nil {
			fail(w, &Error{Code: gcerrors.InvalidArgument, Message: "blobproxy: page token: " + err.Error()})
			return
		}
	}
	objs, next, err := s.b.ListPage(r.Context(), token, size, &blob.ListOptions{Prefix: q.Get("prefix"), Delimiter: q.Get("delimiter")})
	if err != nil {
		fail(w, err)
		return
	}
	page := listPage{Objects: make([]listObject, len(objs)), Next: next}
	for i, o := range objs {
		page.Objects[i] = listObject{Key: o.Key, ModTime: o.ModTime, Size: o.Size, MD5: o.MD5, IsDir: o.IsDir}
	}
	reply(w, page)
}

func (s *server) read(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	offset, err1 := strconv.ParseInt(q.Get("offset"), 10, 64)
	length, err2 := strconv.ParseInt(q.Get("length"), 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		fail(w, &Error{Code: gcerrors.InvalidArgument, Message: "blobproxy: offset and length: " + err.Error()})
		return
	}
	rd, err := s.b.NewRangeReader(r.Context(), q.Get("key"), offset, length, nil)
	if err != nil {
		fail(w, err)
		return
	}
	defer rd.Close()
	attrs, _ := json.Marshal(Attributes{ContentType: rd.ContentType(), ModTime: rd.ModTime(), Size: rd.Size()})
	w.Header().Set("X-Blob-Attributes", string(attrs))
	w.Header().Set("Content-Type", "application/octet-stream")
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, rd); err != nil {
		// The status is sent: abort the connection so that the client
		// sees a broken body, not a short object.
		panic(http.ErrAbortHandler)
	}
}

func (s *server) write(w http.ResponseWriter, r *http.Request) {
	var o writeOptions
	hdr, err := base64.StdEncoding.DecodeString(r.Header.Get("X-Blob-Options"))
	if err == nil {
		err = json.Unmarshal(hdr, &o)
	}
	if err != nil {
		fail(w, &Error{Code: gcerrors.InvalidArgument, Message: "blobproxy: write options: " + err.Error()})
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	bw, err := s.b.NewWriter(ctx, r.URL.Query().Get("key"), &blob.WriterOptions{
		ContentType: o.ContentType, CacheControl: o.CacheControl, ContentDisposition: o.ContentDisposition,
		ContentEncoding: o.ContentEncoding, ContentLanguage: o.ContentLanguage, ContentMD5: o.ContentMD5,
		Metadata: o.Metadata, IfNotExist: o.IfNotExist, DisableContentTypeDetection: true,
	})
	if err != nil {
		fail(w, err)
		return
	}
	if _, err := io.Copy(bw, r.Body); err != nil {
		// The body did not arrive whole: abort the write (a canceled
		// context makes Close discard it) and publish nothing.
		cancel()
		bw.Close()
		fail(w, &Error{Code: gcerrors.Canceled, Message: "blobproxy: the object's bytes did not arrive whole: " + err.Error()})
		return
	}
	if err := bw.Close(); err != nil {
		fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *server) delete(w http.ResponseWriter, r *http.Request) {
	if err := s.b.Delete(r.Context(), r.URL.Query().Get("key")); err != nil {
		fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *server) copy(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if err := s.b.Copy(r.Context(), q.Get("dst"), q.Get("src"), nil); err != nil {
		fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
