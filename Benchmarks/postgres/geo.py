#!/usr/bin/env python3
"""Geo queries on the PostgreSQL store against PostGIS on the same server, same data (issue:
scale out): N people-like fixes (GeoNames cities1000 + jitter, fixed seed) posted over HTTP to a
`fod` node on a throwaway PostgreSQL with PostGIS, the same points COPYed into a PostGIS table
(geography, GiST) in another database of that server; radius ~20 and ~10,000 hits, a country
polygon, $near k=10 and k=100. Every answer is checked equal (boundaries within float
tolerance) before anything is timed. Ours both over HTTP (the report's C client, kept-alive)
and engine-only (fod-engine-bench: GeoQueryService on the store, no HTTP); PostGIS through libpq
(ST_DWithin, <->, ST_Covers).

    Benchmarks/postgres/geo.py [--n 1000000] [--queries 100] [--members 1000] [--before BIN] [--quick]

--before BIN: the same HTTP queries on a second node running an earlier build (same database),
in rounds alternating with ours.

--quick: 3,000 fixes on the debug build (CI's smoke; figures meaningless). Uses the harness of
Benchmarks/report (its fixtures, checker and client).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Benchmarks", "report"))

import fixtures  # noqa: E402
import services  # noqa: E402
from check import read_ids  # noqa: E402
from common import progress, summary  # noqa: E402
from queries import BEFORE_ROUNDS, KINDS, QueryPhase  # noqa: E402
from run import build_client  # noqa: E402


class PostgresStorePhase(QueryPhase):
    """The report's query phase with ours on the PostgreSQL store and PostGIS as the one peer."""

    def __init__(self, o, client, places, work, cluster):
        super().__init__(o, client, {"postgis": True}, places, o.n, work, (None, None), cluster)

    def run(self):
        self.make_fixtures()
        self.load_fod()
        self.load_postgis()
        self.make_queries()
        self.check_all()
        self.time_all()
        self.time_before_node()
        self.engine()
        self.stop_all()
        return self.result

    def load_fod(self):
        name = f"fod_n{self.n}"
        self.cluster.sql(f"CREATE DATABASE {name}")
        self.url = f"postgresql://postgres@127.0.0.1:{self.cluster.port}/{name}"
        self.fod = services.Fod(self.o.fod, self.path("fod-data"), extra=("--database", self.url, *self.o.fod_args.split()))
        progress(f"N={self.n:,}: fod on PostgreSQL: a group of {self.o.members} sharing members")
        self.group, self.owner = self.fod.group_of(self.o.members, self.work)
        self.t0 = int(time.time() * 1000) + 60_000
        batch = max(100, min(10_000, self.n // self.o.members))
        fixes, seconds, _ = self.client.ingest("http-ingest", "127.0.0.1", self.fod.port, self.path("devices.txt"), self.path("points.bin"),
                                               batch, 4, 1e9, self.t0, 0, self.n, "-")
        services.Database(self.cluster.conninfo.replace("dbname=postgres", f"dbname={name}")).sql("VACUUM ANALYZE fixes")
        self.result["load_seconds"]["fod"] = seconds
        self.result["disk"]["fod"] = int(self.cluster.sql(f"SELECT pg_database_size('{name}')"))
        progress(f"N={self.n:,}: fod on PostgreSQL: {fixes:,} fixes acknowledged over HTTP ({batch} a request, 4 connections) "
                 f"in {seconds:.1f} s ({fixes / seconds:,.0f} fixes/s)")

    def time_before_node(self):
        """With --before BIN: a second node running that build on the same database (same
        group, same token, answers checked equal), timed in rounds that alternate with ours, so
        both see the same moments of this shared machine."""
        if not self.o.before:
            return
        progress(f"N={self.n:,}: fod before (--before {self.o.before}): a second node on the same database")
        before = services.Fod(self.o.before, self.path("fod-before-data"), extra=("--database", self.url, *self.o.fod_args.split()))
        for kind, letter in KINDS:
            if not self.sets[kind]:
                continue
            boundary, failures = self.checker.compare(letter, self.sets[kind], self.reference[kind], self.http_answers(kind, before))
            if failures or boundary:
                raise SystemExit(f"fod before answers {kind} differently: {failures}")
            after, earlier = [], []
            for _ in range(BEFORE_ROUNDS):
                for server, sink, name in ((self.fod, after, "fod HTTP"), (before, earlier, "fod HTTP, before")):
                    self.client.run("http-query", "127.0.0.1", server.port, f"/v1/groups/{self.group}/query", self.owner,
                                    self.path(f"{kind}.json"), self.path("lat.txt"), self.o.passes)
                    sink += self.raw_latencies(kind, name)
            self.result["queries"][kind]["fod HTTP, before"] = summary(earlier)
            self.result["queries"][kind]["fod HTTP, alternating"] = summary(after)
        before.stop()

    def engine(self):
        self.fod.stop()
        progress(f"N={self.n:,}: fod engine-only on PostgreSQL (GeoQueryService on the store, no HTTP)")
        for kind, letter in KINDS:
            if not self.sets[kind]:
                continue
            args = [self.o.engine, self.url, self.group, self.path(f"{kind}.json"), self.path("lat.txt"),
                    self.path("engine-ids.txt"), self.t0, self.o.passes]
            subprocess.run([str(a) for a in args], check=True, stdout=subprocess.DEVNULL)
            boundary, failures = self.checker.compare(letter, self.sets[kind], self.reference[kind], read_ids(self.path("engine-ids.txt")))
            if failures or boundary:
                raise SystemExit(f"fod engine answers {kind} differently from fod over HTTP: {failures}")
            self.result["queries"][kind]["fod engine"] = self.latencies(kind, "fod engine")


def table(result):
    lines = ["| query | hits (median) | fod HTTP p50 / p99 | fod engine p50 / p99 | PostGIS p50 / p99 | HTTP ÷ PostGIS (p50) | engine ÷ PostGIS (p50) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for kind, _ in KINDS:
        q = result["queries"].get(kind)
        if not q:
            continue
        ours, engine, peer = q["fod HTTP"], q["fod engine"], q["PostGIS"]
        lines.append(f"| {kind} | {result['check'][kind]['hits_median']} | {ours['p50']:.3f} / {ours['p99']:.3f} ms | "
                     f"{engine['p50']:.3f} / {engine['p99']:.3f} ms | {peer['p50']:.3f} / {peer['p99']:.3f} ms | "
                     f"×{ours['p50'] / peer['p50']:.2f} | ×{engine['p50'] / peer['p50']:.2f} |")
    if any("fod HTTP, before" in q for q in result["queries"].values()):
        lines += ["", "| query | fod HTTP p50 / p99 (alternating) | before p50 / p99 | after ÷ before (p50) |", "| --- | ---: | ---: | ---: |"]
        for kind, _ in KINDS:
            q = result["queries"].get(kind, {})
            if "fod HTTP, before" in q:
                after, before = q["fod HTTP, alternating"], q["fod HTTP, before"]
                lines.append(f"| {kind} | {after['p50']:.3f} / {after['p99']:.3f} ms | {before['p50']:.3f} / {before['p99']:.3f} ms | "
                             f"×{after['p50'] / before['p50']:.2f} |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--queries", type=int, default=100)
    p.add_argument("--passes", type=int, default=1)
    p.add_argument("--members", type=int, default=1000)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--places", default=os.path.join(ROOT, "Data/places-cities1000.bin"))
    p.add_argument("--countries", default=os.path.join(ROOT, "Data/countries-110m.geojson"))
    p.add_argument("--fod-args", default="", help="more flags for fod serve (e.g. --near-scan-level 9)")
    p.add_argument("--out", help="write the results (JSON) here")
    p.add_argument("--before", help="a fod binary of an earlier build, timed over HTTP as a second node on the same database")
    p.add_argument("--keep", action="store_true")
    p.add_argument("--quick", action="store_true")
    o = p.parse_args()
    if o.quick:
        o.n, o.queries, o.members = 3000, 3, 6
    o.polygon_hits = 2000 if not o.quick else 40
    build = os.path.join(ROOT, ".build", "debug" if o.quick else "release")
    o.fod, o.engine = os.path.join(build, "fod"), os.path.join(build, "fod-engine-bench")
    bindir = services.postgres_bindir()
    if not bindir:
        raise SystemExit("needs PostgreSQL 15 with PostGIS (apt-get install postgresql-15-postgis-3)")
    work = tempfile.mkdtemp(prefix="fod-pg-geo-")
    if os.geteuid() == 0:
        os.chmod(work, 0o755)
    try:
        client = build_client(work, True)
        places = fixtures.read_places(o.places)
        fixtures.write_places(places, os.path.join(work, "places.bin"))
        progress(f"cores {os.cpu_count()}, load {os.getloadavg()[0]:.2f}; N={o.n:,}, {o.queries} queries a kind")
        cluster = services.Postgres(os.path.join(work, "pg"), bindir)
        result = PostgresStorePhase(o, client, places, work, cluster).run()
        cluster.stop()
        result["load_end"] = os.getloadavg()
        print(table(result))
        if o.out:
            with open(o.out, "w") as f:
                json.dump(result, f, indent=1)
    finally:
        services.stop_running()
        if o.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
