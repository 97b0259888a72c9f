package datasets

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// File is one file of a dataset.
type File struct {
	Path   string // relative to the data root, slash-separated
	URL    string // canonical download location; "" when it cannot be downloaded
	Size   int64  // bytes; 0 when unknown
	SHA256 string // hex; "" when no checksum is known
	// Optional marks a file the loader can do without (Disease's feature
	// file: without it the features are the identity, HGCN's use_feats = 0).
	// FindRoot does not require it; Present still reports it missing.
	Optional bool
	// AnyOf names a group of files that stand in for each other (TextGCN's
	// cleaned and raw corpus): at least one of the group must exist.
	AnyOf string
}

// Stats are a dataset's headline statistics.
type Stats struct {
	Nodes    int `json:"nodes"`
	Edges    int `json:"edges"` // distinct undirected pairs, self loops excluded
	Features int `json:"features"`
	Classes  int `json:"classes"`
}

// Entry describes a known dataset.
type Entry struct {
	Name   string
	Source string // the registered Source that loads it (SourceFor)
	Doc    string
	Files  []File // empty for generated datasets
	// Expected are the statistics the loaders produce (Edges: distinct undirected pairs).
	Expected Stats
	// Paper are the statistics quoted by the paper (edge counts there count raw links).
	Paper Stats
	// Split are the sizes (train, validation, test) of the official split
	// (the source's OfficialSplit, seed 0 for a drawn one) on the
	// catalogue's files; zero when not recorded (Reddit, whose files are
	// not distributed, and the generators, whose size is a parameter).
	Split [3]int
	// Aliases are further names a pipeline may use for the entry within its
	// source (disease for synthetic_disease); Lookup does not match them.
	Aliases []string
	// NoDownload, when set, says why the files have no public download and
	// how to build them; fetch then needs --from DIR.
	NoDownload string
	// Meta is how results present the dataset (display name, table
	// column and its place, paper key, metric); see MetaOf.
	Meta Meta
}

// extra are the entries RegisterForTest adds after the built-in ones.
var (
	extraMu sync.Mutex
	extra   []Entry
)

// Catalog returns the known datasets in a fixed order: the built-in
// benchmarks, then any that tests registered.
func Catalog() []Entry {
	extraMu.Lock()
	defer extraMu.Unlock()
	return append(builtin(), extra...)
}

