/* benchclient over SQL: PostGIS (libpq) and SQLite (R*Tree, or SpatiaLite's spatial index).
 *  pg-query CONNINFO QUERIES OUT IDS PASSES
 *      R: ST_DWithin on geography (sphere), P: ST_Covers(polygon from table polys), K: <-> LIMIT k.
 *  pg-ingest CONNINFO POINTS BATCH CONC SECONDS FIRST COUNT OUT
 *      one COPY of BATCH rows into pts(id, device, ts, g) per transaction (autocommit).
 *  sqlite-query DB rtree|spatialite QUERIES POLYGONS OUT IDS PASSES
 *      rtree: boxes from the R*Tree, then the exact sphere / planar polygon test here; K grows a
 *      box from 1 km ×4 until k fixes lie within its inscribed circle. spatialite: its
 *      SpatialIndex table, PtDistWithin (sphere) and ST_Within (planar); no K.
 *  sqlite-ingest DB rtree|spatialite POINTS BATCH SECONDS FIRST COUNT OUT SYNC [POLYGONS]
 *      BATCH rows a transaction, WAL, synchronous=SYNC (FULL|NORMAL|OFF); creates the schema
 *      (SpatiaLite: with the POLYGONS as table polys for ST_Within). */
#define _GNU_SOURCE
#include "bench.h"
#include <libpq-fe.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static PGconn *pg_open(const char *conninfo) {
    PGconn *c = PQconnectdb(conninfo);
    if (PQstatus(c) != CONNECTION_OK) { fprintf(stderr, "pg: %s", PQerrorMessage(c)); exit(2); }
    return c;
}

static void pg_prepare(PGconn *c, const char *name, const char *sql) {
    PGresult *r = PQprepare(c, name, sql, 0, NULL);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) { fprintf(stderr, "pg prepare: %s", PQerrorMessage(c)); exit(2); }
    PQclear(r);
}

int run_pg_queries(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "pg-query CONNINFO QUERIES OUT IDS PASSES\n"); return 2; }
    size_t n;
    query_t *q = read_queries(argv[1], &n);
    output_t o;
    if (!open_output(&o, argv[2], argv[3])) return 2;
    int passes = atoi(argv[4]);
    PGconn *c = pg_open(argv[0]);
    pg_prepare(c, "r", "SELECT id FROM pts WHERE ST_DWithin(g, ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography, $3, false)");
    pg_prepare(c, "p", "SELECT p.id FROM pts p JOIN polys q ON ST_Covers(q.g, p.g) WHERE q.idx = $1");
    pg_prepare(c, "k", "SELECT id FROM pts ORDER BY g <-> ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography LIMIT $3");
    hits_t hits = {0};
    for (int pass = 0; pass <= passes; pass++)
        for (size_t i = 0; i < n; i++) {
            char a[32], b[32], r[32];
            const char *params[3] = {a, b, r};
            const char *name = q[i].kind == 'R' ? "r" : (q[i].kind == 'P' ? "p" : "k");
            int count = 3;
            snprintf(a, sizeof a, "%.7f", q[i].lon); snprintf(b, sizeof b, "%.7f", q[i].lat);
            if (q[i].kind == 'R') snprintf(r, sizeof r, "%.4f", q[i].radius);
            else if (q[i].kind == 'K') snprintf(r, sizeof r, "%ld", q[i].k);
            else { snprintf(a, sizeof a, "%d", q[i].polygon); count = 1; }
            double t0 = mono();
            PGresult *res = PQexecPrepared(c, name, count, params, NULL, NULL, 0);
            if (PQresultStatus(res) != PGRES_TUPLES_OK) { fprintf(stderr, "pg: %s", PQerrorMessage(c)); return 2; }
            hits.n = 0;
            for (int row = 0; row < PQntuples(res); row++) hits_add(&hits, atoll(PQgetvalue(res, row, 0)), 0);
            double us = (mono() - t0) * 1e6;
            PQclear(res);
            if (pass == 0) hits_write(o.ids, &hits); else fprintf(o.lat, "%.1f %zu 0\n", us, hits.n);
        }
    fclose(o.lat); if (o.ids) fclose(o.ids);
    PQfinish(c);
    return 0;
}

