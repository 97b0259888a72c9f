package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/runner"
)

func init() {
	app.Register(&cli.Command{
		Name:     "fmt",
		Complete: completePipelines,
		Summary:  "rewrite pipeline files in the canonical HCL layout",
		Run:      fmtCmdRun,
	})
}

var fmtCmdUsage = helpText("fmt")

func fmtCmdRun(args []string, stdout, stderr io.Writer) error {
	fs := cli.FlagSet("fmt")
	check := fs.Bool("check", false, "only report unformatted files")
	files, err := cli.Parse(fs, args, stdout, fmtCmdUsage)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return cli.UsageText(fmtCmdUsage, "no files given")
	}
	status := cli.ExitOK
	worse := func(s int) {
		if s == cli.ExitInvalid || status == cli.ExitOK {
			status = s
		}
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintf(stderr, "hylaflow fmt: %v\n", err)
			worse(cli.ExitFailed)
			continue
		}
		if diags := runner.CheckNesting(src, file); diags.HasErrors() {
			cliWriteDiags(stderr, diags)
			worse(cli.ExitInvalid)
			continue
		}
		if _, diags := hclsyntax.ParseConfig(src, file, hcl.InitialPos); diags.HasErrors() {
			cliWriteDiags(stderr, diags)
			worse(cli.ExitInvalid)
			continue
		}
		out := hclwrite.Format(src)
		if bytes.Equal(out, src) {
			continue
		}
		if *check {
			fmt.Fprintln(stdout, file)
			worse(cli.ExitFailed)
			continue
		}
		if err := fmtCmdWriteFile(file, out); err != nil {
			fmt.Fprintf(stderr, "hylaflow fmt: %v\n", err)
			worse(cli.ExitFailed)
			continue
		}
		fmt.Fprintln(stdout, file)
	}
	if status != cli.ExitOK {
		return cli.ExitStatus(status)
	}
	return nil
}

// fmtCmdWriteFile replaces file atomically (temp file, fsync, rename), keeping its mode.
func fmtCmdWriteFile(file string, b []byte) error {
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".fmt-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", file, err)
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}
