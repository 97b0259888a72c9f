package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/remote"
)

// Two caches sharing a directory remote: the second computes nothing,
// holds the same digests, says so, and records the stages as fetched; plan
// says what it would fetch; push, pull, remote stats|verify|gc and verify
// --recompute work on the same remote; the project file sets it.
func TestRemoteTwoCachesShareOneRemote(t *testing.T) {
	t.Setenv("HYLAFLOW_REMOTE", "")
	dir := t.TempDir()
	file := testenv.WriteFile(t, dir, "p.hcl", runCmdTestRandom)
	rdir := filepath.Join(dir, "remote")
	url := "file://" + rdir
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")

	code, _, errs := runCmdDispatch("run", file, "--cache", a, "--remote", url, "-q")
	if code != cli.ExitOK || !strings.Contains(errs, "fetched 0 stages (0 B), pushed 21 (") {
		t.Fatalf("run on cache A: exit %d\n%s", code, errs)
	}
	code, out, _ := runCmdDispatch("plan", file, "--cache", b, "--remote", url)
	if code != cli.ExitOK || !regexp.MustCompile(`(?m)^remote: 21 stages, [0-9.]+ KiB to fetch \(from file://`).MatchString(out) {
		t.Errorf("plan on the empty cache B: exit %d\n%s", code, out)
	}
	code, _, errs = runCmdDispatch("run", file, "--cache", b, "--remote", url, "-q")
	if code != cli.ExitOK || !strings.HasPrefix(errs, "nothing to do: all 21 stages cached") ||
		!strings.Contains(errs, "fetched 21 stages (") || !strings.Contains(errs, "computed nothing here") {
		t.Fatalf("run on cache B: exit %d\n%s", code, errs)
	}
	da, db := runCmdDigests(t, a), runCmdDigests(t, b)
	if len(da) < 21 || len(db) != len(da) {
		t.Fatalf("cache A holds %d artifacts, B %d", len(da), len(db))
	}
	for k, d := range da {
		if db[k] != d {
			t.Errorf("%s: digest %s in A, %s in B", k, d, db[k])
		}
	}
	runCmdVerify(t, b)
	code, out, _ = runCmdDispatch("runs", "show", "--cache", b)
	if code != cli.ExitOK || strings.Count(out, "fetched from "+url) != 21 {
		t.Errorf("runs show on cache B: exit %d, %d stages marked fetched\n%s", code, strings.Count(out, "fetched from "+url), out)
	}
	code, out, _ = runCmdDispatch("cache", "verify", "--cache", b, "--recompute", "4")
	if code != cli.ExitOK || strings.Count(out, "\nsame ")+strings.Count(out[:5], "same ") != 4 ||
		!strings.Contains(out, "recomputed 4 of the 21 stages fetched from a remote: 0 differ or failed") {
		t.Errorf("cache verify --recompute 4: exit %d\n%s", code, out)
	}

	// The project file beside the cache sets the remote once.
	cdir := filepath.Join(dir, "proj", ".hylaflow")
	if err := os.MkdirAll(cdir, 0o755); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, filepath.Join(dir, "proj"), remote.ConfigFile, "# the team's remote\nremote = "+url+"\nremote-push = false\n")
	code, out, errs = runCmdDispatch("cache", "pull", "--cache", cdir, file)
	if code != cli.ExitOK || !strings.Contains(out, "fetched 21 of 21 keys missing here") {
		t.Errorf("cache pull with the project file: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = runCmdDispatch("cache", "push", "--cache", a, "--remote", url)
	if code != cli.ExitOK || !strings.Contains(out, "pushed 0 keys (0 B uploaded in ") || !strings.Contains(out, "21 were there already") {
		t.Errorf("cache push of keys the remote has: exit %d\n%s", code, out)
	}
	code, out, _ = runCmdDispatch("cache", "remote", "stats", "--cache", a, "--remote", url)
	if code != cli.ExitOK || !strings.Contains(out, ": 21 keys, ") || !strings.Contains(out, ", 2 run manifests") {
		t.Errorf("cache remote stats: exit %d\n%s", code, out)
	}
	code, out, _ = runCmdDispatch("cache", "remote", "verify", "--cache", a, "--remote", url)
	if code != cli.ExitOK || !strings.Contains(out, "checked 21 keys and ") || !strings.Contains(out, ": 0 problems") {
		t.Errorf("cache remote verify: exit %d\n%s", code, out)
	}
	code, out, _ = runCmdDispatch("cache", "remote", "gc", "--cache", a, "--remote", url, "--keep-runs", "1", "--dry-run")
	if code != cli.ExitOK || !strings.Contains(out, "would remove 0 keys, 0 payloads (0 B) and 1 run manifests; kept 21 keys") {
		t.Errorf("cache remote gc --dry-run: exit %d\n%s", code, out)
	}

	// Usage errors.
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"cache", "remote", "stats", "--cache", filepath.Join(dir, "none"), "--remote", "off"}, "no remote: pass --remote URL"},
		{[]string{"cache", "remote", "frob", "--remote", url}, "want one of stats, verify, gc"},
		{[]string{"run", file, "--cache", a, "--remote", "ftp://x/y"}, `scheme "ftp"`},
		{[]string{"cache", "pull", "--cache", a, "--remote", url}, "want a pipeline file or --run N"},
		{[]string{"cache", "push", "--cache", a, "--remote", url, "--run", "1", "abc"}, "--run and KEY arguments exclude each other"},
	} {
		code, out, errs := runCmdDispatch(tt.args...)
		if code != cli.ExitUsage || !strings.Contains(out+errs, tt.want) {
			t.Errorf("hylaflow %s: exit %d\n%s%s\nwant exit 2 and %q", strings.Join(tt.args, " "), code, out, errs, tt.want)
		}
	}
}

