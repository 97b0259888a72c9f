package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
)

// The integration tests run against a real S3 server: SeaweedFS's weed,
// started by scripts/s3-dev-server.sh on free ports of 127.0.0.1 with a
// state directory of its own. They are skipped only when the weed binary
// is absent ($HYLAFLOW_WEED, else the script's default location); .ci/run
// builds it.

// weedBinary returns the weed binary the tests use, or "".
func weedBinary() string {
	if p := os.Getenv("HYLAFLOW_WEED"); p != "" {
		return p
	}
	state := os.Getenv("HYLAFLOW_S3_STATE")
	if state == "" {
		state = "/var/tmp/hylaflow-s3"
	}
	return filepath.Join(state, "bin", "weed")
}

// s3Server is the running test server.
type s3Server struct {
	env    []string // HYLAFLOW_S3_* for the script
	port   int
	bucket string
}

var (
	serverOnce sync.Once
	server     *s3Server
	serverErr  error
)

// freeBase returns a port p such that p+1000·i and p+1000·i+10000 (the
// script's HTTP and gRPC ports) are free for i = 0…3.
func freeBase() (int, error) {
	for range 50 {
		p := 20000 + rand.IntN(4000)
		ok := true
		var ls []net.Listener
		for i := range 4 {
			for _, q := range []int{p + 1000*i, p + 1000*i + 10000} {
				l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(q))
				if err != nil {
					ok = false
					break
				}
				ls = append(ls, l)
			}
		}
		for _, l := range ls {
			l.Close()
		}
		if ok {
			return p, nil
		}
	}
	return 0, errors.New("no free ports for the S3 test server")
}

func script() string { return filepath.Join("..", "scripts", "s3-dev-server.sh") }

// startS3 starts the test server once per test binary (stopped by TestMain).
func startS3(t testing.TB) *s3Server {
	t.Helper()
	bin := weedBinary()
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("SeaweedFS's weed is not built at %s: 'scripts/s3-dev-server.sh build' builds it (minutes; .ci/run does)", bin)
	}
	serverOnce.Do(func() {
		port, err := freeBase()
		if err != nil {
			serverErr = err
			return
		}
		state, err := os.MkdirTemp("", "hylaflow-s3-test-")
		if err != nil {
			serverErr = err
			return
		}
		s := &s3Server{port: port, bucket: "hylaflow",
			env: []string{"HYLAFLOW_S3_STATE=" + state, "HYLAFLOW_WEED=" + bin, "HYLAFLOW_S3_PORT=" + strconv.Itoa(port)}}
		if out, err := s.script("up"); err != nil {
			serverErr = fmt.Errorf("s3-dev-server.sh up: %v\n%s", err, out)
			return
		}
		server = s
	})
	if serverErr != nil {
		t.Fatal(serverErr)
	}
	t.Setenv("AWS_ENDPOINT_URL", fmt.Sprintf("http://127.0.0.1:%d", server.port))
	t.Setenv("AWS_ACCESS_KEY_ID", "hylaflow")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "hylaflow-dev-secret")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	return server
}

func (s *s3Server) script(cmd string) ([]byte, error) {
	c := exec.Command("bash", script(), cmd)
	c.Env = append(os.Environ(), s.env...)
	return c.CombinedOutput()
}

// url returns a fresh prefix of the test bucket.
func (s *s3Server) url(t *testing.T) string {
	return fmt.Sprintf("s3://%s/%s-%d", s.bucket, strings.ReplaceAll(t.Name(), "/", "_"), time.Now().UnixNano())
}

func TestMain(m *testing.M) {
	if os.Getenv("HYLAFLOW_REMOTE_TEST_PUSH") != "" {
		os.Exit(pushHelper())
	}
	code := m.Run()
	if server != nil {
		server.script("down")
		state := strings.TrimPrefix(server.env[0], "HYLAFLOW_S3_STATE=")
		os.RemoveAll(state)
	}
	os.Exit(code)
}

