/* sselab: load generator for the live feed. Opens SSE streams (lines "groupId userToken" in
 * --subscribers), posts single fixes at a steady --rate from devices (lines "deviceId
 * deviceToken" in --devices) over keep-alive connections, and measures, for every `location`
 * event every subscriber receives, latency = receipt time - the fix's timestamp (the poster
 * stamps each fix with its send time, milliseconds). Checks that each stream's event ids are
 * contiguous (no event missed). With --rate 0 it only holds the streams (idle-memory runs).
 * Usage: sselab --port P --subscribers F [--devices F --rate R] [--post-port P2] --duration S [--warmup S]
 * --post-port: post to another node than the streams' (a cluster on one database). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
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

enum { SUB = 1, POST = 2 };
typedef struct {
    int fd, kind;
    char *buf; size_t len, cap;          /* raw bytes received */
    int in_body; long chunk_left; int chunk_crlf;
    char *ev; size_t evlen, evcap;       /* de-chunked event text */
    long long last_id; long long events; long long gaps; int got_first;
    int inflight;                        /* poster: requests awaiting a reply */
    double sent_at[256]; int head, tail; /* poster: send times of requests in flight (FIFO) */
} conn_t;

static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_REALTIME, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static double mono_s(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

static double *lat; static size_t nlat, caplat; static int measuring = 0;
static void record(double ms) { if (!measuring) return; if (nlat == caplat) { caplat = caplat ? caplat * 2 : 1 << 20; lat = realloc(lat, caplat * sizeof *lat); } lat[nlat++] = ms; }

static void append(char **b, size_t *len, size_t *cap, const char *d, size_t n) {
    if (*len + n + 1 > *cap) { *cap = (*len + n + 1) * 2; *b = realloc(*b, *cap); }
    memcpy(*b + *len, d, n); *len += n; (*b)[*len] = 0;
}

/* Days since 1970 of a civil date. */
static long days_from_civil(long y, long m, long d) {
    y -= m <= 2; long era = (y >= 0 ? y : y - 399) / 400; long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1; long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}
static double parse_ts(const char *p) { /* 2026-11-30T08:15:00.123Z */
    long Y, M, D, h, mi, s, ms = 0;
    if (sscanf(p, "%4ld-%2ld-%2ldT%2ld:%2ld:%2ld.%3ld", &Y, &M, &D, &h, &mi, &s, &ms) < 6) return -1;
    return ((days_from_civil(Y, M, D) * 86400.0 + h * 3600 + mi * 60 + s) * 1000.0) + ms;
}

static void handle_event(conn_t *c, char *block) {
    char *id = strstr(block, "id: "), *name = strstr(block, "event: "), *data = strstr(block, "data: ");
    if (id) {
        long long v = atoll(id + 4);
        if (c->got_first && v != c->last_id + 1) c->gaps += v > c->last_id ? v - c->last_id - 1 : 0;
        c->last_id = v; c->got_first = 1;
    }
    if (name && data && strncmp(name + 7, "location", 8) == 0) {
        char *ts = strstr(data, "\"timestamp\":\"");
        if (ts) { double t = parse_ts(ts + 13); if (t > 0) record(now_ms() - t); }
        c->events++;
    }
}

static void feed_events(conn_t *c, const char *d, size_t n) {
    append(&c->ev, &c->evlen, &c->evcap, d, n);
    char *start = c->ev, *sep;
    while ((sep = strstr(start, "\n\n"))) { *sep = 0; handle_event(c, start); start = sep + 2; }
    size_t rest = c->evlen - (start - c->ev); memmove(c->ev, start, rest); c->evlen = rest; c->ev[rest] = 0;
}

/* De-chunk the subscriber's bytes after the response head. */
static void sub_read(conn_t *c) {
    if (!c->in_body) { char *h = strstr(c->buf, "\r\n\r\n"); if (!h) return;
        if (strncmp(c->buf, "HTTP/1.1 200", 12) != 0) { fprintf(stderr, "subscribe failed: %.60s\n", c->buf); exit(1); }
        size_t head = h + 4 - c->buf; memmove(c->buf, c->buf + head, c->len - head); c->len -= head; c->in_body = 1; c->chunk_left = -1; }
    size_t i = 0;
    while (i < c->len) {
        if (c->chunk_left < 0) { char *e = memchr(c->buf + i, '\n', c->len - i); if (!e) break;
            c->chunk_left = strtol(c->buf + i, NULL, 16); i = e + 1 - c->buf; c->chunk_crlf = 0; continue; }
        if (c->chunk_left > 0) { size_t take = (size_t)c->chunk_left < c->len - i ? (size_t)c->chunk_left : c->len - i;
            feed_events(c, c->buf + i, take); i += take; c->chunk_left -= take; continue; }
        /* chunk data done: skip CRLF */
        if (c->len - i < 2) break;
        i += 2;
        c->chunk_left = -1;
    }
    memmove(c->buf, c->buf + i, c->len - i); c->len -= i; c->buf[c->len] = 0;
}

/* Poster: count complete replies (head + Content-Length body). */
static long long replies_ok, replies_bad;
static double *plat; static size_t nplat, capplat;
static void post_read(conn_t *c) {
    for (;;) { char *h = strstr(c->buf, "\r\n\r\n"); if (!h) return;
        char *cl = strcasestr(c->buf, "Content-Length: "); long body = cl && cl < h ? atol(cl + 16) : 0;
        size_t need = h + 4 - c->buf + body; if (c->len < need) return;
        if (strncmp(c->buf, "HTTP/1.1 200", 12) == 0) replies_ok++; else replies_bad++;
        double t = c->sent_at[c->tail]; c->tail = (c->tail + 1) % 256;
        if (measuring) { if (nplat == capplat) { capplat = capplat ? capplat * 2 : 1 << 16; plat = realloc(plat, capplat * sizeof *plat); } plat[nplat++] = now_ms() - t; }
        memmove(c->buf, c->buf + need, c->len - need); c->len -= need; c->buf[c->len] = 0; c->inflight--; }
}

static int dial(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0); struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { perror("connect"); exit(1); }
    int one = 1; setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, O_NONBLOCK); return fd;
}
static void send_all(int fd, const char *s, size_t n) { while (n) { ssize_t w = send(fd, s, n, MSG_NOSIGNAL); if (w < 0) { if (errno == EAGAIN) continue; perror("send"); exit(1); } s += w; n -= w; } }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }

