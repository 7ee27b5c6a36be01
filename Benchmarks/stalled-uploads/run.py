#!/usr/bin/env python3
"""Anonymous stalled uploads against `fod serve` (issue #47, finding 1): the server's memory
growth and normal clients' latency while 1,000 uploads without a credential announce large
bodies, send a part, then stall or trickle one byte every 20 s.

The attack keeps `--stalled` uploads going from other loopback addresses (127.0.0.2 and up, so
the per-address connection limit does not stop it), in three kinds:
  - half to `POST /v1/devices/{id}/locations` and `/v1/ingest/overland`: 8 MiB announced,
    `--part-kib` sent, no token (refused at the headers: each is opened again after
    `--retry-seconds`);
  - a quarter to `POST /v1/users` (no credential to check): 16 KiB announced, all but 54 bytes
    sent, then one byte every 20 s (held until the pace rules cut it, then opened again);
  - a quarter to `POST /v1/ingest/osmand` as a form without an id: 1 MiB announced, 16 KiB sent.
The attack runs for two phases of `--duration` seconds: first alone, for the server's RSS growth
over the baseline taken after a warm-up (sampled every 0.25 s; the peak counts); then with
`--clients` normal clients that post a new fix and read the history in turn over keep-alive
connections, for their latency (their own fixes grow the server's memory too: that phase's RSS
is shown apart).

Goal: RSS growth <= 32 MiB and normal clients' p99 <= 100 ms (exit 1 when missed; --quick runs
a short smoke against the debug build and checks nothing).

    Benchmarks/stalled-uploads/run.py [--quick] [--fod PATH] [--stalled N] [--duration S] [--clients N]
"""
import argparse
import multiprocessing
import os
import pathlib
import selectors
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Benchmarks/lib"))
import fod_api  # noqa: E402


def parse_arguments():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a short smoke run on the debug build (figures mean nothing)")
    p.add_argument("--fod", default=None, help="the fod binary (default .build/release/fod; .build/debug/fod with --quick)")
    p.add_argument("--stalled", type=int, default=1000, help="stalled anonymous uploads kept going (default 1000)")
    p.add_argument("--duration", type=float, default=60, help="seconds of attack measured (default 60)")
    p.add_argument("--clients", type=int, default=4, help="normal clients (default 4)")
    p.add_argument("--part-kib", type=int, default=256, help="KiB sent of each 8 MiB upload before it stalls (default 256)")
    p.add_argument("--retry-seconds", type=float, default=1.0, help="how soon a refused upload is opened again (default 1)")
    p.add_argument("--trickle-seconds", type=float, default=20.0, help="one byte every this many seconds on a held upload (default 20)")
    p.add_argument("--server-arg", action="append", default=[], help="extra argument for fod serve (repeatable)")
    o = p.parse_args()
    if o.quick:
        o.stalled, o.duration, o.clients = min(o.stalled, 100), min(o.duration, 5), min(o.clients, 2)
    o.fod = o.fod or str(ROOT / (".build/debug/fod" if o.quick else ".build/release/fod"))
    return o


