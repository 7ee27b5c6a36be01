/* phonefleet: a fleet of simulated phones posting OwnTracks location messages, open loop.
 *
 * Every phone (a line "deviceId deviceToken" of --phones) posts one `_type: location` message
 * every --period seconds with HTTP Basic `deviceId:deviceToken`, the phones' posts spread
 * evenly over the period, so the offered rate is phones / period whatever the server does. Each
 * phone connects from its own loopback address (127.10.0.1, 127.10.0.2, ...), as phones come
 * from their own addresses. Most phones open a new TCP connection per post and send
 * `Connection: close`; a --keepalive fraction of them (spread evenly) keep their connection and
 * reuse it for the next post, reconnecting once when the server closed it in between.
 *
 * Latency is measured from the moment a post was due to the moment its whole reply arrived:
 * connecting, queueing (a phone's post waits while its previous one is unanswered, and while
 * --max-open connections are open) and the reply all count, so an overloaded server shows as
 * latency, not as a lower offered rate. Posts due during --warmup are sent but not counted;
 * after --duration no post is due any more and the unanswered ones get --grace seconds.
 * --dump writes "due (s into the window) latency_ms status" for every measured post (-1: none).
 *
 *   phonefleet --port P --phones FILE --period T --duration D [--warmup W] [--keepalive 0.1]
 *              [--max-open 18000] [--grace 10] [--timeout 30] [--path /v1/ingest/owntracks] [--dump FILE]
 *
 * Prints one JSON object: the offered rate (phones / period); `answered_per_s`, the 2xx replies
 * that arrived during the measured window a second (what the server sustained); `served_per_s`,
 * the posts due in the window answered 2xx (by the end of the grace) a second; latency
 * percentiles (ms) of the posts due in the window, all and kept-alive ones; replies by class,
 * failures, timeouts, posts skipped because the phone's previous two were still unanswered,
 * non-empty reply arrays (friends), connections opened and the client's own CPU time (s).
 * Exit status 0 unless the arguments or the phones file are unusable. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif

enum { IDLE, WAITING, CONNECTING, SENDING, READING };
enum { FAILED = -1, TIMED_OUT = -2 };

typedef struct {
    char *auth;            /* "Authorization: Basic ...\r\n" */
    int fd;                /* -1: no connection */
    int state, keepalive;
    int reused;            /* the post in flight went out on a kept-alive connection */
    int retried;           /* ... and was sent again on a new one after that failed */
    int pending;           /* its next post came due while this one was in flight */
    double due, pending_due; /* monotonic seconds */
    long long seq;         /* posts this phone made: varies the message */
    char *req; int req_len, req_off;
    char *buf; int len, cap;
    double lon, lat;
} phone_t;

