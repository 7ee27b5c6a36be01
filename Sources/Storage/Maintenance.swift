import CSQLite

extension Database {
    /// `PRAGMA integrity_check`: `["ok"]` when the file is sound, else SQLite's problem lines.
    public func integrityCheck() throws -> [String] {
        try rows("PRAGMA integrity_check") { $0.string(0) }
    }

    /// Copies the whole database into the file at `destination` (replacing what it held) with
    /// SQLite's online backup API, `pagesPerStep` pages a step; -1, the default, copies every
    /// page in one step, that is from one read snapshot. In WAL mode that snapshot blocks no
    /// writer; a copy in several steps starts over whenever another process commits between
    /// two of them, so under steady writes by a server it might never end.
    ///
    /// - Throws: `StorageError` when the destination cannot be opened or the copy fails.
    public func backup(to destination: String, pagesPerStep: Int32 = -1) throws(StorageError) {
        let target = try Database(path: destination)
        guard let backup = sqlite3_backup_init(target.handle, "main", handle, "main") else {
            throw target.error(sqlite3_errcode(target.handle), sql: nil)
        }
        var rc: Int32
        repeat {
            rc = sqlite3_backup_step(backup, pagesPerStep)
            if rc == SQLITE_BUSY || rc == SQLITE_LOCKED { sqlite3_sleep(5) }
        } while rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED
        sqlite3_backup_finish(backup)
        if rc != SQLITE_DONE { throw target.error(rc, sql: nil) }
    }

    /// Size of the database in bytes (page count × page size; the WAL is not included).
    public func fileSizeBytes() throws -> Int64 {
        let pages = try firstRow("PRAGMA page_count") { $0.int64(0) } ?? 0
        let pageSize = try firstRow("PRAGMA page_size") { $0.int64(0) } ?? 0
        return pages * pageSize
    }

    /// Checkpoints the WAL into the main file and truncates it (used at clean shutdown).
    public func checkpoint() {
        sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
    }
}

extension Database {
    /// Frees the memory of this connection's page cache that no statement is using
    /// (`sqlite3_db_release_memory`); later reads refill it from the file (usually the OS cache).
    public func releaseMemory() {
        sqlite3_db_release_memory(handle)
    }
}
