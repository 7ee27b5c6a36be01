"""Black-box HTTP fuzzer for `fod serve`: starts the server, sets up real accounts in each
worker, sends mutated requests of every route in docs/openapi.yaml over several connections,
and fails on any 5xx, crash, hang or RSS growth past a bound. A share of the requests carry no
credential and announce a large body of which only a part is sent: each must be answered before
the rest (a refusal at the headers), never held open waiting for it."""
import argparse
import base64
import collections
import json
import multiprocessing
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile
import time

from . import request as requests
from . import spec as specs
from . import wire
from .world import SetupFailed, World

ROOT = pathlib.Path(__file__).resolve().parents[2]


def parse_arguments(argv):
    p = argparse.ArgumentParser(prog="fuzz-http", description=__doc__)
    p.add_argument("--requests", type=int, default=20_000, help="requests in all (default 20000)")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock; always printed)")
    p.add_argument("--connections", type=int, default=4, help="worker processes, one connection each (default 4)")
    p.add_argument("--fod", default=str(ROOT / ".build/debug/fod"), help="the fod binary")
    p.add_argument("--spec", default=str(ROOT / "docs/openapi.yaml"))
    p.add_argument("--deadline", type=float, default=15.0, help="seconds a request may wait for its reply (default 15)")
    p.add_argument("--rss-growth-mb", type=float, default=512, help="fail when RSS grows more than this past the warm-up (default 512)")
    p.add_argument("--mutation-rate", type=float, default=0.85, help="share of requests mutated (default 0.85)")
    p.add_argument("--unauthenticated-upload-rate", type=float, default=0.03,
                   help="share of requests sent without any credential, announcing a large body of which only a part "
                        "is sent: each must be answered before the rest, never 2xx or 5xx (default 0.03)")
    p.add_argument("--out", default="fuzz-http-failures.jsonl", help="reproducers of failures (JSON lines)")
    p.add_argument("--replay", help="resend the requests of a reproducer file to a fresh server and report each answer")
    p.add_argument("--server-arg", action="append", default=[], help="extra argument for fod serve (repeatable)")
    return p.parse_args(argv)


class Server:
    """`fod serve` on a free port over a temporary data directory."""

    def __init__(self, binary, extra):
        self.directory = tempfile.mkdtemp(prefix="fod-fuzz-http-")
        self.log_path = os.path.join(self.directory, "server.log")
        self.log = open(self.log_path, "wb")
        arguments = [binary, "serve", "--port", "0", "--bind", "127.0.0.1", "--data", os.path.join(self.directory, "data"),
                     "--password-cost", "minimal", "--signup", "open", "--sync", "normal", "--index-buffer", "20000", "--log-level", "warning",
                     # The abuse limits would stop the setup phase (it signs up 4 accounts per world,
                     # all from 127.0.0.1); requests still go through the limiters.
                     "--sign-up-limit", "1000000", "--sign-in-limit", "1000000", "--sign-in-address-limit", "1000000",
                     "--invitation-limit", "1000000", "--device-request-rate", "0", "--streams-per-user", "100000"] + extra
        self.process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=self.log)
        line = self.process.stdout.readline().decode()
        if "listening on port" not in line:
            raise SystemExit(f"fod serve did not start: {line!r}\n{self.log_tail()}")
        self.port = int(line.split()[-1])

    def alive(self):
        return self.process.poll() is None

    def rss_bytes(self):
        try:
            for line in open(f"/proc/{self.process.pid}/status"):
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    def log_tail(self, lines=40):
        self.log.flush()
        text = pathlib.Path(self.log_path).read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])

    def stop(self):
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.directory, ignore_errors=True)


def server_dead(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][:1] in ("Z", "X")
    except OSError:
        return True


