#!/usr/bin/env python3
"""Phone-fleet benchmark (issue #45 item 9): N simulated phones, each posting one OwnTracks
location message every T seconds to `POST /v1/ingest/owntracks` with HTTP Basic auth, most on a
new TCP connection per post, some on a kept-alive one; a tenth of them get their friends in the
reply. The same load, in the same run, against nginx answering a static `200 []` to the same
requests (the HTTP floor). See Benchmarks/phones/README.md.

    Benchmarks/phones/run.py [--phones 10000,100000] [--rates 1000,2000,3000,4000,5000,7500,10000,...]
                             [--rounds 3] [--duration 20] [--keepalive 0.1] [--keep DIR] [--quick]

For every fleet size and offered rate (phones / period, never a period under 1 s: OwnTracks
stamps messages in whole seconds) the rounds alternate which system goes first; each run is the
C client `phonefleet.c` (built here with gcc), open loop. A system stops stepping up once it
answered less than 95% of the offered rate (median of the rounds); the highest rate it sustained
is the highest with a median p99 ≤ 50 ms and every post due answered 2xx. The server's CPU time per answered post comes from
/proc/<pid>/stat before and after the run (and after the server settled: its background work
caused by the load counts too)."""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TICKS = os.sysconf("SC_CLK_TCK")
P99_GOAL_MS = 50.0