// A damaged payload on the remote is reported, the stage computed and the
// remote healed; an unreachable remote leaves the run successful.
func TestRemoteDamageAndOutage(t *testing.T) {
	t.Setenv("HYLAFLOW_REMOTE", "")
	dir := t.TempDir()
	file := testenv.WriteFile(t, dir, "p.hcl", runCmdTestRandom)
	rdir := filepath.Join(dir, "remote")
	url := "file://" + rdir
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if code, _, errs := runCmdDispatch("run", file, "--cache", a, "--remote", url, "-q"); code != cli.ExitOK {
		t.Fatalf("run on cache A: %s", errs)
	}
	// Damage the payload of sum.all (the leaf).
	_, out, _ := runCmdDispatch("cache", "ls", "--cache", a, "--json")
	m := regexp.MustCompile(`"digest": "([0-9a-f]{64})",\s*"size": \d+,\s*"address": "sum.all"`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no sum.all in cache ls --json:\n%s", out)
	}
	sum := m[1]
	obj := filepath.Join(rdir, "objects", sum[:2], sum)
	if err := os.WriteFile(obj, []byte("not the payload"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCmdDispatch("run", file, "--cache", b, "--remote", url, "-q")
	if code != cli.ExitOK || !strings.Contains(errs, "21 stages: 1 ran, 20 cached, 0 failed") ||
		!strings.Contains(errs, "payload objects/"+sum[:2]+"/"+sum+" of sum.all") || !strings.Contains(errs, "is damaged") {
		t.Fatalf("run on cache B with a damaged remote payload: exit %d\n%s", code, errs)
	}
	if got, err := os.ReadFile(obj); err != nil || strings.Contains(string(got), "not the payload") {
		t.Errorf("the remote payload was not healed: %q %v", got, err)
	}
	runCmdVerify(t, b)

	// An unreachable S3 endpoint: warned once, the run computes and succeeds.
	t.Setenv("AWS_ACCESS_KEY_ID", "x")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "x")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")
	cdir := filepath.Join(dir, "c")
	code, _, errs = runCmdDispatch("run", file, "--cache", cdir, "--remote", "s3://bucket/p", "-q")
	if code != cli.ExitOK || !strings.Contains(errs, "21 stages: 21 ran") || strings.Count(errs, "is not usable") != 1 ||
		!strings.Contains(errs, "the remote failed and was switched off") {
		t.Errorf("run with the remote unreachable: exit %d\n%s", code, errs)
	}
	runCmdVerify(t, cdir)
}
