package blobproxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/blob/drivertest"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/gcerrors"
)

// socketDir returns a private directory for a socket, short enough for a
// Unix socket's path (t.TempDir() may not be).
func socketDir(t testing.TB) string {
	dir, err := os.MkdirTemp("", "bp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// inProcess is a conformance harness: each driver is a client of a server
// of a fresh memblob bucket in this process.
type inProcess struct{ t *testing.T }

func (h *inProcess) MakeDriver(ctx context.Context) (driver.Bucket, error) {
	socket := filepath.Join(socketDir(h.t), "s")
	l, err := net.Listen("unix", socket)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serve(sctx, l, memblob.OpenBucket(nil)) }()
	var once sync.Once
	var serveErr error
	return newClient(socket, func() error {
		once.Do(func() { cancel(); serveErr = <-served })
		return serveErr
	}), nil
}

func (h *inProcess) MakeDriverForNonexistentBucket(context.Context) (driver.Bucket, error) {
	return nil, nil // a memory bucket always exists
}
func (*inProcess) HTTPClient() *http.Client         { return nil }
func (*inProcess) SupportsCopy() bool               { return true }
func (*inProcess) SupportsNonSlashDelimiters() bool { return true }
func (*inProcess) SkipDownloadAt() bool             { return false }
func (*inProcess) Close()                           {}

// gocloud's conformance suite, through the proxy to a memory bucket:
// listing, weird keys, range reads, attributes, metadata, MD5, canceled
// writes, copy, delete, if-not-exist writes.
func TestConformanceInProcess(t *testing.T) {
	drivertest.RunConformanceTests(t, func(context.Context, *testing.T) (drivertest.Harness, error) {
		return &inProcess{t: t}, nil
	}, nil)
}

var (
	helperOnce sync.Once
	helperPath string
	helperErr  error
)

// helper builds cmd/hylaflow-remote once per test process.
func helper(t *testing.T) string {
	t.Helper()
	helperOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hylaflow-remote-build")
		if err != nil {
			helperErr = err
			return
		}
		helperPath = filepath.Join(dir, HelperName)
		out, err := exec.Command("go", "build", "-o", helperPath, "../../cmd/hylaflow-remote").CombinedOutput()
		if err != nil {
			helperErr = errors.New(string(out))
		}
	})
	if helperErr != nil {
		t.Fatalf("build the helper: %v", helperErr)
	}
	return helperPath
}

// viaHelper is a conformance harness whose drivers are helper processes
// (the real hylaflow-remote binary) serving a memory bucket each.
type viaHelper struct {
	inProcess
	path string
}

func (h *viaHelper) MakeDriver(ctx context.Context) (driver.Bucket, error) {
	return startNow(ctx, h.path, "mem://")
}

// The same suite through the real helper process.
func TestConformanceViaHelper(t *testing.T) {
	path := helper(t)
	drivertest.RunConformanceTests(t, func(context.Context, *testing.T) (drivertest.Harness, error) {
		return &viaHelper{inProcess: inProcess{t: t}, path: path}, nil
	}, nil)
}

