/* benchclient: files, geometry and the command dispatch (see bench.h). */
#define _GNU_SOURCE
#include "bench.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double mono(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

point_t *read_points(const char *path, size_t *count) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    *count = (size_t)bytes / sizeof(point_t);
    point_t *p = malloc(*count * sizeof *p + 1);
    if (fread(p, sizeof *p, *count, f) != *count) { fprintf(stderr, "short read %s\n", path); exit(2); }
    fclose(f);
    return p;
}

query_t *read_queries(const char *path, size_t *count) {
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(2); }
    size_t cap = 256, n = 0;
    query_t *q = malloc(cap * sizeof *q);
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (n == cap) { cap *= 2; q = realloc(q, cap * sizeof *q); }
        query_t x = {0};
        x.kind = line[0];
        if (x.kind == 'R' && sscanf(line + 1, "%lf %lf %lf", &x.lon, &x.lat, &x.radius) == 3) q[n++] = x;
        else if (x.kind == 'P' && sscanf(line + 1, "%d", &x.polygon) == 1) q[n++] = x;
        else if (x.kind == 'K' && sscanf(line + 1, "%lf %lf %ld", &x.lon, &x.lat, &x.k) == 3) q[n++] = x;
    }
    fclose(f);
    *count = n;
    return q;
}

polygon_t *read_polygons(const char *path, int *count) {
    *count = 0;
    if (!path || !*path) return NULL;
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(2); }
    polygon_t *all = NULL;
    int n;
    while (fscanf(f, "%d", &n) == 1 && n > 2) {
        all = realloc(all, (size_t)(*count + 1) * sizeof *all);
        polygon_t *p = &all[(*count)++];
        p->n = n; p->lon = malloc(n * sizeof(double)); p->lat = malloc(n * sizeof(double));
        p->w = 180; p->e = -180; p->s = 90; p->n_ = -90;
        for (int i = 0; i < n; i++) {
            if (fscanf(f, "%lf %lf", &p->lon[i], &p->lat[i]) != 2) { fprintf(stderr, "bad polygon file\n"); exit(2); }
            if (p->lon[i] < p->w) p->w = p->lon[i];
            if (p->lon[i] > p->e) p->e = p->lon[i];
            if (p->lat[i] < p->s) p->s = p->lat[i];
            if (p->lat[i] > p->n_) p->n_ = p->lat[i];
        }
    }
    fclose(f);
    return all;
}

double sphere_meters(double lon1, double lat1, double lon2, double lat2, double radius) {
    const double r = M_PI / 180;
    double dlat = (lat2 - lat1) * r, dlon = (lon2 - lon1) * r;
    double a = sin(dlat / 2) * sin(dlat / 2) + cos(lat1 * r) * cos(lat2 * r) * sin(dlon / 2) * sin(dlon / 2);
    return 2 * radius * asin(fmin(1, sqrt(a)));
}

int polygon_contains(const polygon_t *p, double lon, double lat) {
    int inside = 0;
    for (int i = 0, j = p->n - 1; i < p->n; j = i++) {
        if ((p->lat[i] > lat) != (p->lat[j] > lat) &&
            lon < (p->lon[j] - p->lon[i]) * (lat - p->lat[i]) / (p->lat[j] - p->lat[i]) + p->lon[i])
            inside = !inside;
    }
    return inside;
}

int circle_boxes(double lon, double lat, double meters, double radius, double out[8]) {
    double angle = meters / radius * 180 / M_PI;
    double s = fmax(-90, lat - angle), n = fmin(90, lat + angle);
    double dlon = 180;
    double c = cos(lat * M_PI / 180);
    if (n < 90 && s > -90 && sin(angle * M_PI / 180) < c) dlon = asin(sin(angle * M_PI / 180) / c) * 180 / M_PI;
    double w = lon - dlon, e = lon + dlon;
    if (dlon >= 180) { out[0] = -180; out[1] = s; out[2] = 180; out[3] = n; return 1; }
    if (w < -180) {
        out[0] = w + 360; out[1] = s; out[2] = 180; out[3] = n;
        out[4] = -180; out[5] = s; out[6] = e; out[7] = n; return 2;
    }
    if (e > 180) {
        out[0] = w; out[1] = s; out[2] = 180; out[3] = n;
        out[4] = -180; out[5] = s; out[6] = e - 360; out[7] = n; return 2;
    }
    out[0] = w; out[1] = s; out[2] = e; out[3] = n;
    return 1;
}

void hits_add(hits_t *h, long long id, double d) {
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 1024;
        h->d = realloc(h->d, h->cap * sizeof *h->d);
        h->id = realloc(h->id, h->cap * sizeof *h->id);
    }
    h->d[h->n] = d; h->id[h->n++] = id;
}

static hits_t *sorting;
static int by_distance(const void *a, const void *b) {
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    double x = sorting->d[i], y = sorting->d[j];
    return (x > y) - (x < y);
}

