package slurm

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// realCluster returns a Client for the cluster that
// scripts/slurm-dev-cluster.sh started; the test is skipped unless
// HYLAFLOW_SLURM=1 (CI sets it after starting the cluster).
func realCluster(t *testing.T) *Client {
	t.Helper()
	if os.Getenv("HYLAFLOW_SLURM") != "1" {
		t.Skip("set HYLAFLOW_SLURM=1 with a cluster up (scripts/slurm-dev-cluster.sh up)")
	}
	return &Client{}
}

// waitState polls squeue until job id is in a terminal state.
func waitTerminal(t *testing.T, c Cluster, id string, limit time.Duration) JobInfo {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		jobs, err := c.Jobs(ctx, []string{id})
		if err != nil {
			t.Fatal(err)
		}
		if j, ok := jobs[id]; ok && j.State.Terminal() {
			full, err := c.Job(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return full
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("job %s not finished after %v", id, limit)
	return JobInfo{}
}

func TestClusterIntegration(t *testing.T) {
	c := realCluster(t)
	ctx := context.Background()
	dir := t.TempDir()
	res := Resources{CPUs: 1, MemMB: 200, Time: 5 * time.Minute}
	okID, err := c.Submit(ctx, &SubmitRequest{
		Name: "hylaflow-test ok", Command: []string{"/bin/sh", "-c", `echo "out $HF_WORD"`}, Env: []string{"HF_WORD=it's"},
		Output: filepath.Join(dir, "%j.out"), Comment: "hylaflow-test", NoRequeue: true, Resources: res,
	})
	if err != nil {
		t.Fatal(err)
	}
	failID, err := c.Submit(ctx, &SubmitRequest{Name: "hylaflow-test fail", Command: []string{"/bin/sh", "-c", "exit 7"},
		Output: filepath.Join(dir, "%j.out"), Resources: res})
	if err != nil {
		t.Fatal(err)
	}
	longID, err := c.Submit(ctx, &SubmitRequest{Name: "hylaflow-test long", Command: []string{"/bin/sleep", "300"},
		Output: filepath.Join(dir, "%j.out"), Resources: res})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Cancel(context.Background(), longID) })

	ok := waitTerminal(t, c, okID, time.Minute)
	if ok.State != StateCompleted || ok.ExitCode != 0 || ok.Name != "hylaflow-test ok" || ok.Comment != "hylaflow-test" {
		t.Errorf("ok job: %+v", ok)
	}
	if out, err := os.ReadFile(filepath.Join(dir, okID+".out")); err != nil || string(out) != "out it's\n" {
		t.Errorf("ok job output %q, %v", out, err)
	}
	fail := waitTerminal(t, c, failID, time.Minute)
	if fail.State != StateFailed || fail.ExitCode != 7 {
		t.Errorf("failing job: %+v", fail)
	}
	if err := c.Cancel(ctx, longID); err != nil {
		t.Fatal(err)
	}
	long := waitTerminal(t, c, longID, time.Minute)
	if long.State != StateCancelled {
		t.Errorf("canceled job: %+v", long)
	}
	// A job id the controller never issued is absent, not an error.
	jobs, err := c.Jobs(ctx, []string{"999999999"})
	if err != nil || len(jobs) != 0 {
		t.Errorf("Jobs(unknown) = %+v, %v", jobs, err)
	}
	if err := c.Cancel(ctx, "999999999"); err != nil {
		t.Errorf("Cancel(unknown): %v", err)
	}
}
