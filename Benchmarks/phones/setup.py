#!/usr/bin/env python3
"""The phones of the fleet benchmark, made over HTTP on a running `fod serve` (open sign-up).

    setup.py <port> <phones> <out file> [--group-size 10] [--friends 0.1] [--threads 8] [--tag phone]

Every phone is a device in a group of --group-size members who share (families and friends):
users sign up in blocks of --group-size, each user gets D devices (D = phones / group size, at
most 100, the per-user limit), and device k of every user of a block is that user's membership
in the block's group k, so each user is in D groups (at most 100, the per-user limit) and each
group has one device of each of its members. In a --friends fraction of the groups every
owner turned `receiveGroupLocations` on for that device: those phones get their friends in
each reply, the others `[]`.

Writes <out file>: "deviceId deviceToken friends" a line (friends 1 or 0), in a shuffled order
(fixed seed), so the friends phones and the kept-alive phones of phonefleet spread over the run.
Setup time is not part of the measurement; threads run the blocks in parallel, each on one
kept-alive connection."""
import argparse
import http.client
import json
import random
import sys
import threading
import time


class Client:
    """One kept-alive connection to the server, JSON in and out; any non-2xx raises."""

    def __init__(self, port):
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def call(self, method, path, body=None, token=None):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        payload = None if body is None else json.dumps(body)
        for attempt in range(3):
            try:
                self.connection.request(method, path, payload, headers)
                reply = self.connection.getresponse()
                data = reply.read()
                break
            except (ConnectionError, http.client.HTTPException):
                self.connection.close()  # the server closed an idle connection: reconnect
                if attempt == 2:
                    raise
        if reply.status // 100 != 2:
            raise SystemExit(f"setup: {method} {path} -> {reply.status} {data[:200]!r}")
        return json.loads(data) if data else None


def make_block(port, tag, block, group_size, per_user, friends_every, out):
    """The users, devices and groups of one block; appends its phones to `out`."""
    client = Client(port)
    users = []
    for j in range(group_size):
        email = f"{tag}-{block}-{j}@fleet.example.org"
        token = client.call("POST", "/v1/users", {"email": email, "password": "fleet-password", "displayName": f"Owner {block}.{j}"})["token"]
        devices = [client.call("POST", "/v1/devices", {"name": f"phone {k}"}, token) for k in range(per_user)]
        users.append((email, token, devices))
    phones = []
    for k in range(per_user):
        friends = k % friends_every == 0 if friends_every else False
        owner_token = users[0][1]
        created = client.call("POST", "/v1/groups", {"name": f"family {block}.{k}", "deviceId": users[0][2][k]["device"]["id"]}, owner_token)
        group_id = created.get("group", created)["id"]
        for email, token, devices in users[1:]:
            client.call("POST", f"/v1/groups/{group_id}/invitations", {"email": email}, owner_token)
            client.call("POST", f"/v1/invitations/{group_id}/accept", {"deviceId": devices[k]["device"]["id"]}, token)
        for _, token, devices in users:
            device = devices[k]
            if friends:
                client.call("PATCH", f"/v1/devices/{device['device']['id']}", {"receiveGroupLocations": True}, token)
            phones.append((device["device"]["id"], device["deviceToken"], int(friends)))
    out.extend(phones)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("port", type=int)
    parser.add_argument("phones", type=int)
    parser.add_argument("out")
    parser.add_argument("--group-size", type=int, default=10)
    parser.add_argument("--friends", type=float, default=0.1, help="fraction of the groups whose phones receive their friends")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--tag", default="phone", help="the users' email prefix (another tag for another fleet on the same server)")
    o = parser.parse_args()
    per_user = min(100, max(1, o.phones // o.group_size))
    blocks = max(1, o.phones // (o.group_size * per_user))
    if blocks * o.group_size * per_user != o.phones:
        sys.exit(f"setup: {o.phones} phones is not a multiple of {o.group_size * per_user} (group size × devices a user)")
    friends_every = round(1 / o.friends) if o.friends > 0 else 0
    started = time.monotonic()
    results, pending, lock, failures = [], list(range(blocks)), threading.Lock(), []

    def worker():
        while True:
            with lock:
                if not pending or failures:
                    return
                block = pending.pop()
            mine = []
            try:
                make_block(o.port, o.tag, block, o.group_size, per_user, friends_every, mine)
            except BaseException as error:  # noqa: BLE001 — reported once below
                with lock:
                    failures.append(error)
                return
            with lock:
                results.extend(mine)

    threads = [threading.Thread(target=worker) for _ in range(min(o.threads, blocks))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        sys.exit(f"setup failed: {failures[0]}")
    random.Random(1).shuffle(results)
    with open(o.out, "w") as f:
        f.write("".join(f"{d} {t} {fr}\n" for d, t, fr in results))
    friends = sum(fr for _, _, fr in results)
    print(f"setup: {len(results)} phones ({friends} receive friends) in {blocks * per_user} groups of {o.group_size}, "
          f"{blocks * o.group_size} users, {time.monotonic() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
