#!/usr/bin/env python3
"""Soak benchmark driver (run through Benchmarks/soak/run.sh).

Starts `fod serve` on a fresh data directory, signs up one user with 64 devices and a group that
device 0 shares with, lets it idle, then runs `soakload` (sustained batched ingest, geo queries
and a live stream) for the given time. Every interval it samples the server from outside: the
load's fixes/s and latency, the `-wal` and database file sizes, RSS, and the gauges of /metrics.
After the load it keeps sampling while the server idles, checks the database (`fod db check`),
and writes a markdown table and an SVG plot.
"""
import argparse, json, os, re, signal, socket, sqlite3, subprocess, sys, tempfile, time, urllib.request

import plot


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, binary, data, extra):
        self.port = free_port()
        self.data = data
        self.log = open(os.path.join(os.path.dirname(data), "fod.log"), "w")
        # /metrics wants a bearer token (not served on the public port otherwise).
        os.environ.setdefault("FOD_METRICS_TOKEN", "benchmark-metrics-token")
        self.process = subprocess.Popen(
            [binary, "serve", "--port", str(self.port), "--bind", "127.0.0.1", "--data", data, "--log-level", "warning",
             "--password-cost", "minimal", "--signup", "open", "--device-request-rate", "0"] + extra,
            stdout=subprocess.DEVNULL, stderr=self.log)
        for _ in range(2400):  # up to ~2 min: a debug build starts slowly on a loaded machine
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=1)
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("fod did not start: see " + self.log.name)

    def call(self, method, path, body=None, token=None):
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}", method=method, data=json.dumps(body).encode() if body is not None else None,
            headers={"Content-Type": "application/json", **({"Authorization": "Bearer " + token} if token else {})})
        return json.load(urllib.request.urlopen(request, timeout=30))

    def metrics(self):
        try:
            request = urllib.request.Request(f"http://127.0.0.1:{self.port}/metrics",
                                             headers={"Authorization": "Bearer " + os.environ["FOD_METRICS_TOKEN"]})
            text = urllib.request.urlopen(request, timeout=10).read().decode()
        except OSError:
            return {}
        return {m.group(1): float(m.group(2)) for m in re.finditer(r"^(fod_[a-z_]+) ([0-9.e+-]+)$", text, re.M)}

    def rss_bytes(self):
        with open(f"/proc/{self.process.pid}/status") as f:
            return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1)) * 1024

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=600)


def file_bytes(path):
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return 0


def setup(server, work):
    user = server.call("POST", "/v1/users", {"email": "soak@example.org", "password": "soak-password", "displayName": "Soak"})
    devices = [server.call("POST", "/v1/devices", {"name": f"tracker {i}"}, user["token"]) for i in range(64)]
    group = server.call("POST", "/v1/groups", {"name": "Soak", "deviceId": devices[0]["device"]["id"]}, user["token"])
    with open(os.path.join(work, "devices.txt"), "w") as f:
        f.writelines(f'{d["device"]["id"]} {d["deviceToken"]}\n' for d in devices)
    with open(os.path.join(work, "group.txt"), "w") as f:
        f.write(f'{group["id"]} {user["token"]}\n')


def sample(server, phase, t, load=None):
    data = server.data
    gauges = server.metrics()
    row = {"phase": phase, "t": t, "wal": file_bytes(os.path.join(data, "fod.sqlite-wal")),
           "db": file_bytes(os.path.join(data, "fod.sqlite")), "shm": file_bytes(os.path.join(data, "fod.sqlite-shm")),
           "rss": server.rss_bytes(), "unmerged": gauges.get("fod_index_unmerged_fixes", 0),
           "lag": gauges.get("fod_wal_checkpoint_lag_bytes"), "restarts": gauges.get("fod_wal_restarts_total")}
    row.update(load or {})
    return row


