package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/runreport"
)

// screenshotEnv, set to 1, makes TestReportHTMLInBrowser write its
// screenshot of the page to docs/img/report-html.png.
const screenshotEnv = "HYLAFLOW_UPDATE_SCREENSHOT"

// chromiumPath finds Chromium: Debian's chromium, or another name it goes by.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// The HTML report of the quickstart, opened in headless Chromium with the
// network off: it loads with no console message, exception or request
// other than the file itself; its table holds the run's numbers (those of
// table.json); the timeline has one bar per stage instance of the run; the
// DAG draws one node per stage block with a size; every image decodes.
// Skipped when Chromium is missing, unless CI is set: then it fails.
func TestReportHTMLInBrowser(t *testing.T) {
	chrome := chromiumPath()
	if chrome == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("Chromium is missing and CI is set: install Debian's chromium (apt-get install chromium), as .ci/run does")
		}
		t.Skip("Chromium is not installed (apt-get install chromium): the HTML report is not checked in a browser; under CI=true this fails")
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "pipelines", "quickstart.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := testenv.WriteFile(t, dir, "quickstart.hcl", string(src))
	cdir := filepath.Join(dir, "cache")
	cacheCmdMust(t, cli.ExitOK, "run", file, "--cache", cdir, "-q", "-j", "2")
	out := filepath.Join(dir, "report")
	stdout := cacheCmdMust(t, cli.ExitOK, "report", "--html", "--cache", cdir, "--out", out)
	page := filepath.Join(out, runreport.DefaultHTML(1))
	if !strings.Contains(stdout, "wrote the HTML report of run 1 to ") {
		t.Errorf("report --html does not say where it wrote:\n%s", stdout)
	}

	// What the page must show: table.json's cells, the run's stages and blocks.
	var table struct {
		Cells []struct {
			Dataset, Model string
			Mean, Std      *float64
		}
	}
	doc, err := os.ReadFile(filepath.Join(out, "evaluate.quickstart", "table.json"))
	if err == nil {
		err = json.Unmarshal(doc, &table)
	}
	if err != nil || len(table.Cells) != 3 {
		t.Fatalf("table.json: %v, %d cells", err, len(table.Cells))
	}
	var show struct {
		Stages []struct{ Address string } `json:"stage_list"`
	}
	if err := json.Unmarshal([]byte(cacheCmdMust(t, cli.ExitOK, "runs", "show", "1", "--json", "--cache", cdir)), &show); err != nil {
		t.Fatal(err)
	}
	blocks := map[string]bool{}
	for _, s := range show.Stages {
		b, _, _ := strings.Cut(s.Address, "[")
		blocks[b] = true
	}

	// Chromium's profile lives outside t.TempDir: its child processes can
	// still write there for a moment after the browser stops, which would
	// make the test's own cleanup fail.
	profile, err := os.MkdirTemp("", "hylaflow-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chrome), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.UserDataDir(profile))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // start the browser, without a deadline
		t.Fatalf("starting %s: %v", chrome, err)
	}
	var mu sync.Mutex
	var messages, requests []string
	err = chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			messages = append(messages, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
		case *runtime.EventExceptionThrown:
			messages = append(messages, "exception: "+ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			messages = append(messages, fmt.Sprintf("log %s (%s): %s %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
		case *network.EventRequestWillBeSent:
			requests = append(requests, ev.Request.URL)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	tctx, tcancel := context.WithTimeout(ctx, 90*time.Second)
	defer tcancel()
	fileURL := (&url.URL{Scheme: "file", Path: page}).String()
	if _, err := chromedp.Call(tctx, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: true,
		DownloadThroughput: -1, UploadThroughput: -1}); err != nil {
		t.Fatalf("network off: %v", err)
	}
	if err := chromedp.Do(tctx, chromedp.EmulateViewport(1200, 1400), chromedp.Navigate(fileURL)); err != nil {
		t.Fatalf("loading %s: %v", fileURL, err)
	}
	type seen struct {
		Title     string
		Cells     [][3]string // dataset, model, result
		Bars      []string    // data-address of each bar
		Nodes     []string    // data-block of each node
		NodeBoxes []float64   // width of each node's rect as laid out
		DAGWidth  float64
		Images    int
		Decoded   int
		Headings  int
		Online    bool
	}
	got, err := chromedp.Run(tctx, chromedp.Evaluate[seen](`(() => {
		const cells = [];
		for (const tr of document.querySelectorAll('table.results tbody tr')) {
			const model = tr.querySelector('th').textContent;
			for (const td of tr.querySelectorAll('td[data-dataset]'))
				cells.push([td.dataset.dataset, model, td.querySelector('.result').textContent]);
		}
		const svg = document.getElementById('dag-svg');
		return {
			Title: document.title,
			Cells: cells,
			Bars: [...document.querySelectorAll('#timeline-svg g.bar')].map(g => g.dataset.address),
			Nodes: [...svg.querySelectorAll('g.node')].map(g => g.dataset.block),
			NodeBoxes: [...svg.querySelectorAll('g.node rect')].map(r => r.getBBox().width),
			DAGWidth: svg.getBoundingClientRect().width,
			Images: document.images.length,
			Decoded: [...document.images].filter(i => i.complete && i.naturalWidth > 0).length,
			Headings: document.querySelectorAll('h1, h2').length,
			Online: navigator.onLine,
		};
	})()`))
	if err != nil {
		t.Fatal(err)
	}

	if got.Online {
		t.Error("the browser was online: the offline check proves nothing")
	}
	if want := "hylaflow run 1: quickstart"; got.Title != want {
		t.Errorf("title %q, want %q", got.Title, want)
	}
	if len(got.Cells) != len(table.Cells) {
		t.Errorf("the page's table has %d cells, table.json %d: %v", len(got.Cells), len(table.Cells), got.Cells)
	}
	for _, c := range table.Cells {
		want := [3]string{c.Dataset, c.Model, fmt.Sprintf("%.1f ± %.1f", *c.Mean, *c.Std)}
		if !slices.Contains(got.Cells, want) {
			t.Errorf("the page's table lacks %v: %v", want, got.Cells)
		}
	}
	if len(got.Bars) != len(show.Stages) || len(got.Bars) != 20 {
		t.Errorf("the timeline has %d bars for %d stage instances, want 20", len(got.Bars), len(show.Stages))
	}
	for _, s := range show.Stages {
		if !slices.Contains(got.Bars, s.Address) {
			t.Errorf("the timeline has no bar of %s", s.Address)
		}
	}
	if len(got.Nodes) != len(blocks) || len(got.Nodes) != 10 {
		t.Errorf("the DAG has %d nodes for %d stage blocks, want 10: %v", len(got.Nodes), len(blocks), got.Nodes)
	}
	for _, w := range got.NodeBoxes {
		if w < 40 {
			t.Errorf("a DAG node is drawn %vpx wide", w)
		}
	}
	if got.DAGWidth < 400 {
		t.Errorf("the DAG is drawn %vpx wide", got.DAGWidth)
	}
	if got.Images != 1 || got.Decoded != got.Images {
		t.Errorf("%d of %d images decode, want the chart", got.Decoded, got.Images)
	}
	if got.Headings < 6 {
		t.Errorf("%d headings", got.Headings)
	}

	if os.Getenv(screenshotEnv) == "1" {
		// The top of the page: tables, chart, timeline and DAG.
		if err := chromedp.Do(tctx, chromedp.EmulateViewport(1200, 2050)); err != nil {
			t.Fatal(err)
		}
		png, err := chromedp.Run(tctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if len(png) > 300<<10 {
			t.Errorf("the screenshot is %d KB, want < 300", len(png)>>10)
		}
		dst := filepath.Join("..", "..", "docs", "img", "report-html.png")
		if err := os.WriteFile(dst, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d KB)", dst, len(png)>>10)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(messages) > 0 {
		t.Errorf("the page wrote to the console:\n%s", strings.Join(messages, "\n"))
	}
	for _, r := range requests {
		if r != fileURL && !strings.HasPrefix(r, "data:") {
			t.Errorf("the page requested %s", r)
		}
	}
	if !slices.Contains(requests, fileURL) {
		t.Errorf("no request for the page itself (%s) was seen: %v", fileURL, requests)
	}
}
