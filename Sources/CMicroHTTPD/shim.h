#ifndef FOD_CMICROHTTPD_SHIM_H
#define FOD_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/// Settings for `fod_mhd_start`; every field maps to one MHD option (0 = MHD's default).
typedef struct {
    unsigned int flags;
    uint16_t port;
    unsigned int connection_limit;
    unsigned int per_ip_connection_limit;
    unsigned int connection_timeout_seconds;
    size_t connection_memory_limit;
    unsigned int thread_pool_size;
    unsigned int listen_backlog;
    const struct sockaddr *bind_address; /* NULL: all addresses */
} fod_mhd_settings;

/// MHD_start_daemon is variadic, which Swift cannot call; this wrapper passes the options as
/// an MHD_OPTION_ARRAY built from `settings`. `accept_policy` decides on every new connection.
static inline struct MHD_Daemon *fod_mhd_start(const fod_mhd_settings *s,
                                               MHD_AcceptPolicyCallback accept_policy, void *accept_policy_cls,
                                               MHD_AccessHandlerCallback handler, void *handler_cls,
                                               MHD_RequestCompletedCallback completed, void *completed_cls) {
    struct MHD_OptionItem ops[10];
    int n = 0;
    if (s->connection_limit) { ops[n].option = MHD_OPTION_CONNECTION_LIMIT; ops[n].value = (intptr_t)s->connection_limit; ops[n].ptr_value = NULL; n++; }
    if (s->per_ip_connection_limit) { ops[n].option = MHD_OPTION_PER_IP_CONNECTION_LIMIT; ops[n].value = (intptr_t)s->per_ip_connection_limit; ops[n].ptr_value = NULL; n++; }
    if (s->connection_timeout_seconds) { ops[n].option = MHD_OPTION_CONNECTION_TIMEOUT; ops[n].value = (intptr_t)s->connection_timeout_seconds; ops[n].ptr_value = NULL; n++; }
    if (s->connection_memory_limit) { ops[n].option = MHD_OPTION_CONNECTION_MEMORY_LIMIT; ops[n].value = (intptr_t)s->connection_memory_limit; ops[n].ptr_value = NULL; n++; }
    if (s->thread_pool_size > 1) { ops[n].option = MHD_OPTION_THREAD_POOL_SIZE; ops[n].value = (intptr_t)s->thread_pool_size; ops[n].ptr_value = NULL; n++; }
    if (s->listen_backlog) { ops[n].option = MHD_OPTION_LISTEN_BACKLOG_SIZE; ops[n].value = (intptr_t)s->listen_backlog; ops[n].ptr_value = NULL; n++; }
    if (s->bind_address) { ops[n].option = MHD_OPTION_SOCK_ADDR; ops[n].value = 0; ops[n].ptr_value = (void *)s->bind_address; n++; }
    ops[n].option = MHD_OPTION_END; ops[n].value = 0; ops[n].ptr_value = NULL;
    return MHD_start_daemon(s->flags, s->port, accept_policy, accept_policy_cls, handler, handler_cls,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_ARRAY, ops,
                            MHD_OPTION_END);
}

/// The port the daemon actually listens on (after binding port 0), or 0.
static inline uint16_t fod_mhd_bound_port(struct MHD_Daemon *d) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/// Number of open connections of the daemon (for metrics).
static inline unsigned int fod_mhd_current_connections(struct MHD_Daemon *d) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info ? info->num_connections : 0;
}

/// The client's socket address of a connection (NULL when unknown).
static inline const struct sockaddr *fod_mhd_client_address(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

/// Sets the idle timeout of one connection in seconds (0 = none); resets its timer.
/// MHD_set_connection_option is variadic, which Swift cannot call.
static inline void fod_mhd_set_connection_timeout(struct MHD_Connection *c, unsigned int seconds) {
    (void)MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

/// The socket of a connection, or -1 when unknown.
static inline int fod_mhd_connection_socket(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? (int)info->connect_fd : -1;
}

/// MHD_SIZE_UNKNOWN and MHD_CONTENT_READER_END_OF_STREAM are macros Swift does not import.
static inline uint64_t fod_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }
static inline ssize_t fod_mhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t fod_mhd_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }
#endif
