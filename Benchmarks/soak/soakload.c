/* soakload: the load of the soak benchmark, on one epoll loop.
 *  - posters: one keep-alive connection per device (lines "deviceId deviceToken" in --devices),
 *    each posting --batch fixes per request, one request in flight, as fast as the server answers
 *    (or at most --rate requests/s in all). Each device's fixes have increasing timestamps (10 ms
 *    apart, from --base-ms: at 120k fixes/s a device runs ahead of the clock by ~18 s per second,
 *    3 h in 10 minutes, inside the server's 24 h future limit) and unique ids; positions follow --positions: "tracks" (each device
 *    walks ~10 m per fix from its own home, as trackers do) or "scattered" (the pseudo-random
 *    spread over the globe of Benchmarks/ingest/post.lua).
 *  - queries: --query-rate geo queries/s on --query-connections connections (line "groupId
 *    userToken" in --group), alternating a 2 km $geoWithin over history and a $near k=10, both
 *    around device 0's latest position.
 *  - one live stream on the same group: counts location events and id gaps (missed events).
 * Every --interval seconds it prints one line of key=value pairs (the interval's fixes/s and
 * latency percentiles, queries, live events); at the end one "total" line.
 * Usage: soakload --port P --devices F --group F --duration S [--interval S] [--batch N]
 *        [--rate R] [--positions tracks|scattered] [--query-rate Q] [--query-connections N] [--base-ms T] */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum kind { POSTER, QUERY, LIVE };

typedef struct {
    int fd; enum kind kind;
    char *in; size_t len, cap;           /* bytes received, not yet consumed */
    int busy; double sent_at;            /* a request is in flight since sent_at (s) */
    int query_kind;                      /* query: 0 = $geoWithin, 1 = $near */
    /* poster */
    int device; long long next; double lon, lat; uint64_t rng;
    /* live stream */
    int in_body; long chunk_left; char *ev; size_t evlen, evcap; long long last_id; int got_first;
} conn_t;

/* Latencies of one interval (ms) and of the whole run. */
typedef struct { double *v; size_t n, cap; } samples_t;
static void add(samples_t *s, double x) {
    if (s->n == s->cap) { s->cap = s->cap ? s->cap * 2 : 4096; s->v = realloc(s->v, s->cap * sizeof *s->v); }
    s->v[s->n++] = x;
}
static int by_value(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static double pct(samples_t *s, double p) {
    if (!s->n) return 0;
    qsort(s->v, s->n, sizeof *s->v, by_value);
    size_t i = (size_t)(p * (double)(s->n - 1) + 0.5);
    return s->v[i < s->n ? i : s->n - 1];
}

static double mono(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static uint64_t next_random(uint64_t *s) { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; return *s; }
static double unit(uint64_t *s) { return (double)(next_random(s) >> 11) / 9007199254740992.0; }

static void append(char **b, size_t *len, size_t *cap, const char *d, size_t n) {
    if (*len + n + 1 > *cap) { *cap = (*len + n + 1) * 2; *b = realloc(*b, *cap); }
    memcpy(*b + *len, d, n); *len += n; (*b)[*len] = 0;
}
static void consume(char **b, size_t *len, size_t n) { memmove(*b, *b + n, *len - n); *len -= n; (*b)[*len] = 0; }

static int dial(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { perror("connect"); exit(1); }
    int one = 1; setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, O_NONBLOCK);
    return fd;
}
static void send_all(int fd, const char *s, size_t n) {
    while (n) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w < 0) { if (errno == EAGAIN || errno == EINTR) continue; perror("send"); exit(1); }
        s += w; n -= (size_t)w;
    }
}

/* Settings and state shared by the handlers. */
static int batch = 100, scattered = 0;
static long long base_ms;
static char (*dev_id)[128], (*dev_token)[128]; static int ndev;
static char group_id[128], user_token[128];
static double anchor_lon, anchor_lat;        /* device 0's latest position (queries go there) */
static char *body; static size_t body_cap;
/* Interval and run counters. */
static samples_t post_lat, post_all, query_lat, query_all;
static long long fixes, fixes_all, bad, bad_all, queries, queries_all, query_bad, skipped, live_events, live_events_all, live_gaps, live_reconnects;

