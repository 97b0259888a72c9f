package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The command parses flags and prints; the maths lives in packages with
// their own tests (the kernel command's in kernelcheck, the stages' in
// stages). This test fails if cmd/hylaflow imports a numerical library
// directly again.
func TestCmdImportsNoMaths(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := strings.Fields(string(out))
	if len(imports) < 10 {
		t.Fatalf("go list listed only %v", imports)
	}
	for _, imp := range imports {
		for _, bad := range []string{"gonum.org/", "github.com/hylaflow/hylaflow/hyla", "github.com/hylaflow/hylaflow/nn",
			"github.com/hylaflow/hylaflow/train", "github.com/hylaflow/hylaflow/sparse"} {
			if imp == bad || strings.HasPrefix(imp, strings.TrimSuffix(bad, "/")+"/") {
				t.Errorf("cmd/hylaflow imports %s; move that use into a package (kernelcheck, stages, runreport …)", imp)
			}
		}
	}
}

// Issue 35: the cloud SDKs (their package initialisation cost every
// command about 20 ms of start-up) are linked into the hylaflow-remote
// helper only, which hylaflow starts when a command first reaches a cloud
// remote (remote/blobproxy).
func TestCloudSDKsOnlyInTheHelper(t *testing.T) {
	sdks := []string{"github.com/aws/aws-sdk-go-v2/service/s3", "cloud.google.com/go/storage",
		"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"}
	deps := func(pkg string) map[string]bool {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		m := map[string]bool{}
		for _, p := range strings.Fields(string(out)) {
			m[p] = true
		}
		return m
	}
	main, helper := deps("."), deps("../hylaflow-remote")
	for _, sdk := range sdks {
		if main[sdk] {
			t.Errorf("cmd/hylaflow links %s; cloud drivers belong in cmd/hylaflow-remote", sdk)
		}
		if !helper[sdk] {
			t.Errorf("cmd/hylaflow-remote does not link %s", sdk)
		}
	}
}
