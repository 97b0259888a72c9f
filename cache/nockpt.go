package cache

// The index's write-ahead log is left in place when the last connection
// closes (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE) instead of being copied into
// index.db and deleted. With synchronous=NORMAL a commit to the log is not
// synced; closing was the one step of a fully cached run that synced
// (the log, then index.db) and unlinked (the log and its -shm), and the
// next writer then recreated the log (a sync of its header and one of the
// directory). Those were 5–10 ms of a 502-stage cached run's 80 on an
// ext4 VM disk, and its largest variance. The log is still copied into
// index.db by SQLite's automatic checkpoint (every 1,000 pages written), so
// it stays small; a reader opens it as part of the database, and
// durability is what synchronous=NORMAL gives: a power cut can lose the
// last commits, never the index's consistency.
//
// go-sqlite3 has no call for sqlite3_db_config, so the option is set by an
// automatic extension, which SQLite runs for every connection the process
// opens (the cache's index is the only database hylaflow opens).

/*
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_api_routines sqlite3_api_routines;
extern int sqlite3_db_config(sqlite3*, int op, ...);
extern int sqlite3_auto_extension(void (*xEntryPoint)(void));

static int hylaflowNoCheckpointOnClose(sqlite3 *db, char **errmsg, const sqlite3_api_routines *api) {
	(void)errmsg;
	(void)api;
	return sqlite3_db_config(db, 1006, 1, (int *)0); // SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE
}

static int hylaflowRegisterNoCheckpointOnClose(void) {
	return sqlite3_auto_extension((void (*)(void))hylaflowNoCheckpointOnClose);
}
*/
import "C"

import "fmt"

func init() {
	if rc := C.hylaflowRegisterNoCheckpointOnClose(); rc != 0 {
		panic(fmt.Sprintf("cache: register SQLite's no-checkpoint-on-close option: SQLite error %d", int(rc)))
	}
}