class Server:
    """`fod serve` on a free port over a temporary data directory."""

    def __init__(self, binary, extra):
        self.directory = tempfile.mkdtemp(prefix="fod-stalled-")
        self.log = open(os.path.join(self.directory, "server.log"), "wb")
        arguments = [binary, "serve", "--port", "0", "--bind", "0.0.0.0", "--data", os.path.join(self.directory, "data"),
                     "--password-cost", "minimal", "--log-level", "warning", "--device-request-rate", "0"] + extra
        self.process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=self.log)
        line = self.process.stdout.readline().decode()
        if "listening on port" not in line:
            raise SystemExit(f"fod serve did not start: {line!r}")
        self.port = int(line.split()[-1])

    def rss(self):
        for line in open(f"/proc/{self.process.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        shutil.rmtree(self.directory, ignore_errors=True)


# ---------------------------------------------------------------------------- the attack

def upload_kinds(device_id, part):
    """(name, head, first part, trickles) of each kind of stalled upload, by share of four."""
    def head(target, length, content_type="application/json"):
        return (f"POST {target} HTTP/1.1\r\nHost: fod\r\nContent-Type: {content_type}\r\n"
                f"Content-Length: {length}\r\n\r\n").encode()
    locations = ("locations", head(f"/v1/devices/{device_id}/locations", 8 << 20), b'{"locations":[' + b" " * (part - 14), False)
    overland = ("overland", head("/v1/ingest/overland", 8 << 20), b'{"locations":[' + b" " * (part - 14), False)
    sign_up = ("sign-up", head("/v1/users", 16 * 1024), b'{"email":"' + b"x" * (16 * 1024 - 64), True)
    osmand = ("osmand", head("/v1/ingest/osmand", 1 << 20, "application/x-www-form-urlencoded"), b"lat=1&lon=2&pad=" + b"x" * (16 * 1024 - 16), False)
    return [locations, overland, sign_up, osmand]


class Upload:
    __slots__ = ("kind", "sock", "pending", "opened", "next_trickle", "source")


def attack(port, device_id, count, duration, part, retry_seconds, trickle_seconds, results):
    """Keeps `count` stalled uploads going for `duration` s; puts its counters on `results`."""
    kinds = upload_kinds(device_id, part)
    selector = selectors.DefaultSelector()
    answers, cut, opened_total, reopen = {}, 0, 0, []
    open_samples = []

    def open_upload(k, now):
        nonlocal opened_total
        kind = kinds[k % 4]
        u = Upload()
        u.kind, u.source = kind, f"127.0.{2 + (k // 250) // 250}.{2 + (k // 250) % 250}"
        u.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        u.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        u.sock.bind((u.source, 0))
        u.sock.setblocking(False)
        try:
            u.sock.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        u.pending = kind[1] + kind[2]
        u.opened = now
        u.next_trickle = now + trickle_seconds
        selector.register(u.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, (k, u))
        opened_total += 1

    def finish(k, u, status, now):
        nonlocal cut
        selector.unregister(u.sock)
        u.sock.close()
        if status is None:
            cut += 1
        else:
            answers[(u.kind[0], status)] = answers.get((u.kind[0], status), 0) + 1
        reopen.append((now + retry_seconds, k))

    start = time.monotonic()
    for k in range(count):
        open_upload(k, start)
    last_sample = start
    while time.monotonic() - start < duration:
        now = time.monotonic()
        for key, events in selector.select(timeout=0.1):
            k, u = key.data
            if events & selectors.EVENT_WRITE and u.pending:
                try:
                    sent = u.sock.send(u.pending)
                    u.pending = u.pending[sent:]
                except BlockingIOError:
                    pass
                except OSError:
                    u.pending = b""
                if not u.pending:
                    selector.modify(u.sock, selectors.EVENT_READ, (k, u))
            if events & selectors.EVENT_READ:
                try:
                    data = u.sock.recv(4096)
                except OSError:
                    data = b""
                status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else None
                finish(k, u, status, now)
        for key in list(selector.get_map().values()):
            k, u = key.data
            if u.kind[3] and not u.pending and now >= u.next_trickle:
                u.next_trickle = now + trickle_seconds
                try:
                    u.sock.send(b"x")
                except OSError:
                    pass
        due = [r for r in reopen if r[0] <= now]
        reopen[:] = [r for r in reopen if r[0] > now]
        for _, k in due:
            open_upload(k, now)
        if now - last_sample >= 0.5 and now - start >= 2:
            open_samples.append(len(selector.get_map()))
            last_sample = now
    for key in list(selector.get_map().values()):
        key.data[1].sock.close()
    results.put({"answers": answers, "cut": cut, "opened": opened_total,
                 "open_mean": statistics.mean(open_samples) if open_samples else 0,
                 "open_max": max(open_samples) if open_samples else 0})


# ---------------------------------------------------------------------------- normal clients

def normal_client(port, device_id, device_token, user_token, stop, latencies, errors, index):
    import http.client
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    k = 0
    while not stop.is_set():
        k += 1
        body = f'{{"location":[2.35,48.85],"timestamp":{1_700_000_000_000 + index * 100_000_000 + k * 1000},"accuracy":5}}'
        for method, path, payload, token in (
                ("POST", f"/v1/devices/{device_id}/locations", body, device_token),
                ("GET", f"/v1/devices/{device_id}/locations?limit=10", None, user_token)):
            started = time.perf_counter()
            try:
                connection.request(method, path, body=payload, headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
                reply = connection.getresponse()
                reply.read()
                ok = reply.status == 200
            except (OSError, http.client.HTTPException):
                ok = False
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            latencies.append(time.perf_counter() - started)
            if not ok:
                errors.append(1)


def measure_clients(port, device, clients, seconds):
    """(latencies in s, errors) of `clients` normal clients over `seconds`."""
    stop, latencies, errors = threading.Event(), [], []
    threads = [threading.Thread(target=normal_client, args=(port, device[0], device[1], device[2], stop, latencies, errors, i), daemon=True)
               for i in range(clients)]
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join(timeout=15)
    return latencies, len(errors)


class RSSSampler:
    """Samples a server's RSS every 0.25 s in a thread; `peak` is the largest so far."""

    def __init__(self, server):
        self.server, self.peak, self.done = server, server.rss(), threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.done.is_set():
            self.peak = max(self.peak, self.server.rss())
            time.sleep(0.25)

    def stop(self):
        self.done.set()
        self.thread.join()


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else float("nan")


def describe(latencies):
    return (f"{len(latencies)} requests, p50 {percentile(latencies, 50) * 1000:.2f} ms, "
            f"p99 {percentile(latencies, 99) * 1000:.2f} ms, max {max(latencies) * 1000:.1f} ms")


def main():
    o = parse_arguments()
    if not os.access(o.fod, os.X_OK):
        raise SystemExit(f"no fod binary at {o.fod} (swift build -c release)")
    server = Server(o.fod, o.server_arg)
    try:
        device = fod_api.new_device(server.port)
        print(f"stalled uploads: {o.fod}, {o.stalled} stalled anonymous uploads, {o.clients} normal clients, "
              f"{o.duration:g} s, {os.cpu_count()} cores")
        # Warm-up, then the baseline: memory and latency without the attack.
        measure_clients(server.port, device, o.clients, 2 if o.quick else 5)
        quiet, quiet_errors = measure_clients(server.port, device, o.clients, 2 if o.quick else 10)
        baseline = server.rss()
        print(f"  without the attack: {describe(quiet)}, errors {quiet_errors}; RSS {baseline / 2**20:.1f} MiB")
        results = multiprocessing.Queue()
        attacker = multiprocessing.Process(target=attack, args=(server.port, device[0], o.stalled, 2 * o.duration + 5,
                                                                o.part_kib * 1024, o.retry_seconds, o.trickle_seconds, results), daemon=True)
        attacker.start()
        sampler = RSSSampler(server)
        time.sleep(o.duration)
        attack_peak = sampler.peak
        loaded, loaded_errors = measure_clients(server.port, device, o.clients, o.duration)
        sampler.stop()
        counters = results.get(timeout=60)
        attacker.join(timeout=10)
        growth = attack_peak - baseline
        print(f"  attack alone ({o.duration:g} s): server RSS baseline {baseline / 2**20:.1f} MiB, peak {attack_peak / 2**20:.1f} MiB, "
              f"growth {growth / 2**20:.1f} MiB")
        print(f"  attack with normal clients ({o.duration:g} s): {describe(loaded)}, errors {loaded_errors}; "
              f"server RSS peak {sampler.peak / 2**20:.1f} MiB (their fixes included)")
        answers = ", ".join(f"{kind} {status}: {n}" for (kind, status), n in sorted(counters["answers"].items()))
        print(f"  attack: {counters['opened']} uploads opened, {counters['open_mean']:.0f} open on average (at most {counters['open_max']}); "
              f"answered before their body: {answers or 'none'}; closed without an answer read: {counters['cut']}")
        if o.quick:
            print("  (--quick: a smoke run; the goal is not checked)")
            return 0
        met = growth <= 32 * 2**20 and percentile(loaded, 99) <= 0.100 and loaded_errors == 0
        print(f"  goal (RSS growth <= 32 MiB, p99 <= 100 ms, no errors): {'met' if met else 'MISSED'}")
        return 0 if met else 1
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
