// Package blobproxy serves a gocloud bucket from another process: the
// hylaflow-remote helper opens the bucket with the cloud drivers (S3, Google
// Cloud Storage, Azure Blob Storage) and serves it on a Unix socket, and
// the client side is a gocloud blob driver that forwards each call to it.
//
// Why a second process: the cloud SDKs' package initialisation (endpoint
// tables, protobuf registrations) and their size (they more than double
// the binary) cost every hylaflow command about 20 ms of start-up, whether
// it touches a remote or not — a third of a fully cached 502-stage rerun.
// With the drivers in the helper, only a command that actually reaches a
// cloud remote pays for them, once, when it first does.
//
// The protocol is HTTP/1.1 on a Unix socket that only the hylaflow process
// that started the helper may use (the helper acts with this user's cloud
// credentials): on Linux an abstract socket, which leaves no file behind
// when a process exits without stopping its helper, whose connections the
// helper accepts only from its parent process (SO_PEERCRED); elsewhere a
// socket in a directory only this user can enter, which the helper removes
// when it exits. One request per bucket operation:
//
//	GET    /attributes?key=K                       → 200 JSON Attributes
//	GET    /list?prefix=&delimiter=&size=&token=   → 200 JSON listPage
//	GET    /object?key=K&offset=N&length=N         → 200 X-Blob-Attributes (JSON), the bytes
//	PUT    /object?key=K  X-Blob-Options (JSON)    → 204 once the object is complete
//	DELETE /object?key=K                           → 204
//	POST   /copy?dst=K&src=K                       → 204
//
// A failure is a 4xx/5xx response with a JSON body {"code", "message"}: the
// gcerrors code crosses the process boundary, so NotFound, an if-not-exist
// write that lost (FailedPrecondition) and PermissionDenied mean what they
// mean in process. A read that fails after its first byte aborts the
// connection, so the client sees an unexpected EOF, never a short object
// that looks whole; a write whose body does not arrive complete (the
// client's context canceled, the client gone) is aborted, so no partial
// object is ever published. Payload digests are still verified by the
// remote package above this driver.
//
// HTTP and JSON from Go's standard library were preferred to gRPC or a
// framing of our own: both sides need nothing else, streaming and
// cancellation come with net/http, and gocloud's conformance suite
// (drivertest) checks the driver end to end, in process and through the
// helper binary.
package blobproxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"gocloud.dev/gcerrors"
)

// Protocol is the protocol version; the helper announces it when it is
// ready and the client refuses a helper that speaks another.
const Protocol = 1

// readyLine is what the helper prints on standard output once it serves.
func readyLine() string { return fmt.Sprintf("hylaflow-remote ready %d\n", Protocol) }

// Attributes is an object's attributes on the wire.
type Attributes struct {
	CacheControl       string            `json:"cache_control,omitempty"`
	ContentDisposition string            `json:"content_disposition,omitempty"`
	ContentEncoding    string            `json:"content_encoding,omitempty"`
	ContentLanguage    string            `json:"content_language,omitempty"`
	ContentType        string            `json:"content_type,omitempty"`
	Metadata           map[string]string `json:"metadata,omitempty"`
	CreateTime         time.Time         `json:"create_time"`
	ModTime            time.Time         `json:"mod_time"`
	Size               int64             `json:"size"`
	MD5                []byte            `json:"md5,omitempty"`
	ETag               string            `json:"etag,omitempty"`
}

// writeOptions are a write's options on the wire.
type writeOptions struct {
	ContentType        string            `json:"content_type"`
	CacheControl       string            `json:"cache_control,omitempty"`
	ContentDisposition string            `json:"content_disposition,omitempty"`
	ContentEncoding    string            `json:"content_encoding,omitempty"`
	ContentLanguage    string            `json:"content_language,omitempty"`
	ContentMD5         []byte            `json:"content_md5,omitempty"`
	Metadata           map[string]string `json:"metadata,omitempty"`
	IfNotExist         bool              `json:"if_not_exist,omitempty"`
}

// listObject is one entry of a listing on the wire.
type listObject struct {
	Key     string    `json:"key"`
	ModTime time.Time `json:"mod_time"`
	Size    int64     `json:"size"`
	MD5     []byte    `json:"md5,omitempty"`
	IsDir   bool      `json:"is_dir,omitempty"`
}

// listPage is a page of a listing on the wire.
type listPage struct {
	Objects []listObject `json:"objects"`
	Next    []byte       `json:"next,omitempty"`
}

// wireError is a failure on the wire.
type wireError struct {
	Code    gcerrors.ErrorCode `json:"code"`
	Message string             `json:"message"`
}

// Error is a failure the helper reported: its gcerrors code and message.
type Error struct {
	Code    gcerrors.ErrorCode
	Message string
}

func (e *Error) Error() string { return e.Message }

// statusOf is the HTTP status that carries a gcerrors code.
func statusOf(c gcerrors.ErrorCode) int {
	switch c {
	case gcerrors.NotFound:
		return http.StatusNotFound
	case gcerrors.AlreadyExists:
		return http.StatusConflict
	case gcerrors.FailedPrecondition:
		return http.StatusPreconditionFailed
	case gcerrors.InvalidArgument:
		return http.StatusBadRequest
	case gcerrors.PermissionDenied:
		return http.StatusForbidden
	case gcerrors.Unimplemented:
		return http.StatusNotImplemented
	case gcerrors.Canceled:
		return 499 // client closed request
	case gcerrors.DeadlineExceeded:
		return http.StatusGatewayTimeout
	case gcerrors.ResourceExhausted:
		return http.StatusTooManyRequests
	}
	return http.StatusInternalServerError
}

// decodeError reads a failure response.
func decodeError(resp *http.Response) error {
	var we wireError
	if err := json.NewDecoder(resp.Body).Decode(&we); err != nil {
		return &Error{Code: gcerrors.Internal, Message: fmt.Sprintf("hylaflow-remote: %s (and an unreadable error body: %v)", resp.Status, err)}
	}
	return &Error{Code: we.Code, Message: we.Message}
}

// errorCode is the gcerrors code of err as the driver reports it.
func errorCode(err error) gcerrors.ErrorCode {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e.Code
	case errors.Is(err, errHelperGone):
		return gcerrors.Internal
	}
	return gcerrors.Unknown
}
