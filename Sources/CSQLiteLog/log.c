// A SQLite VFS that gathers the write-ahead log's writes into one write per sync
// (include/fod_sqlite_log.h says when it may be used).
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "fod_sqlite_log.h"

/// Bytes gathered at most before they are written (a larger single write goes straight through).
/// Below 128 KiB: the unix VFS writes at most `n & 0x1ffff` bytes a call (enough for any page),
/// so a longer write would come back short and be reported as a full disk.
#define GATHER_LIMIT (120 * 1024)

/// A write-ahead log opened through the gathering VFS. `real` is the default VFS's file,
/// stored right after this struct (the VFS's szOsFile counts both).
///
/// Invariant: `buffer[0..<length]` are the bytes of file offsets `start..<start+length`, not yet
/// written; every method that looks at the file (read, size, sync, truncate, close) writes them
/// first. The methods of one file are never called concurrently (SQLite serializes a connection).
typedef struct GatheredLog {
    sqlite3_file base;
    sqlite3_file *real;
    unsigned char *buffer;
    sqlite3_int64 start;
    int length;
    int capacity;
} GatheredLog;

static sqlite3_vfs *default_vfs;
static sqlite3_vfs gathering_vfs;

/// Writes what is gathered; afterwards nothing is, whether the write succeeded or not (a failed
/// write fails the transaction, and SQLite ignores log frames past its last commit).
static int write_gathered(GatheredLog *log) {
    if (log->length == 0) return SQLITE_OK;
    int amount = log->length;
    log->length = 0;
    return log->real->pMethods->xWrite(log->real, log->buffer, amount, log->start);
}

static int log_close(sqlite3_file *file) {
    GatheredLog *log = (GatheredLog *)file;
    int written = write_gathered(log);
    int closed = log->real->pMethods->xClose(log->real);
    free(log->buffer);
    log->buffer = 0;
    log->capacity = 0;
    return written != SQLITE_OK ? written : closed;
}

static int log_read(sqlite3_file *file, void *out, int amount, sqlite3_int64 offset) {
    GatheredLog *log = (GatheredLog *)file;
    int rc = write_gathered(log);
    if (rc != SQLITE_OK) return rc;
    return log->real->pMethods->xRead(log->real, out, amount, offset);
}

static int log_write(sqlite3_file *file, const void *data, int amount, sqlite3_int64 offset) {
    GatheredLog *log = (GatheredLog *)file;
    int rc;
    if (log->length > 0 && (offset != log->start + log->length || amount > GATHER_LIMIT - log->length)) {
        rc = write_gathered(log);
        if (rc != SQLITE_OK) return rc;
    }
    if (amount <= 0 || amount > GATHER_LIMIT) {
        return log->real->pMethods->xWrite(log->real, data, amount, offset);
    }
    if (log->length + amount > log->capacity) {
        int capacity = log->capacity > 0 ? log->capacity : 32 * 1024;
        while (capacity < log->length + amount) capacity *= 2;
        if (capacity > GATHER_LIMIT) capacity = GATHER_LIMIT;
        unsigned char *grown = realloc(log->buffer, (size_t)capacity);
        if (grown == 0) {
            // No memory to gather: write what is gathered, then this, as the default VFS would.
            rc = write_gathered(log);
            if (rc != SQLITE_OK) return rc;
            return log->real->pMethods->xWrite(log->real, data, amount, offset);
        }
        log->buffer = grown;
        log->capacity = capacity;
    }
    if (log->length == 0) log->start = offset;
    memcpy(log->buffer + log->length, data, (size_t)amount);
    log->length += amount;
    return SQLITE_OK;
}

static int log_truncate(sqlite3_file *file, sqlite3_int64 size) {
    GatheredLog *log = (GatheredLog *)file;
    int rc = write_gathered(log);
    if (rc != SQLITE_OK) return rc;
    return log->real->pMethods->xTruncate(log->real, size);
}

static int log_sync(sqlite3_file *file, int flags) {
    GatheredLog *log = (GatheredLog *)file;
    int rc = write_gathered(log);
    if (rc != SQLITE_OK) return rc;
    return log->real->pMethods->xSync(log->real, flags);
}

static int log_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    GatheredLog *log = (GatheredLog *)file;
    int rc = write_gathered(log);
    if (rc != SQLITE_OK) return rc;
    return log->real->pMethods->xFileSize(log->real, size);
}

static int log_lock(sqlite3_file *file, int level) {
    GatheredLog *log = (GatheredLog *)file;
    return log->real->pMethods->xLock(log->real, level);
}

static int log_unlock(sqlite3_file *file, int level) {
    GatheredLog *log = (GatheredLog *)file;
    return log->real->pMethods->xUnlock(log->real, level);
}

static int log_check_reserved_lock(sqlite3_file *file, int *out) {
    GatheredLog *log = (GatheredLog *)file;
    return log->real->pMethods->xCheckReservedLock(log->real, out);
}