int main(int argc, char **argv) {
    int port = 0, post_port = 0; const char *subs = 0, *devs = 0; double rate = 0, duration = 10, warmup = 2; int posters = 8;
    for (int i = 1; i < argc - 1; i++) {
        if (!strcmp(argv[i], "--port")) port = atoi(argv[++i]); else if (!strcmp(argv[i], "--subscribers")) subs = argv[++i];
        else if (!strcmp(argv[i], "--devices")) devs = argv[++i]; else if (!strcmp(argv[i], "--rate")) rate = atof(argv[++i]);
        else if (!strcmp(argv[i], "--duration")) duration = atof(argv[++i]); else if (!strcmp(argv[i], "--warmup")) warmup = atof(argv[++i]);
        else if (!strcmp(argv[i], "--posters")) posters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--post-port")) post_port = atoi(argv[++i]);
    }
    if (!post_port) post_port = port;
    struct rlimit rl = { 65536, 65536 }; setrlimit(RLIMIT_NOFILE, &rl);
    int ep = epoll_create1(0); conn_t **conns = calloc(70000, sizeof *conns); int nconn = 0;
    char line[512], g[200], t[200]; FILE *f = fopen(subs, "r"); int nsub = 0;
    while (fgets(line, sizeof line, f)) if (sscanf(line, "%199s %199s", g, t) == 2) {
        conn_t *c = calloc(1, sizeof *c); c->kind = SUB; c->fd = dial(port); conns[nconn++] = c; nsub++;
        char req[600]; int n = snprintf(req, sizeof req, "GET /v1/groups/%s/live HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n", g, t);
        send_all(c->fd, req, n); struct epoll_event e = { .events = EPOLLIN, .data.ptr = c }; epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &e);
    }
    fclose(f);
    char (*dev_id)[200] = 0, (*dev_tok)[200] = 0; int ndev = 0; conn_t **pc = 0;
    if (devs && rate > 0) {
        dev_id = malloc(100000 * 200); dev_tok = malloc(100000 * 200); f = fopen(devs, "r");
        while (fgets(line, sizeof line, f) && ndev < 100000) if (sscanf(line, "%199s %199s", dev_id[ndev], dev_tok[ndev]) == 2) ndev++;
        fclose(f); pc = calloc(posters, sizeof *pc);
        for (int i = 0; i < posters; i++) { conn_t *c = calloc(1, sizeof *c); c->kind = POST; c->fd = dial(post_port); pc[i] = c;
            struct epoll_event e = { .events = EPOLLIN, .data.ptr = c }; epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &e); }
    }
    double t0 = mono_s(), end = t0 + warmup + duration; long long sent = 0, sent_measured = 0; int next_dev = 0, next_poster = 0;
    struct epoll_event evs[1024]; char tmp[65536];
    int opened_reported = 0;
    while (mono_s() < end) {
        double el = mono_s() - t0;
        if (!measuring && el >= warmup) { measuring = 1; sent_measured = sent; }
        if (rate > 0) {
            long long due = (long long)(el * rate);
            while (sent < due) {
                conn_t *c = pc[next_poster]; next_poster = (next_poster + 1) % posters;
                if (c->inflight > 64) break;
                char body[200]; int bl = snprintf(body, sizeof body, "{\"location\":[%.6f,%.6f],\"timestamp\":%lld}",
                    -74.0 + (sent % 1000) * 1e-4, 40.7 + (sent % 997) * 1e-4, (long long)now_ms());
                char req[800]; int n = snprintf(req, sizeof req, "POST /v1/devices/%s/locations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
                    dev_id[next_dev], dev_tok[next_dev], bl, body);
                next_dev = (next_dev + 1) % ndev; c->sent_at[c->head] = now_ms(); c->head = (c->head + 1) % 256;
                send_all(c->fd, req, n); c->inflight++; sent++;
            }
        }
        int n = epoll_wait(ep, evs, 1024, 1);
        for (int i = 0; i < n; i++) { conn_t *c = evs[i].data.ptr;
            for (;;) { ssize_t r = recv(c->fd, tmp, sizeof tmp, 0); if (r <= 0) { if (r == 0) { fprintf(stderr, "a connection closed\n"); epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, 0); } break; }
                append(&c->buf, &c->len, &c->cap, tmp, r); if (c->kind == SUB) sub_read(c); else post_read(c); } }
        if (!opened_reported) { int all = 1; for (int i = 0; i < nconn; i++) if (!conns[i]->got_first) { all = 0; break; }
            if (all) { opened_reported = 1; fprintf(stderr, "all %d streams open after %.1f s\n", nsub, mono_s() - t0); fflush(stderr); } }
    }
    long long events = 0, gaps = 0, mn = -1, mx = 0;
    for (int i = 0; i < nconn; i++) {
        events += conns[i]->events;
        gaps += conns[i]->gaps;
        if (mn < 0 || conns[i]->events < mn) mn = conns[i]->events;
        if (conns[i]->events > mx) mx = conns[i]->events;
    }
    qsort(lat, nlat, sizeof *lat, cmp);
    double p50 = nlat ? lat[nlat / 2] : 0, p99 = nlat ? lat[(size_t)(nlat * 0.99)] : 0, pmax = nlat ? lat[nlat - 1] : 0;
    printf("streams %d, fixes posted %lld (%.0f/s measured window), replies ok %lld bad %lld\n", nsub, sent, (sent - sent_measured) / duration, replies_ok, replies_bad);
    printf("location events received %lld (per stream min %lld max %lld), id gaps (missed) %lld\n", events, mn, mx, gaps);
    printf("delivery latency (ms) over %zu events: p50 %.2f  p99 %.2f  max %.2f\n", nlat, p50, p99, pmax);
    if (nplat) { qsort(plat, nplat, sizeof *plat, cmp);
        printf("POST reply latency (ms) over %zu fixes: p50 %.2f  p99 %.2f  max %.2f\n", nplat, plat[nplat / 2], plat[(size_t)(nplat * 0.99)], plat[nplat - 1]); }
    return gaps > 0 || replies_bad > 0;
}