// builtin returns the catalogue's own entries. Each names its source (a
// registered Source, see datasets/all) and lists the files that source
// reads for it (checked by the conformance test in datasets/all).
func builtin() []Entry {
	f := func(paths ...string) []File {
		out := make([]File, len(paths))
		for i, p := range paths {
			out[i] = File{Path: p}
			if kf, ok := knownFiles[p]; ok {
				out[i] = File{Path: kf.Path, URL: kf.URL, Size: kf.Size, SHA256: kf.SHA256}
			}
		}
		return out
	}
	optional := func(fs []File, paths ...string) []File {
		for i := range fs {
			for _, p := range paths {
				if fs[i].Path == p {
					fs[i].Optional = true
				}
			}
		}
		return fs
	}
	planetoid := func(name string) []File {
		var ps []string
		for _, s := range []string{"x", "y", "tx", "ty", "allx", "ally", "graph", "test.index"} {
			ps = append(ps, "planetoid/ind."+name+"."+s)
		}
		return f(ps...)
	}
	return []Entry{
		{Name: "cora", Source: "planetoid", Doc: "Cora citation graph, Planetoid split (140/500/1000)", Files: planetoid("cora"),
			Meta:     Meta{Display: "Cora", Rank: 5},
			Expected: Stats{2708, 5278, 1433, 7}, Paper: Stats{2708, 5429, 1433, 7}, Split: [3]int{140, 500, 1000}},
		{Name: "citeseer", Source: "planetoid", Doc: "Citeseer citation graph, Planetoid split (120/500/1000); 15 isolated test-range nodes", Files: planetoid("citeseer"),
			Meta:     Meta{Display: "Citeseer", Rank: 4},
			Expected: Stats{3327, 4552, 3703, 6}, Paper: Stats{3327, 4732, 3703, 6}, Split: [3]int{120, 500, 1000}},
		{Name: "pubmed", Source: "planetoid", Doc: "Pubmed citation graph, Planetoid split (60/500/1000); allx rebuilt (6 significant digits)", Files: planetoid("pubmed"),
			Meta:     Meta{Display: "Pubmed", Rank: 3},
			Expected: Stats{19717, 44324, 500, 3}, Paper: Stats{19717, 44338, 500, 3}, Split: [3]int{60, 500, 1000}},
		{Name: "disease_nc", Source: "hgcn", Doc: "HGCN Disease (node classification): SIR epidemic on a tree",
			Meta:     Meta{Display: "Disease", Column: "disease", Rank: 1},
			Files:    optional(f("hgcn/disease_nc/disease_nc.edges.csv", "hgcn/disease_nc/disease_nc.labels.npy", "hgcn/disease_nc/disease_nc.feats.npz"), "hgcn/disease_nc/disease_nc.feats.npz"),
			Expected: Stats{1044, 1043, 1000, 2}, Paper: Stats{1044, 1043, 1000, 2}, Split: [3]int{748, 42, 254}},
		{Name: "disease_lp", Source: "hgcn", Doc: "HGCN Disease-M (link prediction variant; labels 0/1)",
			Files:    f("hgcn/disease_lp/disease_lp.edges.csv", "hgcn/disease_lp/disease_lp.labels.npy", "hgcn/disease_lp/disease_lp.feats.npz"),
			Expected: Stats{2665, 2664, 11, 2}, Split: [3]int{1181, 212, 1272}},
		{Name: "airport", Source: "hgcn", Doc: "HGCN Airport: flight network, labels = binned population feature",
			Meta:     Meta{Display: "Airport", Rank: 2},
			Files:    f("hgcn/airport/airport.p"),
			Expected: Stats{3188, 18630, 4, 4}, Paper: Stats{3188, 18631, 4, 4}, Split: [3]int{2876, 156, 156}},
		{Name: "r8", Source: "textgcn", Doc: "Reuters R8 (7674 docs, 8 classes)",
			Meta:  Meta{Display: "R8", Rank: 7},
			Files: f("textgcn/R8.txt", "textgcn/corpus/R8.clean.txt", "textgcn/corpus/R8.txt"), Paper: Stats{Nodes: 7674, Classes: 8}, Split: [3]int{4937, 548, 2189}},
		{Name: "r52", Source: "textgcn", Doc: "Reuters R52 (9100 docs, 52 classes); corpus approximate (training half rebuilt)",
			Meta:  Meta{Display: "R52", Rank: 8},
			Files: f("textgcn/R52.txt", "textgcn/corpus/R52.txt"), Paper: Stats{Nodes: 9100, Classes: 52}, Split: [3]int{5879, 653, 2568}},
		{Name: "ohsumed", Source: "textgcn", Doc: "Ohsumed (7400 docs, 23 classes)",
			Meta:  Meta{Display: "Ohsumed", Rank: 9},
			Files: f("textgcn/ohsumed.txt", "textgcn/corpus/ohsumed.txt"), Paper: Stats{Nodes: 7400, Classes: 23}, Split: [3]int{3022, 335, 4043}},
		{Name: "mr", Source: "textgcn", Doc: "Movie reviews (10662 docs, 2 classes)",
			Meta:  Meta{Display: "MR", Rank: 10},
			Files: f("textgcn/mr.txt", "textgcn/corpus/mr.clean.txt", "textgcn/corpus/mr.txt"), Paper: Stats{Nodes: 10662, Classes: 2}, Split: [3]int{6398, 710, 3554}},
		{Name: "reddit", Source: "reddit", Doc: "Reddit posts (FastGCN reddit.npz + reddit_adj.npz; not distributed here)",
			Meta:  Meta{Display: "Reddit", Metric: MetricMicroF1, Rank: 6},
			Files: f("reddit/reddit.npz", "reddit/reddit_adj.npz"), Paper: Stats{232965, 11606919, 602, 41},
			NoDownload: "FastGCN's reddit.npz and reddit_adj.npz have no canonical download; build them with FastGCN's " +
				"transformRedditGraph2NPZ.py from GraphSAGE's Reddit data and copy them with --from DIR (DIR/reddit/reddit.npz)"},
		{Name: "synthetic_disease", Source: "synthetic", Doc: "Generated disease-propagation tree (SIR epidemic), any size, seeded; built in",
			Meta:    Meta{PaperKey: "disease"},
			Aliases: []string{"disease"}},
		{Name: "synthetic_sbm", Source: "synthetic", Doc: "Generated Reddit-scale degree-corrected SBM (232,965 nodes, 602 features, 41 classes); built in",
			Aliases: []string{"sbm"}},
	}
}

