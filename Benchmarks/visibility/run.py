#!/usr/bin/env python3
"""The reads that show members' latest positions, before and after a change (issue #47: "the
latest location obeys sharing", measured side by side): two `fod serve` binaries on identical
data, queried in alternating rounds over keep-alive connections.

    Benchmarks/visibility/run.py --before <fod> --after <fod> [--members 200] [--requests 2000] [--rounds 5]

Each server gets one group of `members` members, each with a device that posted fixes (half of
the members turned sharing off and on again after moving, so their newest fix is hidden and the
group sees an older one — the case the change reads more for). Measured per request kind: the
group document, `$near` with `scope: latest`, and a `$geoWithin` box with `scope: latest`.
Prints medians over rounds of each kind's p50 and p99 (ms) and the after/before ratio.
"""
import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


class Server:
    def __init__(self, fod, data, extra):
        self.process = subprocess.Popen([fod, "serve", "--port", "0", "--bind", "127.0.0.1", "--data", data, "--password-cost", "minimal",
                                         "--log-level", "error", "--device-request-rate", "0", "--sign-up-limit", "1000000",
                                         "--invitation-limit", "1000000"] + extra,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("fod listening on port "):
            sys.exit(f"visibility bench: {fod} did not start: {line!r}")
        self.port = int(line.split()[-1])
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def call(self, method, path, body=None, token=None):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        self.connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        return response.status, (json.loads(data) if data else None)

    def stop(self):
        self.process.terminate()
        self.process.wait()


def populate(server, members, hidden_every):
    """One group; every member posts two fixes; half turn sharing off, move, turn it on."""
    owner_token, group_id = None, None
    now = int(time.time() * 1000)
    for m in range(members):
        _, signed = server.call("POST", "/v1/users", {"email": f"m{m}@bench.org", "password": "bench-password", "displayName": f"M{m}"})
        token = signed["token"]
        _, device = server.call("POST", "/v1/devices", {"name": f"d{m}"}, token)
        device_id, device_token = device["device"]["id"], device["deviceToken"]
        if group_id is None:
            _, group = server.call("POST", "/v1/groups", {"name": "bench", "deviceId": device_id}, token)
            owner_token, group_id = token, group["id"]
        else:
            server.call("POST", f"/v1/groups/{group_id}/invitations", {"email": f"m{m}@bench.org"}, owner_token)
            server.call("POST", f"/v1/invitations/{group_id}/accept", {"deviceId": device_id}, token)
        lon, lat = 2.0 + (m % 20) * 0.01, 48.8 + (m // 20) * 0.01
        time.sleep(0.002)
        server.call("POST", f"/v1/devices/{device_id}/locations", {"location": [lon, lat], "timestamp": int(time.time() * 1000)}, device_token)
        if hidden_every and m % hidden_every == 1 % hidden_every:
            time.sleep(0.003)
            server.call("PUT", f"/v1/groups/{group_id}/sharing", {"shareLocation": False}, token)
            time.sleep(0.003)
            server.call("POST", f"/v1/devices/{device_id}/locations", {"location": [lon + 1, lat], "timestamp": int(time.time() * 1000)}, device_token)
            time.sleep(0.003)
            server.call("PUT", f"/v1/groups/{group_id}/sharing", {"shareLocation": True}, token)
    return owner_token, group_id


def measure(server, token, group_id, kind, requests):
    near = {"filter": {"location": {"$near": {"$geometry": {"type": "Point", "coordinates": [2.1, 48.85]}}}}, "scope": "latest", "limit": 10}
    box = {"filter": {"location": {"$geoWithin": {"$box": [[1.9, 48.7], [2.4, 49.0]]}}}, "scope": "latest", "limit": 1000}
    times = []
    for _ in range(requests):
        started = time.perf_counter()
        if kind == "group document":
            status, _ = server.call("GET", f"/v1/groups/{group_id}", token=token)
        elif kind == "$near latest":
            status, _ = server.call("POST", f"/v1/groups/{group_id}/query", near, token)
        else:
            status, _ = server.call("POST", f"/v1/groups/{group_id}/query", box, token)
        times.append((time.perf_counter() - started) * 1000)
        if status != 200:
            sys.exit(f"visibility bench: {kind} answered {status}")
    times.sort()
    return times[len(times) // 2], times[int(len(times) * 0.99)]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--hidden-every", type=int, default=2, help="every n-th member's newest fix is hidden (0: none)")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="fod-visibility-bench-")
    help_after = subprocess.run([args.after, "serve", "--help"], capture_output=True, text=True).stdout
    servers = {
        "before": Server(args.before, os.path.join(work, "before"), []),
        "after": Server(args.after, os.path.join(work, "after"), ["--signup", "open"] if "--signup" in help_after else []),
    }
    try:
        worlds = {name: populate(server, args.members, args.hidden_every) for name, server in servers.items()}
        kinds = ["group document", "$near latest", "$geoWithin latest"]
        results = {(name, kind): [] for name in servers for kind in kinds}
        for _ in range(args.rounds):
            for kind in kinds:
                for name, server in servers.items():
                    results[(name, kind)].append(measure(server, worlds[name][0], worlds[name][1], kind, args.requests))
        hidden = args.members // args.hidden_every if args.hidden_every else 0
        print(f"visibility bench: {args.members} members ({hidden} with a hidden newest fix), {args.requests} requests × {args.rounds} rounds, medians")
        for kind in kinds:
            b50 = statistics.median(r[0] for r in results[("before", kind)]); b99 = statistics.median(r[1] for r in results[("before", kind)])
            a50 = statistics.median(r[0] for r in results[("after", kind)]); a99 = statistics.median(r[1] for r in results[("after", kind)])
            print(f"  {kind:18}  before p50 {b50:6.3f} p99 {b99:6.3f} ms   after p50 {a50:6.3f} p99 {a99:6.3f} ms   p50 ×{a50 / b50:.2f}  p99 ×{a99 / b99:.2f}")
    finally:
        for server in servers.values():
            server.stop()


if __name__ == "__main__":
    main()
