package slurm

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseParsable(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"1234\n", "1234", ""},
		{"1234;cluster-a\n", "1234", ""},
		{"sbatch: warning: can't honor --ntasks-per-node\n77\n", "77", ""},
		{"12_3\n", "12_3", ""},
		{"", "", "expected a job id"},
		{"Submitted batch job 12\n", "", "expected a job id"},
		{"abc;x", "", "expected a job id"},
	}
	for _, tc := range tests {
		got, err := ParseParsable([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseParsable(%q) err = %v, want containing %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseParsable(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestParseSqueueCaptured(t *testing.T) {
	jobs, err := ParseSqueue(readFixture(t, "squeue-pending.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]JobInfo{
		"13": {ID: "13", State: StateFailed, Reason: "NonZeroExitCode", Nodes: "vm", Comment: "hylaflow:run1:abc", ExitCode: -1},
		"16": {ID: "16", State: StatePending, Reason: "Resources", ExitCode: -1},
		"17": {ID: "17", State: StatePending, Reason: "Priority", ExitCode: -1},
		"15": {ID: "15", State: StatePending, Reason: "JobHeldUser", ExitCode: -1},
		"14": {ID: "14", State: StateRunning, Reason: "None", Nodes: "vm", ExitCode: -1},
	}
	if !reflect.DeepEqual(jobs, want) {
		t.Errorf("ParseSqueue:\n got %+v\nwant %+v", jobs, want)
	}
}

func TestParseSqueueErrors(t *testing.T) {
	tests := []struct{ in, err string }{
		{"13|FAILED|x\n", "line 1: expected 5 fields"},
		{"\n13|RUNNING|None|vm|\nxx|RUNNING|None|vm|\n", "line 3: expected a job id"},
		{"13||None|vm|\n", "line 1: empty job state"},
	}
	for _, tc := range tests {
		_, err := ParseSqueue([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseSqueue(%q) err = %v, want containing %q", tc.in, err, tc.err)
		}
	}
	// A comment may hold the separator.
	jobs, err := ParseSqueue([]byte("5|RUNNING|None|n1|a|b|c\n"))
	if err != nil || jobs["5"].Comment != "a|b|c" {
		t.Errorf("comment with '|': %+v, %v", jobs, err)
	}
}

func TestParseScontrolCaptured(t *testing.T) {
	jobs, err := ParseScontrol(readFixture(t, "scontrol-mixed.txt"))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		name   string
		state  State
		reason string
		code   int
		sig    int
		nodes  string
	}
	want := map[string]row{
		"13": {"fail job", StateFailed, "NonZeroExitCode", 3, 0, "vm"},
		"14": {"run", StateCancelled, "None", 0, 15, "vm"},
		"15": {"held", StatePending, "JobHeldUser", 0, 0, ""},
		"16": {"sig", StateFailed, "JobLaunchFailure", 0, 9, "vm"},
	}
	if len(jobs) != len(want) {
		t.Fatalf("got %d jobs, want %d", len(jobs), len(want))
	}
	for id, w := range want {
		j := jobs[id]
		got := row{j.Name, j.State, j.Reason, j.ExitCode, j.Signal, j.Nodes}
		if got != w {
			t.Errorf("job %s: got %+v, want %+v", id, got, w)
		}
	}
	if c := jobs["13"].Comment; c != "hylaflow:run1:abc" {
		t.Errorf("comment = %q", c)
	}
	if j := jobs["13"]; j.Submit.IsZero() || j.End.Before(j.Submit) || j.StdOut != "/scratch/alice/jobs/13.out" {
		t.Errorf("job 13 times/stdout: %+v", j)
	}
	if !jobs["15"].Start.IsZero() {
		t.Errorf("pending job has a start time: %v", jobs["15"].Start)
	}
	if s := jobs["13"].String(); s != "13 FAILED (NonZeroExitCode, exit 3)" {
		t.Errorf("String() = %q", s)
	}

	to, err := ParseScontrol(readFixture(t, "scontrol-timeout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if j := to["17"]; j.State != StateTimeout || j.Reason != "TimeLimit" || !j.State.Terminal() || j.State.Succeeded() {
		t.Errorf("timeout job: %+v", j)
	}
	run, err := ParseScontrol(readFixture(t, "scontrol-running.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if j := run["14"]; j.State != StateRunning || j.State.Terminal() || j.Start.IsZero() {
		t.Errorf("running job: %+v", j)
	}
}

func TestParseScontrolErrors(t *testing.T) {
	tests := []struct{ in, err string }{
		{"JobName=x JobState=RUNNING\n", "line 1: expected JobId=NUMBER"},
		{"JobId=3 JobName=x\n", "job 3): no JobState"},
		{"JobId=3 JobState=FAILED ExitCode=x:1\n", "ExitCode \"x:1\""},
		{"JobId=3 JobState=FAILED ExitCode=7\n", "expected CODE:SIGNAL"},
	}
	for _, tc := range tests {
		_, err := ParseScontrol([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseScontrol(%q) err = %v, want containing %q", tc.in, err, tc.err)
		}
	}
}

func TestParseScontrolFieldsSpaces(t *testing.T) {
	f := ParseScontrolFields("JobId=9 JobName=my  job name UserId=root(0) Power= CPUs/Task=2 AllocNode:Sid=h:1")
	want := map[string]string{"JobId": "9", "JobName": "my job name", "UserId": "root(0)", "Power": "", "CPUs/Task": "2", "AllocNode:Sid": "h:1"}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("got %q, want %q", f, want)
	}
}

func TestFormatTime(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{time.Second, "00:01:00"},
		{90 * time.Minute, "01:30:00"},
		{90*time.Minute + time.Second, "01:31:00"},
		{48 * time.Hour, "2-00:00:00"},
		{49*time.Hour + 5*time.Minute, "2-01:05:00"},
	}
	for _, tc := range tests {
		if got := FormatTime(tc.d); got != tc.want {
			t.Errorf("FormatTime(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestSbatchArgs(t *testing.T) {
	req := &SubmitRequest{
		Name: "hylaflow train.cora", Command: []string{"x"}, WorkDir: "/w", Output: "/s/%j.out", Comment: "hylaflow:r1",
		NoRequeue: true, Extra: []string{"--qos=low"},
		Resources: Resources{CPUs: 4, MemMB: 2048, Time: 2 * time.Hour, GPUs: 1, Partition: "gpu", Account: "lab"},
	}
	want := []string{"--parsable", "--job-name=hylaflow train.cora", "--cpus-per-task=4", "--mem=2048M", "--time=02:00:00",
		"--gpus=1", "--partition=gpu", "--account=lab", "--chdir=/w", "--output=/s/%j.out", "--comment=hylaflow:r1",
		"--no-requeue", "--qos=low"}
	if got := SbatchArgs(req); !reflect.DeepEqual(got, want) {
		t.Errorf("SbatchArgs:\n got %q\nwant %q", got, want)
	}
	if got := SbatchArgs(&SubmitRequest{Command: []string{"x"}}); !reflect.DeepEqual(got, []string{"--parsable"}) {
		t.Errorf("zero request: %q", got)
	}
}

// TestBatchScriptShell runs the generated script with /bin/sh and checks
// that hostile words reach the command unchanged.
func TestBatchScriptShell(t *testing.T) {
	words := []string{"a b", "it's", `$HOME`, "`id`", "x\ny", `\"`, ""}
	req := &SubmitRequest{
		Command: append([]string{"/bin/sh", "-c", `for w in "$@"; do printf '<%s>' "$w"; done; printf '|%s' "$HF_X"`, "sh"}, words...),
		Env:     []string{"HF_X=v'1 $x"},
	}
	script, err := BatchScript(req)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("/bin/sh", "-c", string(script)).Output()
	if err != nil {
		t.Fatalf("script failed: %v\n%s", err, script)
	}
	want := "<a b><it's><$HOME><`id`><x\ny><\\\"><>|v'1 $x"
	if string(out) != want {
		t.Errorf("script output %q, want %q\n%s", out, want, script)
	}
	for _, bad := range []*SubmitRequest{
		{},
		{Command: []string{"a\x00b"}},
		{Command: []string{"a"}, Env: []string{"NOEQUALS"}},
		{Command: []string{"a"}, Env: []string{"BAD-NAME=1"}},
	} {
		if _, err := BatchScript(bad); err == nil {
			t.Errorf("BatchScript(%+v) accepted", bad)
		}
	}
}

// recorder is a RunFunc that returns canned outputs and records calls.
type recorder struct {
	calls  [][]string
	stdin  [][]byte
	out    map[string]string // command name → stdout
	errout map[string]string // command name → stderr (with a failing exit)
}

func (r *recorder) run(ctx context.Context, stdin []byte, name string, args ...string) ([]byte, []byte, error) {
	r.calls = append(r.calls, append([]string{name}, args...))
	r.stdin = append(r.stdin, stdin)
	if e, ok := r.errout[name]; ok {
		return nil, []byte(e), errors.New("exit status 1")
	}
	return []byte(r.out[name]), nil, nil
}

func TestClientCommands(t *testing.T) {
	rec := &recorder{out: map[string]string{
		"sbatch":   "4242\n",
		"squeue":   "4242|RUNNING|None|n1|(null)\n",
		"scontrol": "JobId=4242 JobName=j JobState=COMPLETED Reason=None ExitCode=0:0 NodeList=n1\n",
	}}
	c := &Client{Run: rec.run}
	ctx := context.Background()
	id, err := c.Submit(ctx, &SubmitRequest{Name: "j", Command: []string{"/bin/true"}})
	if err != nil || id != "4242" {
		t.Fatalf("Submit = %q, %v", id, err)
	}
	if !strings.Contains(string(rec.stdin[0]), "exec '/bin/true'") {
		t.Errorf("script: %s", rec.stdin[0])
	}
	jobs, err := c.Jobs(ctx, []string{"4242", "4243"})
	if err != nil || jobs["4242"].State != StateRunning || len(jobs) != 1 {
		t.Errorf("Jobs = %+v, %v", jobs, err)
	}
	j, err := c.Job(ctx, "4242")
	if err != nil || j.State != StateCompleted || j.ExitCode != 0 {
		t.Errorf("Job = %+v, %v", j, err)
	}
	if err := c.Cancel(ctx, "4242", "4243"); err != nil {
		t.Error(err)
	}
	wantCalls := [][]string{
		{"sbatch", "--parsable", "--job-name=j"},
		{"squeue", "-h", "-t", "all", "-o", squeueFormat, "-j", "4242,4243"},
		{"scontrol", "show", "job", "-o", "4242"},
		{"scancel", "4242", "4243"},
	}
	if !reflect.DeepEqual(rec.calls, wantCalls) {
		t.Errorf("calls:\n got %q\nwant %q", rec.calls, wantCalls)
	}
	if _, err := c.Jobs(ctx, []string{"12;rm"}); err == nil {
		t.Error("Jobs accepted a malformed id")
	}

	// Unknown ids: squeue and scontrol fail with "Invalid job id specified".
	unknown := &recorder{errout: map[string]string{
		"squeue":   "slurm_load_jobs error: Invalid job id specified\n",
		"scontrol": "slurm_load_jobs error: Invalid job id specified\n",
		"sbatch":   "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified\n",
	}}
	c = &Client{Run: unknown.run}
	if jobs, err := c.Jobs(ctx, []string{"1"}); err != nil || len(jobs) != 0 {
		t.Errorf("Jobs(unknown) = %v, %v", jobs, err)
	}
	if _, err := c.Job(ctx, "1"); !errors.Is(err, ErrUnknownJob) {
		t.Errorf("Job(unknown) err = %v", err)
	}
	if _, err := c.Submit(ctx, &SubmitRequest{Command: []string{"x"}, Resources: Resources{Account: "nope"}}); err == nil ||
		!strings.Contains(err.Error(), "Invalid account") || !strings.Contains(err.Error(), "--account=nope") {
		t.Errorf("Submit error = %v", err)
	}
}

func TestFakeLifecycle(t *testing.T) {
	f := NewFake()
	t.Cleanup(f.Close)
	ctx := context.Background()
	dir := t.TempDir()
	ok, err := f.Submit(ctx, &SubmitRequest{Name: "ok", Command: []string{"/bin/sh", "-c", "echo hi $HF_V"},
		Env: []string{"HF_V=there"}, Output: filepath.Join(dir, "%j.out")})
	if err != nil {
		t.Fatal(err)
	}
	bad, _ := f.Submit(ctx, &SubmitRequest{Name: "bad", Command: []string{"/bin/sh", "-c", "exit 3"}})
	long, _ := f.Submit(ctx, &SubmitRequest{Name: "long", Command: []string{"/bin/sleep", "30"}})
	for _, id := range []string{ok, bad} {
		if err := f.Wait(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if j, _ := f.Job(ctx, ok); j.State != StateCompleted || j.ExitCode != 0 {
		t.Errorf("ok job: %+v", j)
	}
	if out, _ := os.ReadFile(filepath.Join(dir, ok+".out")); string(out) != "hi there\n" {
		t.Errorf("output %q", out)
	}
	if j, _ := f.Job(ctx, bad); j.State != StateFailed || j.ExitCode != 3 {
		t.Errorf("bad job: %+v", j)
	}
	if err := f.Cancel(ctx, long); err != nil {
		t.Fatal(err)
	}
	_ = f.Wait(ctx, long)
	if j, _ := f.Job(ctx, long); j.State != StateCancelled {
		t.Errorf("canceled job: %+v", j)
	}
	f.Forget(ok)
	if _, err := f.Job(ctx, ok); !errors.Is(err, ErrUnknownJob) {
		t.Errorf("forgotten job: %v", err)
	}
	jobs, _ := f.Jobs(ctx, []string{ok, bad})
	if _, known := jobs[ok]; known || jobs[bad].State != StateFailed {
		t.Errorf("Jobs after Forget: %+v", jobs)
	}
}

func TestFakeQueueLimitAndHold(t *testing.T) {
	f := NewFake()
	t.Cleanup(f.Close)
	f.MaxRunning = 1
	release := make(chan struct{})
	f.Exec = func(ctx context.Context, id string, req *SubmitRequest) int {
		select {
		case <-release:
			return 0
		case <-ctx.Done():
			return 1
		}
	}
	ctx := context.Background()
	a, _ := f.Submit(ctx, &SubmitRequest{Command: []string{"a"}})
	b, _ := f.Submit(ctx, &SubmitRequest{Command: []string{"b"}})
	jobs, _ := f.Jobs(ctx, []string{a, b})
	if jobs[a].State != StateRunning || jobs[b].State != StatePending || jobs[b].Reason != "Resources" {
		t.Fatalf("queue limit: %+v", jobs)
	}
	f.Hold = true
	c, _ := f.Submit(ctx, &SubmitRequest{Command: []string{"c"}})
	close(release)
	_ = f.Wait(ctx, a)
	_ = f.Wait(ctx, b)
	jobs, _ = f.Jobs(ctx, []string{a, b, c})
	if jobs[a].State != StateCompleted || jobs[b].State != StateCompleted || jobs[c].Reason != "JobHeldUser" {
		t.Fatalf("after release: %+v", jobs)
	}
	f.Release(c)
	_ = f.Wait(ctx, c)
	if j, _ := f.Job(ctx, c); j.State != StateCompleted {
		t.Errorf("released job: %+v", j)
	}
	if got := len(f.Submitted()); got != 3 {
		t.Errorf("Submitted() has %d requests", got)
	}
	f.SubmitErr = errors.New("sbatch: error: QOSMaxSubmitJobPerUserLimit")
	if _, err := f.Submit(ctx, &SubmitRequest{Command: []string{"d"}}); err == nil {
		t.Error("SubmitErr ignored")
	}
}