// Lookup returns the catalogue entry of name (case-insensitive).
func Lookup(name string) (Entry, bool) {
	for _, e := range Catalog() {
		if strings.EqualFold(e.Name, name) {
			return e, true
		}
	}
	return Entry{}, false
}

// LookupIn returns the entry of source whose name or one of whose Aliases
// is name (case-insensitive).
func LookupIn(source, name string) (Entry, bool) {
	for _, e := range Catalog() {
		if e.Source != source {
			continue
		}
		if strings.EqualFold(e.Name, name) {
			return e, true
		}
		for _, a := range e.Aliases {
			if strings.EqualFold(a, name) {
				return e, true
			}
		}
	}
	return Entry{}, false
}

// Names returns the catalogue's dataset names.
func Names() []string {
	var out []string
	for _, e := range Catalog() {
		out = append(out, e.Name)
	}
	return out
}

// Present reports which of the entry's files exist under root with the
// expected size (size only; Verify checks digests).
func (e Entry) Present(root string) (present, missing []File) {
	for _, f := range e.Files {
		st, err := os.Stat(filepath.Join(root, filepath.FromSlash(f.Path)))
		if err == nil && st.Mode().IsRegular() && (f.Size == 0 || st.Size() == f.Size) {
			present = append(present, f)
		} else {
			missing = append(missing, f)
		}
	}
	return present, missing
}

// Complete reports whether root holds all the files of e that are not
// Optional.
func (e Entry) Complete(root string) bool {
	_, missing := e.Present(root)
	return len(Required(missing)) == 0
}

// FindRoot returns the first of Roots() where e is Complete, or "".
func (e Entry) FindRoot() string {
	for _, r := range Roots() {
		if e.Complete(r) {
			return r
		}
	}
	return ""
}

// Required returns the files of fs that are not Optional.
func Required(fs []File) []File {
	var out []File
	for _, f := range fs {
		if !f.Optional {
			out = append(out, f)
		}
	}
	return out
}

// Verify checks the size and sha256 of a file under root.
func Verify(root string, f File) error {
	path := filepath.Join(root, filepath.FromSlash(f.Path))
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	h := sha256.New()
	n, err := io.Copy(h, fh)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if f.Size > 0 && n != f.Size {
		return fmt.Errorf("%s: %d bytes, want %d", path, n, f.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); f.SHA256 != "" && got != f.SHA256 {
		return fmt.Errorf("%s: sha256 %s, want %s", path, got, f.SHA256)
	}
	return nil
}

// FetchOptions control Fetch.
type FetchOptions struct {
	Client *http.Client // nil: http.DefaultClient
	// From, if set, copies files from this local directory (laid out like a
	// data root) instead of downloading them.
	From string
	// AllowUnverified lets files without a known checksum be downloaded.
	AllowUnverified bool
	// Logf reports progress; may be nil.
	Logf func(format string, args ...any)
}

// ErrNoSource is returned for a file that has no download location.
var ErrNoSource = errors.New("no public download location")

// Fetch puts the files into dest (a data root), verifying sizes and sha256
// digests. Files already present and valid are skipped. Each file is written
// to a temporary name and renamed once verified, so a failed fetch never
// leaves a corrupt file behind.
func Fetch(ctx context.Context, files []File, dest string, opts FetchOptions) error {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	client := opts.Client
	if client == nil {
		client = http.DefaultClient
	}
	var errs []error
	for _, f := range files {
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			errs = append(errs, fmt.Errorf("%s: not a relative path inside the data root", f.Path))
			continue
		}
		target := filepath.Join(dest, filepath.FromSlash(f.Path))
		if f.SHA256 != "" && Verify(dest, f) == nil {
			logf("%s: present and verified\n", f.Path)
			continue
		}
		if err := fetchOne(ctx, client, f, target, opts); err != nil {
			errs = append(errs, err)
			continue
		}
		logf("%s: ok\n", f.Path)
	}
	return errors.Join(errs...)
}