static double mono(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static double wall(void) { struct timespec t; clock_gettime(CLOCK_REALTIME, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static void *xrealloc(void *p, size_t n) { p = realloc(p, n); if (!p) { perror("realloc"); exit(2); } return p; }

typedef struct { double *v; size_t n, cap; } series_t;
static void add(series_t *s, double x) {
    if (s->n == s->cap) { s->cap = s->cap ? s->cap * 2 : 1 << 16; s->v = xrealloc(s->v, s->cap * sizeof *s->v); }
    s->v[s->n++] = x;
}
static double pct(const series_t *s, double p) {
    if (!s->n) return 0;
    size_t i = (size_t)(s->n * p);
    return s->v[i < s->n ? i : s->n - 1];
}

static void base64(const unsigned char *in, size_t n, char *out) {
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = in[i] << 16 | (i + 1 < n ? in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = a[v >> 18 & 63]; out[o++] = a[v >> 12 & 63];
        out[o++] = i + 1 < n ? a[v >> 6 & 63] : '='; out[o++] = i + 2 < n ? a[v & 63] : '=';
    }
    out[o] = 0;
}

static int port, max_open = 18000;
static double period, duration, warmup, keep_fraction = 0.1, grace = 10, timeout_s = 30;
static const char *path = "/v1/ingest/owntracks";
static FILE *dump; /* --dump: "due_s latency_ms status" a line for every post due in the window */
static phone_t *phones; static long nphones;
static int ep, open_fds;
static double t0, wall0, measure_from, measure_to;
static series_t lat_all, lat_keep;
static long long answered_total, answered_in_window, nonempty, ok_2xx, status_4xx, status_5xx, status_other, failures, timeouts, connects, retries, skipped;
static long *waitq; static long wq_head, wq_tail; /* phones waiting for a descriptor, FIFO ring */

static void watch(phone_t *p, uint32_t events, int op) {
    struct epoll_event e = { .events = events, .data.u64 = (uint64_t)(p - phones) };
    if (epoll_ctl(ep, op, p->fd, &e) != 0) { perror("epoll_ctl"); exit(2); }
}

static void close_conn(phone_t *p) {
    if (p->fd < 0) return;
    close(p->fd); /* also leaves the epoll set */
    p->fd = -1; open_fds--;
}

static void build_request(phone_t *p) {
    /* OwnTracks' `tst` (whole seconds) from the due time: a phone's posts are a period (≥ 1 s) apart. */
    long long tst = (long long)(wall0 + (p->due - t0));
    p->seq++;
    p->lon += 0.00011 * (p->seq % 7 - 3); p->lat += 0.00009 * (p->seq % 5 - 2);
    char body[400];
    int bl = snprintf(body, sizeof body,
        "{\"_type\":\"location\",\"acc\":%d,\"alt\":%d,\"batt\":%d,\"bs\":1,\"conn\":\"m\",\"created_at\":%lld,"
        "\"lat\":%.6f,\"lon\":%.6f,\"m\":1,\"tid\":\"ph\",\"tst\":%lld,\"vac\":4,\"vel\":%d}",
        5 + (int)(p->seq % 20), 30 + (int)(p->seq % 9), 100 - (int)(p->seq % 80), tst, p->lat, p->lon, tst, (int)(p->seq % 40));
    if (!p->req) p->req = xrealloc(NULL, 1024);
    p->req_len = snprintf(p->req, 1024,
        "POST %s HTTP/1.1\r\nHost: fleet.example.org\r\nUser-Agent: Owntracks-Android/2.4.12\r\n%s"
        "Content-Type: application/json; charset=UTF-8\r\nX-Limit-U: phone\r\nX-Limit-D: phone\r\n%s"
        "Content-Length: %d\r\n\r\n%s",
        path, p->auth, p->keepalive ? "" : "Connection: close\r\n", bl, body);
    p->req_off = 0;
}

/* A new non-blocking connection from the phone's own address; 0, or -1 when it failed at once. */
static int dial(phone_t *p) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    struct sockaddr_in src = { .sin_family = AF_INET }, dst = { .sin_family = AF_INET, .sin_port = htons(port) };
    src.sin_addr.s_addr = htonl((127u << 24 | 10u << 16) + (uint32_t)(p - phones) + 1);
    dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&src, sizeof src) != 0 ||
        (connect(fd, (struct sockaddr *)&dst, sizeof dst) != 0 && errno != EINPROGRESS)) { close(fd); return -1; }
    connects++; open_fds++;
    p->fd = fd;
    p->state = CONNECTING;
    watch(p, EPOLLOUT, EPOLL_CTL_ADD);
    return 0;
}

static void finish(phone_t *p, int status);

/* Sends (the rest of) the request; waits for EPOLLOUT when the socket is full. */
static void pump_send(phone_t *p) {
    while (p->req_off < p->req_len) {
        ssize_t w = send(p->fd, p->req + p->req_off, p->req_len - p->req_off, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EAGAIN) { if (p->state != SENDING) { p->state = SENDING; watch(p, EPOLLOUT, EPOLL_CTL_MOD); } return; }
            finish(p, FAILED); return;
        }
        p->req_off += (int)w;
    }
    p->state = READING; p->len = 0;
    watch(p, EPOLLIN, EPOLL_CTL_MOD);
}

