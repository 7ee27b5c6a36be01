#ifndef FOD_CSQLITE_SHIM_H
#define FOD_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer; Swift cannot import it.
static inline sqlite3_destructor_type fod_sqlite_transient(void) { return SQLITE_TRANSIENT; }
/// SQLITE_STATIC (a null destructor): the caller keeps the bytes alive until the step.
static inline sqlite3_destructor_type fod_sqlite_static(void) { return SQLITE_STATIC; }

/// The errno of the most recent failed system call on the write-ahead log (or rollback
/// journal) of `db`'s main database, else on the database file itself; 0 when none failed.
/// SQLite's own `sqlite3_system_errno` is not set when a COMMIT fails writing the log, which is
/// where a full disk or a file-size limit shows first.
static inline int fod_sqlite_file_errno(sqlite3 *db) {
    int value = 0;
    sqlite3_file *journal = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &journal) == SQLITE_OK
        && journal != 0 && journal->pMethods != 0 && journal->pMethods->xFileControl != 0
        && journal->pMethods->xFileControl(journal, SQLITE_FCNTL_LAST_ERRNO, &value) == SQLITE_OK && value != 0) {
        return value;
    }
    value = 0;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_LAST_ERRNO, &value) != SQLITE_OK) { return 0; }
    return value;
}
/// Turns off SQLite's memory statistics (`SQLITE_CONFIG_MEMSTATUS`), which take a process-wide
/// mutex around every allocation and free of every connection. Must run before SQLite is
/// initialized (before the first connection opens); returns SQLITE_OK or SQLITE_MISUSE (too late).
static inline int fod_sqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
#endif