static void *pg_loader(void *arg) {
    ingest_t *g = arg;
    PGconn *c = pg_open(g->target);
    size_t start, n, j, cap = 1 << 20;
    char *rows = malloc(cap);
    while (take_batch(g, &start, &n, &j)) {
        size_t len = 0;
        for (size_t i = start; i < start + n; i++) {
            if (len + 160 > cap) { cap *= 2; rows = realloc(rows, cap); }
            len += (size_t)snprintf(rows + len, 160, "%zu\t%zu\t%lld\tSRID=4326;POINT(%.7f %.7f)\n",
                                    i, j % 1000, g->t0 + (long long)i, g->points[i % g->total].lon, g->points[i % g->total].lat);
        }
        double t0 = mono();
        PGresult *r = PQexec(c, "COPY pts (id, device, ts, g) FROM STDIN");
        int ok = PQresultStatus(r) == PGRES_COPY_IN;
        PQclear(r);
        ok = ok && PQputCopyData(c, rows, (int)len) == 1 && PQputCopyEnd(c, NULL) == 1;
        while ((r = PQgetResult(c))) { if (PQresultStatus(r) != PGRES_COMMAND_OK) ok = 0; PQclear(r); }
        if (!ok) fprintf(stderr, "pg copy: %s", PQerrorMessage(c));
        record(g, (mono() - t0) * 1e6, n, ok);
    }
    PQfinish(c);
    free(rows);
    return NULL;
}

int run_pg_ingest(int argc, char **argv) {
    if (argc < 8) { fprintf(stderr, "pg-ingest CONNINFO POINTS BATCH CONC SECONDS FIRST COUNT OUT\n"); return 2; }
    ingest_t g = {.target = argv[0], .batch = (size_t)atol(argv[2]), .first = (size_t)atol(argv[5]), .count = (size_t)atol(argv[6])};
    g.points = read_points(argv[1], &g.total);
    g.deadline = mono() + atof(argv[4]);
    g.out = strcmp(argv[7], "-") ? fopen(argv[7], "w") : NULL;
    return run_ingest(&g, atoi(argv[3]), pg_loader);
}

static sqlite3 *sq_open(const char *path, int spatialite) {
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) { fprintf(stderr, "sqlite: cannot open %s\n", path); exit(2); }
    if (spatialite) {
        char *error = NULL;
        sqlite3_enable_load_extension(db, 1);
        if (sqlite3_load_extension(db, "mod_spatialite", NULL, &error) != SQLITE_OK) { fprintf(stderr, "spatialite: %s\n", error); exit(2); }
    }
    return db;
}

static void sq_exec(sqlite3 *db, const char *sql) {
    char *error = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK) { fprintf(stderr, "sqlite: %s: %s\n", sql, error); exit(2); }
}

static sqlite3_stmt *sq_prepare(sqlite3 *db, const char *sql) {
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) { fprintf(stderr, "sqlite: %s: %s\n", sql, sqlite3_errmsg(db)); exit(2); }
    return s;
}

/* Candidates of one box: (id, lon, lat) rows; adds those passing `keep` (or all, with distances). */
static void box_rows(sqlite3_stmt *s, const double box[4]) {
    sqlite3_reset(s);
    for (int i = 0; i < 4; i++) sqlite3_bind_double(s, i + 1, box[i]);
}

static void rtree_query(sqlite3_stmt *s, const query_t *q, const polygon_t *polygons, hits_t *hits) {
    hits->n = 0;
    if (q->kind == 'P') {
        const polygon_t *p = &polygons[q->polygon];
        double box[4] = {p->w, p->s, p->e, p->n_};
        box_rows(s, box);
        while (sqlite3_step(s) == SQLITE_ROW)
            if (polygon_contains(p, sqlite3_column_double(s, 1), sqlite3_column_double(s, 2))) hits_add(hits, sqlite3_column_int64(s, 0), 0);
        return;
    }
    for (double radius = q->kind == 'R' ? q->radius : 1000; ; radius *= 4) {
        double boxes[8];
        int nb = circle_boxes(q->lon, q->lat, radius, OUR_EARTH_RADIUS, boxes);
        hits->n = 0;
        for (int b = 0; b < nb; b++) {
            box_rows(s, boxes + 4 * b);
            while (sqlite3_step(s) == SQLITE_ROW) {
                double d = sphere_meters(q->lon, q->lat, sqlite3_column_double(s, 1), sqlite3_column_double(s, 2), OUR_EARTH_RADIUS);
                if (d <= radius) hits_add(hits, sqlite3_column_int64(s, 0), d);
            }
        }
        if (q->kind == 'R') return;
        if ((long)hits->n >= q->k || radius > 2.1e7) { hits_nearest(hits, (size_t)q->k); return; }
    }
}