// pushHelper is a second process pushing one key: the cache directory
// and remote URL come from the environment; it prints "pushed" or "existed".
func pushHelper() int {
	c, err := cache.Open(os.Getenv("HYLAFLOW_REMOTE_TEST_CACHE"))
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer c.Close()
	r, err := Open(context.Background(), os.Getenv("HYLAFLOW_REMOTE_TEST_PUSH"), Options{})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	var w warnings
	s := NewStore(c, r, StoreOptions{Push: true, Warn: w.add})
	if _, err := s.Store(keyRecord("shared", 42), map[string]artifact.Artifact{"out": valueArtifact(42, 200000)}); err != nil {
		fmt.Println(err)
		return 1
	}
	cnt := s.Counters()
	switch {
	case w.count() > 0:
		fmt.Println("warnings:", w.all())
		return 1
	case cnt.Pushed == 1:
		fmt.Println("pushed")
	case cnt.Existed == 1:
		fmt.Println("existed")
	default:
		fmt.Printf("counters %+v\n", cnt)
		return 1
	}
	return 0
}

func openS3(t *testing.T, s *s3Server) *Remote {
	t.Helper()
	r, err := Open(context.Background(), s.url(t), fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestS3RoundTripDamageAndTruncatedUpload(t *testing.T) {
	s := startS3(t)
	r := openS3(t, s)
	var w warnings
	a := newStore(openCache(t), r, true, &w)
	up := keyRecord("up", 1)
	upRefs, err := a.Store(up, map[string]artifact.Artifact{"x": valueArtifact(1, 300000)})
	if err != nil {
		t.Fatal(err)
	}
	down := keyRecord("down", 1, up.Key+"/x")
	if _, err := a.Store(down, map[string]artifact.Artifact{"out": valueArtifact(2, 100)}); err != nil {
		t.Fatal(err)
	}
	if c := a.Counters(); c.Pushed != 2 || w.count() > 0 {
		t.Fatalf("pushed %+v to S3, warnings %s", c, w.all())
	}
	b := newStore(openCache(t), r, false, &w)
	if n := b.Prefetch(context.Background(), []string{up.Key, down.Key}); n != 2 {
		t.Fatalf("prefetched %d keys, want 2 (warnings %s)", n, w.all())
	}
	got, ok, err := b.Cache.Lookup(up.Key)
	if !ok || err != nil || got[0].Digest != upRefs[0].Digest {
		t.Fatalf("fetched %v (ok %v, err %v), pushed %v", got, ok, err, upRefs)
	}
	art, err := b.Load(got[0])
	if err != nil || len(values(t, art)) != 300000 {
		t.Fatalf("load the fetched payload: %v", err)
	}

	// The server honours if-not-exists: a second conditional write fails.
	ctx := context.Background()
	err = r.Bucket().WriteAll(ctx, RecordKey(up.Key), []byte("{}"), &blob.WriterOptions{IfNotExist: true})
	if gcerrors.Code(err) != gcerrors.FailedPrecondition {
		t.Errorf("conditional overwrite of a record: %v, want a failed precondition", err)
	}

	// A damaged payload on the server is detected, ignored and healed.
	damage(t, r, upRefs[0].Digest, func(b []byte) []byte { c := bytes.Clone(b); c[len(c)-5] ^= 0x40; return c })
	var wc warnings
	c := newStore(openCache(t), r, true, &wc)
	if _, ok, _ := c.Lookup(up.Key); ok || c.Counters().Corrupt != 1 || !strings.Contains(wc.all(), "is damaged") {
		t.Fatalf("lookup of a damaged S3 payload: ok %v, counters %+v, warnings %q", ok, c.Counters(), wc.all())
	}
	if ok, _ := r.Has(ctx, ObjectKey(upRefs[0].Digest)); ok {
		t.Error("the damaged payload is still on the server")
	}
	if _, err := c.Store(up, map[string]artifact.Artifact{"x": valueArtifact(1, 300000)}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := newStore(openCache(t), r, false, &w).Lookup(up.Key); !ok {
		t.Errorf("the recompute's push did not heal the key (warnings %s)", w.all())
	}

	// A truncated upload is never visible.
	rec := keyRecord("trunc", 3)
	lc := openCache(t)
	refs, err := lc.Store(rec, map[string]artifact.Artifact{"out": valueArtifact(3, 200000)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Put(ctx, NewRecord(rec, refs, Producer{}), func(o Output) (io.ReadCloser, error) {
		rd, err := lc.OpenPayload(refs[0])
		return &failingReader{r: rd, n: int(o.Size / 3)}, err
	})
	if err == nil {
		t.Fatal("a broken upload succeeded")
	}
	for _, name := range []string{ObjectKey(refs[0].Digest), RecordKey(rec.Key)} {
		if ok, err := r.Has(ctx, name); ok || err != nil {
			t.Errorf("%s visible on the server after a broken upload (err %v)", name, err)
		}
	}
	rep, err := r.Verify(ctx, true, false)
	if err != nil || len(rep.Problems) > 0 || rep.Records != 2 {
		t.Errorf("verify: %+v %v", rep, err)
	}
}

func TestS3TwoProcessesPushOneKey(t *testing.T) {
	s := startS3(t)
	url := s.url(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const n = 2
	outs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), "HYLAFLOW_REMOTE_TEST_PUSH="+url,
				"HYLAFLOW_REMOTE_TEST_CACHE="+filepath.Join(t.TempDir(), "cache"))
			out, err := cmd.CombinedOutput()
			outs[i] = strings.TrimSpace(string(out))
			if err != nil {
				t.Errorf("push process %d: %v: %s", i, err, out)
			}
		}()
	}
	wg.Wait()
	if !strings.Contains(strings.Join(outs, " "), "pushed") {
		t.Errorf("outcomes %q: want at least one push", outs)
	}
	r, err := Open(context.Background(), url, fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	st, err := r.Stats(context.Background())
	if err != nil || st.Records != 1 || st.Objects != 1 {
		t.Errorf("after two processes pushed one key: %+v %v, want 1 record and 1 payload", st, err)
	}
}

func TestS3MissingCredentials(t *testing.T) {
	s := startS3(t)
	url := s.url(t)
	for name, env := range map[string][2]string{
		"none":         {"", ""},
		"wrong secret": {"hylaflow", "not-the-secret"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("AWS_ACCESS_KEY_ID", env[0])
			t.Setenv("AWS_SECRET_ACCESS_KEY", env[1])
			r, err := Open(context.Background(), url, fastOpts)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var w warnings
			st := newStore(openCache(t), r, true, &w)
			rec := keyRecord("s", 1)
			if _, ok, err := st.Lookup(rec.Key); ok || err != nil {
				t.Fatalf("lookup without credentials: ok %v err %v", ok, err)
			}
			if _, err := st.Store(rec, map[string]artifact.Artifact{"out": valueArtifact(1, 10)}); err != nil {
				t.Fatalf("store without credentials: %v", err)
			}
			if w.count() != 1 {
				t.Errorf("warnings %q, want one", w.all())
			}
			if _, ok, _ := st.Cache.Lookup(rec.Key); !ok {
				t.Error("not stored locally")
			}
		})
	}
}

// TestS3ServerStopsMidRun runs last (it stops the shared server).
func TestS3ServerStopsMidRun(t *testing.T) {
	s := startS3(t)
	r := openS3(t, s)
	var w warnings
	st := newStore(openCache(t), r, true, &w)
	for i := range 6 {
		if i == 3 {
			if out, err := s.script("down"); err != nil {
				t.Fatalf("stop the server: %v %s", err, out)
			}
		}
		rec := keyRecord("s", i)
		if _, ok, err := st.Lookup(rec.Key); ok || err != nil {
			t.Fatalf("lookup %d: ok %v err %v", i, ok, err)
		}
		if _, err := st.Store(rec, map[string]artifact.Artifact{"out": valueArtifact(float64(i), 1000)}); err != nil {
			t.Fatalf("store %d with the server stopped: %v", i, err)
		}
	}
	if st.Down() == nil || st.Counters().Pushed != 3 || w.count() != 1 {
		t.Errorf("down %v, counters %+v, warnings %q: want 3 pushed, then one warning", st.Down(), st.Counters(), w.all())
	}
	rep, err := st.Cache.Verify()
	if err != nil || len(rep.Problems) > 0 || rep.Checked != 6 {
		t.Errorf("local cache after the outage: %+v %v", rep, err)
	}
}