def parse_pairs(line):
    return {k: float(v) for k, v in (p.split("=", 1) for p in line.split()[1:])}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="directory with fod and soakload")
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--interval", type=float, default=5)
    parser.add_argument("--idle-before", type=float, default=10)
    parser.add_argument("--idle-after", type=float, default=60)
    parser.add_argument("--positions", default="tracks", choices=["tracks", "scattered"])
    parser.add_argument("--rate", type=float, default=0, help="requests/s cap (0: as fast as the server answers)")
    parser.add_argument("--query-rate", type=float, default=20)
    parser.add_argument("--serve-args", default="", help="extra fod serve flags")
    parser.add_argument("--out", default=None, help="directory for the table and the plot")
    parser.add_argument("--label", default="soak")
    parser.add_argument("--no-check", action="store_true", help="skip fod db check at the end")
    parser.add_argument("--keep", action="store_true", help="keep the data directory")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="fod-soak-")
    out = args.out or tempfile.mkdtemp(prefix="fod-soak-results-")
    os.makedirs(out, exist_ok=True)
    data = os.path.join(work, "data")
    server = Server(os.path.join(args.bin, "fod"), data, args.serve_args.split())
    rows, summary = [], {}
    try:
        setup(server, work)
        time.sleep(args.idle_before)
        idle_before = sample(server, "idle", 0)
        rows.append(idle_before)
        print(f"idle before the load: RSS {idle_before['rss'] / 2**20:.1f} MiB", flush=True)
        load = subprocess.Popen(
            [os.path.join(args.bin, "soakload"), "--port", str(server.port), "--devices", os.path.join(work, "devices.txt"),
             "--group", os.path.join(work, "group.txt"), "--duration", str(args.minutes * 60), "--interval", str(args.interval),
             "--positions", args.positions, "--rate", str(args.rate), "--query-rate", str(args.query_rate),
             # From now on: the group's history shows fixes from when its devices began sharing.
             "--base-ms", str(int(time.time() * 1000))],
            stdout=subprocess.PIPE, text=True)
        start = time.monotonic()
        for line in load.stdout:
            if line.startswith("sample"):
                pairs = parse_pairs(line)
                row = sample(server, "load", time.monotonic() - start, pairs)
                rows.append(row)
                print(f"t={row['t']:6.0f}s {pairs['fixes_per_s']:8.0f} fixes/s p99 {pairs['p99_ms']:7.1f} ms  "
                      f"WAL {row['wal'] / 2**20:7.1f} MiB  DB {row['db'] / 2**20:8.1f} MiB  RSS {row['rss'] / 2**20:6.1f} MiB  "
                      f"unmerged {row['unmerged']:9.0f}", flush=True)
            elif line.startswith("total"):
                summary = parse_pairs(line)
        load_status = load.wait()
        if not any(r["phase"] == "load" for r in rows):
            raise SystemExit(f"soakload ended (status {load_status}) before its first sample")
        load_end = time.monotonic() - start
        deadline = time.monotonic() + args.idle_after
        while True:
            time.sleep(min(args.interval, max(0, deadline - time.monotonic())))
            row = sample(server, "idle", time.monotonic() - start)
            rows.append(row)
            if time.monotonic() >= deadline:
                break
        at_rest = rows[-1]
        stored = sqlite3.connect(f"file:{data}/fod.sqlite?mode=ro", uri=True).execute("SELECT count(*) FROM locations").fetchone()[0]
        conn = sqlite3.connect(f"file:{data}/fod.sqlite?mode=ro", uri=True)
        free_pages, page_size = conn.execute("PRAGMA freelist_count").fetchone()[0], conn.execute("PRAGMA page_size").fetchone()[0]
        conn.close()
        gauges = server.metrics()
    finally:
        status = server.stop()
    check = "skipped"
    if not args.no_check:
        result = subprocess.run([os.path.join(args.bin, "fod"), "db", "check", "--data", data], capture_output=True, text=True)
        last = (result.stdout.strip().splitlines() or ["no output"])[-1]
        check = last if result.returncode == 0 else "FAILED: " + last

    limit = gauges.get("fod_wal_limit_bytes")
    load_rows = [r for r in rows if r["phase"] == "load"]
    max_wal = max(r["wal"] for r in load_rows + [at_rest])
    disk = at_rest["db"] + at_rest["wal"] + at_rest["shm"]
    facts = [
        ("load", f"{args.minutes:g} min, 100 fixes/request, 64 connections, positions {args.positions}, "
                 f"{args.query_rate:g} queries/s, one live stream; fod serve {args.serve_args or '(defaults)'}"),
        ("sustained ingest", f"{summary.get('fixes_per_s', 0):,.0f} fixes/s over {summary.get('seconds', 0):.0f} s "
                             f"({summary.get('fixes', 0):,.0f} fixes acknowledged, {summary.get('non2xx', 0):.0f} non-2xx)"),
        ("ingest latency", f"p50 {summary.get('p50_ms', 0):.1f} ms, p99 {summary.get('p99_ms', 0):.1f} ms, "
                           f"max {summary.get('max_ms', 0):.1f} ms"),
        ("interval p99 (median / worst)", f"{median([r['p99_ms'] for r in load_rows]):.1f} / {max(r['p99_ms'] for r in load_rows):.1f} ms"),
        ("queries", f"{summary.get('queries', 0):.0f}, p50 {summary.get('query_p50_ms', 0):.1f} ms, "
                    f"p99 {summary.get('query_p99_ms', 0):.1f} ms, {summary.get('query_non2xx', 0):.0f} non-2xx"),
        ("live stream", f"{summary.get('live_events', 0):,.0f} location events, {summary.get('live_gaps', 0):.0f} missed, "
                        f"{summary.get('live_reconnects', 0):.0f} reconnects after a resync (a stream that fell behind)"),
        ("WAL", f"max {max_wal / 2**20:.1f} MiB over {len(load_rows)} samples"
                + (f" (bound {limit / 2**20:.0f} MiB: {'within' if max_wal <= limit else 'EXCEEDED'})" if limit else "")
                + f"; {at_rest['wal'] / 2**20:.1f} MiB at rest"),
        ("WAL checkpoints", f"{gauges.get('fod_wal_restarts_total', 0):.0f} log restarts by the writer, holding writes "
                            f"{gauges.get('fod_wal_writer_checkpoint_seconds_total', 0):.1f} s in all; largest commit "
                            f"{gauges.get('fod_wal_largest_commit_bytes', 0) / 2**20:.1f} MiB" if limit else "(no WAL gauges: an older build)"),
        ("disk at rest", f"{disk / 2**20:.1f} MiB = {disk / max(1, at_rest['db']):.2f}x the database file "
                         f"({at_rest['db'] / 2**20:.1f} MiB, {free_pages * page_size / 2**20:.1f} MiB of it free pages)"),
        ("RSS", f"idle before {idle_before['rss'] / 2**20:.1f} MiB, peak under load {max(r['rss'] for r in load_rows) / 2**20:.1f} MiB, "
                f"idle {at_rest['t'] - load_end:.0f} s after {at_rest['rss'] / 2**20:.1f} MiB "
                f"(+{(at_rest['rss'] - idle_before['rss']) / 2**20:.1f} MiB)"),
        ("stored fixes", f"{stored:,}"),
        ("fod db check", check),
        ("exit", f"soakload {load_status}, fod serve {status}"),
    ]
    table = write_table(os.path.join(out, args.label + ".md"), facts, rows)
    plot.write_svg(os.path.join(out, args.label + ".svg"), rows, load_end, limit, f"{args.label}: {facts[0][1]}")
    print(table)
    print(f"wrote {os.path.join(out, args.label + '.md')} and {os.path.join(out, args.label + '.svg')}")
    if not args.keep:
        subprocess.run(["rm", "-rf", work])
    failed = load_status != 0 or status != 0 or summary.get("live_events", 0) == 0 or check.startswith("FAILED") or (limit and max_wal > limit + gauges.get("fod_wal_largest_commit_bytes", 0))
    sys.exit(1 if failed else 0)


def median(values):
    values = sorted(values)
    return values[len(values) // 2] if values else 0


def write_table(path, facts, rows):
    mib = lambda v: f"{v / 2**20:.1f}"
    lines = ["| | |", "| --- | --- |"] + [f"| {k} | {v} |" for k, v in facts] + [""]
    lines += ["| t (s) | phase | fixes/s | p99 (ms) | query p99 (ms) | WAL (MiB) | database (MiB) | RSS (MiB) | unmerged fixes |",
              "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        load = r["phase"] == "load"
        lines.append(f"| {r['t']:.0f} | {r['phase']} | {r['fixes_per_s']:.0f} | {r['p99_ms']:.1f} | {r['query_p99_ms']:.1f} | "
                     if load else f"| {r['t']:.0f} | {r['phase']} | | | | ")
        lines[-1] += f"{mib(r['wal'])} | {mib(r['db'])} | {mib(r['rss'])} | {r['unmerged']:.0f} |"
    text = "\n".join(lines) + "\n"
    with open(path, "w") as f:
        f.write(text)
    return text


if __name__ == "__main__":
    main()
