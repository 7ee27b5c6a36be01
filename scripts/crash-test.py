#!/usr/bin/env python3
"""Crash test: `fod serve` killed with kill -9 at random moments while clients post fixes.

Several clients post fixes concurrently, each to its own device and in its own way: the native
API (single fixes and batches, with and without client ids) and the phone apps' formats
(OwnTracks, Overland, OsmAnd). Batches sometimes backfill older fixes, so the newest fix is not
always the last to arrive. Every client keeps a ledger: a fix answered with a 2xx is
*acknowledged*; a fix whose request got no answer (the server died) is *unknown*, and the client
resends it after the restart (or, half the time, gives up on it), as phone apps do.

Each cycle lets the clients run, kills the server at a random moment (sometimes after a quiet
spell, so that an index merge is running), restarts it on the same data directory and checks,
with the clients held:
  - every acknowledged fix is in the device's history exactly once, at its position;
  - an unknown fix is there at most once; nothing else is there;
  - each device's latest location is its newest stored fix, no older than its newest
    acknowledged one;
  - `fod db check` passes.
With alerts (the default; --no-alerts turns them off) one more client walks in and out of a place
of a group whose owner has an alert on it, through a webhook to a receiver in this process; at
the end, every `place` event in the group's log has exactly one delivery, delivered, and the
receiver got every delivery's id (an id received twice is counted: at least once allows it when
a kill landed between a send and its record).
Exit status 0 when every check of every cycle passed.

With --postgres the node runs on a throwaway PostgreSQL server (scripts/pg-test-server.sh, in a
temporary directory, stopped at the end) and `fod db check --database` checks the database: a
node killed under load loses no acknowledged fix there either (--database URL uses a server of
your own, on an empty database).

    scripts/crash-test.py [--fod .build/release/fod] [--cycles 20] [--seed N] [--clients 7] [--postgres]
    make crash-test CYCLES=50 SEED=123
"""
import argparse
import base64
import datetime
import http.client
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ACKED, UNKNOWN = "acked", "unknown"
# /metrics is served on the public port only to this bearer token.
METRICS_TOKEN = "crash-test-metrics-token"


