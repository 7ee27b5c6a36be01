#!/usr/bin/env python3
"""Notification latency and the cost of alerts on ingest (issue #43's benchmark).

Measures, against real `fod serve` processes on loopback:
  1. latency from a fix's 2xx to its webhook's arrival at a receiver, with one alert firing a
     second and with ~1,000 a second (walkers posting fixes that cross a place each time);
  2. the ingest rate (fixes/s, batches of 100) of a server whose groups hold 10,000 alerts,
     side by side with an identical server holding none, in alternating rounds.
The receiver runs in a process of its own (no lock shared with the clients).

    Benchmarks/notify/run.py [--fod .build/release/fod] [--postgres] [--seconds 10] [--walkers 100] [--latency-only]

With --postgres every server is three nodes on one throwaway PostgreSQL database (posts spread
over the nodes; any node sends). Prints a table with medians; figures go into the issue's note.
"""
import argparse
import datetime
import http.client
import http.server
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PLACE = (10.0, 50.0)


def receive(port_out, stop, arrivals):
    """The webhook receiver (its own process): records (arrival time, device id, occurredAt)."""
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            now = time.time()
            try:
                doc = json.loads(body)
                arrivals.put((now, doc["device"]["id"], doc["occurredAt"]))
            except (ValueError, KeyError):
                pass
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    port_out.put(server.server_address[1])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    stop.wait()
    server.shutdown()


class Node:
    def __init__(self, fod, data, database=None):
        args = [fod, "serve", "--port", "0", "--bind", "127.0.0.1", "--data", data, "--password-cost", "minimal",
                "--log-level", "error", "--device-request-rate", "0", "--sign-up-limit", "1000000", "--sign-in-limit", "1000000",
                "--invitation-limit", "1000000", "--notify-allow-private", "--notify-senders", "16", "--signup", "open"]
        if database:
            args += ["--database", database]
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("fod listening on port "):
            sys.exit(f"notify bench: fod did not start: {line!r}")
        self.port = int(line.split()[-1])

    def stop(self):
        self.process.terminate()
        self.process.wait()


class Client:
    """A keep-alive HTTP/1.1 client to one node."""

    def __init__(self, port):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(self, method, path, body=None, token=None):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        self.connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        return response.status, (json.loads(data) if data else None)


class Server:
    """One server (a node, or three on PostgreSQL) with `users` walkers: each its own user,
    device, group, place and (optionally) a webhook alert to the receiver."""

    def __init__(self, fod, postgres_url, receiver_port, users, alerts_per_user, work, name):
        self.nodes = [Node(fod, os.path.join(work, f"{name}-{i}"), postgres_url) for i in range(3 if postgres_url else 1)]
        client = Client(self.nodes[0].port)
        self.walkers = []
        for u in range(users):
            _, signed = client.call("POST", "/v1/users", {"email": f"{name}{u}@bench.org", "password": "bench-password", "displayName": f"W{u}"})
            token = signed["token"]
            _, device = client.call("POST", "/v1/devices", {"name": f"walker {u}"}, token)
            _, group = client.call("POST", f"/v1/groups", {"name": f"g{u}", "deviceId": device["device"]["id"]}, token)
            client.call("POST", f"/v1/groups/{group['id']}/places",
                        {"name": "Home", "geometry": {"type": "Point", "coordinates": list(PLACE)}, "radius": 300}, token)
            if alerts_per_user:
                _, channel = client.call("POST", "/v1/me/channels", {"name": "r", "type": "webhook", "url": f"http://127.0.0.1:{receiver_port}/hook"}, token)
                for _ in range(alerts_per_user):
                    status, alert = client.call("POST", f"/v1/groups/{group['id']}/alerts", {"channelId": channel["id"], "events": ["enter", "exit"]}, token)
                    if status != 201:
                        sys.exit(f"notify bench: alert: {status} {alert}")
            self.walkers.append((device["device"]["id"], device["deviceToken"]))

    def stop(self):
        for node in self.nodes:
            node.stop()


def iso(ms):
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def walk(server, walkers, rate, seconds, posted, start_ms):
    """Each walker posts `rate` fixes a second, in and out of the place (a crossing each time);
    records the 2xx time of each fix by (device id, occurredAt)."""
    stop_at = time.time() + seconds
    threads = []

    def run(index, device):
        client = Client(server.nodes[index % len(server.nodes)].port)
        ts, step, k = start_ms + index, 1.0 / rate, 0
        next_at = time.time() + random.random() * step
        while time.time() < stop_at:
            delay = next_at - time.time()
            if delay > 0:
                time.sleep(delay)
            next_at += step
            lon = PLACE[0] if k % 2 == 0 else PLACE[0] + 0.05
            ts += 1_000
            k += 1
            status, _ = client.call("POST", f"/v1/devices/{device[0]}/locations", {"location": [lon, PLACE[1]], "timestamp": ts}, device[1])
            if status == 200:
                posted[(device[0], iso(ts))] = time.time()

    for index, device in enumerate(walkers):
        thread = threading.Thread(target=run, args=(index, device), daemon=True)
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()


def latency(server, arrivals, walkers, rate, seconds, start_ms):
    posted = {}
    while not arrivals.empty():
        arrivals.get()
    walk(server, walkers, rate, seconds, posted, start_ms)
    received, deadline = [], time.time() + 30
    while time.time() < deadline and len(received) < len(posted) - len(walkers):
        try:
            received.append(arrivals.get(timeout=1))
        except Exception:
            pass
    delays = sorted((arrived - posted[(device, at)]) * 1000 for arrived, device, at in received if (device, at) in posted)
    return delays, len(posted), len(received)


