package main

import (
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/internal/testenv"
)

// TestCommandConsent: run refuses a pipeline with a command stage (exit
// 2, naming the stage and its argv) unless --allow-commands or
// HYLAFLOW_ALLOW_COMMANDS=1; plan lists the program and why it would run;
// exec-stage of the command's key needs the same consent.
func TestCommandConsent(t *testing.T) {
	t.Setenv("HYLAFLOW_ALLOW_COMMANDS", "")
	dir := t.TempDir()
	cdir := dir + "/cache"
	testenv.WriteFile(t, dir, "make.sh", "printf 'hi\\n' > out.txt\n")
	file := testenv.WriteFile(t, dir, "p.hcl", `stage "command" "hello" {
  argv = ["/bin/sh", "{dir}/make.sh"]
  code = ["make.sh"]

  output "greeting" {
    path = "out.txt"
    kind = "file"
  }
}
`)
	code, out, errs := runCmdDispatch("run", file, "--cache", cdir, "-q")
	if code != cli.ExitUsage || !strings.Contains(errs, "  command.hello: /bin/sh {dir}/make.sh") || !strings.Contains(errs, "--allow-commands") {
		t.Fatalf("run without consent: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCmdDispatch("plan", file, "--cache", cdir)
	if code != cli.ExitOK || !strings.Contains(out, "commands a run would start:\n  command.hello: /bin/sh {dir}/make.sh\n    because: never run\n") ||
		!strings.Contains(out, "run refuses them without --allow-commands") {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errs)
	}
	t.Setenv("HYLAFLOW_ALLOW_COMMANDS", "1")
	if code, out, errs := runCmdDispatch("run", file, "--cache", cdir, "-q"); code != cli.ExitOK {
		t.Fatalf("run with HYLAFLOW_ALLOW_COMMANDS=1: exit %d\n%s%s", code, out, errs)
	}
	t.Setenv("HYLAFLOW_ALLOW_COMMANDS", "")
	if code, out, errs := runCmdDispatch("run", file, "--cache", cdir, "-q", "--allow-commands"); code != cli.ExitOK {
		t.Fatalf("cached rerun with --allow-commands: exit %d\n%s%s", code, out, errs)
	}
	testenv.WriteFile(t, dir, "make.sh", "# greets\nprintf 'hi\\n' > out.txt\n")
	code, out, errs = runCmdDispatch("plan", file, "--cache", cdir)
	if code != cli.ExitOK || !strings.Contains(out, "RUN  command.hello  code make.sh changed\n") {
		t.Fatalf("plan after an edit: exit %d\n%s%s", code, out, errs)
	}
	var key string
	for k := range runCmdDigests(t, cdir) {
		key, _, _ = strings.Cut(k, "/")
	}
	code, _, errs = runCmdDispatch("exec-stage", "--cache", cdir, "--force", key)
	if code != cli.ExitUsage || !strings.Contains(errs, "command.hello: /bin/sh {dir}/make.sh") {
		t.Fatalf("exec-stage of a command key without consent: exit %d\n%s", code, errs)
	}
	if code, out, errs := runCmdDispatch("exec-stage", "--cache", cdir, "--force", "--allow-commands", key); code != cli.ExitOK {
		t.Fatalf("exec-stage --allow-commands: exit %d\n%s%s", code, out, errs)
	}
}
