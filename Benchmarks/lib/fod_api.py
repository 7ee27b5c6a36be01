"""A small client of a local `fod serve` for the benchmark scripts: JSON calls, and a new account
with one device (and a group it shares in) to measure with.

As a command: `python3 Benchmarks/lib/fod_api.py PORT [--group] [--email E]` creates them and
prints `device_id device_token user_token` (and `group_id` with --group) on one line.
"""
import argparse
import json
import urllib.request


def call(port, method, path, body=None, token=None):
    """The JSON reply of `method path` on 127.0.0.1:port (any non-2xx raises)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=None if body is None else json.dumps(body).encode(), method=method,
        headers={"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(request) as reply:
        return json.load(reply)


def new_device(port, email="bench@example.org", group=False):
    """A new user with one device: (device id, device token, user token, group id or None)."""
    user = call(port, "POST", "/v1/users", {"email": email, "password": "bench-password", "displayName": "Bench"})
    device = call(port, "POST", "/v1/devices", {"name": "phone"}, user["token"])
    group_id = None
    if group:
        created = call(port, "POST", "/v1/groups", {"name": "family", "deviceId": device["device"]["id"]}, user["token"])
        group_id = created.get("group", created)["id"]
    return device["device"]["id"], device["deviceToken"], user["token"], group_id


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("port")
    parser.add_argument("--group", action="store_true")
    parser.add_argument("--email", default="bench@example.org")
    o = parser.parse_args()
    print(" ".join(x for x in new_device(o.port, o.email, o.group) if x is not None))
