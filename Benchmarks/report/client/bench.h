/* Shared pieces of the report's load client (benchclient): the point and query files, the exact
 * geometry used where a peer has only a bounding-box index (SQLite R*Tree, Redis BYBOX), and the
 * per-query output.
 *
 * Files written by Benchmarks/report/run.py:
 *  - points: N little-endian (double lon, double lat) pairs; a fix's id is its index.
 *  - queries: one per line, "R lon lat radius_m" (radius already in the peer's own sphere),
 *    "P polygon_index" or "K lon lat k".
 *  - polygons: one per line, "n lon1 lat1 ... lonn latn" (one outer ring, not closed).
 * Output: one line per timed query "latency_us hits"; with an ids file, one line per query of
 * the ids found (first pass, untimed). */
#ifndef BENCH_H
#define BENCH_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>

typedef struct { double lon, lat; } point_t;
typedef struct { char kind; double lon, lat, radius; long k; int polygon; } query_t;
typedef struct { int n; double *lon, *lat; double w, s, e, n_; } polygon_t;

/* Our sphere (meters): the radius the server and the checks use. */
#define OUR_EARTH_RADIUS 6378100.0

double mono(void);
point_t *read_points(const char *path, size_t *count);
query_t *read_queries(const char *path, size_t *count);
polygon_t *read_polygons(const char *path, int *count);

/* Great-circle distance in meters on a sphere of `radius`. */
double sphere_meters(double lon1, double lat1, double lon2, double lat2, double radius);
/* Planar even-odd test in lon/lat degrees (the exact test where a peer has only boxes). */
int polygon_contains(const polygon_t *p, double lon, double lat);
/* Lon/lat bounds of a circle; returns 1 or 2 boxes (split at the antimeridian) in out[4*i]. */
int circle_boxes(double lon, double lat, double meters, double radius, double out[8]);

/* Growable list of (distance, id) for one query's answer. */
typedef struct { double *d; long long *id; size_t n, cap; } hits_t;
void hits_add(hits_t *h, long long id, double d);
/* Keeps the k nearest, sorted by distance. */
void hits_nearest(hits_t *h, size_t k);
void hits_write(FILE *f, hits_t *h);

/* Percentile-free recording: the Python side sorts. */
typedef struct { FILE *lat, *ids; } output_t;
int open_output(output_t *o, const char *latency_path, const char *ids_path);

/* Ingest shared state: batches of the fixes [first, first+count) are handed out in order from
 * one counter until the deadline (mono seconds); fix i is at points[i % total] (ids and
 * timestamps stay unique when a run posts more fixes than the file holds). */
typedef struct {
    const char *host; int port; point_t *points; size_t total, first, count, batch;
    char (*ids)[64]; char (*tokens)[128]; int devices; long long t0; double deadline;
    const char *key, *target; int spatialite;
    pthread_mutex_t lock; size_t next_batch; long long fixes; long errors; FILE *out;
} ingest_t;
int take_batch(ingest_t *g, size_t *start, size_t *n, size_t *index);
void record(ingest_t *g, double us, size_t fixes, int ok);
/* Runs `conc` workers; prints "fixes seconds errors". */
int run_ingest(ingest_t *g, int conc, void *(*worker)(void *));

int run_http_queries(int argc, char **argv);
int run_redis_queries(int argc, char **argv);
int run_pg_queries(int argc, char **argv);
int run_sqlite_queries(int argc, char **argv);
int run_http_ingest(int argc, char **argv);
int run_redis_ingest(int argc, char **argv);
int run_pg_ingest(int argc, char **argv);
int run_sqlite_ingest(int argc, char **argv);
int run_round_trips(int argc, char **argv);
#endif
