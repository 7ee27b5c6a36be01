/* benchclient over sockets: our HTTP API (kept-alive) and Redis (RESP), queries and ingest.
 *  http-query HOST PORT PATH TOKEN BODIES OUT PASSES
 *      BODIES: one JSON body a line, POSTed to PATH on one connection; one untimed pass, then
 *      PASSES timed ones; OUT lines "latency_us hits status" (hits: "deviceId" count).
 *  http-ingest HOST PORT DEVICES POINTS BATCH CONC SECONDS T0 FIRST COUNT OUT
 *      DEVICES: lines "deviceId deviceToken"; CONC connections post batches of BATCH fixes of
 *      points [FIRST, FIRST+COUNT) (batch j by device j % devices; fix i has timestamp T0 + i ms)
 *      until done or SECONDS pass; OUT lines "latency_us fixes"; stdout "fixes seconds errors".
 *  redis-query HOST PORT KEY QUERIES POLYGONS OUT IDS PASSES
 *      R: GEOSEARCH BYRADIUS; P: BYBOX around the polygon's bounds WITHCOORD + the planar test;
 *      K: BYRADIUS ASC COUNT k from 1 km, ×4 until k found.
 *  redis-ingest HOST PORT KEY POINTS BATCH CONC SECONDS FIRST COUNT OUT
 *      one GEOADD of BATCH members per round trip.
 *  round-trip HOST PORT REQUEST REPLY_END COUNT
 *      sends REQUEST (\r and \n as escapes) COUNT times on one connection, each after the
 *      previous reply ended with REPLY_END; 1,000 untimed first. Prints "p50 p90 p99" in µs:
 *      the floor of a round trip on one kept-alive connection, whatever the protocol. */
#define _GNU_SOURCE
#include "bench.h"
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

static int dial(const char *host, int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { perror("connect"); exit(2); }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void send_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) { perror("write"); exit(2); }
        p += w; n -= (size_t)w;
    }
}

