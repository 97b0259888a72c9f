package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// RunFunc runs one Slurm command with stdin and returns its standard output
// and error. An exit status other than 0 is returned as an error (with the
// outputs still filled in).
type RunFunc func(ctx context.Context, stdin []byte, name string, args ...string) (stdout, stderr []byte, err error)

// Client is a Cluster that runs the Slurm commands (sbatch, squeue,
// scontrol, scancel) found on PATH.
type Client struct {
	// Run runs a command; nil runs it with os/exec. Tests replace it.
	Run RunFunc
	// Env holds KEY=VALUE pairs added to the commands' environment
	// (e.g. SLURM_CONF=/path/slurm.conf).
	Env []string
	// Timeout bounds each command (default 60 s): a controller that does
	// not answer must not hang the driver.
	Timeout time.Duration
}

var _ Cluster = (*Client)(nil)

// Commands are the Slurm commands a Client runs.
var Commands = []string{"sbatch", "squeue", "scontrol", "scancel"}

// Preflight checks that the commands the client runs are on PATH, so a
// driver can fail once, up front, instead of once per submitted stage. The
// error names the missing commands and how to provide them. A client with
// its own Run function (tests) needs none.
func (c *Client) Preflight() error {
	if c.Run != nil {
		return nil
	}
	var missing []string
	for _, name := range Commands {
		if _, err := exec.LookPath(name); err != nil {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%s not found on PATH; run hylaflow where Slurm's client commands work (a login node), "+
		"install them (Debian/Ubuntu: apt-get install slurm-client, plus the cluster's slurm.conf) "+
		"or add their directory to PATH", strings.Join(missing, ", "))
}

func (c *Client) run(ctx context.Context, stdin []byte, name string, args ...string) ([]byte, []byte, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if c.Run != nil {
		return c.Run(ctx, stdin, name, args...)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	if len(c.Env) > 0 {
		cmd.Env = append(cmd.Environ(), c.Env...)
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return out.Bytes(), errb.Bytes(), err
}

func cmdError(name string, args []string, stderr []byte, err error) error {
	msg := strings.TrimSpace(string(stderr))
	if msg == "" {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, msg)
}

// SbatchArgs returns the sbatch arguments for req (the batch script goes
// to sbatch's standard input).
func SbatchArgs(req *SubmitRequest) []string {
	args := []string{"--parsable"}
	add := func(flag, v string) { args = append(args, flag+"="+v) }
	if req.Name != "" {
		add("--job-name", req.Name)
	}
	r := req.Resources
	if r.CPUs > 0 {
		add("--cpus-per-task", strconv.Itoa(r.CPUs))
	}
	if r.MemMB > 0 {
		add("--mem", strconv.FormatInt(r.MemMB, 10)+"M")
	}
	if r.Time > 0 {
		add("--time", FormatTime(r.Time))
	}
	if r.GPUs > 0 {
		add("--gpus", strconv.Itoa(r.GPUs))
	}
	if r.Partition != "" {
		add("--partition", r.Partition)
	}
	if r.Account != "" {
		add("--account", r.Account)
	}
	if req.WorkDir != "" {
		add("--chdir", req.WorkDir)
	}
	if req.Output != "" {
		add("--output", req.Output)
	}
	if req.Comment != "" {
		add("--comment", req.Comment)
	}
	if req.NoRequeue {
		args = append(args, "--no-requeue")
	}
	return append(args, req.Extra...)
}

var envNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// BatchScript returns the /bin/sh batch script that runs req.Command with
// req.Env exported. Every word is single-quoted, so no value is ever
// interpreted by the shell.
func BatchScript(req *SubmitRequest) ([]byte, error) {
	if len(req.Command) == 0 {
		return nil, errors.New("slurm: submit request has no command")
	}
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# submitted by hylaflow\n")
	for _, kv := range req.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !envNameRe.MatchString(k) {
			return nil, fmt.Errorf("slurm: environment entry %q: expected NAME=VALUE with a shell variable name", kv)
		}
		q, err := shellQuote(v)
		if err != nil {
			return nil, fmt.Errorf("slurm: environment entry %s: %w", k, err)
		}
		fmt.Fprintf(&b, "%s=%s\nexport %s\n", k, q, k)
	}
	b.WriteString("exec")
	for _, w := range req.Command {
		q, err := shellQuote(w)
		if err != nil {
			return nil, fmt.Errorf("slurm: command word %q: %w", w, err)
		}
		b.WriteString(" " + q)
	}
	b.WriteString("\n")
	return []byte(b.String()), nil
}

// shellQuote single-quotes s for /bin/sh.
func shellQuote(s string) (string, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return "", errors.New("contains a NUL byte")
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'", nil
}

// Submit runs sbatch --parsable with the options of req and the batch
// script on standard input.
func (c *Client) Submit(ctx context.Context, req *SubmitRequest) (string, error) {
	script, err := BatchScript(req)
	if err != nil {
		return "", err
	}
	args := SbatchArgs(req)
	out, errb, err := c.run(ctx, script, "sbatch", args...)
	if err != nil {
		return "", cmdError("sbatch", args, errb, err)
	}
	id, err := ParseParsable(out)
	if err != nil {
		return "", fmt.Errorf("%w (stderr: %s)", err, strings.TrimSpace(string(errb)))
	}
	return id, nil
}

// Jobs runs squeue -h -t all -j IDS for the states of ids.
func (c *Client) Jobs(ctx context.Context, ids []string) (map[string]JobInfo, error) {
	if len(ids) == 0 {
		return map[string]JobInfo{}, nil
	}
	for _, id := range ids {
		if !validJobID(id) {
			return nil, fmt.Errorf("slurm: invalid job id %q", id)
		}
	}
	args := []string{"-h", "-t", "all", "-o", squeueFormat, "-j", strings.Join(ids, ",")}
	out, errb, err := c.run(ctx, nil, "squeue", args...)
	if err != nil {
		// squeue fails when none of the ids is known; with some known it lists those.
		if isUnknownJob(errb) && ctx.Err() == nil {
			return map[string]JobInfo{}, nil
		}
		return nil, cmdError("squeue", args, errb, err)
	}
	return ParseSqueue(out)
}

// Job runs scontrol show job -o ID.
func (c *Client) Job(ctx context.Context, id string) (JobInfo, error) {
	if !validJobID(id) {
		return JobInfo{}, fmt.Errorf("slurm: invalid job id %q", id)
	}
	args := []string{"show", "job", "-o", id}
	out, errb, err := c.run(ctx, nil, "scontrol", args...)
	if err != nil {
		if isUnknownJob(errb) && ctx.Err() == nil {
			return JobInfo{}, fmt.Errorf("job %s: %w", id, ErrUnknownJob)
		}
		return JobInfo{}, cmdError("scontrol", args, errb, err)
	}
	jobs, err := ParseScontrol(out)
	if err != nil {
		return JobInfo{}, err
	}
	j, ok := jobs[id]
	if !ok {
		return JobInfo{}, fmt.Errorf("job %s: %w (scontrol listed %d other jobs)", id, ErrUnknownJob, len(jobs))
	}
	return j, nil
}

// Cancel runs scancel IDS.
func (c *Client) Cancel(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	for _, id := range ids {
		if !validJobID(id) {
			return fmt.Errorf("slurm: invalid job id %q", id)
		}
	}
	_, errb, err := c.run(ctx, nil, "scancel", ids...)
	if err != nil && !isUnknownJob(errb) {
		return cmdError("scancel", ids, errb, err)
	}
	return nil
}
