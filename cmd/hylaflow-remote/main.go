// Command hylaflow-remote is hylaflow's helper for cloud remotes: it links
// the S3, Google Cloud Storage and Azure Blob Storage drivers, so that
// hylaflow itself does not, and serves one bucket to a hylaflow process
// on a private Unix socket (package remote/blobproxy says why and how).
// hylaflow starts it when a command first reaches an s3://, gs:// or
// azblob:// remote, and it exits when that hylaflow closes its standard
// input or exits. Build it beside hylaflow:
//
//	go build -o DIR/ ./cmd/hylaflow ./cmd/hylaflow-remote
//
// Usage (by hylaflow, not by hand):
//
//	hylaflow-remote serve SOCKET BUCKET-URL
//	hylaflow-remote version
package main

import (
	"fmt"
	"os"
	"runtime/debug"

	_ "gocloud.dev/blob/azureblob" // azblob://
	_ "gocloud.dev/blob/fileblob"  // file:// (tests of the helper)
	_ "gocloud.dev/blob/gcsblob"   // gs://
	_ "gocloud.dev/blob/memblob"   // mem:// (tests of the helper)
	_ "gocloud.dev/blob/s3blob"    // s3://

	"github.com/hylaflow/hylaflow/remote/blobproxy"
)

func main() {
	args := os.Args[1:]
	switch {
	case len(args) == 3 && args[0] == "serve":
		if err := blobproxy.ServeHelper(args[2], args[1], os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
	case len(args) == 1 && args[0] == "version":
		rev := "unknown"
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" {
					rev = s.Value
				}
			}
		}
		fmt.Printf("hylaflow-remote: protocol %d, revision %s\n", blobproxy.Protocol, rev)
	default:
		fmt.Fprintln(os.Stderr, "usage: hylaflow-remote serve SOCKET BUCKET-URL | hylaflow-remote version\n"+
			"(hylaflow starts it for s3://, gs:// and azblob:// remotes; it is not run by hand)")
		os.Exit(2)
	}
}