/* Opens a connection for p's post, or queues p while --max-open connections are open. */
static void connect_or_wait(phone_t *p) {
    if (open_fds >= max_open) { p->state = WAITING; waitq[wq_tail++ % nphones] = p - phones; return; }
    if (dial(p) != 0) finish(p, FAILED);
}

static void start(phone_t *p, double due) {
    p->due = due; p->retried = 0; p->reused = p->fd >= 0;
    build_request(p);
    if (p->reused) pump_send(p); else connect_or_wait(p);
}

static void post_due(phone_t *p, double due) {
    if (p->state != IDLE) { /* the previous post is unanswered: this one follows it */
        if (!p->pending) { p->pending = 1; p->pending_due = due; } else if (due >= measure_from) skipped++;
        return;
    }
    start(p, due);
}

/* The post of p ended: status ≥ 100 is the reply's status, or FAILED / TIMED_OUT. */
static void finish(phone_t *p, int status) {
    if (status == FAILED && p->reused && !p->retried && p->len == 0) {
        /* The server closed the kept-alive connection before this post: one new connection. */
        retries++; p->retried = 1; p->reused = 0; close_conn(p); p->req_off = 0;
        connect_or_wait(p);
        return;
    }
    double now = mono();
    if (status >= 200 && status < 300) { answered_total++; if (now >= measure_from && now < measure_to) answered_in_window++; }
    if (p->due >= measure_from && p->due < measure_to) {
        if (status >= 200 && status < 300) ok_2xx++;
        else if (status >= 400 && status < 500) status_4xx++;
        else if (status >= 500) status_5xx++;
        else if (status == TIMED_OUT) timeouts++;
        else if (status == FAILED) failures++;
        else status_other++;
        if (status >= 100) { double ms = (now - p->due) * 1e3; add(&lat_all, ms); if (p->keepalive) add(&lat_keep, ms); }
        if (dump) fprintf(dump, "%.4f %.2f %d\n", p->due - measure_from, status >= 100 ? (now - p->due) * 1e3 : -1, status);
    }
    int keep = p->keepalive && p->fd >= 0 && status >= 200 && status < 300;
    if (keep) { /* the head is NUL-terminated in place by read_reply */
        const char *c = strcasestr(p->buf, "\r\nConnection:");
        if (c && strncasecmp(c + 13 + strspn(c + 13, " "), "close", 5) == 0) keep = 0;
    }
    if (!keep) close_conn(p);
    free(p->buf); p->buf = NULL; p->len = p->cap = 0;
    p->state = IDLE;
    if (p->pending) { p->pending = 0; start(p, p->pending_due); }
}

/* Reads what arrived; finishes the post once its reply is whole (Content-Length, chunked, or
 * up to the connection's end). */
static void read_reply(phone_t *p) {
    int eof = 0;
    for (;;) {
        if (p->cap - p->len < 2048) { p->cap = p->cap ? p->cap * 2 : 4096; p->buf = xrealloc(p->buf, p->cap); }
        ssize_t r = recv(p->fd, p->buf + p->len, p->cap - p->len - 1, 0);
        if (r > 0) { p->len += (int)r; continue; }
        if (r == 0) { eof = 1; break; }
        if (errno == EAGAIN) break;
        finish(p, FAILED); return;
    }
    if (p->len == 0 && eof) { finish(p, FAILED); return; }
    p->buf[p->len] = 0;
    char *end = strstr(p->buf, "\r\n\r\n");
    if (!end) { if (eof) finish(p, FAILED); return; }
    int status = 0;
    if (sscanf(p->buf, "HTTP/1.%*d %d", &status) != 1) { finish(p, FAILED); return; }
    *end = 0; /* header lookups stay inside the head */
    const char *cl = strcasestr(p->buf, "\r\nContent-Length:"), *te = strcasestr(p->buf, "\r\nTransfer-Encoding: chunked");
    int head = (int)(end + 4 - p->buf), whole;
    if (cl) whole = p->len >= head + atoi(cl + 17);
    else if (te) whole = p->len >= head + 5 && memcmp(p->buf + p->len - 5, "0\r\n\r\n", 5) == 0;
    else whole = eof;
    if (whole) {
        const char *array = memchr(end + 4, '[', p->len - head);
        if (array && array + 1 < p->buf + p->len && array[1] != ']' && p->due >= measure_from && p->due < measure_to) nonempty++;
        finish(p, status); return;
    }
    *end = '\r';
    if (eof) finish(p, FAILED);
}

