package cache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocate(t *testing.T) {
	base := t.TempDir()
	// Locate walks to the file system root; a cache or repository above the
	// temp directory would change the "nothing found" answers.
	for d := filepath.Dir(base); ; d = filepath.Dir(d) {
		for _, n := range []string{DirName, ".git"} {
			if _, err := os.Lstat(filepath.Join(d, n)); err == nil {
				t.Skipf("%s exists above the temp directory", filepath.Join(d, n))
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	mk := func(paths ...string) {
		for _, p := range paths {
			p = filepath.Join(base, p)
			if strings.HasSuffix(p, ".file") {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(strings.TrimSuffix(p, ".file"), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk(
		// a clone with a cache at its root
		"clone/.git", "clone/.hylaflow", "clone/pipelines/sub",
		// a clone without a cache yet
		"fresh/.git", "fresh/pipelines",
		// a worktree: .git is a file
		"wt/.git.file", "wt/pipelines",
		// a nested cache beside a pipeline wins over the root's
		"nested/.git", "nested/.hylaflow", "nested/exp/.hylaflow", "nested/exp/deeper",
		// a cache above the repository is not the repository's
		"outer/.hylaflow", "outer/repo/.git", "outer/repo/pipelines",
		// no repository anywhere
		"plain/a/b",
		// a cache in a parent of a plain directory
		"home/.hylaflow", "home/work/x",
		// .hylaflow that is a file
		"broken/.git", "broken/.hylaflow.file", "broken/p",
	)
	at := func(p string) string { return filepath.Join(base, p) }
	for _, tc := range []struct {
		name, flag, env, start string
		want, how, err         string
	}{
		{name: "flag", flag: "/c/flag", env: "/c/env", start: at("clone/pipelines"), want: "/c/flag", how: FromFlag},
		{name: "relative flag kept as given", flag: "rel", start: at("plain"), want: "rel", how: FromFlag},
		{name: "env", env: "/c/env", start: at("clone/pipelines"), want: "/c/env", how: FromEnv},
		{name: "cache at the repository root from a subdirectory", start: at("clone/pipelines/sub"), want: at("clone/.hylaflow"), how: FromFound},
		{name: "cache at the repository root from the root", start: at("clone"), want: at("clone/.hylaflow"), how: FromFound},
		{name: "new cache at the repository root", start: at("fresh/pipelines"), want: at("fresh/.hylaflow"), how: FromRepo},
		{name: "worktree .git file marks the root", start: at("wt/pipelines"), want: at("wt/.hylaflow"), how: FromRepo},
		{name: "nearest cache wins", start: at("nested/exp/deeper"), want: at("nested/exp/.hylaflow"), how: FromFound},
		{name: "outer cache beside the nested one", start: at("nested"), want: at("nested/.hylaflow"), how: FromFound},
		{name: "walk stops at the repository root", start: at("outer/repo/pipelines"), want: at("outer/repo/.hylaflow"), how: FromRepo},
		{name: "no repository: beside the start", start: at("plain/a/b"), want: at("plain/a/b/.hylaflow"), how: FromStart},
		{name: "no repository: cache in a parent", start: at("home/work/x"), want: at("home/.hylaflow"), how: FromFound},
		{name: "relative start", start: "RELATIVE", want: at("clone/.hylaflow"), how: FromFound},
		{name: ".hylaflow is a file", start: at("broken/p"), err: "is a file, want a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := tc.start
			if start == "RELATIVE" {
				t.Chdir(at("clone"))
				start = "pipelines/sub"
			}
			got, err := Locate(tc.flag, tc.env, start)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Locate: got %+v, %v; want an error containing %q", got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Dir != tc.want || got.How != tc.how {
				t.Errorf("Locate(%q, %q, %q) = %+v, want {%s %s}", tc.flag, tc.env, tc.start, got, tc.want, tc.how)
			}
		})
	}
}
