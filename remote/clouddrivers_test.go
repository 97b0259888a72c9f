package remote

// The tests open s3:// remotes (real S3 servers, unreachable endpoints)
// in the test process; hylaflow itself serves them through the
// hylaflow-remote helper (remote/blobproxy, tested there with the helper).
import (
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/s3blob"
)