static void post(conn_t *c) {
    size_t n = 0;
    n += (size_t)snprintf(body + n, body_cap - n, "{\"locations\":[");
    for (int i = 0; i < batch; i++) {
        long long seq = c->next++;
        if (scattered) {
            long long k = (long long)c->device * 100000000LL + seq;
            c->lon = (double)((k * 7919) % 360000) / 1000 - 180;
            c->lat = (double)((k * 104729) % 170000) / 1000 - 85;
        } else {
            double heading = unit(&c->rng) * 2 * M_PI, step = 5e-5 + unit(&c->rng) * 1e-4;   /* ~5-17 m */
            c->lon += step * cos(heading) / fmax(0.2, cos(c->lat * M_PI / 180));
            c->lat += step * sin(heading);
            if (c->lat > 80 || c->lat < -80) c->lat = c->lat > 0 ? 160 - c->lat : -160 - c->lat;
            if (c->lon > 180) c->lon -= 360; else if (c->lon < -180) c->lon += 360;
        }
        n += (size_t)snprintf(body + n, body_cap - n, "%s{\"location\":[%.6f,%.6f],\"timestamp\":%lld,\"id\":\"s%lld\"}",
                              i ? "," : "", c->lon, c->lat, base_ms + seq * 10, seq);
    }
    n += (size_t)snprintf(body + n, body_cap - n, "]}");
    if (c->device == 0) { anchor_lon = c->lon; anchor_lat = c->lat; }
    char head[512];
    int h = snprintf(head, sizeof head, "POST /v1/devices/%s/locations HTTP/1.1\r\nHost: soak\r\nAuthorization: Bearer %s\r\n"
                     "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n", dev_id[c->device], dev_token[c->device], n);
    send_all(c->fd, head, (size_t)h);
    send_all(c->fd, body, n);
    c->busy = 1; c->sent_at = mono();
}

static void query(conn_t *c) {
    char req[1400];
    int n;
    if (c->query_kind == 0) {
        char q[600];
        int ql = snprintf(q, sizeof q, "{\"filter\":{\"location\":{\"$geoWithin\":{\"$centerSphere\":[[%.6f,%.6f],%.9f]}}},"
                          "\"scope\":\"history\",\"limit\":100}", anchor_lon, anchor_lat, 2000.0 / 6378100.0);
        n = snprintf(req, sizeof req, "POST /v1/groups/%s/query HTTP/1.1\r\nHost: soak\r\nAuthorization: Bearer %s\r\n"
                     "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", group_id, user_token, ql, q);
    } else {
        n = snprintf(req, sizeof req, "GET /v1/groups/%s/near?lon=%.6f&lat=%.6f&limit=10&scope=history HTTP/1.1\r\nHost: soak\r\n"
                     "Authorization: Bearer %s\r\n\r\n", group_id, anchor_lon, anchor_lat, user_token);
    }
    c->query_kind ^= 1;
    send_all(c->fd, req, (size_t)n);
    c->busy = 1; c->sent_at = mono();
}

/* A complete Content-Length reply at the start of c->in: its size, or 0 if incomplete. */
static size_t complete_reply(conn_t *c, int *ok) {
    char *end = strstr(c->in, "\r\n\r\n");
    if (!end) return 0;
    char *cl = strcasestr(c->in, "\r\nContent-Length:");
    long length = cl && cl < end ? atol(cl + 17) : 0;
    size_t need = (size_t)(end + 4 - c->in) + (size_t)length;
    if (c->len < need) return 0;
    *ok = strncmp(c->in, "HTTP/1.1 2", 10) == 0;
    return need;
}

static void live_event(conn_t *c, char *block) {
    char *id = strstr(block, "id: "), *name = strstr(block, "event: ");
    if (id) {
        long long v = atoll(id + 4);
        if (c->got_first && v > c->last_id + 1) live_gaps += v - c->last_id - 1;
        c->last_id = v; c->got_first = 1;
    }
    if (name && strncmp(name + 7, "location", 8) == 0) { live_events++; live_events_all++; }
}

/* De-chunks the stream's body and splits it into events. */
static void live_read(conn_t *c) {
    if (!c->in_body) {
        char *h = strstr(c->in, "\r\n\r\n");
        if (!h) return;
        if (strncmp(c->in, "HTTP/1.1 200", 12) != 0) { fprintf(stderr, "live stream refused: %.80s\n", c->in); exit(1); }
        consume(&c->in, &c->len, (size_t)(h + 4 - c->in));
        c->in_body = 1; c->chunk_left = -1;
    }
    size_t i = 0;
    while (i < c->len) {
        if (c->chunk_left < 0) {
            char *e = memchr(c->in + i, '\n', c->len - i);
            if (!e) break;
            c->chunk_left = strtol(c->in + i, NULL, 16); i = (size_t)(e + 1 - c->in);
        } else if (c->chunk_left > 0) {
            size_t take = (size_t)c->chunk_left < c->len - i ? (size_t)c->chunk_left : c->len - i;
            append(&c->ev, &c->evlen, &c->evcap, c->in + i, take);
            i += take; c->chunk_left -= (long)take;
        } else {
            if (c->len - i < 2) break;
            i += 2; c->chunk_left = -1;
        }
    }
    consume(&c->in, &c->len, i);
    char *start = c->ev, *sep;
    while ((sep = strstr(start, "\n\n"))) { *sep = 0; live_event(c, start); start = sep + 2; }
    consume(&c->ev, &c->evlen, (size_t)(start - c->ev));
}