func fetchOne(ctx context.Context, client *http.Client, f File, target string, opts FetchOptions) error {
	if f.SHA256 == "" && !opts.AllowUnverified {
		return fmt.Errorf("%s: no known sha256 checksum; refusing to fetch without --allow-unverified", f.Path)
	}
	var src io.ReadCloser
	if opts.From != "" {
		fh, err := os.Open(filepath.Join(opts.From, filepath.FromSlash(f.Path)))
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		src = fh
	} else {
		if f.URL == "" {
			return fmt.Errorf("%s: %w; copy it with --from DIR", f.Path, ErrNoSource)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return fmt.Errorf("%s: GET %s: %s", f.Path, f.URL, resp.Status)
		}
		src = resp.Body
	}
	defer src.Close()
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	tmp, err := fetchTemp(filepath.Dir(target))
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	limit := int64(1 << 34)
	if f.Size > 0 {
		limit = f.Size + 1
	}
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(src, limit))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	if f.Size > 0 && n != f.Size {
		return fmt.Errorf("%s: got %d bytes, want %d", f.Path, n, f.Size)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if f.SHA256 != "" && sum != f.SHA256 {
		return fmt.Errorf("%s: sha256 %s, want %s", f.Path, sum, f.SHA256)
	}
	if f.SHA256 == "" && opts.Logf != nil {
		opts.Logf("%s: unverified download, sha256 %s\n", f.Path, sum)
	}
	return os.Rename(tmp.Name(), target)
}

// fetchTemp creates the temp file a fetched file is written to before it is
// renamed into place: with the mode os.Create gives (0666 less the umask),
// so other users of a shared data root can read it, where os.CreateTemp
// would give 0600.
func fetchTemp(dir string) (*os.File, error) {
	for try := 0; ; try++ {
		var b [8]byte
		rand.Read(b[:])
		f, err := os.OpenFile(filepath.Join(dir, ".fetch-"+hex.EncodeToString(b[:])), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, err
	}
}

// A FileProblem is one of an entry's files that is not usable under a
// root: Problem says why ("missing", "wrong size: 5001 bytes, want 5000",
// "not a regular file").
type FileProblem struct {
	File
	Problem string
}

// FileProblems returns the entry's files that are missing under root, not
// regular files, or not of the catalogue's size (when it records one), in
// the entry's order. Optional files are included (see Required).
func (e Entry) FileProblems(root string) []FileProblem {
	var out []FileProblem
	for _, f := range e.Files {
		st, err := os.Stat(filepath.Join(root, filepath.FromSlash(f.Path)))
		switch {
		case err != nil && errors.Is(err, fs.ErrNotExist):
			out = append(out, FileProblem{f, "missing"})
		case err != nil:
			out = append(out, FileProblem{f, err.Error()})
		case !st.Mode().IsRegular():
			out = append(out, FileProblem{f, "not a regular file"})
		case f.Size > 0 && st.Size() != f.Size:
			out = append(out, FileProblem{f, fmt.Sprintf("wrong size: %d bytes, want %d", st.Size(), f.Size)})
		}
	}
	return out
}

// RequiredProblems returns the problems of ps whose file is not Optional.
func RequiredProblems(ps []FileProblem) []FileProblem {
	var out []FileProblem
	for _, p := range ps {
		if !p.Optional {
			out = append(out, p)
		}
	}
	return out
}

// SummarizeProblems says in one line what is wrong with the files of ps:
// the missing ones (the first three named), then each of another kind.
func SummarizeProblems(ps []FileProblem) string {
	var missing, other []string
	for _, p := range ps {
		if p.Problem == "missing" {
			missing = append(missing, p.Path)
		} else {
			other = append(other, p.Path+" ("+p.Problem+")")
		}
	}
	var parts []string
	if n := len(missing); n > 0 {
		list := strings.Join(missing, ", ")
		if n > 3 {
			list = strings.Join(missing[:3], ", ") + fmt.Sprintf(" and %d more", n-3)
		}
		parts = append(parts, fmt.Sprintf("%d missing: %s", n, list))
	}
	parts = append(parts, other...)
	return strings.Join(parts, "; ")
}