def worker(index, count, seed, options, port, pid, results):
    """Sends `count` requests; reports progress and failures on `results`."""
    rng = random.Random(seed * 1_000_003 + index)
    spec = specs.load(options.spec)
    operations = spec.operations
    # Operations that destroy the world (whose success means setting it up again) are drawn
    # less often, so most requests go to routes with real ids and tokens behind them.
    weights = [0.2 if destroys_operation(op) else 1.0 for op in operations]
    connection = wire.Connection(port, options.deadline)
    world = World(wire.Connection(port, options.deadline), f"{seed}-{index}")
    statuses, by_operation = collections.Counter(), collections.Counter()
    last_report = time.monotonic()
    sent = 0
    try:
        world.build()
        builder = requests.Builder(rng, spec, world)
        for sent in range(1, count + 1):
            world.ensure()
            operation = rng.choices(operations, weights)[0]
            request = builder.valid(operation)
            unauthenticated_upload = rng.random() < options.unauthenticated_upload_rate
            if unauthenticated_upload:
                builder.unauthenticated_large_body(request)
            elif rng.random() < options.mutation_rate:
                builder.mutate(request, rng.choice([1, 1, 1, 2, 2, 3]))
            raw = request.serialize()
            try:
                reply = connection.exchange(raw, request.method)
                if unauthenticated_upload:
                    # The rest of the body never comes: this connection cannot carry another request.
                    connection.close()
            except wire.Hang as hang:
                statuses["hang"] += 1
                results.put(("failure", requests.reproducer(request, raw, world, "hang", str(hang))))
                continue
            except (wire.NoAnswer, ConnectionError, OSError) as error:
                if server_dead(pid):
                    results.put(("failure", requests.reproducer(request, raw, world, "crash", f"server exited ({error})")))
                    return
                statuses["closed"] += 1
                continue
            statuses[reply.status] += 1
            by_operation[(operation.name, reply.status // 100)] += 1
            if unauthenticated_upload and reply.status < 400:
                detail = f"{reply.status} to a body that never came whole: {reply.body[:300].decode('utf-8', 'replace')}"
                results.put(("failure", requests.reproducer(request, raw, world, "unauthenticated-body", detail)))
            elif reply.status >= 500:
                detail = f"{reply.status} {reply.body[:300].decode('utf-8', 'replace')}"
                results.put(("failure", requests.reproducer(request, raw, world, "5xx", detail)))
            elif 200 <= reply.status < 300 and destroys(request):
                world.dirty = True
            if time.monotonic() - last_report > 1:
                results.put(("progress", index, sent, dict(statuses), dict(by_operation)))
                last_report = time.monotonic()
    except SetupFailed as error:
        if not server_dead(pid):
            results.put(("failure", {"kind": "setup", "detail": str(error), "summary": "world setup failed"}))
    except Exception as error:  # a bug of the fuzzer itself: report it, never hide it
        import traceback
        results.put(("failure", {"kind": "fuzzer", "detail": traceback.format_exc(), "summary": f"fuzzer error {error!r}"}))
    finally:
        statuses["worlds built"] = world.generation
        results.put(("done", index, sent, dict(statuses), dict(by_operation)))


def destroys(request):
    """Whether a successful `request` may have removed or changed part of the world (its
    accounts, sessions, devices, tokens, the group, its owner, its members or invitations)."""
    return destroys_operation(request.operation, request.method)


def destroys_operation(operation, method=None):
    path, method = operation.path, method or operation.method
    if method == "DELETE":
        return not path.endswith("/locations")
    return method == "POST" and path.endswith(("/token", "/owner", "/accept", "/decline", "/invitations"))


def run(options):
    seed = options.seed if options.seed is not None else int(time.time() * 1000) % 1_000_000_007
    print(f"fuzz-http: seed {seed}, {options.requests} requests over {options.connections} connections, deadline {options.deadline:g} s")
    spec = specs.load(options.spec)
    print(f"fuzz-http: {len(spec.operations)} operations from {options.spec}")
    server = Server(options.fod, options.server_arg)
    results = multiprocessing.Queue()
    share = [options.requests // options.connections + (1 if k < options.requests % options.connections else 0) for k in range(options.connections)]
    workers = [multiprocessing.Process(target=worker, args=(k, share[k], seed, options, server.port, server.process.pid, results), daemon=True)
               for k in range(options.connections)]
    started = time.monotonic()
    for process in workers:
        process.start()
    progress, finished, failures = {}, set(), []
    baseline, peak, warm = None, 0, max(1, options.requests // 20)
    out = open(options.out, "w")
    last_print = started
    try:
        while len(finished) < len(workers):
            try:
                message = results.get(timeout=0.5)
            except Exception:
                message = None
            if message and message[0] == "failure":
                record = dict(message[1], seed=seed)
                failures.append(record)
                out.write(requests.as_json_line(record) + "\n")
                out.flush()
                print(f"FAIL {record['kind']}: {record.get('summary')} -> {record.get('detail', '')[:200]}", flush=True)
            elif message:
                kind, index, sent, statuses, by_operation = message
                progress[index] = (sent, statuses, by_operation)
                if kind == "done":
                    finished.add(index)
            done = sum(p[0] for p in progress.values())
            rss = server.rss_bytes()
            peak = max(peak, rss)
            if baseline is None and done >= warm:
                baseline = rss
            if baseline is not None and rss - baseline > options.rss_growth_mb * (1 << 20) and not any(f["kind"] == "rss" for f in failures):
                record = {"kind": "rss", "summary": f"RSS {rss >> 20} MiB, {(rss - baseline) >> 20} MiB over the warm-up", "detail": "", "seed": seed}
                failures.append(record)
                out.write(requests.as_json_line(record) + "\n")
                print(f"FAIL rss: {record['summary']}", flush=True)
            if not server.alive():
                time.sleep(0.5)
                if not any(f["kind"] == "crash" for f in failures):
                    failures.append({"kind": "crash", "summary": f"fod exited with status {server.process.returncode}", "detail": "", "seed": seed})
                for process in workers:
                    process.join(timeout=5)
                break
            if time.monotonic() - last_print > 10:
                elapsed = time.monotonic() - started
                print(f"  {done} requests, {done / elapsed:.0f}/s, RSS {rss >> 20} MiB", flush=True)
                last_print = time.monotonic()
    finally:
        for process in workers:
            if process.is_alive():
                process.terminate()
        out.close()
    elapsed = time.monotonic() - started
    crashed = not server.alive()
    log = server.log_tail()
    rss_end = server.rss_bytes()
    server.stop()
    return summarize(seed, options, progress, failures, elapsed, baseline, peak, rss_end, crashed, log)


def summarize(seed, options, progress, failures, elapsed, baseline, peak, rss_end, crashed, log):
    statuses, by_operation = collections.Counter(), collections.Counter()
    for _, s, o in progress.values():
        statuses.update(s)
        by_operation.update({tuple(k) if isinstance(k, list) else k: v for k, v in o.items()})
    done = sum(p[0] for p in progress.values())
    kinds = collections.Counter(f["kind"] for f in failures)
    print(f"\nfuzz-http summary (seed {seed}): {done} requests in {elapsed:.0f} s ({done / max(elapsed, 1e-9):.0f}/s)")
    print("  statuses: " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items(), key=lambda kv: str(kv[0]))))
    if baseline:
        print(f"  server RSS: {baseline >> 20} MiB after warm-up, peak {peak >> 20} MiB, end {rss_end >> 20} MiB")
    untouched = sorted({op for (op, klass) in by_operation if klass == 2} ^ {op for (op, _) in by_operation})
    if untouched:
        print(f"  operations never answered 2xx: {', '.join(untouched)}")
    print(f"  failures: {len(failures)} (crash {kinds['crash']}, 5xx {kinds['5xx']}, hang {kinds['hang']}, rss {kinds['rss']}, "
          f"unauthenticated body {kinds['unauthenticated-body']}, setup {kinds['setup']}, fuzzer {kinds['fuzzer']})")
    if failures:
        print(f"  reproducers: {options.out}  (resend with: scripts/fuzz-http.py --replay {options.out})")
        if crashed:
            print("  server log tail:\n" + "\n".join("    " + line for line in log.splitlines()))
    return 1 if failures or done < options.requests else 0


def replay(options):
    """Resends saved requests to a fresh server, with a new world's tokens and ids put in."""
    server = Server(options.fod, options.server_arg)
    try:
        world = World(wire.Connection(server.port, options.deadline), "replay")
        world.build()
        connection = wire.Connection(server.port, options.deadline)
        for line in open(options.replay):
            record = json.loads(line)
            if "request_base64" not in record:
                continue
            raw = base64.b64decode(record["request_base64"])
            new = world.secrets()
            for key, old in sorted(record.get("world", {}).items(), key=lambda kv: -len(kv[1])):
                raw = raw.replace(old.encode(), new[key].encode())
            method = raw.split(b" ", 1)[0].decode("latin-1")
            try:
                reply = connection.exchange(raw, method)
                outcome = f"{reply.status} {reply.body[:200].decode('utf-8', 'replace')}"
            except (wire.Hang, wire.NoAnswer) as error:
                outcome = f"{type(error).__name__}: {error}"
            print(f"{record['kind']}: {record.get('summary')}\n  now: {outcome}; server {'alive' if server.alive() else 'EXITED'}")
            if not server.alive():
                print(server.log_tail())
                return 1
        return 0
    finally:
        server.stop()


def main(argv=None):
    options = parse_arguments(sys.argv[1:] if argv is None else argv)
    if not os.access(options.fod, os.X_OK):
        raise SystemExit(f"no fod binary at {options.fod} (swift build first)")
    return replay(options) if options.replay else run(options)
