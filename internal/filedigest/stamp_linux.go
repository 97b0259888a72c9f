package filedigest

import (
	"io/fs"
	"syscall"
)

// sysStamp returns a file's change time (unix ns) and inode.
func sysStamp(fi fs.FileInfo) (ctime int64, inode uint64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return st.Ctim.Nano(), uint64(st.Ino)
}
