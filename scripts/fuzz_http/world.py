"""The setup phase: real accounts, devices, a group with a member, an invitation and fixes, so
fuzzed requests carry valid tokens and ids and get past authentication."""
import base64
import json
import time

from . import wire


class SetupFailed(Exception):
    pass


class Account:
    def __init__(self, email, password):
        self.email, self.password, self.id, self.token = email, password, None, None


class Device:
    def __init__(self, owner):
        self.owner, self.id, self.token = owner, None, None


class World:
    """Users a (owner of group g with device da; spare device da2), b (member with db), c
    (invited, not yet answered, with device dc) and d (not invited); a place of g drawn by a, a
    share link of da, and a second session of b (`spare_session`, not the one b's token is).
    `dirty` is set once a request may have destroyed part of it."""

    def __init__(self, connection, tag):
        self.connection, self.tag = connection, tag
        self.dirty = False
        self.generation = 0

    def call(self, method, path, token=None, body=None, expect=(200, 201, 204)):
        headers = [("Content-Type", "application/json")] if body is not None else []
        if token:
            headers.append(("Authorization", "Bearer " + token))
        data = json.dumps(body).encode() if body is not None else None
        for _ in range(5):
            try:
                reply = self.connection.exchange(wire.build(method, path, headers, data), method)
            except wire.NoAnswer:
                continue
            except wire.Hang as hang:
                raise SetupFailed(f"{method} {path}: {hang}")
            if reply.status == 503:
                time.sleep(0.05)
                continue
            if reply.status not in expect:
                raise SetupFailed(f"{method} {path}: {reply.status} {reply.body[:200]!r}")
            return reply.json()
        raise SetupFailed(f"{method} {path}: no answer")

    def build(self):
        self.generation += 1
        stamp = f"{self.tag}-{self.generation}"
        self.a, self.b, self.c, self.d = (Account(f"fuzz-{stamp}-{n}@example.org", f"password-{stamp}-{n}") for n in "abcd")
        for account in (self.a, self.b, self.c, self.d):
            signed = self.call("POST", "/v1/users", body={"email": account.email, "password": account.password, "displayName": "Fuzz " + account.email[:8]})
            account.id, account.token = signed["user"]["id"], signed["token"]
        self.da, self.da2, self.db, self.dc = Device(self.a), Device(self.a), Device(self.b), Device(self.c)
        for device, name in ((self.da, "phone"), (self.da2, "spare"), (self.db, "tracker"), (self.dc, "watch")):
            made = self.call("POST", "/v1/devices", device.owner.token, {"name": name})
            device.id, device.token = made["device"]["id"], made["deviceToken"]
        self.group = self.call("POST", "/v1/groups", self.a.token, {"name": "fuzz " + stamp, "deviceId": self.da.id})["id"]
        for invitee in (self.b, self.c):
            self.call("POST", f"/v1/groups/{self.group}/invitations", self.a.token, {"email": invitee.email})
        self.call("POST", f"/v1/invitations/{self.group}/accept", self.b.token, {"deviceId": self.db.id})
        now = int(time.time() * 1000)
        for device, lon in ((self.da, -73.99), (self.db, -73.98)):
            fixes = [{"location": [lon + k * 0.001, 40.73 + k * 0.001], "timestamp": now - 60_000 * (5 - k), "accuracy": 10} for k in range(5)]
            self.call("POST", f"/v1/devices/{device.id}/locations", device.token, {"locations": fixes})
        # Ids that only a setup can know, so that operations on them reach their 2xx paths too.
        self.place = self.call("POST", f"/v1/groups/{self.group}/places", self.a.token,
                               {"name": "home", "geometry": {"type": "Point", "coordinates": [-73.99, 40.73]}, "radius": 200})["id"]
        share = self.call("POST", f"/v1/devices/{self.da.id}/shares", self.a.token, {"name": "fuzz", "expiresIn": 3600})
        self.share, self.share_token = share["id"], share["token"]
        self.call("POST", "/v1/sessions", body={"email": self.b.email, "password": self.b.password})
        sessions = self.call("GET", "/v1/sessions", self.b.token)["sessions"]
        spare = [session["id"] for session in sessions if not session.get("current")]
        if not spare:
            raise SetupFailed("GET /v1/sessions: no second session of b")
        self.spare_session = spare[0]
        self.dirty = False

    def ensure(self):
        if self.dirty:
            self.build()

    # What a fuzzed request may pick from.

    @property
    def users(self):
        return [self.a, self.b, self.c, self.d]

    @property
    def devices(self):
        return [self.da, self.da2, self.db, self.dc]

    def basic(self, device):
        return "Basic " + base64.b64encode(f"{device.id}:{device.token}".encode()).decode()

    def secrets(self):
        """Every token and id of this world (for rewriting a saved request into another world)."""
        out = {"group": self.group}
        for name in "abcd":
            account = getattr(self, name)
            out[f"{name}.id"], out[f"{name}.token"], out[f"{name}.email"] = account.id, account.token, account.email
        for name in ("da", "da2", "db", "dc"):
            device = getattr(self, name)
            out[f"{name}.id"], out[f"{name}.token"] = device.id, device.token
            out[f"{name}.basic"] = self.basic(device)[6:]
        out["place"], out["share"], out["share.token"], out["session"] = self.place, self.share, self.share_token, self.spare_session
        return out