/* Sends the live stream's request on c's (fresh) connection, resuming after the last event seen. */
static void live_open(conn_t *c) {
    char req[640];
    int n = c->got_first
        ? snprintf(req, sizeof req, "GET /v1/groups/%s/live HTTP/1.1\r\nHost: soak\r\nAuthorization: Bearer %s\r\nLast-Event-ID: %lld\r\n\r\n", group_id, user_token, c->last_id)
        : snprintf(req, sizeof req, "GET /v1/groups/%s/live HTTP/1.1\r\nHost: soak\r\nAuthorization: Bearer %s\r\n\r\n", group_id, user_token);
    c->len = 0; c->in[0] = 0; c->evlen = 0; c->ev[0] = 0; c->in_body = 0; c->chunk_left = -1;
    send_all(c->fd, req, (size_t)n);
}

static const char *arg(int argc, char **argv, const char *name, const char *fallback) {
    for (int i = 1; i < argc - 1; i++) if (!strcmp(argv[i], name)) return argv[i + 1];
    return fallback;
}

int main(int argc, char **argv) {
    int port = atoi(arg(argc, argv, "--port", "0"));
    double duration = atof(arg(argc, argv, "--duration", "60")), interval = atof(arg(argc, argv, "--interval", "5"));
    double rate = atof(arg(argc, argv, "--rate", "0")), query_rate = atof(arg(argc, argv, "--query-rate", "20"));
    int query_conns = atoi(arg(argc, argv, "--query-connections", "2"));
    batch = atoi(arg(argc, argv, "--batch", "100"));
    scattered = !strcmp(arg(argc, argv, "--positions", "tracks"), "scattered");
    base_ms = atoll(arg(argc, argv, "--base-ms", "0"));
    const char *devices = arg(argc, argv, "--devices", NULL), *group = arg(argc, argv, "--group", NULL);
    if (!port || !devices || !group || batch < 1 || base_ms <= 0) { fprintf(stderr, "usage: see the comment at the top of soakload.c\n"); return 2; }

    char line[512];
    FILE *f = fopen(devices, "r");
    if (!f) { perror(devices); return 2; }
    dev_id = calloc(4096, sizeof *dev_id); dev_token = calloc(4096, sizeof *dev_token);
    while (ndev < 4096 && fgets(line, sizeof line, f)) if (sscanf(line, "%127s %127s", dev_id[ndev], dev_token[ndev]) == 2) ndev++;
    fclose(f);
    f = fopen(group, "r");
    if (!f || !fgets(line, sizeof line, f) || sscanf(line, "%127s %127s", group_id, user_token) != 2) { fprintf(stderr, "bad --group file\n"); return 2; }
    fclose(f);
    body_cap = (size_t)batch * 128 + 64; body = malloc(body_cap);

    int ep = epoll_create1(0), nconn = ndev + query_conns + 1;
    conn_t *conns = calloc((size_t)nconn, sizeof *conns);
    for (int i = 0; i < nconn; i++) {
        conn_t *c = &conns[i];
        c->fd = dial(port);
        c->kind = i < ndev ? POSTER : i < ndev + query_conns ? QUERY : LIVE;
        c->device = i; c->rng = 0x9E3779B97F4A7C15ULL * (uint64_t)(i + 1);
        c->lon = -180 + 360 * fmod(i * 0.6180339887, 1.0); c->lat = -60 + 120 * fmod(i * 0.4142135623 + 0.5, 1.0);
        c->query_kind = i & 1;
        append(&c->in, &c->len, &c->cap, "", 0);     /* buffers are never NULL: strstr needs a string */
        append(&c->ev, &c->evlen, &c->evcap, "", 0);
        struct epoll_event e = { .events = EPOLLIN, .data.ptr = c };
        epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &e);
    }
    anchor_lon = conns[0].lon; anchor_lat = conns[0].lat;
    live_open(&conns[nconn - 1]);

    double start = mono(), end = start + duration, last_report = start, next_report = start + interval, next_query = start;
    long long requests_sent = 0, next_query_conn = 0;
    struct epoll_event events[256];
    char buffer[65536];
    int stopping = 0;
    for (;;) {
        double now = mono();
        if (!stopping && now >= end) stopping = 1;
        int idle_posters = 1;
        if (!stopping) {
            for (int i = 0; i < ndev; i++) {
                if (conns[i].busy) continue;
                if (rate > 0 && requests_sent >= (long long)((now - start) * rate)) break;
                post(&conns[i]); requests_sent++;
            }
            while (query_rate > 0 && now >= next_query) {
                next_query += 1 / query_rate;
                /* Round robin over the free query connections, so none idles into the server's timeout. */
                conn_t *free_conn = NULL;
                for (int k = 0; k < query_conns && !free_conn; k++) {
                    int i = ndev + (int)((next_query_conn + k) % query_conns);
                    if (!conns[i].busy) { free_conn = &conns[i]; next_query_conn = (next_query_conn + k + 1) % query_conns; }
                }
                if (free_conn) query(free_conn); else skipped++;
            }
        } else {
            for (int i = 0; i < ndev + query_conns; i++) if (conns[i].busy) idle_posters = 0;
            if (idle_posters || now > end + 10) break;
        }
        int ready = epoll_wait(ep, events, 256, 1);
        for (int k = 0; k < ready; k++) {
            conn_t *c = events[k].data.ptr;
            for (;;) {
                ssize_t r = recv(c->fd, buffer, sizeof buffer, 0);
                if (r == 0 && c->kind == LIVE) {
                    /* A stream that fell behind gets `resync` and is closed (API.md): reconnect
                       with Last-Event-ID, as a client does; gaps are still counted. */
                    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL); close(c->fd);
                    live_reconnects++;
                    c->fd = dial(port); live_open(c);
                    struct epoll_event e = { .events = EPOLLIN, .data.ptr = c };
                    epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &e);
                    break;
                }
                if (r == 0 && !c->busy) {
                    /* An idle keep-alive connection past the server's idle timeout: a client
                       reconnects before its next request. */
                    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL); close(c->fd);
                    c->fd = dial(port); c->len = 0; c->in[0] = 0;
                    struct epoll_event e = { .events = EPOLLIN, .data.ptr = c };
                    epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &e);
                    break;
                }
                if (r == 0) { fprintf(stderr, "the server closed a connection with a request in flight\n"); return 1; }
                if (r < 0) break;
                append(&c->in, &c->len, &c->cap, buffer, (size_t)r);
            }
            if (c->kind == LIVE) { live_read(c); continue; }
            int ok = 0;
            size_t size;
            while ((size = complete_reply(c, &ok))) {
                double ms = (mono() - c->sent_at) * 1000;
                consume(&c->in, &c->len, size);
                c->busy = 0;
                if (c->kind == POSTER) {
                    add(&post_lat, ms); add(&post_all, ms);
                    if (ok) { fixes += batch; fixes_all += batch; } else { bad++; bad_all++; }
                } else {
                    add(&query_lat, ms); add(&query_all, ms); queries++; queries_all++;
                    if (!ok) query_bad++;
                }
            }
        }
        now = mono();
        if (now >= next_report) {
            double span = now - last_report;
            printf("sample t=%.1f fixes_per_s=%.0f requests=%zu p50_ms=%.2f p99_ms=%.2f max_ms=%.2f non2xx=%lld "
                   "queries=%lld query_p50_ms=%.2f query_p99_ms=%.2f queries_skipped=%lld live_events=%lld live_gaps=%lld live_reconnects=%lld\n",
                   now - start, fixes / span, post_lat.n, pct(&post_lat, 0.5), pct(&post_lat, 0.99), pct(&post_lat, 1),
                   bad, queries, pct(&query_lat, 0.5), pct(&query_lat, 0.99), skipped, live_events, live_gaps, live_reconnects);
            fflush(stdout);
            post_lat.n = 0; query_lat.n = 0; fixes = 0; bad = 0; queries = 0; skipped = 0; live_events = 0;
            last_report = now; next_report = now + interval;
        }
    }
    double elapsed = mono() - start;
    printf("total seconds=%.1f fixes=%lld fixes_per_s=%.0f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f non2xx=%lld "
           "queries=%lld query_p50_ms=%.2f query_p99_ms=%.2f query_non2xx=%lld live_events=%lld live_gaps=%lld live_reconnects=%lld\n",
           elapsed, fixes_all, fixes_all / elapsed, pct(&post_all, 0.5), pct(&post_all, 0.99), pct(&post_all, 1), bad_all,
           queries_all, pct(&query_all, 0.5), pct(&query_all, 0.99), query_bad, live_events_all, live_gaps, live_reconnects);
    return bad_all > 0 || query_bad > 0 || live_gaps > 0;
}
