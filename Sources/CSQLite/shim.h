#ifndef FOD_CSQLITE_SHIM_H
#define FOD_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer; Swift cannot import it.
static inline sqlite3_destructor_type fod_sqlite_transient(void) { return SQLITE_TRANSIENT; }
/// SQLITE_STATIC (a null destructor): the caller keeps the bytes alive until the step.
static inline sqlite3_destructor_type fod_sqlite_static(void) { return SQLITE_STATIC; }
#endif
