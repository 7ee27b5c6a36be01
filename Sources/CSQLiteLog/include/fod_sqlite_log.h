#ifndef FOD_SQLITE_LOG_H
#define FOD_SQLITE_LOG_H

/// The name of the VFS that `fod_sqlite_register_gathering_vfs` registers.
#define FOD_GATHERING_VFS_NAME "fod-gathered-log"

/// Registers (once; later calls return the first call's result) a SQLite VFS named
/// `FOD_GATHERING_VFS_NAME`: the default VFS, except that the writes of a write-ahead log are
/// gathered in memory while they follow each other in the file and reach the file as one
/// `pwrite` when the log is synced, read, sized, truncated or closed, or when 120 KiB are gathered.
///
/// SQLite writes each log frame as two writes (a 24-byte header, then the page), so a commit of
/// eleven pages made 22 system calls before its `fdatasync`; gathered, it makes one.
///
/// Only for connections with `PRAGMA synchronous=FULL` (or EXTRA): each commit then syncs the
/// log before any other connection may read its frames, and the sync writes what was gathered.
/// A connection that commits without a sync would leave its frames in memory where other
/// connections cannot read them. Returns SQLITE_OK or SQLite's error.
int fod_sqlite_register_gathering_vfs(void);

#endif