NGINX_CONF = """worker_processes 2;
worker_rlimit_nofile {nofile};
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
daemon off;
events {{ worker_connections {connections}; }}
http {{
  access_log off;
  client_body_temp_path {dir}/body;
  keepalive_timeout 60s;
  keepalive_requests 100000;
  server {{
    listen 127.0.0.1:{port} reuseport;
    location / {{ default_type application/json; return 200 "[]"; }}
  }}
}}
"""


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pids):
    """utime + stime of the processes (all their threads), seconds; gone processes count 0."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except FileNotFoundError:
            pass
    return total / TICKS


# fod's threads by what they do (their names, `/proc/<pid>/task/*/comm`); other names count as "other".
THREAD_ROLES = {"fod-writer": "writer", "MHD-worker": "http", "MHD-single": "http", "fod-checkpoint": "checkpoint",
                "fod-index-merge": "merge"}


def thread_cpu_seconds(pids):
    """utime + stime by thread role (THREAD_ROLES) over the processes' threads, seconds."""
    totals = {}
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except FileNotFoundError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/comm") as f:
                    role = THREAD_ROLES.get(f.read().strip(), "other")
                with open(f"/proc/{pid}/task/{task}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except FileNotFoundError:
                continue
            totals[role] = totals.get(role, 0) + (int(fields[11]) + int(fields[12])) / TICKS
    return totals


def settle(pids, limit=60.0):
    """Waits until the processes use under 3% of a core over half a second (background work
    the load left, e.g. the cell-index merge), at most `limit` seconds."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = cpu_seconds(pids)
        time.sleep(0.5)
        if cpu_seconds(pids) - before < 0.015:
            return


def tcp_counters():
    """The machine's TCP counters that explain ~1 s latencies: accept queues that overflowed
    (the SYN is dropped) and the client SYNs sent again after them (1 s later)."""
    with open("/proc/net/netstat") as f:
        lines = f.read().splitlines()
    counters = {}
    for names, values in zip(lines[0::2], lines[1::2]):
        if names.startswith("TcpExt:"):
            counters.update(zip(names.split()[1:], (int(v) for v in values.split()[1:])))
    return {"listen_overflows": counters.get("ListenOverflows", 0), "syn_retransmits": counters.get("TCPSynRetrans", 0)}


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def niced(command, nice):
    """`command` run at niceness `nice` (0: as it is)."""
    return (["nice", "-n", str(nice)] if nice else []) + command


class Fod:
    """`fod serve` on a free loopback port with open sign-up and the limits the set-up needs."""

    def __init__(self, binary, data, log, nice=0):
        self.binary, self.data, self.log, self.nice = binary, data, log, nice
        self.process, self.port = None, None

    def start(self):
        self.process = subprocess.Popen(niced(
            [self.binary, "serve", "--port", "0", "--bind", "127.0.0.1", "--data", self.data, "--log-level", "warning",
             "--password-cost", "minimal", "--signup", "open", "--sign-up-limit", "1000000", "--invitation-limit", "1000000",
             "--max-connections", "19000"], self.nice),
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("fod listening on port "):
            sys.exit(f"phones: fod did not start (exit {self.process.wait()}); see {self.log.name}")
        self.port = int(line.split()[-1])

    @property
    def pids(self):
        return [self.process.pid]

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Nginx:
    """Debian's nginx in a temporary directory, 2 workers, answering `200 []` to everything."""

    def __init__(self, work, nice=0):
        self.nice = nice
        self.dir = os.path.join(work, "nginx")
        os.makedirs(self.dir, exist_ok=True)
        self.port = free_port()
        self.process = None

    def start(self):
        nofile = min(20000, os.sysconf("SC_OPEN_MAX"))
        with open(os.path.join(self.dir, "nginx.conf"), "w") as f:
            f.write(NGINX_CONF.format(dir=self.dir, port=self.port, nofile=nofile, connections=max(1024, nofile // 2 - 100)))
        self.process = subprocess.Popen(niced([shutil.which("nginx") or "/usr/sbin/nginx", "-p", self.dir, "-c", os.path.join(self.dir, "nginx.conf"),
                                               "-e", os.path.join(self.dir, "error.log")], self.nice), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            if len(self.pids) >= 3:
                break
            time.sleep(0.05)
        else:
            sys.exit(f"phones: nginx did not start; see {self.dir}/error.log")

    @property
    def pids(self):
        try:
            with open(f"/proc/{self.process.pid}/task/{self.process.pid}/children") as f:
                return [self.process.pid] + [int(p) for p in f.read().split()]
        except FileNotFoundError:
            return []

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def fleet_run(client, system, phones_file, period, duration, warmup, keepalive, nice=0):
    """One open-loop run against `system`: the client's figures plus the server's CPU."""
    pids = system.pids
    settle(pids)
    load = load_average()
    cpu0, tcp0, roles0 = cpu_seconds(pids), tcp_counters(), thread_cpu_seconds(pids)
    out = subprocess.run(niced([client, "--port", str(system.port), "--phones", phones_file, "--period", f"{period:.6f}",
                                "--duration", str(duration), "--warmup", str(warmup), "--keepalive", str(keepalive)], nice),
                         capture_output=True, text=True, check=True)
    cpu1, tcp1, roles1 = cpu_seconds(pids), tcp_counters(), thread_cpu_seconds(pids)
    settle(pids)
    cpu2 = cpu_seconds(pids)
    result = json.loads(out.stdout)
    answered = max(1, result["answered_total"])
    result.update(load_before=load, server_cpu_s=round(cpu1 - cpu0, 3),
                  server_cpu_us_per_post=round((cpu1 - cpu0) / answered * 1e6, 1),
                  server_cpu_us_per_post_settled=round((cpu2 - cpu0) / answered * 1e6, 1),
                  # The run's CPU per answered post by thread role (fod: the writer, the HTTP threads, …).
                  server_cpu_us_per_post_by_thread={role: round((roles1.get(role, 0) - roles0.get(role, 0)) / answered * 1e6, 1)
                                                    for role in sorted(set(roles0) | set(roles1))},
                  client_cpu_us_per_post=round(result["client_cpu_s"] / answered * 1e6, 1),
                  **{k: tcp1[k] - tcp0[k] for k in tcp0})
    return result


def median(runs, key):
    return statistics.median(r[key] for r in runs)


def sustained(runs, offered):
    """Whether the rate held: median p99 within the goal, every due post answered 2xx."""
    return median(runs, "p99_ms") <= P99_GOAL_MS and median(runs, "served_per_s") >= 0.99 * offered and \
        all(r["failed"] + r["timed_out"] + r["status_4xx"] + r["status_5xx"] + r["skipped"] == 0 for r in runs)


def by_thread(runs):
    """`; writer W, http H` — the medians of fod's CPU per post by thread role (nginx: empty)."""
    roles = [role for role in ("writer", "http") if all(role in r.get("server_cpu_us_per_post_by_thread", {}) for r in runs)]
    return "".join(f"; {role} {statistics.median(r['server_cpu_us_per_post_by_thread'][role] for r in runs):.0f}" for role in roles)


def summary_line(name, runs, offered):
    return (f"  {name:5s} answered {median(runs, 'answered_per_s'):8.0f}/s  served {median(runs, 'served_per_s'):8.0f}/s  "
            f"p50 {median(runs, 'p50_ms'):7.2f}  p99 {median(runs, 'p99_ms'):8.2f} ms  "
            f"CPU/post {median(runs, 'server_cpu_us_per_post'):6.1f} µs ({median(runs, 'server_cpu_us_per_post_settled'):6.1f} settled"
            f"{by_thread(runs)})  "
            f"client {median(runs, 'client_cpu_us_per_post'):5.1f} µs  errors {sum(r['failed'] + r['timed_out'] + r['status_4xx'] + r['status_5xx'] for r in runs)}  "
            f"skipped {sum(r['skipped'] for r in runs)}  friends replies {median(runs, 'nonempty_replies'):.0f}  "
            f"load {min(r['load_before'] for r in runs):.1f}–{max(r['load_before'] for r in runs):.1f}"
            f"{'' if sustained(runs, offered) else '  (not sustained)'}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", default="10000,100000", help="fleet sizes, comma-separated")
    parser.add_argument("--rates", default="1000,2000,3000,4000,5000,7500,10000,12500,15000,20000",
                        help="offered posts/s to step through, ascending")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=20, help="measured seconds of a run")
    parser.add_argument("--warmup", type=float, default=None, help="seconds before measuring (default: one period, at most 20)")
    parser.add_argument("--keepalive", type=float, default=0.1, help="fraction of phones keeping their connection")
    parser.add_argument("--bin", help="directory of the fod binary (default .build/release, with --quick .build/debug)")
    parser.add_argument("--keep", help="directory kept between runs: the server's data and phone files (set-up once)")
    parser.add_argument("--only", choices=["fod", "nginx"], help="run one system only")
    parser.add_argument("--out", help="write every run's figures here (JSON)")
    parser.add_argument("--nice", type=int, default=0,
                        help="run fod, nginx and the client at this niceness (negative: ahead of other work on a shared machine; root)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 200 phones, 200 posts/s, 2 s, debug build, one round")
    o = parser.parse_args()
    if o.quick:
        o.phones, o.rates, o.rounds, o.duration, o.warmup = "200", "200", 1, 2, 1
        print("(--quick: a smoke run on the debug build; the figures mean nothing)")
    o.bin = o.bin or os.path.join(ROOT, ".build", "debug" if o.quick else "release")
    sizes = [int(x) for x in o.phones.split(",")]
    rates = [float(x) for x in o.rates.split(",")]
    systems_wanted = [s for s in ("fod", "nginx") if o.only in (None, s)]
    if "nginx" in systems_wanted and not shutil.which("nginx") and not os.path.exists("/usr/sbin/nginx"):
        if not o.quick:
            sys.exit("phones: nginx is not installed (apt-get install -y nginx); --only fod runs without the floor")
        print("(nginx is not installed: the smoke run measures fod alone)")
        systems_wanted = ["fod"]

    work = tempfile.mkdtemp(prefix="fod-phones-")
    keep = o.keep or work
    os.makedirs(keep, exist_ok=True)
    client = os.path.join(work, "phonefleet")
    subprocess.run(["gcc", "-O2", "-o", client, os.path.join(HERE, "phonefleet.c")], check=True)
    log = open(os.path.join(work, "fod.log"), "w")
    fod = Fod(os.path.join(o.bin, "fod"), os.path.join(keep, "data"), log, o.nice)
    nginx = Nginx(work, o.nice)
    results, failed = [], False
    try:
        fod.start()
        if "nginx" in systems_wanted:
            nginx.start()
        systems = {"fod": fod, "nginx": nginx}
        for n in sizes:
            phones_file = os.path.join(keep, f"phones-{n}.txt")
            if not os.path.exists(phones_file):
                started = time.monotonic()
                subprocess.run([sys.executable, os.path.join(HERE, "setup.py"), str(fod.port), str(n), phones_file + ".part",
                                "--tag", f"fleet{n}"], check=True)
                os.rename(phones_file + ".part", phones_file)
                print(f"set-up of {n} phones: {time.monotonic() - started:.0f} s", flush=True)
                # Every device posts once before anything is measured (a device's first fix is not the steady state).
                prime = fleet_run(client, fod, phones_file, max(1.0, n / 2000), max(1.0, n / 2000), 0, o.keepalive, o.nice)
                print(f"primed: {prime['answered_total']} posts, {prime['failed'] + prime['timed_out']} failures", flush=True)
            active = list(systems_wanted)
            for rate in rates:
                period = n / rate
                if period < 1 or not active:
                    continue
                warmup = o.warmup if o.warmup is not None else min(period, 20.0)
                print(f"== {n} phones, one post every {period:.2f} s each: {rate:.0f} posts/s offered "
                      f"({o.rounds} rounds of {o.duration:.0f} s after {warmup:.0f} s, {int(n * o.keepalive)} phones kept alive)", flush=True)
                runs = {s: [] for s in active}
                for r in range(o.rounds):
                    for name in (active if r % 2 == 0 else active[::-1]):
                        result = fleet_run(client, systems[name], phones_file, period, o.duration, warmup, o.keepalive, o.nice)
                        result.update(system=name, round=r, phones_n=n, offered=rate)
                        runs[name].append(result)
                        results.append(result)
                        print(f"    {name:5s} round {r + 1}: answered {result['answered_per_s']:.0f}/s, p99 {result['p99_ms']:.1f} ms, "
                              f"CPU/post {result['server_cpu_us_per_post']:.0f} µs, load {result['load_before']:.1f}, "
                              f"accept-queue overflows {result['listen_overflows']}, SYNs resent {result['syn_retransmits']}", flush=True)
                for name in active:
                    print(summary_line(name, runs[name], rate), flush=True)
                if len(active) == 2:
                    ratio = median(runs["fod"], "answered_per_s") / max(1.0, median(runs["nginx"], "answered_per_s"))
                    print(f"  fod ÷ nginx answered at this offered load: {ratio:.2f}", flush=True)
                if o.quick:
                    for name in active:
                        bad = [r for r in runs[name] if r["failed"] + r["timed_out"] + r["status_4xx"] + r["status_5xx"] or r["ok"] == 0]
                        if bad:
                            print(f"phones --quick: {name} had failed posts: {bad[0]}")
                            failed = True
                    if runs["fod"][0]["nonempty_replies"] == 0:
                        print("phones --quick: no fod reply carried friends")
                        failed = True
                # A system that no longer answers what is offered has found its limit (its p99
                # may pass the goal earlier: the steps go on to show how far it still keeps up).
                active = [s for s in active if median(runs[s], "answered_per_s") >= 0.95 * rate]
            best = {}
            for name in systems_wanted:
                mine = [r for r in results if r["phones_n"] == n and r["system"] == name]
                best[name] = max((rate for rate in {r["offered"] for r in mine}
                                  if sustained([r for r in mine if r["offered"] == rate], rate)), default=0)
                peak = max((median([r for r in mine if r["offered"] == rate], "answered_per_s") for rate in {r["offered"] for r in mine}), default=0)
                print(f"{n} phones: {name} sustained {best[name]:.0f} posts/s offered (p99 ≤ {P99_GOAL_MS:.0f} ms, every post answered 2xx); "
                      f"most answered in a run (median of rounds) {peak:.0f}/s", flush=True)
            if len(best) == 2:
                print(f"{n} phones: fod ÷ nginx at each one's sustained maximum: {best['fod'] / max(1.0, best['nginx']):.2f}", flush=True)
    finally:
        nginx.stop()
        fod.stop()
        log.close()
        if o.out:
            with open(o.out, "w") as f:
                json.dump(results, f, indent=1)
        shutil.rmtree(work, ignore_errors=True)
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
