package runreport

import (
	_ "embed"
	"html/template"
	"strings"
	"sync"
)

//go:embed report.html.tmpl
var pageTemplateText string

// pageTemplate renders a pageView. html/template escapes every text
// (addresses, titles, labels are user text) by its context, SVG
// attributes included. It is parsed when first used, not when the program
// starts: every hylaflow command links this package, few write a report.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"join": strings.Join,
	}).Parse(pageTemplateText))
})

// trustedURL marks a data: URL that dataURL built (base64 of bytes the
// run made) as safe for an src attribute.
func trustedURL(s string) template.URL { return template.URL(s) }
