package remote

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ConfigFile is the name of the project file that sets a team's remote
// once: it lives beside the cache directory (for the usual cache at a
// repository's root, at the root, where it is committed with the
// pipelines). Its format is one "name = value" a line; blank lines and
// lines starting with # are ignored:
//
//	# hylaflow.conf
//	remote = s3://lab-cache/hylaflow
//	remote-push = false
const ConfigFile = "hylaflow.conf"

// Config is what a project file sets.
type Config struct {
	Remote string // "" when the file does not set it
	// Push is nil when the file does not set remote-push.
	Push *bool
	// File is the file read ("" when there is none).
	File string
}

// ConfigPath returns the project file beside cacheDir.
func ConfigPath(cacheDir string) string {
	abs, err := filepath.Abs(cacheDir)
	if err != nil {
		abs = cacheDir
	}
	return filepath.Join(filepath.Dir(abs), ConfigFile)
}

// LoadConfig reads a project file; a missing file is an empty Config.
// Errors name the file and the line.
func LoadConfig(path string) (Config, error) {
	var cfg Config
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, err
	}
	defer f.Close()
	cfg.File = path
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			return cfg, fmt.Errorf("%s:%d: %q: want name = value", path, n, line)
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
			if uq, err := strconv.Unquote(value); err == nil {
				value = uq
			}
		}
		switch name {
		case "remote":
			cfg.Remote = value
		case "remote-push":
			b, err := strconv.ParseBool(value)
			if err != nil {
				return cfg, fmt.Errorf("%s:%d: remote-push = %q: want true or false", path, n, value)
			}
			cfg.Push = &b
		default:
			return cfg, fmt.Errorf("%s:%d: unknown setting %q (known: remote, remote-push)", path, n, name)
		}
	}
	if err := sc.Err(); err != nil {
		return cfg, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// How a remote was chosen.
const (
	FromFlag = "--remote"
	FromEnv  = "HYLAFLOW_REMOTE"
)

// Choice is the remote in effect and where it was set.
type Choice struct {
	URL  string // "" when none is
	How  string // FromFlag, FromEnv or the project file's path
	Push bool
}

// Choose picks the remote: the flag (flagSet: given on the command line)
// wins, then $HYLAFLOW_REMOTE, then the project file beside cacheDir. The
// value "off" (or "none") in any of them means no remote. Pushing is on
// unless pushFlag (when pushSet) or the project file says otherwise.
func Choose(flagURL string, flagSet bool, env string, cacheDir string, pushFlag, pushSet bool) (Choice, error) {
	cfg, err := LoadConfig(ConfigPath(cacheDir))
	if err != nil {
		return Choice{}, err
	}
	c := Choice{Push: true}
	switch {
	case flagSet:
		c.URL, c.How = flagURL, FromFlag
	case env != "":
		c.URL, c.How = env, FromEnv
	case cfg.Remote != "":
		c.URL, c.How = cfg.Remote, cfg.File
	}
	if c.URL == "off" || c.URL == "none" {
		c.URL = ""
	}
	switch {
	case pushSet:
		c.Push = pushFlag
	case cfg.Push != nil:
		c.Push = *cfg.Push
	}
	return c, nil
}
