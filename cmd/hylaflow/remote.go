package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/cacheops"
	"github.com/hylaflow/hylaflow/internal/buildinfo"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/remote"
)

// remoteFlags are --remote URL and, for commands that write to the remote,
// --remote-push: the commands that use a remote share them.
type remoteFlags struct {
	fs   *flag.FlagSet
	url  string
	push bool
}

// register adds --remote (and --remote-push when withPush) to fs.
func (f *remoteFlags) register(fs *flag.FlagSet, withPush bool) {
	f.fs = fs
	fs.StringVar(&f.url, "remote", "", "remote artifact store URL (off: none)")
	if withPush {
		fs.BoolVar(&f.push, "remote-push", true, "upload what this run computes to the remote")
	}
}

// choose picks the remote for the cache in cacheDir (remote.Choose): the
// flag, else $HYLAFLOW_REMOTE, else the project file beside the cache. A
// bad project file is a usage error.
func (f *remoteFlags) choose(cacheDir string) (remote.Choice, error) {
	ch, err := remote.Choose(f.url, cli.IsSet(f.fs, "remote"), os.Getenv("HYLAFLOW_REMOTE"), cacheDir,
		f.push, f.fs.Lookup("remote-push") != nil && cli.IsSet(f.fs, "remote-push"))
	if err != nil {
		return ch, cli.Usagef("%v", err)
	}
	return ch, nil
}

// open opens the chosen remote; a URL it cannot open is a usage error
// (the network is not touched until the first request).
func cliOpenRemote(ctx context.Context, ch remote.Choice) (*remote.Remote, error) {
	r, err := remote.Open(ctx, ch.URL, remote.Options{})
	if err != nil {
		return nil, cli.Usagef("%v (set by %s)", err, ch.How)
	}
	return r, nil
}

// cliProducer is the producer recorded in the records this process pushes.
func cliProducer() remote.Producer {
	v := buildinfo.Read(debug.ReadBuildInfo())
	ver := v.Version
	if v.Revision != "" {
		ver += " " + v.Revision
		if v.Dirty {
			ver += "+dirty"
		}
	}
	host, _ := os.Hostname()
	return remote.Producer{Hylaflow: ver, Host: host}
}

// warnLog collects a Store's warnings, printed after the run's summary
// (writing them while the live progress block is drawn would garble it).
type warnLog struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnLog) add(m string) { w.mu.Lock(); w.msgs = append(w.msgs, m); w.mu.Unlock() }

func (w *warnLog) write(out io.Writer, prefix string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range w.msgs {
		fmt.Fprintf(out, "%s: warning: %s\n", prefix, m)
	}
	w.msgs = nil
}

// cliRemoteStore layers the chosen remote under c; nil when none is chosen.
func cliRemoteStore(ctx context.Context, c *cache.Cache, ch remote.Choice, fetch bool, warn func(string)) (*remote.Store, error) {
	if ch.URL == "" {
		return nil, nil
	}
	r, err := cliOpenRemote(ctx, ch)
	if err != nil {
		return nil, err
	}
	return remote.NewStore(c, r, remote.StoreOptions{Push: ch.Push, Fetch: fetch, Producer: cliProducer(), Warn: warn}), nil
}

// writeRemoteSummary says what a store moved: one line.
func writeRemoteSummary(w io.Writer, rs *remote.Store, computed int) {
	c := rs.Counters()
	line := fmt.Sprintf("remote %s: fetched %d stages (%s", rs.Remote().URL(), c.Fetched, cacheops.Size(c.FetchedBytes))
	if c.FetchTime > 0 && c.FetchedBytes > 0 {
		line += fmt.Sprintf(", %.1f MB/s", float64(c.FetchedBytes)/1e6/c.FetchTime.Seconds())
	}
	line += fmt.Sprintf("), pushed %d (%s)", c.Pushed, cacheops.Size(c.PushedBytes))
	if c.Existed > 0 {
		line += fmt.Sprintf(", %d were there already", c.Existed)
	}
	if c.Corrupt > 0 {
		line += fmt.Sprintf(", %d damaged objects ignored", c.Corrupt)
	}
	if computed == 0 && c.Fetched > 0 {
		line += "; computed nothing here"
	}
	if rs.Down() != nil {
		line += "; the remote failed and was switched off"
	}
	fmt.Fprintln(w, line)
}

// remoteTimeout bounds a whole remote maintenance command.
const remoteTimeout = 6 * time.Hour