static void spatialite_query(sqlite3_stmt *r, sqlite3_stmt *p, const query_t *q, hits_t *hits) {
    hits->n = 0;
    if (q->kind == 'P') {
        sqlite3_reset(p);
        sqlite3_bind_int(p, 1, q->polygon); sqlite3_bind_int(p, 2, q->polygon);
        while (sqlite3_step(p) == SQLITE_ROW) hits_add(hits, sqlite3_column_int64(p, 0), 0);
        return;
    }
    double boxes[8];
    int nb = circle_boxes(q->lon, q->lat, q->radius, 6371008.7714, boxes);
    for (int b = 0; b < nb; b++) {
        sqlite3_reset(r);
        for (int i = 0; i < 4; i++) sqlite3_bind_double(r, i + 1, boxes[4 * b + i]);
        sqlite3_bind_double(r, 5, q->lon); sqlite3_bind_double(r, 6, q->lat); sqlite3_bind_double(r, 7, q->radius);
        while (sqlite3_step(r) == SQLITE_ROW) hits_add(hits, sqlite3_column_int64(r, 0), 0);
    }
}

int run_sqlite_queries(int argc, char **argv) {
    if (argc < 7) { fprintf(stderr, "sqlite-query DB rtree|spatialite QUERIES POLYGONS OUT IDS PASSES\n"); return 2; }
    int spatialite = !strcmp(argv[1], "spatialite"), np;
    size_t n;
    query_t *q = read_queries(argv[2], &n);
    polygon_t *polygons = read_polygons(argv[3], &np);
    output_t o;
    if (!open_output(&o, argv[4], argv[5])) return 2;
    int passes = atoi(argv[6]);
    sqlite3 *db = sq_open(argv[0], spatialite);
    sqlite3_stmt *box = NULL, *radius = NULL, *within = NULL;
    if (spatialite) {
        radius = sq_prepare(db, "SELECT id FROM pts WHERE ROWID IN (SELECT ROWID FROM SpatialIndex WHERE f_table_name = 'pts' "
                                "AND f_geometry_column = 'geom' AND search_frame = BuildMbr(?1, ?2, ?3, ?4, 4326)) "
                                "AND PtDistWithin(geom, MakePoint(?5, ?6, 4326), ?7, 0)");
        within = sq_prepare(db, "SELECT id FROM pts WHERE ROWID IN (SELECT ROWID FROM SpatialIndex WHERE f_table_name = 'pts' "
                                "AND f_geometry_column = 'geom' AND search_frame = (SELECT geom FROM polys WHERE idx = ?1)) "
                                "AND ST_Within(geom, (SELECT geom FROM polys WHERE idx = ?2))");
    } else {
        box = sq_prepare(db, "SELECT id, min_lon, min_lat FROM rt WHERE min_lon >= ?1 AND max_lon <= ?3 AND min_lat >= ?2 AND max_lat <= ?4");
    }
    hits_t hits = {0};
    for (int pass = 0; pass <= passes; pass++)
        for (size_t i = 0; i < n; i++) {
            double t0 = mono();
            if (spatialite) spatialite_query(radius, within, &q[i], &hits); else rtree_query(box, &q[i], polygons, &hits);
            double us = (mono() - t0) * 1e6;
            if (pass == 0) hits_write(o.ids, &hits); else fprintf(o.lat, "%.1f %zu 0\n", us, hits.n);
        }
    fclose(o.lat); if (o.ids) fclose(o.ids);
    sqlite3_close(db);
    return 0;
}

