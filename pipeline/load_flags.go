package pipeline

import (
	"flag"
	"fmt"
	"strings"
)

// RegisterFlags adds -var NAME=VALUE and -var-file FILE (both repeatable)
// to fs, filling o. Commands that load pipelines share them this way.
func (o *LoadOptions) RegisterFlags(fs *flag.FlagSet) {
	fs.Var((*varsFlag)(o), "var", "set a pipeline variable: NAME=VALUE (VALUE is an HCL expression, else a string); repeatable")
	fs.Var((*varFilesFlag)(o), "var-file", "read pipeline variables from an HCL file of NAME = VALUE lines; repeatable")
}

type varsFlag LoadOptions

func (f *varsFlag) String() string {
	if f == nil {
		return ""
	}
	var parts []string
	for _, k := range sortedNames(f.Vars) {
		parts = append(parts, k+"="+f.Vars[k])
	}
	return strings.Join(parts, " ")
}

func (f *varsFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return fmt.Errorf("%q: want NAME=VALUE", s)
	}
	if f.Vars == nil {
		f.Vars = map[string]string{}
	}
	f.Vars[name] = value
	return nil
}

type varFilesFlag LoadOptions

func (f *varFilesFlag) String() string {
	if f == nil {
		return ""
	}
	return strings.Join(f.VarFiles, " ")
}

func (f *varFilesFlag) Set(s string) error {
	if s == "" {
		return fmt.Errorf("empty file name")
	}
	f.VarFiles = append(f.VarFiles, s)
	return nil
}
