"""One size N of the query comparison: the same N fixes in every system, the same queries,
answers checked equal, then timed (one connection, one query at a time), plus memory, disk,
export speed and query latency while the index merge runs."""
import concurrent.futures
import json
import os
import shutil
import subprocess
import time
import urllib.request
from datetime import datetime

import fixtures
from check import Checker, read_ids
from common import progress, read_latencies, summary, directory_bytes
from services import Fod, Redis

KINDS = [("radius-20", "R"), ("radius-10k", "R"), ("polygon", "P"), ("near-10", "K"), ("near-100", "K")]


def epoch_ms(text):
    """Milliseconds of an RFC 3339 UTC timestamp as the server writes it (2026-12-01T08:15:00.123Z)."""
    return round(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


# Alternating rounds of the before/after comparison (each a timed pass on each server).
BEFORE_ROUNDS = 3


def make_group_template(o, work, binary, name="template"):
    """A data directory holding a group of o.members users sharing a device each (devices.txt:
    "id token" a line; group.txt: "groupId ownerToken"), copied by every size."""
    template = os.path.join(work, name)
    os.makedirs(template)
    progress(f"{binary}: a group of {o.members} sharing members (copied for every size)")
    fod = Fod(binary, os.path.join(template, "fod-data"))
    group, owner = fod.group_of(o.members, template)
    fod.stop()
    with open(os.path.join(template, "group.txt"), "w") as f:
        f.write(f"{group} {owner}\n")
    return template


class QueryPhase:
    def __init__(self, options, client, peers, places, n, work, templates, cluster):
        """templates: (ours, before's or None) group templates; cluster: the PostgreSQL cluster
        (a database per size), or None without PostGIS."""
        self.o, self.client, self.peers, self.places, self.n = options, client, peers, places, n
        self.template, self.before_template = templates
        self.cluster = cluster
        self.places_path = os.path.join(work, "places.bin")
        self.work = os.path.join(work, f"n{n}")
        os.makedirs(self.work, exist_ok=True)
        self.result = {"n": n, "queries": {}, "memory": {}, "disk": {}, "load_seconds": {}}

    def path(self, name):
        return os.path.join(self.work, name)

    def run(self):
        self.make_fixtures()
        self.load_all()
        self.make_queries()
        self.check_all()
        self.time_all()
        self.time_before()
        self.extras()
        self.stop_all()
        return self.result

    def make_fixtures(self):
        """The size's people-like fixes (points.bin) and country polygons (polygons.txt)."""
        progress(f"N={self.n:,}: generating people-like fixes (seed {self.o.seed})")
        self.points = fixtures.make_points(self.client, self.places_path, self.n, self.o.seed, self.path("points.bin"))
        self.polygons = fixtures.country_polygons(self.o.countries, self.places, self.n, self.o.polygon_hits, 5)
        self.result["polygons"] = [name for name, _ in self.polygons]
        self.rings = [ring for _, ring in self.polygons]
        with open(self.path("polygons.txt"), "w") as f:
            f.writelines(fixtures.polygon_line(ring) for ring in self.rings)

    # Loading ------------------------------------------------------------------------------------

    def load_all(self):
        """Loads every system at once (loading is not timed against each other; memory is
        measured once each is loaded; fod's after its merge)."""
        loaders = [self.load_fod]
        if "redis" in self.peers:
            loaders.append(self.load_redis)
        if "postgis" in self.peers:
            loaders.append(self.load_postgis)
        loaders += [lambda system=s: self.load_sqlite(system) for s in ("rtree", "spatialite") if s in self.peers]
        progress(f"N={self.n:,}: loading every system at once")
        with concurrent.futures.ThreadPoolExecutor(len(loaders)) as pool:
            for future in [pool.submit(load) for load in loaders]:
                future.result()

    def load_fod(self):
        n = self.n
        # The group (members, devices, tokens) is made once per run (template) and copied.
        shutil.copytree(os.path.join(self.template, "fod-data"), self.path("fod-data"))
        shutil.copy(os.path.join(self.template, "devices.txt"), self.path("devices.txt"))
        with open(os.path.join(self.template, "group.txt")) as f:
            self.group, self.owner = f.read().split()
        self.fod = Fod(self.o.fod, self.path("fod-data"))
        self.t0 = int(time.time() * 1000) + 60_000
        batch = max(100, min(10_000, n // self.o.members))
        fixes, seconds, _ = self.client.ingest("http-ingest", "127.0.0.1", self.fod.port, self.path("devices.txt"), self.path("points.bin"),
                                               batch, 4, 1e9, self.t0, 0, n, "-")
        merge = self.fod.wait_merged()
        self.result["load_seconds"]["fod"] = seconds + merge
        self.result["merge_seconds"] = merge
        self.result["memory"]["fod"] = self.fod.memory()
        self.result["disk"]["fod"] = directory_bytes(self.path("fod-data"))
        progress(f"N={n:,}: fod: {fixes:,} fixes acknowledged over HTTP ({batch} a request, 4 connections) in {seconds:.1f} s, "
                 f"merged {merge:.1f} s later; PSS {self.result['memory']['fod'][0] / 2**20:.0f} MiB")

    def load_redis(self):
        self.redis = Redis(self.path("redis"), durable=False)
        _, seconds, _ = self.client.ingest("redis-ingest", "127.0.0.1", self.redis.port, "pts", self.path("points.bin"), 1_000, 4, 1e9, 0, self.n, "-")
        self.result["load_seconds"]["redis"] = seconds
        self.result["memory"]["redis"] = self.redis.memory()
        progress(f"N={self.n:,}: Redis: loaded by GEOADDs of 1,000 members in {seconds:.1f} s")

    def load_postgis(self):
        self.pg = self.cluster.database(f"n{self.n}")
        self.pg.sql("CREATE TABLE pts (id bigint PRIMARY KEY, device int, ts bigint, g geography(Point, 4326))")
        began = time.time()
        self.client.ingest("pg-ingest", self.pg.conninfo, self.path("points.bin"), 100_000, 2, 1e9, 0, self.n, "-")
        self.pg.sql("CREATE INDEX pts_g ON pts USING gist (g); ANALYZE pts")
        self.pg.sql("CREATE TABLE polys (idx int PRIMARY KEY, g geography(Polygon, 4326))")
        for i, ring in enumerate(self.rings):
            self.pg.sql(f"INSERT INTO polys VALUES ({i}, ST_GeogFromText('SRID=4326;{fixtures.polygon_wkt(ring)}'))")
        self.result["load_seconds"]["postgis"] = time.time() - began
        self.result["memory"]["postgis"] = self.cluster.memory()
        self.result["disk"]["postgis"] = int(self.pg.sql(f"SELECT pg_database_size('n{self.n}')"))
        progress(f"N={self.n:,}: PostGIS: loaded by COPY and indexed (GiST) in {time.time() - began:.1f} s")

    def load_sqlite(self, system):
        db = self.path(f"{system}.sqlite")
        _, seconds, _ = self.client.ingest("sqlite-ingest", db, system, self.path("points.bin"), 100_000, 1e9, 0, self.n, "-", "OFF",
                                           self.path("polygons.txt"))
        self.result["load_seconds"][system] = seconds
        self.result["disk"][system] = os.path.getsize(db)
        progress(f"N={self.n:,}: {'SQLite R*Tree' if system == 'rtree' else 'SpatiaLite'}: loaded in {seconds:.1f} s")

    # Queries ------------------------------------------------------------------------------------

    def nearest_radius(self, centers, k):
        """Per centre, a radius halfway between its k-th and (k+1)-th nearest fix (from the R*Tree)."""
        with open(self.path("calibrate.txt"), "w") as f:
            f.writelines(fixtures.client_line("K", (lon, lat, k + 1)) for lon, lat in centers)
        self.client.run("sqlite-query", self.path("rtree-cal.sqlite"), "rtree", self.path("calibrate.txt"), self.path("polygons.txt"),
                        self.path("cal-lat.txt"), self.path("cal-ids.txt"), 0)
        radii = []
        for (lon, lat), ids in zip(centers, read_ids(self.path("cal-ids.txt"))):
            d = sorted(fixtures.meters(lon, lat, self.points[2 * i], self.points[2 * i + 1]) for i in ids)
            radii.append((d[k - 1] + d[k]) / 2 if len(d) > k else d[-1] * 1.01)
        return radii

    def make_queries(self):
        q, n = self.o.queries, self.n
        # The calibration reads its own copy of the R*Tree (built even when the peer is skipped).
        cal = self.path("rtree-cal.sqlite")
        if "rtree" in self.peers:
            shutil.copy(self.path("rtree.sqlite"), cal)
        else:
            self.client.ingest("sqlite-ingest", cal, "rtree", self.path("points.bin"), 100_000, 1e9, 0, n, "-", "OFF")
        # ~10,000 hits, kept under our API's 10,000-result limit with room for the boundary
        # (the calibration's sphere is not every system's: one more hit would be cut off).
        small, big = min(20, n // 10), min(9_900, n // 10)
        sets = {}
        for kind, hits, seed in (("radius-20", small, 1), ("radius-10k", big, 2)):
            centers = fixtures.centers(self.points, q, self.o.seed + seed)
            sets[kind] = [(lon, lat, r) for (lon, lat), r in zip(centers, self.nearest_radius(centers, hits))]
        sets["polygon"] = [i % len(self.rings) for i in range(q)] if self.rings else []
        for kind, k, seed in (("near-10", 10, 3), ("near-100", 100, 4)):
            sets[kind] = [(lon, lat, min(k, n)) for lon, lat in fixtures.centers(self.points, q, self.o.seed + seed)]
        os.remove(cal)
        self.sets = sets
        for kind, letter in KINDS:
            with open(self.path(f"{kind}.json"), "w") as f:
                f.writelines(fixtures.http_body(letter, x, self.rings[x] if letter == "P" else None) + "\n" for x in sets[kind])
            for sphere, radius in (("ours", fixtures.OUR_RADIUS), ("redis", fixtures.REDIS_RADIUS), ("mean", fixtures.MEAN_RADIUS)):
                with open(self.path(f"{kind}.{sphere}.txt"), "w") as f:
                    f.writelines(fixtures.client_line(letter, x, radius) for x in sets[kind])

    def systems(self, kind):
        """(name, runner(latency path, ids path, passes)) of every peer answering `kind`."""
        out, p = [], self.path
        if "redis" in self.peers:
            out.append(("Redis GEO", lambda lat, ids, passes: self.client.run(
                "redis-query", "127.0.0.1", self.redis.port, "pts", p(f"{kind}.redis.txt"), p("polygons.txt"), lat, ids, passes)))
        if "postgis" in self.peers:
            out.append(("PostGIS", lambda lat, ids, passes: self.client.run("pg-query", self.pg.conninfo, p(f"{kind}.mean.txt"), lat, ids, passes)))
        if "spatialite" in self.peers and not kind.startswith("near"):
            out.append(("SpatiaLite", lambda lat, ids, passes: self.client.run(
                "sqlite-query", p("spatialite.sqlite"), "spatialite", p(f"{kind}.mean.txt"), p("polygons.txt"), lat, ids, passes)))
        if "rtree" in self.peers:
            out.append(("SQLite R*Tree", lambda lat, ids, passes: self.client.run(
                "sqlite-query", p("rtree.sqlite"), "rtree", p(f"{kind}.ours.txt"), p("polygons.txt"), lat, ids, passes)))
        return out

    def http_answers(self, kind, fod=None, group=None, owner=None, t0=None):
        fod, group, owner, t0 = fod or self.fod, group or self.group, owner or self.owner, t0 or self.t0
        ids = []
        with open(self.path(f"{kind}.json")) as f:
            for body in f:
                query = json.loads(body)
                answer = fod.call("POST", f"/v1/groups/{group}/query", query, owner)
                if "$near" not in body and len(answer["results"]) >= query["limit"]:
                    raise SystemExit(f"fod's answer to a {kind} query reached its limit ({query['limit']}): the set cannot be checked")
                ids.append([epoch_ms(r["timestamp"]) - t0 for r in answer["results"]])
        return ids

    def time_before(self):
        """The same HTTP queries against the build before this change (o.before), on its own copy
        of the data, side by side in this run."""
        if not self.o.before or self.n > self.o.before_max_n:
            return
        progress(f"N={self.n:,}: fod before (--before {self.o.before}): loading its own copy")
        shutil.copytree(os.path.join(self.before_template, "fod-data"), self.path("before-data"))
        with open(os.path.join(self.before_template, "group.txt")) as f:
            group, owner = f.read().split()
        fod = Fod(self.o.before, self.path("before-data"))
        t0 = int(time.time() * 1000) + 60_000
        batch = max(100, min(10_000, self.n // self.o.members))
        self.client.ingest("http-ingest", "127.0.0.1", fod.port, os.path.join(self.before_template, "devices.txt"),
                           self.path("points.bin"), batch, 4, 1e9, t0, 0, self.n, "-")
        fod.wait_merged()
        for kind, letter in KINDS:
            if not self.sets[kind]:
                continue
            boundary, failures = self.checker.compare(letter, self.sets[kind], self.reference[kind],
                                                      self.http_answers(kind, fod, group, owner, t0))
            if failures or boundary:
                raise SystemExit(f"fod before answers {kind} differently: {failures}")
            # Rounds alternate between the two servers, so both see the same moments of this
            # shared machine (timed one after the other, the spread between phases was larger
            # than the differences).
            after, before = [], []
            for _ in range(BEFORE_ROUNDS):
                for server, g, token, sink, name in ((self.fod, self.group, self.owner, after, "fod HTTP"),
                                                     (fod, group, owner, before, "fod HTTP, before")):
                    self.client.run("http-query", "127.0.0.1", server.port, f"/v1/groups/{g}/query", token,
                                    self.path(f"{kind}.json"), self.path("lat.txt"), self.o.passes)
                    sink += self.raw_latencies(kind, name)
            self.result["queries"][kind]["fod HTTP, before"] = summary(before)
            self.result["queries"][kind]["fod HTTP, alternating"] = summary(after)
        fod.stop()
        shutil.rmtree(self.path("before-data"), ignore_errors=True)

    def check_all(self):
        sags = [fixtures.edge_sag_m(ring) for ring in self.rings]
        checker = Checker(self.points, self.rings, sags)
        self.reference = {}
        self.result["check"] = {}
        for kind, letter in KINDS:
            if not self.sets[kind]:
                continue
            progress(f"N={self.n:,}: {kind}: checking every system's answers")
            reference = self.http_answers(kind)
            self.reference[kind] = reference
            hits = sorted(len(r) for r in reference)
            checks = {"hits_median": hits[len(hits) // 2], "hits_min": hits[0], "hits_max": hits[-1]}
            for name, run in self.systems(kind):
                run(self.path("check-lat.txt"), self.path("check-ids.txt"), 0)
                boundary, failures = checker.compare(letter, self.sets[kind], reference, read_ids(self.path("check-ids.txt")))
                if failures:
                    raise SystemExit(f"{name} answers {kind} differently from fod: " + "; ".join(failures))
                checks[name] = boundary
            self.result["check"][kind] = checks
            self.checker = checker

    def time_all(self):
        for kind, _ in KINDS:
            if not self.sets[kind]:
                continue
            progress(f"N={self.n:,}: {kind}: timing ({self.o.queries} queries a system, one at a time)")
            measures = {}
            self.client.run("http-query", "127.0.0.1", self.fod.port, f"/v1/groups/{self.group}/query", self.owner,
                            self.path(f"{kind}.json"), self.path("lat.txt"), self.o.passes)
            measures["fod HTTP"] = self.latencies(kind, "fod HTTP")
            for name, run in self.systems(kind):
                run(self.path("lat.txt"), "-", self.o.passes)
                measures[name] = self.latencies(kind, name)
            self.result["queries"][kind] = measures

    def latencies(self, kind, name):
        """The timed pass's latency summary (see `raw_latencies`)."""
        return summary(self.raw_latencies(kind, name))

    def raw_latencies(self, kind, name):
        """The timed pass's latencies (ms); ours must give the checked hit counts again (peers
        may differ by the boundary fixes the check counted)."""
        rows = read_latencies(self.path("lat.txt"))
        expected = [len(r) for r in self.reference[kind]] * self.o.passes
        if name.startswith("fod") and [h for _, h in rows] != expected:
            raise SystemExit(f"{name}: {kind} answered other hit counts while timed than while checked")
        return [ms for ms, _ in rows]

    # Export, merges, engine-only ---------------------------------------------------------------

    def extras(self):
        progress(f"N={self.n:,}: GeoJSON export of the group's tracks")
        request = urllib.request.Request(f"http://127.0.0.1:{self.fod.port}/v1/groups/{self.group}/export.geojson?tracks=true",
                                         headers={"Authorization": "Bearer " + self.owner})
        began, size = time.time(), 0
        with urllib.request.urlopen(request, timeout=3600) as response:
            while chunk := response.read(1 << 20):
                size += len(chunk)
        seconds = time.time() - began
        self.result["export"] = {"seconds": seconds, "bytes": size, "fixes_per_second": self.n / seconds}
        self.fod.stop()
        progress(f"N={self.n:,}: fod engine-only (GeoQueryService on the stopped data directory)")
        for kind, letter in KINDS:
            if not self.sets[kind]:
                continue
            args = [self.o.engine, self.path("fod-data"), self.group, self.path(f"{kind}.json"), self.path("lat.txt"),
                    self.path("engine-ids.txt"), self.t0, self.o.passes]
            subprocess.run([str(a) for a in args], check=True, stdout=subprocess.DEVNULL)
            boundary, failures = self.checker.compare(letter, self.sets[kind], self.reference[kind], read_ids(self.path("engine-ids.txt")))
            if failures or boundary:
                raise SystemExit(f"fod engine answers {kind} differently from fod over HTTP: {failures}")
            self.result["queries"][kind]["fod engine"] = self.latencies(kind, "fod engine")
        self.during_merge()

    def during_merge(self):
        """radius-20 over HTTP while another n/10 fixes are posted and merged."""
        self.fod = Fod(self.o.fod, self.path("fod-data"))
        extra = max(10_000, self.n // 10)
        progress(f"N={self.n:,}: radius-20 over HTTP while {extra:,} more fixes are posted and merged")
        # The server was just started: one untimed pass warms its caches (page cache, prepared
        # statements, the group's devices), as on a server that has been running, so the
        # figure is what merges cost and not a cold start; a second pass is the idle baseline.
        query = ["http-query", "127.0.0.1", self.fod.port, f"/v1/groups/{self.group}/query", self.owner,
                 self.path("radius-20.json"), self.path("lat.txt"), 1]
        self.client.run(*query)
        self.client.run(*query)
        idle = summary([ms for ms, _ in read_latencies(self.path("lat.txt"))])
        ingest = subprocess.Popen([self.client.path, "http-ingest", "127.0.0.1", str(self.fod.port), self.path("devices.txt"),
                                   self.path("points.bin"), "1000", "2", "1e9", str(self.t0), str(self.n), str(extra), "-"],
                                  stdout=subprocess.DEVNULL)
        # Each pass is filed under the phase it began in: while the fixes are still being
        # posted (and merged), or after the last was acknowledged while the merge goes on — the
        # case of the spike ("while the index merge ran after the load").
        samples, posting, after_load, merging_seen = [], [], [], False
        while True:
            still_posting = ingest.poll() is None
            self.client.run(*query)
            latencies = [ms for ms, _ in read_latencies(self.path("lat.txt"))]
            samples += latencies
            (posting if still_posting else after_load).extend(latencies)
            m = self.fod.metrics()
            busy = m.get("fod_index_unmerged_fixes", 0) > 0 or m.get("fod_index_merge_running", 0) > 0
            merging_seen = merging_seen or m.get("fod_index_merge_running", 0) > 0
            if ingest.poll() is not None and not busy:
                break
        self.result["during_merge"] = {**summary(samples), "extra_fixes": extra, "merge_seen": merging_seen,
                                       "idle_p50": idle["p50"], "idle_p99": idle["p99"],
                                       "posting": summary(posting), "after_load": summary(after_load)}
        self.fod.stop()

    def stop_all(self):
        if hasattr(self, "redis"):
            self.redis.stop()
        if hasattr(self, "pg"):
            self.cluster.drop(f"n{self.n}")
        if not self.o.keep:
            shutil.rmtree(self.work, ignore_errors=True)