// The helper serves a directory bucket across processes: what one
// process writes through it, another bucket opened directly reads; a
// file:// URL names the directory.
func TestHelperServesDirectory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b, err := Start(ctx, helper(t), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("hylaflow "), 1<<17) // 1.1 MB: several chunks
	if err := b.WriteAll(ctx, "objects/ab/abc", data, &blob.WriterOptions{ContentType: "application/octet-stream", IfNotExist: true}); err != nil {
		t.Fatal(err)
	}
	err = b.WriteAll(ctx, "objects/ab/abc", []byte("other"), &blob.WriterOptions{IfNotExist: true})
	if gcerrors.Code(err) != gcerrors.FailedPrecondition {
		t.Errorf("a second if-not-exist write: %v (code %v), want FailedPrecondition", err, gcerrors.Code(err))
	}
	got, err := os.ReadFile(filepath.Join(dir, "objects", "ab", "abc"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the directory holds %d bytes (%v), want the %d written", len(got), err, len(data))
	}
	part, err := b.NewRangeReader(ctx, "objects/ab/abc", 9, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := io.ReadAll(part); string(p) != "hylaflow" || part.Size() != int64(len(data)) {
		t.Errorf("range read %q of an object of %d bytes", p, part.Size())
	}
	part.Close()
	if _, err := b.Attributes(ctx, "objects/none"); gcerrors.Code(err) != gcerrors.NotFound {
		t.Errorf("attributes of a missing object: %v, want NotFound", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

// A helper that cannot open its bucket says why, and the bucket's first
// operation reports it (Start itself starts no process).
func TestHelperReportsOpenError(t *testing.T) {
	b, err := Start(context.Background(), helper(t), "nosuchscheme://bucket")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	_, err = b.Attributes(context.Background(), "k")
	if err == nil || !strings.Contains(err.Error(), "nosuchscheme") {
		t.Fatalf("Attributes = %v, want the helper's error naming the scheme", err)
	}
}

// A helper that dies while a bucket uses it: the next operation fails
// with an error that says the helper exited, and a read cut off in the
// middle is an error, never a short object.
func TestHelperGone(t *testing.T) {
	ctx := context.Background()
	c, err := startNow(ctx, helper(t), "mem://")
	if err != nil {
		t.Fatal(err)
	}
	b := blob.NewBucket(c)
	defer b.Close()
	data := bytes.Repeat([]byte{7}, 8<<20)
	if err := b.WriteAll(ctx, "big", data, nil); err != nil {
		t.Fatal(err)
	}
	r, err := b.NewReader(ctx, "big", nil)
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 1024)
	if _, err := io.ReadFull(r, head); err != nil {
		t.Fatal(err)
	}
	p := c.proc
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
	rest, err := io.ReadAll(r)
	if err == nil {
		t.Errorf("a read cut off by the helper's death ended without error after %d of %d bytes", len(head)+len(rest), len(data))
	}
	r.Close()
	_, err = b.Attributes(ctx, "big")
	if !errors.Is(err, errHelperGone) {
		t.Errorf("after the helper died: %v, want errHelperGone", err)
	}
}

// Start starts no process: a command that opens a remote and needs
// nothing from it pays nothing; the first operation starts the helper
// (here, one that does not exist: the error names it).
func TestStartIsLazy(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-helper")
	b, err := Start(context.Background(), missing, "mem://")
	if err != nil {
		t.Fatalf("Start with a missing helper: %v, want no error before the first operation", err)
	}
	_, err = b.Attributes(context.Background(), "k")
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("the first operation: %v, want an error naming %s", err, missing)
	}
	if err := b.Close(); err != nil {
		t.Error(err)
	}
}

// A helper leaves no file behind, even when its parent exits without
// stopping it (a Slurm job's process): on Linux its socket is abstract;
// elsewhere (and here with useAbstract off) the helper removes its socket
// and directory when its standard input closes.
func TestHelperLeavesNoFiles(t *testing.T) {
	path := helper(t) // built before TMPDIR moves
	for _, abstract := range []bool{false, abstractSockets} {
		t.Run(fmt.Sprintf("abstract=%v", abstract), func(t *testing.T) {
			defer func(v bool) { useAbstract = v }(useAbstract)
			useAbstract = abstract
			tmp, err := os.MkdirTemp("", "bpt") // short: a socket's path is limited
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(tmp)
			t.Setenv("TMPDIR", tmp)
			c, err := startNow(context.Background(), path, "mem://")
			if err != nil {
				t.Fatal(err)
			}
			b := blob.NewBucket(c)
			if err := b.WriteAll(context.Background(), "k", []byte("v"), nil); err != nil {
				t.Fatal(err)
			}
			if got := strings.HasPrefix(c.proc.socket, "@"); got != abstract {
				t.Errorf("socket %q, abstract %v", c.proc.socket, abstract)
			}
			// As if the parent exited: only the helper's stdin closes.
			c.proc.stdin.Close()
			<-c.proc.exited
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("the helper left %v in TMPDIR", left)
			}
		})
	}
}

// peerDialEnv names the socket a child test process dials to show that a
// helper serves its parent only.
const peerDialEnv = "BLOBPROXY_TEST_DIAL"

// TestMain runs the dialing child when asked to (TestHelperServesParentOnly).
func TestMain(m *testing.M) {
	if socket := os.Getenv(peerDialEnv); socket != "" {
		c := newClient(socket, nil)
		_, err := c.Attributes(context.Background(), "k")
		if e := (*Error)(nil); err == nil || errors.As(err, &e) { // the server answered
			fmt.Println("served")
			os.Exit(1)
		}
		fmt.Println("refused")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// On Linux the helper's abstract socket has no file permissions to keep
// other users out: it serves only the process that started it.
func TestHelperServesParentOnly(t *testing.T) {
	if !abstractSockets {
		t.Skip("no abstract sockets on " + runtime.GOOS)
	}
	c, err := startNow(context.Background(), helper(t), "mem://")
	if err != nil {
		t.Fatal(err)
	}
	b := blob.NewBucket(c)
	defer b.Close()
	if _, err := b.Attributes(context.Background(), "k"); gcerrors.Code(err) != gcerrors.NotFound {
		t.Fatalf("the parent's request: %v, want NotFound", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), peerDialEnv+"="+c.proc.socket)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "refused" {
		t.Errorf("another process's request: %s (%v), want refused", out, err)
	}
}
