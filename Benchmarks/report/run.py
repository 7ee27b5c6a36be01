#!/usr/bin/env python3
"""`make bench`: Find Our Devices against the systems people would pick instead, in one run.

Peers, each started on loopback in a temporary directory and stopped at the end: SQLite R*Tree,
SpatiaLite, PostGIS (GiST on geography), Redis GEO. Ours over HTTP (the C client, kept-alive)
and engine-only (fod-engine-bench on the same data). Writes Benchmarks/REPORT.md and its SVG
figures (Benchmarks/report/figures/).

    Benchmarks/report/run.py [--sizes 100000,1000000,10000000] [--queries 100] [--quick] ...

--quick: one small size on the debug build, peers that are not installed skipped with a message
(CI's smoke: the figures mean nothing; the report goes to a temporary directory).
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import fixtures  # noqa: E402
import report  # noqa: E402
import services  # noqa: E402
from common import STARTED, Client, progress, read_latencies, summary  # noqa: E402
from queries import QueryPhase, make_group_template  # noqa: E402


def options():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="100000,1000000,10000000", help="fixes in every system, comma-separated")
    p.add_argument("--queries", type=int, default=100, help="queries of each kind")
    p.add_argument("--passes", type=int, default=1, help="timed passes over the queries")
    p.add_argument("--members", type=int, default=1000, help="group members sharing a device each (at most 1,000)")
    p.add_argument("--batches", default="10,100,1000,10000", help="ingest batch sizes")
    p.add_argument("--ingest-seconds", type=float, default=5, help="seconds of each ingest measurement")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--places", default=os.path.join(ROOT, "Data/places-cities1000.bin"))
    p.add_argument("--countries", default=os.path.join(ROOT, "Data/countries-110m.geojson"))
    p.add_argument("--build", default=None, help="the .build configuration with fod (default release; --quick: debug)")
    p.add_argument("--out", default=None, help="where REPORT.md and figures/ go (default Benchmarks/)")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory")
    p.add_argument("--before", default=None, help="a fod binary of the code before a change: its HTTP query times side by side")
    p.add_argument("--before-label", default="the build before", help="what --before is (e.g. a commit)")
    p.add_argument("--before-max-n", type=int, default=1_000_000, help="sizes up to which --before runs")
    p.add_argument("--quick", action="store_true")
    o = p.parse_args()
    if o.quick:
        o.sizes, o.queries, o.members, o.batches, o.ingest_seconds = "2000", 3, 6, "100", 0.3
    o.sizes = [int(s) for s in o.sizes.split(",")]
    o.batches = [int(b) for b in o.batches.split(",")]
    o.polygon_hits = 2000 if not o.quick else 40
    build = os.path.join(ROOT, ".build", o.build or ("debug" if o.quick else "release"))
    o.fod, o.engine = os.path.join(build, "fod"), os.path.join(build, "fod-engine-bench")
    for binary in (o.fod, o.engine):
        if not os.access(binary, os.X_OK):
            raise SystemExit(f"{binary} missing: swift build {'' if o.quick else '-c release '}first")
    return o


def find_peers(quick):
    """{peer: detail} of the peers installed; a missing one fails the full run, the smoke skips it."""
    found, missing = {}, []
    found["rtree"] = True
    (found.__setitem__("spatialite", True) if services.spatialite_available() else missing.append("SpatiaLite (libsqlite3-mod-spatialite)"))
    (found.__setitem__("redis", True) if services.redis_available() else missing.append("Redis (redis-server)"))
    bindir = services.postgres_bindir()
    (found.__setitem__("postgis", bindir) if bindir else missing.append("PostGIS (postgresql-15-postgis-3)"))
    for name in missing:
        if not quick:
            raise SystemExit(f"peer not installed: {name} (scripts/install-deps.sh installs the peers with FOD_INSTALL_TEST_TOOLS=1)")
        print(f"(--quick: {name} not installed: skipped)")
    return found


def build_client(work, has_pg):
    path = os.path.join(work, "benchclient")
    sources = [os.path.join(HERE, "client", f) for f in ("common.c", "net.c", "sql.c")]
    include = subprocess.run(["pg_config", "--includedir"], capture_output=True, text=True).stdout.strip() if has_pg else ""
    subprocess.run(["gcc", "-O2", "-Wall", "-o", path, *sources, f"-I{include or '/usr/include/postgresql'}",
                    "-lpq", "-lsqlite3", "-lm", "-lpthread"], check=True)
    return Client(path)


def timed(action):
    """Seconds `action()` took."""
    began = time.time()
    action()
    return time.time() - began


def ingest_phase(o, client, peers, cluster, work):
    """Fixes/s of each system's durable bulk path at each batch size (same points, fresh stores)."""
    path = os.path.join(work, "ingest-points.bin")
    fixtures.make_points(client, os.path.join(work, "places.bin"), 200_000 if not o.quick else 2_000, o.seed + 100, path)
    results = {}

    def measure(name, run, settle=None):
        """`settle` runs before each batch size and returns the seconds a system took to finish
        the background work the previous one left (fod: its index merge; PostGIS: a checkpoint),
        so that no batch size pays for the one before it."""
        results[name] = {}
        offset = 0
        for batch in o.batches:
            settled = settle() if settle else None
            latencies = os.path.join(work, "ingest-lat.txt")
            fixes, seconds, _ = run(batch, offset, latencies)
            offset += fixes
            per_request = summary([ms for ms, _ in read_latencies(latencies)])
            results[name][str(batch)] = {"fixes_per_second": fixes / seconds, "fixes": fixes, "p50_ms": per_request["p50"], "p99_ms": per_request["p99"]}
            if settled is not None:
                results[name][str(batch)]["settle_seconds_before"] = settled
            progress(f"ingest: {name}, {batch} a batch: {fixes / seconds:,.0f} fixes/s")

    progress("ingest: fod serve (synchronous=FULL), 4 connections")
    fod = services.Fod(o.fod, os.path.join(work, "ingest-fod"))
    owner = fod.call("POST", "/v1/users", {"email": "ingest@bench.example", "password": "bench-password", "displayName": "Ingest"})
    with open(os.path.join(work, "ingest-devices.txt"), "w") as f:
        for i in range(8):
            d = fod.call("POST", "/v1/devices", {"name": f"d{i}"}, owner["token"])
            f.write(f'{d["device"]["id"]} {d["deviceToken"]}\n')
    t0 = int(time.time() * 1000)
    measure("fod HTTP", lambda b, first, out: client.ingest(
        "http-ingest", "127.0.0.1", fod.port, os.path.join(work, "ingest-devices.txt"), path, b, 4, o.ingest_seconds, t0, first, 10**9, out),
        settle=fod.wait_merged)
    fod.stop()
    if cluster:
        pg = cluster.database("ingest")
        pg.sql("CREATE TABLE pts (id bigint PRIMARY KEY, device int, ts bigint, g geography(Point, 4326)); CREATE INDEX ON pts USING gist (g)")
        measure("PostGIS COPY", lambda b, first, out: client.ingest("pg-ingest", pg.conninfo, path, b, 4, o.ingest_seconds, first, 10**9, out),
                settle=lambda: timed(lambda: pg.sql("CHECKPOINT")))
        cluster.drop("ingest")
    if "redis" in peers:
        for durable, name in ((True, "Redis AOF always"), (False, "Redis no persistence")):
            redis = services.Redis(os.path.join(work, f"ingest-redis-{durable}"), durable)
            measure(name, lambda b, first, out: client.ingest("redis-ingest", "127.0.0.1", redis.port, "pts", path, b, 4, o.ingest_seconds, first, 10**9, out))
            redis.stop()
    for system, name in (("rtree", "SQLite R*Tree"), ("spatialite", "SpatiaLite")):
        if system in peers:
            db = os.path.join(work, f"ingest-{system}.sqlite")
            measure(name, lambda b, first, out: client.ingest("sqlite-ingest", db, system, path, b, o.ingest_seconds, first, 10**9, out, "FULL"))
    return results


