#ifndef FOD_CLIBPQ_SHIM_H
#define FOD_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#include <postgres_ext.h>

/// libpq's diagnostic field codes are character macros; Swift imports them as functions here.
static inline int fod_pq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int fod_pq_diag_message_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }
static inline int fod_pq_diag_message_detail(void) { return PG_DIAG_MESSAGE_DETAIL; }
static inline int fod_pq_diag_message_hint(void) { return PG_DIAG_MESSAGE_HINT; }
static inline int fod_pq_diag_constraint_name(void) { return PG_DIAG_CONSTRAINT_NAME; }
static inline int fod_pq_diag_table_name(void) { return PG_DIAG_TABLE_NAME; }
static inline int fod_pq_diag_severity(void) { return PG_DIAG_SEVERITY_NONLOCALIZED; }

/// A notice receiver that drops the notice: libpq's default prints NOTICE and WARNING messages
/// from the server to standard error, which a server process must not do behind its logger.
static inline void fod_pq_ignore_notice(void *arg, const PGresult *res) { (void)arg; (void)res; }
static inline void fod_pq_silence_notices(PGconn *conn) {
    PQsetNoticeReceiver(conn, fod_pq_ignore_notice, 0);
}
#endif
