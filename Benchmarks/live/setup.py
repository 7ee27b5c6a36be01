#!/usr/bin/env python3
"""Users, devices, groups and subscribers for the live benchmarks (Benchmarks/live/run.sh,
Benchmarks/postgres/live.sh), made over HTTP on one node.

    setup.py <port> <groups> <devices per group> <subscribers per group> <outside devices> <out prefix>

Writes <out prefix>.subs ("groupId userToken" a line: one per subscriber, spread over the
group's members) and <out prefix>.devices ("deviceId deviceToken" a line: the groups' devices,
then the outside ones, each outside device with an owner of its own)."""
import json
import sys
import urllib.request

port, groups, per, subs, outside, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
base = f"http://127.0.0.1:{port}"


def call(method, path, body=None, token=None):
    req = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json", **({"Authorization": "Bearer " + token} if token else {})})
    return json.load(urllib.request.urlopen(req))


n = [0]


def user():
    n[0] += 1
    return call("POST", "/v1/users", {"email": f"{out.split('/')[-1]}-{n[0]}@bench.org", "password": "bench-password", "displayName": f"U{n[0]}"})["token"]


devices, subscribers = [], []
for g in range(groups):
    tokens, gid = [], None
    for k in range(per):
        t = user()
        d = call("POST", "/v1/devices", {"name": f"d{g}-{k}"}, t)
        if gid is None:
            gid = call("POST", "/v1/groups", {"name": f"g{g}", "deviceId": d["device"]["id"]}, t)["id"]
            owner = t
        else:
            me = call("GET", "/v1/me", token=t)
            call("POST", f"/v1/groups/{gid}/invitations", {"email": me["email"]}, owner)
            call("POST", f"/v1/invitations/{gid}/accept", {"deviceId": d["device"]["id"]}, t)
        tokens.append(t)
        devices.append((d["device"]["id"], d["deviceToken"]))
    subscribers += [(gid, tokens[i % len(tokens)]) for i in range(subs)]
for k in range(outside):  # each outside device has its own owner (at most 100 devices a user)
    d = call("POST", "/v1/devices", {"name": f"o{k}"}, user())
    devices.append((d["device"]["id"], d["deviceToken"]))
with open(out + ".subs", "w") as f:
    f.write("".join(f"{g} {t}\n" for g, t in subscribers))
with open(out + ".devices", "w") as f:
    f.write("".join(f"{d} {t}\n" for d, t in devices))