typedef struct { char *p; size_t len, cap; } buf_t;
static void buf_reserve(buf_t *b, size_t more) {
    if (b->len + more + 1 > b->cap) { b->cap = (b->len + more + 1) * 2; b->p = realloc(b->p, b->cap); }
}
static void buf_add(buf_t *b, const char *s, size_t n) { buf_reserve(b, n); memcpy(b->p + b->len, s, n); b->len += n; b->p[b->len] = 0; }
static void buf_printf(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void buf_printf(buf_t *b, const char *fmt, ...) {
    va_list ap; va_start(ap, fmt);
    char tmp[512]; int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    buf_add(b, tmp, (size_t)n);
}
static void fill(int fd, buf_t *in) {
    buf_reserve(in, 65536);
    ssize_t r = read(fd, in->p + in->len, in->cap - in->len - 1);
    if (r <= 0) { fprintf(stderr, "connection closed\n"); exit(2); }
    in->len += (size_t)r; in->p[in->len] = 0;
}

/* Reads one HTTP response; returns the status, the body in *body (inside `in`, valid until the next call). */
static int http_response(int fd, buf_t *in, const char **body, size_t *body_len) {
    in->len = 0;
    buf_reserve(in, 65536);
    in->p[0] = 0;
    char *end;
    while (!(end = strstr(in->p, "\r\n\r\n"))) fill(fd, in);
    size_t head = (size_t)(end - in->p) + 4;
    int status = atoi(in->p + 9);
    long length = -1; int chunked = 0;
    for (char *line = strstr(in->p, "\r\n") + 2; line < end; line = strstr(line, "\r\n") + 2) {
        if (!strncasecmp(line, "content-length:", 15)) length = atol(line + 15);
        if (!strncasecmp(line, "transfer-encoding:", 18) && strcasestr(line, "chunked") && strcasestr(line, "chunked") < strstr(line, "\r\n")) chunked = 1;
    }
    if (!chunked) {
        if (length < 0) length = 0;
        while (in->len < head + (size_t)length) fill(fd, in);
        *body = in->p + head; *body_len = (size_t)length;
        return status;
    }
    /* Chunked: decode in place after the head. */
    size_t at = head, out = head;
    for (;;) {
        char *eol;
        while (!(eol = strstr(in->p + at, "\r\n"))) fill(fd, in);
        long size = strtol(in->p + at, NULL, 16);
        size_t data = (size_t)(eol - in->p) + 2;
        while (in->len < data + (size_t)size + 2) fill(fd, in);
        memmove(in->p + out, in->p + data, (size_t)size);
        out += (size_t)size;
        at = data + (size_t)size + 2;
        if (size == 0) break;
    }
    *body = in->p + head; *body_len = out - head;
    return status;
}

static void http_request(buf_t *b, const char *path, const char *token, const char *body, size_t n) {
    b->len = 0;
    buf_printf(b, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
                  "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n", path, token, n);
    buf_add(b, body, n);
}

int run_http_queries(int argc, char **argv) {
    if (argc < 7) { fprintf(stderr, "http-query HOST PORT PATH TOKEN BODIES OUT PASSES\n"); return 2; }
    FILE *f = fopen(argv[4], "r");
    if (!f) { perror(argv[4]); return 2; }
    char **bodies = NULL; size_t n = 0, cap = 0; char *line = NULL; size_t lcap = 0; ssize_t len;
    while ((len = getline(&line, &lcap, f)) > 1) {
        if (n == cap) { cap = cap ? cap * 2 : 256; bodies = realloc(bodies, cap * sizeof *bodies); }
        line[len - 1] = 0; bodies[n++] = strdup(line);
    }
    fclose(f);
    output_t o;
    if (!open_output(&o, argv[5], NULL)) return 2;
    int passes = atoi(argv[6]), fd = dial(argv[0], atoi(argv[1]));
    buf_t req = {0}, in = {0};
    for (int pass = 0; pass <= passes; pass++)
        for (size_t i = 0; i < n; i++) {
            http_request(&req, argv[2], argv[3], bodies[i], strlen(bodies[i]));
            double t0 = mono();
            send_all(fd, req.p, req.len);
            const char *body; size_t blen;
            int status = http_response(fd, &in, &body, &blen);
            double us = (mono() - t0) * 1e6;
            long hits = 0;
            for (const char *p = body; (p = memmem(p, blen - (size_t)(p - body), "\"deviceId\"", 10)); p += 10) hits++;
            if (status != 200) fprintf(stderr, "query %zu: status %d: %.*s\n", i, status, (int)(blen < 300 ? blen : 300), body);
            if (pass > 0) fprintf(o.lat, "%.1f %ld %d\n", us, hits, status);
        }
    fclose(o.lat);
    return 0;
}

static void *http_poster(void *arg) {
    ingest_t *g = arg;
    int fd = dial(g->host, g->port);
    buf_t body = {0}, req = {0}, in = {0};
    size_t start, n, j;
    char path[160];
    while (take_batch(g, &start, &n, &j)) {
        int d = (int)(j % (size_t)g->devices);
        body.len = 0;
        buf_add(&body, "{\"locations\":[", 14);
        for (size_t i = start; i < start + n; i++)
            buf_printf(&body, "%s{\"location\":[%.7f,%.7f],\"timestamp\":%lld}", i > start ? "," : "",
                       g->points[i % g->total].lon, g->points[i % g->total].lat, g->t0 + (long long)i);
        buf_add(&body, "]}", 2);
        snprintf(path, sizeof path, "/v1/devices/%s/locations", g->ids[d]);
        http_request(&req, path, g->tokens[d], body.p, body.len);
        double t0 = mono();
        send_all(fd, req.p, req.len);
        const char *reply; size_t rlen;
        int status = http_response(fd, &in, &reply, &rlen);
        int ok = status == 200 && !memmem(reply, rlen, "\"rejected\":[{", 13);
        if (!ok) fprintf(stderr, "ingest: status %d: %.*s\n", status, (int)(rlen < 300 ? rlen : 300), reply);
        record(g, (mono() - t0) * 1e6, n, ok);
    }
    close(fd);
    return NULL;
}

int run_http_ingest(int argc, char **argv) {
    if (argc < 11) { fprintf(stderr, "http-ingest HOST PORT DEVICES POINTS BATCH CONC SECONDS T0 FIRST COUNT OUT\n"); return 2; }
    ingest_t g = {.host = argv[0], .port = atoi(argv[1]), .batch = (size_t)atol(argv[4]), .t0 = atoll(argv[7]),
                  .first = (size_t)atol(argv[8]), .count = (size_t)atol(argv[9])};
    g.points = read_points(argv[3], &g.total);
    FILE *f = fopen(argv[2], "r");
    if (!f) { perror(argv[2]); return 2; }
    g.ids = malloc(1000 * sizeof *g.ids); g.tokens = malloc(1000 * sizeof *g.tokens);
    while (g.devices < 1000 && fscanf(f, "%63s %127s", g.ids[g.devices], g.tokens[g.devices]) == 2) g.devices++;
    fclose(f);
    g.deadline = mono() + atof(argv[6]);
    g.out = strcmp(argv[10], "-") ? fopen(argv[10], "w") : NULL;
    return run_ingest(&g, atoi(argv[5]), http_poster);
}

/* RESP: a command of bulk strings, and a reply flattened to its bulk strings and integers. */
static void resp_command(buf_t *b, int argc, const char **argv) {
    buf_printf(b, "*%d\r\n", argc);
    for (int i = 0; i < argc; i++) { buf_printf(b, "$%zu\r\n", strlen(argv[i])); buf_add(b, argv[i], strlen(argv[i])); buf_add(b, "\r\n", 2); }
}

/* Parses one value at *at; returns 0 when incomplete, -1 on an error reply. Calls leaf() per string. */
static int resp_value(buf_t *in, size_t *at, void (*leaf)(void *, const char *, size_t), void *ctx) {
    if (*at >= in->len) return 0;
    char *eol = memmem(in->p + *at, in->len - *at, "\r\n", 2);
    if (!eol) return 0;
    char type = in->p[*at];
    long n = atol(in->p + *at + 1);
    size_t next = (size_t)(eol - in->p) + 2;
    if (type == '-') { fprintf(stderr, "redis: %.*s\n", (int)(eol - in->p - (long)*at), in->p + *at); return -1; }
    if (type == '+' || type == ':') { if (leaf) leaf(ctx, in->p + *at + 1, (size_t)(eol - in->p) - *at - 1); *at = next; return 1; }
    if (type == '$') {
        if (n < 0) { *at = next; return 1; }
        if (in->len < next + (size_t)n + 2) return 0;
        if (leaf) leaf(ctx, in->p + next, (size_t)n);
        *at = next + (size_t)n + 2; return 1;
    }
    if (type == '*') {
        *at = next;
        for (long i = 0; i < n; i++) { int r = resp_value(in, at, leaf, ctx); if (r <= 0) return r; }
        return 1;
    }
    fprintf(stderr, "redis: unexpected reply type %c\n", type);
    return -1;
}

static int resp_reply(int fd, buf_t *in, void (*leaf)(void *, const char *, size_t), void *ctx) {
    in->len = 0;
    for (;;) {
        size_t at = 0;
        if (in->len) {
            int r = resp_value(in, &at, NULL, NULL);
            if (r < 0) exit(2);
            if (r > 0) { at = 0; return resp_value(in, &at, leaf, ctx); }
        }
        fill(fd, in);
    }
}

typedef struct { hits_t *hits; int field; double lon, lat; long long id; const polygon_t *polygon; } collect_t;
/* Plain members: each string is an id. */
static void collect_ids(void *c, const char *s, size_t n) { (void)n; hits_add(((collect_t *)c)->hits, atoll(s), 0); }
/* WITHCOORD: member, lon, lat triples; keeps those inside the polygon. */
static void collect_inside(void *c, const char *s, size_t n) {
    (void)n; collect_t *x = c;
    if (x->field == 0) x->id = atoll(s); else if (x->field == 1) x->lon = atof(s); else {
        x->lat = atof(s);
        if (polygon_contains(x->polygon, x->lon, x->lat)) hits_add(x->hits, x->id, 0);
    }
    x->field = (x->field + 1) % 3;
}

static void redis_query(int fd, buf_t *req, buf_t *in, const char *key, const query_t *q, const polygon_t *polygons, hits_t *hits) {
    char lon[32], lat[32], r[32], w[32], h[32], k[32];
    collect_t c = {.hits = hits};
    hits->n = 0;
    req->len = 0;
    if (q->kind == 'R') {
        snprintf(lon, sizeof lon, "%.7f", q->lon); snprintf(lat, sizeof lat, "%.7f", q->lat); snprintf(r, sizeof r, "%.3f", q->radius);
        const char *argv[] = {"GEOSEARCH", key, "FROMLONLAT", lon, lat, "BYRADIUS", r, "m"};
        resp_command(req, 8, argv); send_all(fd, req->p, req->len);
        resp_reply(fd, in, collect_ids, &c);
    } else if (q->kind == 'P') {
        const polygon_t *p = &polygons[q->polygon];
        double clon = (p->w + p->e) / 2, clat = (p->s + p->n_) / 2;
        /* Widest east-west extent: at the bound nearest the equator. */
        double near_eq = p->s > 0 ? p->s : (p->n_ < 0 ? p->n_ : 0);
        double width = 2 * sphere_meters(clon, near_eq, p->e, near_eq, 6372797.560856) * 1.001 + 10;
        double height = sphere_meters(clon, p->s, clon, p->n_, 6372797.560856) * 1.001 + 10;
        snprintf(lon, sizeof lon, "%.7f", clon); snprintf(lat, sizeof lat, "%.7f", clat);
        snprintf(w, sizeof w, "%.1f", width); snprintf(h, sizeof h, "%.1f", height);
        const char *argv[] = {"GEOSEARCH", key, "FROMLONLAT", lon, lat, "BYBOX", w, h, "m", "WITHCOORD"};
        c.polygon = p;
        resp_command(req, 10, argv); send_all(fd, req->p, req->len);
        resp_reply(fd, in, collect_inside, &c);
    } else {
        snprintf(lon, sizeof lon, "%.7f", q->lon); snprintf(lat, sizeof lat, "%.7f", q->lat); snprintf(k, sizeof k, "%ld", q->k);
        for (double radius = 1000; ; radius *= 4) {
            snprintf(r, sizeof r, "%.1f", radius);
            const char *argv[] = {"GEOSEARCH", key, "FROMLONLAT", lon, lat, "BYRADIUS", r, "m", "ASC", "COUNT", k};
            req->len = 0; hits->n = 0;
            resp_command(req, 11, argv); send_all(fd, req->p, req->len);
            resp_reply(fd, in, collect_ids, &c);
            if ((long)hits->n >= q->k || radius > 2.1e7) break;
        }
    }
}

int run_redis_queries(int argc, char **argv) {
    if (argc < 8) { fprintf(stderr, "redis-query HOST PORT KEY QUERIES POLYGONS OUT IDS PASSES\n"); return 2; }
    size_t n; int np;
    query_t *q = read_queries(argv[3], &n);
    polygon_t *polygons = read_polygons(argv[4], &np);
    output_t o;
    if (!open_output(&o, argv[5], argv[6])) return 2;
    int fd = dial(argv[0], atoi(argv[1])), passes = atoi(argv[7]);
    buf_t req = {0}, in = {0};
    hits_t hits = {0};
    for (int pass = 0; pass <= passes; pass++)
        for (size_t i = 0; i < n; i++) {
            double t0 = mono();
            redis_query(fd, &req, &in, argv[2], &q[i], polygons, &hits);
            double us = (mono() - t0) * 1e6;
            if (pass == 0) hits_write(o.ids, &hits); else fprintf(o.lat, "%.1f %zu 0\n", us, hits.n);
        }
    fclose(o.lat); if (o.ids) fclose(o.ids);
    return 0;
}

static void *redis_poster(void *arg) {
    ingest_t *g = arg;
    int fd = dial(g->host, g->port);
    buf_t req = {0}, in = {0};
    size_t start, n, j;
    while (take_batch(g, &start, &n, &j)) {
        req.len = 0;
        buf_printf(&req, "*%zu\r\n$6\r\nGEOADD\r\n$%zu\r\n%s\r\n", 2 + 3 * n, strlen(g->key), g->key);
        for (size_t i = start; i < start + n; i++) {
            char a[32], b[32], c[32];
            int la = snprintf(a, sizeof a, "%.7f", g->points[i % g->total].lon), lb = snprintf(b, sizeof b, "%.7f", g->points[i % g->total].lat);
            int lc = snprintf(c, sizeof c, "%zu", i);
            buf_printf(&req, "$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", la, a, lb, b, lc, c);
        }
        double t0 = mono();
        send_all(fd, req.p, req.len);
        resp_reply(fd, &in, NULL, NULL);
        record(g, (mono() - t0) * 1e6, n, 1);
    }
    close(fd);
    return NULL;
}

int run_redis_ingest(int argc, char **argv) {
    if (argc < 10) { fprintf(stderr, "redis-ingest HOST PORT KEY POINTS BATCH CONC SECONDS FIRST COUNT OUT\n"); return 2; }
    ingest_t g = {.host = argv[0], .port = atoi(argv[1]), .key = argv[2], .batch = (size_t)atol(argv[4]),
                  .first = (size_t)atol(argv[7]), .count = (size_t)atol(argv[8])};
    g.points = read_points(argv[3], &g.total);
    g.deadline = mono() + atof(argv[6]);
    g.out = strcmp(argv[9], "-") ? fopen(argv[9], "w") : NULL;
    return run_ingest(&g, atoi(argv[5]), redis_poster);
}

/* `text` with the two-character escapes \r and \n turned into the bytes. */
static size_t unescape(const char *text, char *out) {
    size_t n = 0;
    for (const char *p = text; *p; p++) {
        if (p[0] == '\\' && p[1] == 'r') { out[n++] = '\r'; p++; }
        else if (p[0] == '\\' && p[1] == 'n') { out[n++] = '\n'; p++; }
        else out[n++] = *p;
    }
    return n;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int run_round_trips(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "round-trip HOST PORT REQUEST REPLY_END COUNT\n"); return 2; }
    size_t cap = strlen(argv[2]) + 1, end_cap = strlen(argv[3]) + 1;
    char *request = malloc(cap), *end = malloc(end_cap);
    size_t request_len = unescape(argv[2], request), end_len = unescape(argv[3], end);
    long count = atol(argv[4]);
    if (count < 1 || end_len == 0) { fprintf(stderr, "round-trip: COUNT ≥ 1 and a non-empty REPLY_END\n"); return 2; }
    double *latency = malloc((size_t)count * sizeof *latency);
    int fd = dial(argv[0], atoi(argv[1]));
    buf_t in = {0};
    for (long i = 0; i < count + 1000; i++) {
        double t0 = mono();
        send_all(fd, request, request_len);
        in.len = 0;
        do { buf_reserve(&in, 4096); fill(fd, &in); } while (in.len < end_len || memcmp(in.p + in.len - end_len, end, end_len) != 0);
        if (i >= 1000) latency[i - 1000] = (mono() - t0) * 1e6;
    }
    qsort(latency, (size_t)count, sizeof *latency, by_value);
    printf("%.1f %.1f %.1f\n", latency[count / 2], latency[count * 9 / 10], latency[count * 99 / 100]);
    close(fd);
    return 0;
}