static void on_event(phone_t *p, uint32_t events) {
    switch (p->state) {
    case CONNECTING: {
        int err = 0; socklen_t l = sizeof err;
        getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &l);
        if (err || (events & (EPOLLERR | EPOLLHUP))) { finish(p, FAILED); return; }
        pump_send(p); return;
    }
    case SENDING: pump_send(p); return;
    case READING: read_reply(p); return;
    case IDLE: { /* a kept-alive connection between posts: the server closed it (or sent junk) */
        char junk[512];
        ssize_t r = recv(p->fd, junk, sizeof junk, 0);
        if (r == 0 || (r < 0 && errno != EAGAIN)) close_conn(p);
        return;
    }
    default: return;
    }
}

static void load_phones(const char *file) {
    FILE *f = fopen(file, "r");
    if (!f) { perror(file); exit(2); }
    char line[1024], id[300], token[300], userpass[700], enc[1000];
    long cap = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%299s %299s", id, token) != 2) continue;
        if (nphones == cap) { cap = cap ? cap * 2 : 1024; phones = xrealloc(phones, cap * sizeof *phones); }
        phone_t *p = &phones[nphones];
        memset(p, 0, sizeof *p);
        int n = snprintf(userpass, sizeof userpass, "%s:%s", id, token);
        base64((const unsigned char *)userpass, (size_t)n, enc);
        size_t al = strlen(enc) + 40; p->auth = xrealloc(NULL, al);
        snprintf(p->auth, al, "Authorization: Basic %s\r\n", enc);
        p->fd = -1;
        /* The kept-alive phones spread evenly: phone i keeps alive when floor((i+1)f) > floor(i f). */
        p->keepalive = (long long)((nphones + 1) * keep_fraction) > (long long)(nphones * keep_fraction);
        p->lon = 13.0 + (nphones % 1000) * 0.0011; p->lat = 52.0 + (nphones / 1000 % 1000) * 0.0009;
        nphones++;
    }
    fclose(f);
    if (nphones == 0) { fprintf(stderr, "no phones in %s\n", file); exit(2); }
}