void hits_nearest(hits_t *h, size_t k) {
    size_t *order = malloc((h->n + 1) * sizeof *order);
    for (size_t i = 0; i < h->n; i++) order[i] = i;
    sorting = h;
    qsort(order, h->n, sizeof *order, by_distance);
    size_t n = h->n < k ? h->n : k;
    double *d = malloc((n + 1) * sizeof *d);
    long long *id = malloc((n + 1) * sizeof *id);
    for (size_t i = 0; i < n; i++) { d[i] = h->d[order[i]]; id[i] = h->id[order[i]]; }
    free(order); free(h->d); free(h->id);
    h->d = d; h->id = id; h->n = n; h->cap = n;
}

void hits_write(FILE *f, hits_t *h) {
    if (!f) return;
    for (size_t i = 0; i < h->n; i++) fprintf(f, i ? " %lld" : "%lld", h->id[i]);
    fputc('\n', f);
}

int open_output(output_t *o, const char *latency_path, const char *ids_path) {
    o->lat = fopen(latency_path, "w");
    o->ids = ids_path && *ids_path && strcmp(ids_path, "-") ? fopen(ids_path, "w") : NULL;
    if (!o->lat) { perror(latency_path); return 0; }
    return 1;
}

int take_batch(ingest_t *g, size_t *start, size_t *n, size_t *index) {
    pthread_mutex_lock(&g->lock);
    size_t j = g->next_batch, s = j * g->batch;
    int ok = s < g->count && mono() < g->deadline;
    if (ok) g->next_batch++;
    pthread_mutex_unlock(&g->lock);
    if (!ok) return 0;
    *index = j; *start = g->first + s;
    *n = g->count - s < g->batch ? g->count - s : g->batch;
    return 1;
}

void record(ingest_t *g, double us, size_t fixes, int ok) {
    pthread_mutex_lock(&g->lock);
    if (ok) g->fixes += (long long)fixes; else g->errors++;
    if (g->out) fprintf(g->out, "%.1f %zu\n", us, fixes);
    pthread_mutex_unlock(&g->lock);
}

int run_ingest(ingest_t *g, int conc, void *(*worker)(void *)) {
    pthread_mutex_init(&g->lock, NULL);
    pthread_t *t = calloc((size_t)conc, sizeof *t);
    double t0 = mono();
    for (int i = 0; i < conc; i++) pthread_create(&t[i], NULL, worker, g);
    for (int i = 0; i < conc; i++) pthread_join(t[i], NULL);
    printf("%lld %.4f %ld\n", g->fixes, mono() - t0, g->errors);
    if (g->out) fclose(g->out);
    return g->errors ? 1 : 0;
}

/* points PLACES N SEED OUT: N people-like fixes from PLACES (a points file of towns): a town
 * picked uniformly (splitmix64, SEED) plus Gaussian jitter of sigma 2 km (Box-Muller). */
static uint64_t splitmix(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double uniform(uint64_t *state) { return ((double)(splitmix(state) >> 11) + 0.5) / 9007199254740992.0; }

static int run_points(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "points PLACES N SEED OUT\n"); return 2; }
    size_t towns, n = (size_t)atol(argv[1]);
    point_t *place = read_points(argv[0], &towns);
    uint64_t state = (uint64_t)atoll(argv[2]);
    FILE *out = fopen(argv[3], "wb");
    if (!out || !towns) { perror(argv[3]); return 2; }
    const double degree = 111319.49, sigma = 2000;
    for (size_t i = 0; i < n; i++) {
        point_t t = place[splitmix(&state) % towns];
        double r = sqrt(-2 * log(uniform(&state))), a = 2 * M_PI * uniform(&state);
        double lat = t.lat + r * cos(a) * sigma / degree;
        double lon = t.lon + r * sin(a) * sigma / (degree * fmax(0.05, cos(t.lat * M_PI / 180)));
        if (lon > 180) lon -= 360; else if (lon < -180) lon += 360;
        point_t p = {lon, fmax(-90, fmin(90, lat))};
        fwrite(&p, sizeof p, 1, out);
    }
    fclose(out);
    return 0;
}

int main(int argc, char **argv) {
    static const struct { const char *name; int (*run)(int, char **); } modes[] = {
        {"http-query", run_http_queries}, {"redis-query", run_redis_queries},
        {"pg-query", run_pg_queries}, {"sqlite-query", run_sqlite_queries},
        {"http-ingest", run_http_ingest}, {"redis-ingest", run_redis_ingest},
        {"pg-ingest", run_pg_ingest}, {"sqlite-ingest", run_sqlite_ingest}, {"points", run_points},
        {"round-trip", run_round_trips},
    };
    if (argc >= 2)
        for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
            if (!strcmp(argv[1], modes[i].name)) return modes[i].run(argc - 2, argv + 2);
    fprintf(stderr, "usage: benchclient <mode> ... (modes: http-query redis-query pg-query sqlite-query,"
                    " http-ingest redis-ingest pg-ingest sqlite-ingest, round-trip; see the file heads)\n");
    return 2;
}