def machine():
    def first(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, shell=True).stdout.strip().splitlines()[0]
        except (IndexError, OSError):
            return "?"
    cpu = first("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip()
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
            "kernel": platform.release(), "load_start": os.getloadavg(),
            "versions": {"redis": first("redis-server --version"), "postgres": first("pg_config --version"),
                         "postgis": first("ls /usr/share/postgresql/*/extension/postgis--*.sql | sed 's/.*postgis--//; s/.sql$//' | sort -V | tail -1"),
                         "sqlite": first("sqlite3 --version | cut -d' ' -f1"), "spatialite": first("dpkg-query -W -f='${Version}' libsqlite3-mod-spatialite"),
                         "swift": first("swift --version 2>&1")}}


def main():
    o = options()
    peers = find_peers(o.quick)
    work = tempfile.mkdtemp(prefix="fod-report-")
    if os.geteuid() == 0:
        os.chmod(work, 0o755)
    out = o.out or (os.path.join(work, "out") if o.quick else os.path.join(ROOT, "Benchmarks"))
    os.makedirs(os.path.join(out, "figures"), exist_ok=True)
    try:
        client = build_client(work, "postgis" in peers)
        places = fixtures.read_places(o.places)
        fixtures.write_places(places, os.path.join(work, "places.bin"))
        progress(f"{len(places):,} places; peers: {', '.join(sorted(peers))}; sizes {o.sizes}")
        results = {"machine": machine(), "command": " ".join(sys.argv), "quick": o.quick, "options": {
            "sizes": o.sizes, "queries": o.queries, "passes": o.passes, "members": o.members, "batches": o.batches,
            "ingest_seconds": o.ingest_seconds, "seed": o.seed, "before": o.before_label if o.before else None}, "sizes": []}
        cluster = services.Postgres(os.path.join(work, "pg"), peers["postgis"]) if "postgis" in peers else None
        results["ingest"] = ingest_phase(o, client, peers, cluster, work)
        templates = (make_group_template(o, work, o.fod), make_group_template(o, work, o.before, "before-template") if o.before else None)
        for n in o.sizes:
            results["sizes"].append(QueryPhase(o, client, peers, places, n, work, templates, cluster).run())
        if cluster:
            cluster.stop()
        results["machine"]["load_end"] = os.getloadavg()
        results["seconds"] = time.time() - STARTED
        with open(os.path.join(out, "figures", "results.json"), "w") as f:
            json.dump(results, f, indent=1)
        report.write(results, out)
        progress(f"wrote {os.path.join(out, 'REPORT.md')}")
    finally:
        services.stop_running()
        if o.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