static int log_file_control(sqlite3_file *file, int op, void *argument) {
    GatheredLog *log = (GatheredLog *)file;
    return log->real->pMethods->xFileControl(log->real, op, argument);
}

static int log_sector_size(sqlite3_file *file) {
    GatheredLog *log = (GatheredLog *)file;
    return log->real->pMethods->xSectorSize(log->real);
}

static int log_device_characteristics(sqlite3_file *file) {
    GatheredLog *log = (GatheredLog *)file;
    return log->real->pMethods->xDeviceCharacteristics(log->real);
}

/// Version 1: a log file has no shared memory or memory map of its own.
static const sqlite3_io_methods gathered_log_methods = {
    1, log_close, log_read, log_write, log_truncate, log_sync, log_file_size, log_lock, log_unlock,
    log_check_reserved_lock, log_file_control, log_sector_size, log_device_characteristics,
    0, 0, 0, 0, 0, 0,
};

static int vfs_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    if ((flags & SQLITE_OPEN_WAL) == 0) {
        return default_vfs->xOpen(default_vfs, name, file, flags, out_flags);
    }
    GatheredLog *log = (GatheredLog *)file;
    memset(log, 0, sizeof *log);
    log->real = (sqlite3_file *)(log + 1);
    int rc = default_vfs->xOpen(default_vfs, name, log->real, flags, out_flags);
    if (rc != SQLITE_OK) {
        // A VFS may leave its file's methods set on failure, expecting xClose; SQLite will not
        // call ours (it is left unset), so close the default VFS's file here.
        if (log->real->pMethods != 0) log->real->pMethods->xClose(log->real);
        log->base.pMethods = 0;
        return rc;
    }
    log->base.pMethods = &gathered_log_methods;
    return SQLITE_OK;
}

static int vfs_delete(sqlite3_vfs *vfs, const char *name, int sync_directory) {
    (void)vfs;
    return default_vfs->xDelete(default_vfs, name, sync_directory);
}

static int vfs_access(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
    (void)vfs;
    return default_vfs->xAccess(default_vfs, name, flags, out);
}

static int vfs_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return default_vfs->xFullPathname(default_vfs, name, size, out);
}

static void *vfs_dl_open(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return default_vfs->xDlOpen(default_vfs, name);
}

static void vfs_dl_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    default_vfs->xDlError(default_vfs, size, out);
}

static void (*vfs_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return default_vfs->xDlSym(default_vfs, handle, symbol);
}

static void vfs_dl_close(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    default_vfs->xDlClose(default_vfs, handle);
}

static int vfs_randomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return default_vfs->xRandomness(default_vfs, size, out);
}

static int vfs_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return default_vfs->xSleep(default_vfs, microseconds);
}

static int vfs_current_time(sqlite3_vfs *vfs, double *out) {
    (void)vfs;
    return default_vfs->xCurrentTime(default_vfs, out);
}

static int vfs_get_last_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return default_vfs->xGetLastError ? default_vfs->xGetLastError(default_vfs, size, out) : 0;
}

static int vfs_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    (void)vfs;
    if (default_vfs->iVersion >= 2 && default_vfs->xCurrentTimeInt64) {
        return default_vfs->xCurrentTimeInt64(default_vfs, out);
    }
    double days = 0;
    int rc = default_vfs->xCurrentTime(default_vfs, &days);
    *out = (sqlite3_int64)(days * 86400000.0);
    return rc;
}

static int registration_result = SQLITE_ERROR;
static pthread_once_t registration_once = PTHREAD_ONCE_INIT;

static void register_once(void) {
    default_vfs = sqlite3_vfs_find(0);
    if (default_vfs == 0) {
        registration_result = SQLITE_ERROR;
        return;
    }
    memset(&gathering_vfs, 0, sizeof gathering_vfs);
    gathering_vfs.iVersion = 2;
    gathering_vfs.szOsFile = (int)sizeof(GatheredLog) + default_vfs->szOsFile;
    gathering_vfs.mxPathname = default_vfs->mxPathname;
    gathering_vfs.zName = FOD_GATHERING_VFS_NAME;
    gathering_vfs.xOpen = vfs_open;
    gathering_vfs.xDelete = vfs_delete;
    gathering_vfs.xAccess = vfs_access;
    gathering_vfs.xFullPathname = vfs_full_pathname;
    gathering_vfs.xDlOpen = vfs_dl_open;
    gathering_vfs.xDlError = vfs_dl_error;
    gathering_vfs.xDlSym = vfs_dl_sym;
    gathering_vfs.xDlClose = vfs_dl_close;
    gathering_vfs.xRandomness = vfs_randomness;
    gathering_vfs.xSleep = vfs_sleep;
    gathering_vfs.xCurrentTime = vfs_current_time;
    gathering_vfs.xGetLastError = vfs_get_last_error;
    gathering_vfs.xCurrentTimeInt64 = vfs_current_time_int64;
    registration_result = sqlite3_vfs_register(&gathering_vfs, 0);
}

int fod_sqlite_register_gathering_vfs(void) {
    pthread_once(&registration_once, register_once);
    return registration_result;
}
