package stages

import (
	"fmt"
	"strings"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/registry"
)

// dataNames returns the dataset names a dataset stage accepts for source:
// the catalogue's entries of that source and their aliases (disease, sbm).
func dataNames(source string) []string {
	var out []string
	for _, e := range datasets.Catalog() {
		if e.Source == source {
			out = append(out, e.Name)
			out = append(out, e.Aliases...)
		}
	}
	return out
}

// dataEntry returns the catalogue entry a dataset stage reads, if any.
func dataEntry(source, name string) (datasets.Entry, bool) {
	return datasets.LookupIn(source, name)
}

// dataCheck checks a dataset stage's name against the catalogue (the
// registry.Type Check hook), so a misspelt name fails validate, not a run.
func dataCheck(p registry.Values) []registry.Problem {
	source, name := p.String("source"), p.String("name")
	if s, ok := datasets.SourceOf(source); ok {
		if _, user := s.(datasets.PathSource); user {
			if p.String("path") == "" {
				return []registry.Problem{registry.Problemf("source", "Missing path",
					"Source %q reads the graph at path: set path to its directory or file (see docs/your-graph.md).", source)}
			}
			return nil
		}
	}
	if p.String("path") != "" {
		return []registry.Problem{registry.Problemf("path", "Path of another source",
			"Only source \"files\" reads path; source %q reads its catalogued files under root.", source)}
	}
	names := dataNames(source)
	if name == "" {
		return []registry.Problem{registry.Problemf("source", "Missing dataset name",
			"Source %q needs name, one of %s (see `hylaflow datasets list`).", source, strings.Join(names, ", "))}
	}
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return nil
		}
	}
	detail := fmt.Sprintf("unknown dataset %q for source %q", name, source)
	if e, ok := datasets.Lookup(name); ok && e.Source != source {
		detail = fmt.Sprintf("dataset %q is of source %q, not %q; set source = %q", name, e.Source, source, e.Source)
	} else if s := registry.DidYouMean(strings.ToLower(name), names); s != "" {
		detail += fmt.Sprintf("; did you mean %q?", s)
	} else {
		detail += fmt.Sprintf("; it has %s (see `hylaflow datasets list`)", strings.Join(names, ", "))
	}
	if !strings.HasSuffix(detail, "?") {
		detail += "."
	}
	return []registry.Problem{registry.Problemf("name", "Unknown dataset", "%s", detail)}
}

// dataPreflight warns when the files a dataset stage reads are missing
// (or not of the catalogue's size) under the root it would read them
// from, names every root it tried, and says how to get them.
func dataPreflight(p registry.Values) []registry.Problem {
	source := p.String("source")
	if s, ok := datasets.SourceOf(source); ok {
		if ps, user := s.(datasets.PathSource); user {
			req := datasets.Request{Root: p.String("path"), Name: p.String("name"), Params: p}
			if _, err := ps.FilesFor(req); err != nil {
				return []registry.Problem{registry.Warningf("path", "No graph at path",
					"%v. Its stages will fail; see docs/your-graph.md for the layouts.", err)}
			}
			return nil
		}
	}
	e, ok := dataEntry(source, p.String("name"))
	if !ok || len(e.Files) == 0 {
		return nil // unknown (Check reports it) or generated
	}
	root := dataRoot(p, source, e.Name)
	probs := datasets.RequiredProblems(e.FileProblems(root))
	if len(probs) == 0 {
		return nil
	}
	fetchable := true
	for _, f := range probs {
		fetchable = fetchable && f.URL != ""
	}
	how := fmt.Sprintf("get them with `hylaflow datasets fetch %s`", e.Name)
	if !fetchable {
		how = fmt.Sprintf("they cannot be downloaded: copy them with `hylaflow datasets fetch --from DIR %s`", e.Name)
	}
	where := "set HYLAFLOW_DATA to a data root that has them"
	if p.String("root") != "" {
		where = "point root at a data root that has them"
	}
	return []registry.Problem{registry.Warningf("name", "Missing data files",
		"Dataset %s: %s. Its stages will fail; %s, or %s.", e.Name, dataRootsReport(p, e), how, where)}
}
