package blobproxy

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"gocloud.dev/blob"
)

// HelperName is the helper's executable name.
const HelperName = "hylaflow-remote"

// HelperEnv names a helper executable to use instead of the one found
// beside the running executable or on PATH.
const HelperEnv = "HYLAFLOW_REMOTE_HELPER"

// readyTimeout bounds the wait for a starting helper (opening a bucket
// may fetch credentials).
const readyTimeout = 2 * time.Minute

// Locate returns the helper executable: $HYLAFLOW_REMOTE_HELPER, else
// hylaflow-remote beside the running executable, else on PATH.
func Locate() (string, error) {
	if p := os.Getenv(HelperEnv); p != "" {
		return p, nil
	}
	var beside string
	if exe, err := os.Executable(); err == nil {
		beside = filepath.Join(filepath.Dir(exe), HelperName)
		if fi, err := os.Stat(beside); err == nil && !fi.IsDir() {
			return beside, nil
		}
	}
	if p, err := exec.LookPath(HelperName); err == nil {
		return p, nil
	}
	where := "on PATH"
	if beside != "" {
		where = fmt.Sprintf("at %s nor on PATH", beside)
	}
	return "", fmt.Errorf("cloud remotes (s3://, gs://, azblob://) are served by the %s helper, which is not %s: "+
		"build it beside hylaflow (go build -o DIR/ ./cmd/hylaflow ./cmd/%s), install it (go install github.com/hylaflow/hylaflow/cmd/%s), or name it in $%s",
		HelperName, where, HelperName, HelperName, HelperEnv)
}

// Start returns the bucket at bucketURL served by the helper at path. The
// helper starts on the bucket's first operation, so a command that opens
// a remote and finds everything it needs locally starts no process;
// closing the bucket stops it.
func Start(ctx context.Context, path, bucketURL string) (*blob.Bucket, error) {
	return blob.NewBucket(lazyClient(path, bucketURL)), nil
}

// lazyClient is the driver of the bucket at bucketURL served by the helper
// at path, launched on its first request.
func lazyClient(path, bucketURL string) *client {
	c := newClient("", nil)
	c.launch = func(ctx context.Context) (*process, error) { return launch(ctx, path, bucketURL) }
	return c
}

// startNow starts the helper at once (tests).
func startNow(ctx context.Context, path, bucketURL string) (*client, error) {
	c := lazyClient(path, bucketURL)
	if err := c.ensure(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// launch starts the helper and waits until it serves.
func launch(ctx context.Context, path, bucketURL string) (*process, error) {
	socket, dir, err := newSocketName()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", HelperName, err)
	}
	cmd := exec.Command(path, "serve", socket, bucketURL)
	cmd.Stderr = os.Stderr // the SDKs' warnings, a crash's trace
	stdin, err := cmd.StdinPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %w", HelperName, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %w", HelperName, err)
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %w", HelperName, err)
	}
	p := &process{cmd: cmd, stdin: stdin, dir: dir, socket: socket, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
		io.Copy(io.Discard, stdout)
	}()
	timer := time.NewTimer(readyTimeout)
	defer timer.Stop()
	select {
	case s := <-line:
		if s != readyLine() {
			p.stop()
			msg := strings.TrimSpace(strings.TrimPrefix(s, "error: "))
			switch {
			case strings.HasPrefix(s, "error: "):
				return nil, errors.New(msg)
			case strings.HasPrefix(s, "hylaflow-remote ready "):
				return nil, fmt.Errorf("%s at %s speaks protocol %s, this hylaflow %d: build both from one checkout",
					HelperName, path, strings.TrimPrefix(msg, "hylaflow-remote ready "), Protocol)
			}
			<-p.exited
			return nil, fmt.Errorf("%s at %s did not start (%v)", HelperName, path, p.waitErr)
		}
	case <-ctx.Done():
		p.stop()
		return nil, ctx.Err()
	case <-timer.C:
		p.stop()
		return nil, fmt.Errorf("%s at %s did not start within %v", HelperName, path, readyTimeout)
	}
	return p, nil
}

// useAbstract says whether new helpers listen on abstract sockets (tests
// turn it off to try the other kind).
var useAbstract = abstractSockets

// newSocketName returns the name of a new helper's socket. On Linux it is
// an abstract socket (no file: nothing is left behind by a process that
// exits without closing its bucket, e.g. a Slurm job's), which the helper
// lets only its parent process connect to (peerCheck). Elsewhere it is a
// file in a new directory only this user can enter (dir, removed by stop
// and by the helper when it exits).
func newSocketName() (socket, dir string, err error) {
	if useAbstract {
		var b [12]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", "", err
		}
		return "@hylaflow-remote-" + hex.EncodeToString(b[:]), "", nil
	}
	dir, err = os.MkdirTemp("", "hylaflow-remote-")
	if err != nil {
		return "", "", err
	}
	return filepath.Join(dir, "s"), dir, nil
}

// process is a running helper.
type process struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	dir     string
	socket  string
	exited  chan struct{}
	waitErr error
	once    sync.Once
}

// stop ends the helper (its stdin closed, it exits; killed if it does not
// within a few seconds) and removes its socket's directory, if it has one.
func (p *process) stop() error {
	p.once.Do(func() {
		p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(5 * time.Second):
			p.cmd.Process.Kill()
			<-p.exited
		}
		if p.dir != "" {
			os.RemoveAll(p.dir)
		}
	})
	return nil
}

// gone returns why the helper is not serving (nil while it runs).
func (p *process) gone() error {
	select {
	case <-p.exited:
		if p.waitErr != nil {
			return p.waitErr
		}
		return errors.New("exit status 0")
	default:
		return nil
	}
}