class Server:
    """One `fod serve` process on a data directory, on a free port."""

    def __init__(self, fod, data, log, index_buffer, database=None):
        self.fod, self.data, self.log, self.index_buffer, self.database = fod, data, log, index_buffer, database
        self.process, self.port = None, None

    def start(self):
        """Starts the server; returns how long it took until it listened (seconds)."""
        started = time.monotonic()
        self.process = subprocess.Popen(
            [self.fod, "serve", "--port", "0", "--bind", "127.0.0.1", "--data", self.data,
             "--password-cost", "minimal", "--signup", "open", "--sign-in-limit", "100000", "--log-level", "warning",
             "--device-request-rate", "0", "--sign-up-limit", "100000", "--metrics-token", METRICS_TOKEN,
             "--index-buffer", str(self.index_buffer), "--notify-allow-private", "--notify-backoff-ms", "100,200,400",
             "--notify-catch-up-seconds", "0.5", "--notify-lease-seconds", "2"]
            + (["--database", self.database] if self.database else []),
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("fod listening on port "):
            raise SystemExit(f"crash-test: fod did not start (exit {self.process.wait()}); see {self.log.name}")
        self.port = int(line.split()[-1])
        return time.monotonic() - started

    def kill(self):
        """kill -9; fails the run if the server had died by itself."""
        if self.process.poll() is not None:
            raise SystemExit(f"crash-test: the server died by itself (status {self.process.returncode}); see {self.log.name}")
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait()


def request(port, method, path, body=None, headers=None, timeout=15):
    """(status, parsed JSON or None); raises OSError / HTTPException when there is no answer."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        all_headers = {"Content-Type": "application/json"} if body is not None else {}
        all_headers.update(headers or {})
        connection.request(method, path, body=None if body is None else json.dumps(body), headers=all_headers)
        response = connection.getresponse()
        data = response.read()
        try:
            return response.status, json.loads(data) if data else None
        except ValueError:
            return response.status, None
    finally:
        connection.close()


def metric(port, name):
    """A gauge from /metrics, or None."""
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        connection.request("GET", "/metrics", headers={"Authorization": "Bearer " + METRICS_TOKEN})
        text = connection.getresponse().read().decode()
        connection.close()
    except (OSError, http.client.HTTPException):
        return None
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


def iso(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Client(threading.Thread):
    """Posts fixes to one device in one style and keeps their ledger.

    `fixes`: timestamp (s) → [lon, lat, state, client id or None]. Timestamps are unique per
    device (the dedupe rule for fixes without id), new ones counting up from `base`, backfills
    counting down below it."""

    STYLES = ["native-single-id", "native-single", "native-batch-id", "native-batch", "owntracks", "overland", "osmand"]
    # Walks in and out of the alert's place (PLACE), one fix a step, timestamped from now on.
    WALKER = "walker"
    PLACE = (10.0, 50.0)

    def __init__(self, run, index, style, device_id, device_token, base):
        super().__init__(daemon=True)
        self.run_state, self.index, self.style = run, index, style
        self.device_id, self.token = device_id, device_token
        self.rng = random.Random(run.seed * 1000 + index)
        self.next_new, self.next_old = base, base - 1
        self.fixes = {}
        self.pending = None          # the batch whose outcome is unknown, to resend
        self.must_resend = False
        self.failed_in = None        # the gate generation in which a request got no answer
        self.active = threading.Lock()
        self.resent = 0
        self.failures = []

    def make_batch(self):
        if self.style == self.WALKER:
            ts, self.next_new = self.next_new, self.next_new + 1
            inside = (ts % 2) == 0
            lon, lat = (self.PLACE[0] if inside else self.PLACE[0] + 0.05), self.PLACE[1]
            self.fixes[ts] = [lon, lat, UNKNOWN, f"w-{ts}"]
            return [(ts, lon, lat, f"w-{ts}")]
        size = 1 if self.style in ("native-single-id", "native-single", "owntracks", "osmand") else self.rng.randint(5, 60)
        backfill = size > 1 and self.rng.random() < 0.15
        batch = []
        for _ in range(size):
            if backfill:
                ts, self.next_old = self.next_old, self.next_old - 1
            else:
                ts, self.next_new = self.next_new, self.next_new + 1
            lon = round(self.rng.uniform(-179.9, 179.9), 6)
            lat = round(self.rng.uniform(-84.9, 84.9), 6)
            client_id = f"c{self.index}-{ts}" if self.style.endswith("-id") else None
            batch.append((ts, lon, lat, client_id))
            self.fixes[ts] = [lon, lat, UNKNOWN, client_id]
        return batch

    def send(self, batch):
        port = self.run_state.port
        auth = {"Authorization": "Bearer " + self.token}
        if self.style.startswith("native") or self.style == self.WALKER:
            items = [dict({"location": [lon, lat], "timestamp": ts * 1000}, **({"id": cid} if cid else {}))
                     for ts, lon, lat, cid in batch]
            body = {"locations": items} if self.style.startswith("native-batch") else items[0]
            return request(port, "POST", f"/v1/devices/{self.device_id}/locations", body, auth)
        if self.style == "owntracks":
            ts, lon, lat, _ = batch[0]
            basic = base64.b64encode(f"{self.device_id}:{self.token}".encode()).decode()
            return request(port, "POST", "/v1/ingest/owntracks", {"_type": "location", "lat": lat, "lon": lon, "tst": ts},
                           {"Authorization": "Basic " + basic})
        if self.style == "overland":
            features = [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [lon, lat]},
                         "properties": {"timestamp": iso(ts)}} for ts, lon, lat, _ in batch]
            return request(port, "POST", "/v1/ingest/overland", {"locations": features}, auth)
        ts, lon, lat, _ = batch[0]
        return request(port, "GET", f"/v1/ingest/osmand?id={self.token}&lat={lat}&lon={lon}&timestamp={ts}")

    def run(self):
        state = self.run_state
        while not state.finished:
            # `active` is held for a whole request and its ledger update: once the controller
            # has closed the gate and taken every client's lock, no client is posting.
            with self.active:
                if state.go.is_set() and self.failed_in != state.go.generation:
                    self.step()
                    continue
            state.go.wait(newer_than=self.failed_in)

    def step(self):
        if self.pending is not None and (self.must_resend or self.rng.random() < 0.5):
            batch = self.pending
            self.resent += len(batch)
        else:
            batch = self.make_batch()
        self.pending = None
        try:
            status, body = self.send(batch)
        except (OSError, http.client.HTTPException):
            self.pending, self.must_resend = batch, False   # no answer: the server died
            self.failed_in = self.run_state.go.generation     # wait for the restart
            return
        if 200 <= status < 300:
            for ts, *_ in batch:
                self.fixes[ts][2] = ACKED
        elif status == 503:
            self.pending, self.must_resend = batch, True    # the server said: try again later
        else:
            self.failures.append(f"{self.style}: HTTP {status} {body}")
            self.run_state.finished = True


class Receiver:
    """The alert's webhook receiver: records every delivery id it is sent, answers 204."""

    def __init__(self):
        import http.server
        received = self.received = []
        lock = self.lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                with lock:
                    received.append(self.headers.get("webhook-id"))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def ids(self):
        with self.lock:
            return list(self.received)


def set_up_alert(port, user_token, walker, receiver):
    """A group with the walker's device, a place around Client.PLACE and an alert on it through a
    webhook to `receiver`; returns (group id, channel id)."""
    auth = {"Authorization": "Bearer " + user_token}
    status, group = request(port, "POST", "/v1/groups", {"name": "crash", "deviceId": walker.device_id}, auth)
    lon, lat = Client.PLACE
    request(port, "POST", f"/v1/groups/{group['id']}/places",
            {"name": "Home", "geometry": {"type": "Point", "coordinates": [lon, lat]}, "radius": 300}, auth)
    status, channel = request(port, "POST", "/v1/me/channels",
                              {"name": "receiver", "type": "webhook", "url": f"http://127.0.0.1:{receiver.port}/hook"}, auth)
    if status != 201:
        raise SystemExit(f"crash-test: channel not made: {status} {channel}")
    status, alert = request(port, "POST", f"/v1/groups/{group['id']}/alerts", {"channelId": channel["id"], "events": ["enter", "exit"]}, auth)
    if status != 201:
        raise SystemExit(f"crash-test: alert not made: {status} {alert}")
    return group["id"], channel["id"]


def check_deliveries(port, user_token, group_id, channel_id, receiver):
    """After the last restart: every place event has one delivery, each delivered, each id
    received. Returns (problems, events, duplicates received)."""
    auth = {"Authorization": "Bearer " + user_token}
    events, since = [], 0
    while True:
        status, page = request(port, "GET", f"/v1/groups/{group_id}/changes?since={since}&limit=1000", headers=auth)
        events += [e for e in page["events"] if e["type"] == "place"]
        if not page["events"] and not page.get("more"):
            break
        since = page["last"]
    deadline = time.monotonic() + 120
    while True:
        status, log = request(port, "GET", f"/v1/me/channels/{channel_id}/deliveries?limit=1000", headers=auth)
        deliveries = log["deliveries"]
        if all(d["status"] != "pending" for d in deliveries) and len(deliveries) >= len(events) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    problems = []
    if len(deliveries) != len(events):
        problems.append(f"alerts: {len(events)} place events but {len(deliveries)} deliveries (lost {max(0, len(events) - len(deliveries))})")
    for d in deliveries:
        if d["status"] != "delivered":
            problems.append(f"alerts: delivery {d['id']} is {d['status']} ({d.get('error')})")
    received = receiver.ids()
    missing = {d["id"] for d in deliveries} - set(received)
    if missing:
        problems.append(f"alerts: {len(missing)} deliveries lost: never received ({sorted(missing)[:5]})")
    return problems, len(events), len(received) - len(set(received))


class Gate:
    """The controller opens it while the server runs and closes it to kill; clients post only
    while it is open. `generation` counts openings (one per server start)."""

    def __init__(self):
        self.condition = threading.Condition()
        self.open = False
        self.generation = 0

    def is_set(self):
        return self.open

    def set(self, value=True):
        with self.condition:
            if value and not self.open:
                self.generation += 1
            self.open = value
            self.condition.notify_all()

    def wait(self, newer_than=None):
        """Waits (up to a second) for the gate to be open in a generation after `newer_than`."""
        with self.condition:
            self.condition.wait_for(lambda: self.open and self.generation != newer_than, timeout=1)


class Run:
    def __init__(self, seed):
        self.seed = seed
        self.go = Gate()
        self.port = None
        self.finished = False


def db_check(fod, data, database):
    """`fod db check` of the node's store; returns the output when it failed, else None."""
    where = ["--database", database] if database else ["--data", data]
    result = subprocess.run([fod, "db", "check"] + where, capture_output=True, text=True)
    return None if result.returncode == 0 else f"{result.stdout.strip()} {result.stderr.strip()}"


def check(server, user_token, clients, fod, data):
    """Checks every ledger against the restarted server; returns (problems, counters)."""
    problems, counts = [], {"acked": 0, "unknown present": 0, "unknown absent": 0}
    status, devices = request(server.port, "GET", "/v1/devices", headers={"Authorization": "Bearer " + user_token})
    latest = {d["id"]: d.get("lastLocation") for d in devices["devices"]} if status == 200 else {}
    for client in clients:
        stored, cursor = {}, None
        while True:
            path = f"/v1/devices/{client.device_id}/locations?limit=10000" + (f"&cursor={cursor}" if cursor else "")
            status, page = request(server.port, "GET", path, headers={"Authorization": "Bearer " + user_token}, timeout=60)
            if status != 200:
                problems.append(f"{client.style}: history answered {status}")
                break
            for fix in page["locations"]:
                ts = int(datetime.datetime.fromisoformat(fix["timestamp"].replace("Z", "+00:00")).timestamp())
                stored.setdefault(ts, []).append(fix)
            cursor = page.get("nextCursor")
            if not cursor:
                break
        for ts, copies in stored.items():
            entry = client.fixes.get(ts)
            if entry is None:
                problems.append(f"{client.style}: fix at {ts} stored but never sent")
                continue
            if len(copies) > 1:
                problems.append(f"{client.style}: fix at {ts} stored {len(copies)} times (duplicated)")
            lon, lat = copies[0]["location"]
            if abs(lon - entry[0]) > 1e-6 or abs(lat - entry[1]) > 1e-6:
                problems.append(f"{client.style}: fix at {ts} stored at {lon},{lat}, sent at {entry[0]},{entry[1]}")
        for ts, (lon, lat, state, _) in client.fixes.items():
            if state == ACKED:
                counts["acked"] += 1
                if ts not in stored:
                    problems.append(f"{client.style}: acknowledged fix at {ts} lost")
            else:
                counts["unknown present" if ts in stored else "unknown absent"] += 1
        newest_acked = max((ts for ts, e in client.fixes.items() if e[2] == ACKED), default=None)
        newest = max(stored, default=None)
        last = latest.get(client.device_id)
        if newest is None:
            if last is not None:
                problems.append(f"{client.style}: latest location {last} but no history")
        elif last is None:
            problems.append(f"{client.style}: no latest location, newest stored fix {newest}")
        else:
            last_ts = int(datetime.datetime.fromisoformat(last["timestamp"].replace("Z", "+00:00")).timestamp())
            if last_ts != newest or (newest_acked is not None and last_ts < newest_acked):
                problems.append(f"{client.style}: latest location at {last_ts}, newest stored {newest}, newest acknowledged {newest_acked}")
            elif [round(v, 6) for v in last["location"]] != [round(v, 6) for v in stored[newest][0]["location"]]:
                problems.append(f"{client.style}: latest location {last['location']} is not the newest fix's")
    failed = db_check(fod, data, server.database)
    if failed:
        problems.append(f"fod db check failed: {failed}")
    return problems, counts


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_fod = ".build/release/fod" if os.path.exists(".build/release/fod") else ".build/debug/fod"
    parser.add_argument("--fod", default=os.environ.get("FOD", default_fod))
    parser.add_argument("--cycles", type=int, default=int(os.environ.get("CYCLES") or 20))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("SEED") or random.SystemRandom().randrange(1 << 31)))
    parser.add_argument("--clients", type=int, default=len(Client.STYLES))
    parser.add_argument("--index-buffer", type=int, default=10_000, help="small: merges run during ingest, so kills land in them")
    parser.add_argument("--keep", action="store_true", help="keep the data directory")
    parser.add_argument("--postgres", action="store_true", help="run the node on a throwaway PostgreSQL server")
    parser.add_argument("--database", help="run the node on this (empty) PostgreSQL database")
    parser.add_argument("--no-alerts", action="store_true", help="no alert client, receiver and delivery checks")
    args = parser.parse_args()
    print(f"crash-test: seed {args.seed}, {args.cycles} cycles, {args.clients} clients, {args.fod} (rerun: --seed {args.seed})", flush=True)
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="fod-crash-")
    data = os.path.join(work, "data")
    log = open(os.path.join(work, "server.log"), "w")
    pg_dir = os.path.join(work, "postgres") if args.postgres else None
    database = args.database
    if pg_dir:
        os.chmod(work, 0o755)  # the server runs as the postgres user when we are root
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pg-test-server.sh")
        database = subprocess.run([script, "start", pg_dir], check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        print(f"crash-test: PostgreSQL at {database}", flush=True)
    server = Server(args.fod, data, log, args.index_buffer, database)
    run = Run(args.seed)
    clients, problems, restarts = [], [], []
    kills_in_merge = 0
    try:
        server.start()
        status, body = request(server.port, "POST", "/v1/users", {"email": "crash@example.org", "password": "crash-password", "displayName": "Crash"})
        user_token = body["token"]
        base = int(time.time()) - 200 * 86400
        styles = [Client.STYLES[index % len(Client.STYLES)] for index in range(args.clients)]
        if not args.no_alerts:
            styles.append(Client.WALKER)
        for index, style in enumerate(styles):
            status, body = request(server.port, "POST", "/v1/devices", {"name": f"{style} {index}"}, {"Authorization": "Bearer " + user_token})
            clients.append(Client(run, index, style, body["device"]["id"], body["deviceToken"],
                                  int(time.time()) + 2 if style == Client.WALKER else base))
        receiver = None if args.no_alerts else Receiver()
        alert = set_up_alert(server.port, user_token, clients[-1], receiver) if receiver else None
        run.port = server.port
        for client in clients:
            client.start()
        for cycle in range(1, args.cycles + 1):
            run.go.set()
            quiet = rng.random() < 0.25
            time.sleep(rng.uniform(0.05, 1.5))
            if quiet:
                # A quiet spell: ingest pauses, so the index merge starts; the kill lands in it.
                run.go.set(False)
                for client in clients:
                    with client.active:
                        pass
                time.sleep(rng.uniform(0.25, 0.6))
            merging = metric(server.port, "fod_index_merge_running") == 1
            kills_in_merge += merging
            server.kill()
            run.go.set(False)
            for client in clients:
                with client.active:
                    pass
            restarts.append(server.start())
            run.port = server.port
            cycle_problems, counts = check(server, user_token, clients, args.fod, data)
            problems += [f"cycle {cycle}: {p}" for p in cycle_problems]
            when = ("after a quiet spell" if quiet else "during ingest") + (", merging" if merging else "")
            print(f"  cycle {cycle:3}: killed {when:30} restart {restarts[-1] * 1000:6.0f} ms, "
                  f"acknowledged {counts['acked']}, unknown present {counts['unknown present']} / absent {counts['unknown absent']}"
                  f"{', PROBLEMS: ' + str(len(cycle_problems)) if cycle_problems else ''}", flush=True)
            for client in clients:
                problems += [f"cycle {cycle}: {f}" for f in client.failures]
                client.failures.clear()
            if run.finished:
                break
        run.finished = True
        run.go.set()
        if alert:
            alert_problems, place_events, duplicate_ids = check_deliveries(server.port, user_token, alert[0], alert[1], receiver)
            problems += alert_problems
            print(f"crash-test: alerts: {place_events} place events, {len(set(receiver.ids()))} delivery ids received, "
                  f"{duplicate_ids} received again (sent again after a kill)", flush=True)
        exit_status = server.stop()
        if exit_status != 0:
            problems.append(f"clean stop exited with {exit_status}")
        failed = db_check(args.fod, data, database)
        if failed:
            problems.append(f"final fod db check failed: {failed}")
    finally:
        run.finished = True
        run.go.set()
        if server.process and server.process.poll() is None:
            server.process.kill()
            server.process.wait()
        log.close()
        if pg_dir:
            subprocess.run([script, "stop", pg_dir], capture_output=True)
    duplicated = sum("duplicated" in p for p in problems)
    lost = sum(" lost" in p for p in problems)
    acked = sum(1 for c in clients for e in c.fixes.values() if e[2] == ACKED)
    unknown = sum(1 for c in clients for e in c.fixes.values() if e[2] == UNKNOWN)
    ms = sorted(t * 1000 for t in restarts)
    print(f"crash-test: seed {args.seed}: {len(restarts)} kill -9 cycles, {acked} fixes acknowledged "
          f"({sum(c.resent for c in clients)} resent after a kill), {unknown} never acknowledged, "
          f"{kills_in_merge} kills while an index merge ran; "
          f"lost {lost}, duplicated {duplicated}, other problems {len(problems) - lost - duplicated}")
    if ms:
        print(f"crash-test: restart after kill -9: min {ms[0]:.0f} ms, median {statistics.median(ms):.0f} ms, max {ms[-1]:.0f} ms")
    for problem in problems[:50]:
        print("  " + problem)
    if problems:
        print(f"crash-test: FAILED (data and server log kept in {work})")
        sys.exit(1)
    if args.keep:
        print(f"crash-test: data kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    print("crash-test: passed")


if __name__ == "__main__":
    main()
