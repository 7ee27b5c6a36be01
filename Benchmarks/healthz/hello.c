/* Minimal libmicrohttpd server answering GET /healthz with {"status":"ok"}: the baseline the
 * fod server is compared against. Same daemon flags as fod: internal polling threads (one per
 * core), epoll, suspend/resume allowed. Usage: hello <port>; stops on SIGTERM/SIGINT. */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char body[] = "{\"status\":\"ok\"}";

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **state) {
    (void)cls; (void)version; (void)upload;
    static int first_call_marker;
    struct MHD_Response *r;
    /* Canonical pattern: the first call only marks the request; the reply is queued on the
     * next call, once the (empty) body was read, so MHD keeps the connection alive. */
    if (*state == NULL) { *state = &first_call_marker; return MHD_YES; }
    if (*upload_size != 0) { *upload_size = 0; return MHD_YES; }
    unsigned int status = 200;
    if (strcmp(url, "/healthz") != 0 || strcmp(method, "GET") != 0) status = 404;
    r = MHD_create_response_from_buffer(sizeof(body) - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(r, "Content-Type", "application/json; charset=utf-8");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static volatile sig_atomic_t stop = 0;
static void on_signal(int s) { (void)s; stop = 1; }

int main(int argc, char **argv) {
    unsigned short port = argc > 1 ? (unsigned short)atoi(argv[1]) : 8081;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, port,
        NULL, NULL, handle, NULL,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)(cores > 1 ? cores : 1),
        MHD_OPTION_CONNECTION_LIMIT, 16384u, MHD_OPTION_CONNECTION_TIMEOUT, 60u, MHD_OPTION_END);
    if (!d) { fprintf(stderr, "cannot start\n"); return 1; }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    printf("hello listening on port %u\n", port);
    fflush(stdout);
    while (!stop) pause();
    MHD_stop_daemon(d);
    return 0;
}