def ingest_round(server, seconds):
    """Fixes/s of every walker posting batches of 100 (fixes far from the place) for `seconds`."""
    count = [0]
    lock = threading.Lock()
    stop_at = time.time() + seconds

    def run(index, device):
        client = Client(server.nodes[index % len(server.nodes)].port)
        ts = int(time.time() * 1000) - 10 * 86_400_000 + index * 10_000_000
        while time.time() < stop_at:
            batch = [{"location": [PLACE[0] + 1 + random.random(), PLACE[1]], "timestamp": ts + i} for i in range(100)]
            ts += 100
            status, _ = client.call("POST", f"/v1/devices/{device[0]}/locations", {"locations": batch}, device[1])
            if status == 200:
                with lock:
                    count[0] += 100

    threads = [threading.Thread(target=run, args=(i, d), daemon=True) for i, d in enumerate(server.walkers[:8])]
    started = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return count[0] / (time.time() - started)


def percentile(values, p):
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default = os.path.join(ROOT, ".build/release/fod")
    parser.add_argument("--fod", default=default if os.path.exists(default) else os.path.join(ROOT, ".build/debug/fod"))
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--walkers", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency-only", action="store_true", help="measure the latency only (no ingest rounds)")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="fod-notify-bench-")
    database_urls = [None, None]
    pg_dir = os.path.join(work, "postgres")
    script = os.path.join(ROOT, "scripts/pg-test-server.sh")
    if args.postgres:
        os.chmod(work, 0o755)
        url = subprocess.run([script, "start", pg_dir], check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        import urllib.parse
        for i, name in enumerate(["notify_a", "notify_b"]):
            subprocess.run(["psql", url, "-qc", f"CREATE DATABASE {name}"], check=True, capture_output=True)
            parsed = urllib.parse.urlsplit(url)
            database_urls[i] = urllib.parse.urlunsplit(parsed._replace(path="/" + name))
    ports, stop, arrivals = multiprocessing.Queue(), multiprocessing.Event(), multiprocessing.Queue()
    receiver = multiprocessing.Process(target=receive, args=(ports, stop, arrivals), daemon=True)
    receiver.start()
    receiver_port = ports.get(timeout=10)
    kind = "3 nodes on PostgreSQL" if args.postgres else "SQLite"
    print(f"notify bench: {kind}, {args.fod}, {args.walkers} walkers, {args.seconds:.0f} s a phase", flush=True)
    with_alerts = Server(args.fod, database_urls[0], receiver_port, args.walkers, 1, work, "a")
    try:
        start_ms = int(time.time() * 1000)
        one, posted1, got1 = latency(with_alerts, arrivals, with_alerts.walkers[:1], 1, args.seconds, start_ms)
        many, posted2, got2 = latency(with_alerts, arrivals, with_alerts.walkers, 10, args.seconds, start_ms + 1)
        rate = got2 / args.seconds
        print(f"  latency, ~1 alert/s:   p50 {percentile(one, 50):7.1f} ms  p99 {percentile(one, 99):7.1f} ms  ({got1} of {posted1} arrived)")
        print(f"  latency, ~{rate:4.0f} alerts/s: p50 {percentile(many, 50):7.1f} ms  p99 {percentile(many, 99):7.1f} ms  ({got2} of {posted2} arrived)")
        if args.postgres:
            # Where the time went on a cluster: from the delivery row (the matcher's insert) to its
            # first attempt (the senders: lease, send, record), median and 99th percentile in ms.
            stage = subprocess.run(["psql", database_urls[0], "-Atc", """
                SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY last_attempt_at - created_at)::numeric, 1),
                       round(percentile_cont(0.99) WITHIN GROUP (ORDER BY last_attempt_at - created_at)::numeric, 1)
                FROM deliveries WHERE attempts = 1"""], capture_output=True, text=True).stdout.strip().split("|")
            if len(stage) == 2:
                print(f"    of which from the delivery row to its sending: p50 {stage[0]} ms, p99 {stage[1]} ms")
    finally:
        with_alerts.stop()
        if args.latency_only:
            stop.set()
            receiver.join(timeout=5)
            if args.postgres:
                subprocess.run([script, "stop", pg_dir], capture_output=True)
    if args.latency_only:
        return
    # Ingest: 100 alerts on each of 100 walkers' groups (10,000), against the same without.
    loaded = Server(args.fod, database_urls[0] if not args.postgres else database_urls[1], receiver_port, 100, 100, work, "b")
    bare = Server(args.fod, None if not args.postgres else database_urls[0], receiver_port, 100, 0, work, "c") if not args.postgres else None
    try:
        if bare is None:
            print("  ingest with 10,000 alerts vs without: run without --postgres (two side-by-side servers)")
        else:
            pairs = []
            for _ in range(args.rounds):
                pairs.append((ingest_round(bare, args.seconds / 2), ingest_round(loaded, args.seconds / 2)))
            without = statistics.median(p[0] for p in pairs)
            withalerts = statistics.median(p[1] for p in pairs)
            print(f"  ingest (batches of 100, 8 clients), medians of {args.rounds} alternating rounds: "
                  f"without alerts {without:,.0f} fixes/s, with 10,000 alerts {withalerts:,.0f} fixes/s (x{withalerts / without:.2f})")
    finally:
        loaded.stop()
        if bare:
            bare.stop()
        stop.set()
        receiver.join(timeout=5)
        if args.postgres:
            subprocess.run([script, "stop", pg_dir], capture_output=True)


if __name__ == "__main__":
    main()