static double cpu_seconds(void) {
    struct rusage u; getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv) {
    const char *file = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--port")) port = atoi(v); else if (!strcmp(k, "--phones")) file = v;
        else if (!strcmp(k, "--period")) period = atof(v); else if (!strcmp(k, "--duration")) duration = atof(v);
        else if (!strcmp(k, "--warmup")) warmup = atof(v); else if (!strcmp(k, "--keepalive")) keep_fraction = atof(v);
        else if (!strcmp(k, "--max-open")) max_open = atoi(v); else if (!strcmp(k, "--grace")) grace = atof(v);
        else if (!strcmp(k, "--timeout")) timeout_s = atof(v); else if (!strcmp(k, "--path")) path = v;
        else if (!strcmp(k, "--dump")) { dump = fopen(v, "w"); if (!dump) { perror(v); return 2; } }
        else { fprintf(stderr, "unknown option %s\n", k); return 2; }
    }
    if (!port || !file || period <= 0 || duration <= 0) {
        fprintf(stderr, "usage: phonefleet --port P --phones FILE --period T --duration D [--warmup W] [--keepalive F] [--max-open N] [--grace S] [--timeout S] [--path P] [--dump FILE]\n");
        return 2;
    }
    struct rlimit rl; getrlimit(RLIMIT_NOFILE, &rl); rl.rlim_cur = rl.rlim_max; setrlimit(RLIMIT_NOFILE, &rl);
    if ((long)rl.rlim_cur - 64 < max_open) max_open = (int)rl.rlim_cur - 64;
    load_phones(file);
    waitq = xrealloc(NULL, nphones * sizeof *waitq);
    ep = epoll_create1(0);
    struct epoll_event *evs = xrealloc(NULL, 4096 * sizeof *evs);

    double cpu0 = cpu_seconds();
    t0 = mono(); wall0 = wall();
    measure_from = t0 + warmup; measure_to = measure_from + duration;
    double step = period / nphones, stop = measure_to + grace, next_scan = t0;
    long long seq = 0;
    for (;;) {
        double now = mono();
        for (double due; (due = t0 + seq * step) <= now && due < measure_to; seq++) post_due(&phones[seq % nphones], due);
        while (wq_head < wq_tail && open_fds < max_open) {
            phone_t *p = &phones[waitq[wq_head++ % nphones]];
            if (p->state == WAITING && dial(p) != 0) finish(p, FAILED); /* not when it timed out waiting */
        }
        if (now >= next_scan) { /* timeouts, and whether the run is over */
            next_scan = now + 0.25;
            long busy = 0;
            for (long i = 0; i < nphones; i++) {
                phone_t *p = &phones[i];
                if (p->state == IDLE) continue;
                if (now - p->due > timeout_s || now >= stop) {
                    if (p->pending && p->pending_due >= measure_from) skipped++;
                    close_conn(p); p->pending = 0; finish(p, TIMED_OUT);
                }
                else busy++;
            }
            if (now >= measure_to && (busy == 0 || now >= stop)) break;
        }
        double next_due = t0 + seq * step, wait_ms = next_due >= measure_to ? 5 : (next_due - mono()) * 1e3;
        int n = epoll_wait(ep, evs, 4096, wait_ms < 1 ? (wait_ms > 0 ? 1 : 0) : (wait_ms > 5 ? 5 : (int)wait_ms));
        for (int i = 0; i < n; i++) on_event(&phones[evs[i].data.u64], evs[i].events);
    }
    double cpu = cpu_seconds() - cpu0, elapsed = mono() - t0;

    qsort(lat_all.v, lat_all.n, sizeof *lat_all.v, cmp);
    qsort(lat_keep.v, lat_keep.n, sizeof *lat_keep.v, cmp);
    printf("{\"phones\": %ld, \"period_s\": %.3f, \"keepalive_phones\": %ld, \"offered_per_s\": %.1f, \"answered_per_s\": %.1f, \"served_per_s\": %.1f, "
           "\"ok\": %lld, \"status_4xx\": %lld, \"status_5xx\": %lld, \"status_other\": %lld, \"failed\": %lld, \"timed_out\": %lld, "
           "\"skipped\": %lld, \"connects\": %lld, \"stale_retries\": %lld, \"answered_total\": %lld, \"nonempty_replies\": %lld, "
           "\"p50_ms\": %.2f, \"p90_ms\": %.2f, \"p99_ms\": %.2f, \"p999_ms\": %.2f, \"max_ms\": %.2f, "
           "\"keepalive_p50_ms\": %.2f, \"keepalive_p99_ms\": %.2f, \"client_cpu_s\": %.2f, \"elapsed_s\": %.1f}\n",
           nphones, period, (long)(nphones * keep_fraction), nphones / period, answered_in_window / duration, ok_2xx / duration,
           ok_2xx, status_4xx, status_5xx, status_other, failures, timeouts, skipped, connects, retries, answered_total, nonempty,
           pct(&lat_all, .5), pct(&lat_all, .9), pct(&lat_all, .99), pct(&lat_all, .999), lat_all.n ? lat_all.v[lat_all.n - 1] : 0,
           pct(&lat_keep, .5), pct(&lat_keep, .99), cpu, elapsed);
    if (dump) fclose(dump);
    return 0;
}