int run_sqlite_ingest(int argc, char **argv) {
    if (argc < 9) { fprintf(stderr, "sqlite-ingest DB rtree|spatialite POINTS BATCH SECONDS FIRST COUNT OUT SYNC\n"); return 2; }
    int spatialite = !strcmp(argv[1], "spatialite");
    ingest_t g = {.batch = (size_t)atol(argv[3]), .first = (size_t)atol(argv[5]), .count = (size_t)atol(argv[6])};
    g.points = read_points(argv[2], &g.total);
    g.out = strcmp(argv[7], "-") ? fopen(argv[7], "w") : NULL;
    sqlite3 *db = sq_open(argv[0], spatialite);
    char pragma[96];
    snprintf(pragma, sizeof pragma, "PRAGMA journal_mode = WAL; PRAGMA synchronous = %s", argv[8]);
    sq_exec(db, pragma);
    /* Loading the query data set (synchronous OFF, untimed against the others): a 256 MiB page
       cache keeps the R*Tree's upper levels in memory (at 10M points the 2 MiB default made the
       load take half an hour). The timed ingest phase keeps SQLite's default cache. */
    if (!strcmp(argv[8], "OFF")) sq_exec(db, "PRAGMA cache_size = -262144");
    sqlite3_stmt *exists = sq_prepare(db, "SELECT count(*) FROM sqlite_master WHERE name = 'pts'");
    sqlite3_step(exists);
    int fresh = sqlite3_column_int(exists, 0) == 0;
    sqlite3_finalize(exists);
    if (fresh && spatialite) {
        sq_exec(db, "SELECT InitSpatialMetadata(1); CREATE TABLE pts (id INTEGER PRIMARY KEY, device INTEGER, ts INTEGER);"
                    "SELECT AddGeometryColumn('pts', 'geom', 4326, 'POINT', 'XY'); SELECT CreateSpatialIndex('pts', 'geom');"
                    "CREATE TABLE polys (idx INTEGER PRIMARY KEY); SELECT AddGeometryColumn('polys', 'geom', 4326, 'POLYGON', 'XY');");
    } else if (fresh) {
        sq_exec(db, "CREATE TABLE pts (id INTEGER PRIMARY KEY, device INTEGER, ts INTEGER, lon REAL, lat REAL);"
                    "CREATE VIRTUAL TABLE rt USING rtree(id, min_lon, max_lon, min_lat, max_lat)");
    }
    if (fresh && spatialite && argc > 9) {
        int np;
        polygon_t *polygons = read_polygons(argv[9], &np);
        sqlite3_stmt *insert = sq_prepare(db, "INSERT INTO polys (idx, geom) VALUES (?1, GeomFromText(?2, 4326))");
        for (int p = 0; p < np; p++) {
            size_t cap = 64 + (size_t)polygons[p].n * 40, len = 0;
            char *wkt = malloc(cap);
            len += (size_t)snprintf(wkt, cap, "POLYGON((");
            for (int i = 0; i <= polygons[p].n; i++)
                len += (size_t)snprintf(wkt + len, cap - len, "%s%.7f %.7f", i ? "," : "", polygons[p].lon[i % polygons[p].n], polygons[p].lat[i % polygons[p].n]);
            snprintf(wkt + len, cap - len, "))");
            sqlite3_reset(insert);
            sqlite3_bind_int(insert, 1, p);
            sqlite3_bind_text(insert, 2, wkt, -1, SQLITE_TRANSIENT);
            if (sqlite3_step(insert) != SQLITE_DONE) { fprintf(stderr, "polygon insert: %s\n", sqlite3_errmsg(db)); return 2; }
            free(wkt);
        }
        sqlite3_finalize(insert);
    }
    sqlite3_stmt *row = sq_prepare(db, spatialite ? "INSERT INTO pts (id, device, ts, geom) VALUES (?1, ?2, ?3, MakePoint(?4, ?5, 4326))"
                                                  : "INSERT INTO pts (id, device, ts, lon, lat) VALUES (?1, ?2, ?3, ?4, ?5)");
    sqlite3_stmt *box = spatialite ? NULL : sq_prepare(db, "INSERT INTO rt VALUES (?1, ?2, ?2, ?3, ?3)");
    pthread_mutex_init(&g.lock, NULL);
    g.deadline = mono() + atof(argv[4]);
    size_t start, n, j;
    double began = mono();
    while (take_batch(&g, &start, &n, &j)) {
        double t0 = mono();
        sq_exec(db, "BEGIN");
        for (size_t i = start; i < start + n; i++) {
            sqlite3_reset(row);
            sqlite3_bind_int64(row, 1, (sqlite3_int64)i); sqlite3_bind_int64(row, 2, (sqlite3_int64)(j % 1000));
            sqlite3_bind_int64(row, 3, (sqlite3_int64)i);
            sqlite3_bind_double(row, 4, g.points[i % g.total].lon); sqlite3_bind_double(row, 5, g.points[i % g.total].lat);
            if (sqlite3_step(row) != SQLITE_DONE) { fprintf(stderr, "sqlite insert: %s\n", sqlite3_errmsg(db)); return 2; }
            if (box) {
                sqlite3_reset(box);
                sqlite3_bind_int64(box, 1, (sqlite3_int64)i);
                sqlite3_bind_double(box, 2, g.points[i % g.total].lon); sqlite3_bind_double(box, 3, g.points[i % g.total].lat);
                if (sqlite3_step(box) != SQLITE_DONE) { fprintf(stderr, "rtree insert: %s\n", sqlite3_errmsg(db)); return 2; }
            }
        }
        sq_exec(db, "COMMIT");
        record(&g, (mono() - t0) * 1e6, n, 1);
    }
    printf("%lld %.4f %ld\n", g.fixes, mono() - began, g.errors);
    if (g.out) fclose(g.out);
    sqlite3_finalize(row); if (box) sqlite3_finalize(box);
    sqlite3_close(db);
    return 0;
}
