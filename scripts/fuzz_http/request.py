"""A request being built: valid from the operation and the world, then mutated."""
import base64
import copy
import json

from . import wire
from .values import EXTREME_JSON, EXTREME_TEXT, HOSTILE_CONTENT_TYPES, HOSTILE_METHODS, HOSTILE_SEGMENTS, Pairs, Raw, ValueMaker, dump, quote


class Request:
    def __init__(self, operation):
        self.operation = operation
        self.method = operation.method
        self.segments = []  # encoded path segments
        self.query = []  # (name, value, encoded?)
        self.headers = []  # (name, value)
        self.body = None  # JSON value (with Raw/Pairs), or bytes when `raw_body`
        self.raw_body = False
        self.mutations = []
        self.announced_length = None  # set: Content-Length announces this, the body is only a part

    def set_header(self, name, value):
        self.headers = [(n, v) for n, v in self.headers if n.lower() != name.lower()]
        if value is not None:
            self.headers.append((name, value))

    def target(self):
        path = "/" + "/".join(self.segments)
        if self.query:
            path += "?" + "&".join((f"{quote(n)}={quote(v)}" if not encoded else f"{n}={v}") for n, v, encoded in self.query)
        return path

    def body_bytes(self):
        if self.body is None:
            return None
        return self.body if self.raw_body else dump(self.body)

    def serialize(self):
        if self.announced_length is not None:
            # An upload that announces more than it sends (the rest never comes).
            headers = [(n, v) for n, v in self.headers if n.lower() not in ("content-length", "transfer-encoding")]
            return wire.build(self.method, self.target(), headers + [("Content-Length", str(self.announced_length))], self.body_bytes() or b"")
        body = self.body_bytes()
        headers = list(self.headers)
        if ("Transfer-Encoding", "chunked") in headers:
            body = body or b""
            chunks, k = [], 0
            while k < len(body):
                size = min(len(body) - k, 1 + (k * 7919) % 4096)
                chunks.append(b"%x\r\n" % size + body[k:k + size] + b"\r\n")
                k += size
            body = b"".join(chunks) + b"0\r\n\r\n"
        return wire.build(self.method, self.target(), headers, body)


class Builder:
    def __init__(self, rng, spec, world):
        self.rng, self.spec, self.world = rng, spec, world
        self.values = ValueMaker(rng, spec, world)

    def valid(self, operation):
        rng, w = self.rng, self.world
        request = Request(operation)
        path_values = {p.name: self.values.path_value(operation, p) for p in operation.path_parameters()}
        device = next((d for d in w.devices if d.id in path_values.values()), w.da)
        for part in operation.path.strip("/").split("/"):
            if part.startswith("{") and part.endswith("}"):
                request.segments.append(quote(path_values.get(part[1:-1], "x")))
            elif part:
                request.segments.append(part)
        for parameter in operation.query_parameters():
            if parameter.required or rng.random() < 0.35 or (parameter.name in ("lon", "lat") and "near" in operation.path):
                request.query.append((parameter.name, self.values.query_value(operation, parameter), False))
        if "osmand" in operation.path and not any(n in ("id", "deviceid") for n, _, _ in request.query):
            request.query.append(("id", device.token, False))
        scheme = rng.choice(operation.security) if operation.security else ""
        if scheme == "userToken":
            owner = rng.choice([w.a, w.a, w.a, w.b, w.c]) if not operation.path.startswith("/v1/invitations/") else rng.choice([w.c, w.c, w.b])
            request.set_header("Authorization", "Bearer " + owner.token)
        elif scheme == "deviceToken":
            request.set_header("Authorization", "Bearer " + device.token)
        elif scheme == "ownTracksBasic":
            request.set_header("Authorization", w.basic(device))
        elif scheme == "liveQueryToken":
            request.query.append(("token", w.a.token, False))
        for parameter in operation.header_parameters():
            if rng.random() < 0.3:
                request.set_header(parameter.name, str(rng.randrange(0, 50)))
        if operation.bodies:
            media = rng.choice(sorted(operation.bodies))
            request.set_header("Content-Type", media)
            body = self.values.body_example(operation, media)
            if media == "application/x-www-form-urlencoded":
                if not isinstance(body, dict):
                    body = {}
                body.setdefault("id", device.token)
                request.body, request.raw_body = "&".join(f"{quote(str(k))}={quote(str(v))}" for k, v in body.items()).encode(), True
            else:
                request.body = body
        return request

    # ------------------------------------------------------------------ mutations

    def mutate(self, request, count):
        catalogue = [
            (self.body_value, 6), (self.body_structure, 3), (self.body_bytes, 2), (self.content_type, 3), (self.authorization, 3),
            (self.path_segment, 3), (self.method, 1), (self.query_value, 6), (self.extra_headers, 2), (self.big_body, 0.05),
        ]
        total = sum(weight for _, weight in catalogue)
        for _ in range(count):
            pick, acc = self.rng.random() * total, 0
            for mutation, weight in catalogue:
                acc += weight
                if pick < acc:
                    request.mutations.append(mutation.__name__)
                    mutation(request)
                    break

    def json_body(self, request):
        """The body as a JSON value to mutate (a new object when there is none or it is raw)."""
        if request.body is None or request.raw_body:
            request.body, request.raw_body = {}, False
            if request.method in ("GET", "HEAD", "DELETE") or not any(n.lower() == "content-type" for n, _ in request.headers):
                request.set_header("Content-Type", "application/json")
        return request.body

    def body_value(self, request):
        body = self.json_body(request)
        slots = []

        def walk(node, depth):
            if isinstance(node, dict):
                for key in list(node):
                    slots.append((node, key))
                    walk(node[key], depth + 1)
            elif isinstance(node, list):
                for index in range(len(node)):
                    slots.append((node, index))
                    walk(node[index], depth + 1)
        walk(body, 0)
        value = copy.deepcopy(self.rng.choice(EXTREME_JSON))
        if not slots:
            # A whole body of JSON null is the text "null", never "no body".
            request.body = (Raw(b"null") if value is None else value) if self.rng.random() < 0.3 else {"location": value}
            return
        container, key = self.rng.choice(slots)
        container[key] = value

    def body_structure(self, request):
        rng, body = self.rng, self.json_body(request)
        choice = rng.randrange(7)
        if choice == 0 and isinstance(body, dict) and body:
            del body[rng.choice(list(body))]
        elif choice == 1:
            n = rng.choice([64, 1000, 10_000, 100_000])
            opener, closer = rng.choice([(b"[", b"]"), (b'{"a":', b"}")])
            nested = Raw(opener * n + b"0" + closer * n)
            request.body = nested if rng.random() < 0.5 or not isinstance(body, dict) else dict(body, **{"location": nested})
        elif choice == 2:
            n = rng.choice([1000, 1000, 10_001, 50_000])
            element = rng.choice([0, [0, 0], {"location": [0, 0]}, None])
            key = rng.choice(["locations", "location", "coordinates", "filter"])
            request.body = Raw(b'{"' + key.encode() + b'":[' + b",".join([dump(element)] * n) + b"]}")
        elif choice == 3 and isinstance(body, dict):
            pairs = Pairs(body.items())
            for key, _ in pairs.items[:2] or [("location", None)]:
                pairs.items.append((key, copy.deepcopy(rng.choice(EXTREME_JSON))))
            request.body = pairs
        elif choice == 4:
            request.body = rng.choice([[body], Raw(b"null"), Raw(b"[]"), Raw(b"1"), Raw(b'"x"'), Raw(b"")])
        elif choice == 5 and isinstance(body, dict):
            body[rng.choice(["$where", "__proto__", "constructor", "", "\u0000", "x" * 300])] = copy.deepcopy(rng.choice(EXTREME_JSON))
        else:
            polygon = [[rng.uniform(-180, 180), rng.uniform(-90, 90)] for _ in range(rng.choice([3, 3, 100, 100, 2000]))]
            polygon.append(polygon[0])
            request.body = {"filter": {"location": {"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [polygon]}}}}}

    def body_bytes(self, request):
        rng = self.rng
        data = bytearray(request.body_bytes() or b'{"location":[1,2]}')
        choice = rng.randrange(6)
        if choice == 0 and data:
            del data[rng.randrange(len(data)):]
        elif choice == 1 and data:
            data[rng.randrange(len(data))] = rng.randrange(256)
        elif choice == 2:
            data[rng.randrange(len(data) + 1):0] = rng.choice([b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\x00", b"\xef\xbb\xbf", b"\\u"])
        elif choice == 3:
            data = bytearray(b"\xef\xbb\xbf") + data
        elif choice == 4:
            data += rng.choice([b"}", b"]", b",", b" x", b"\x00", b"{}"])
        else:
            data = bytearray(rng.choice([b"", b" ", b"\n\n", b"{", b'{"', b"[" * 3, b"nul", b"tru", b"-", b"1e", b'"\\ud800"']))
        request.body, request.raw_body = bytes(data), True

    def content_type(self, request):
        request.set_header("Content-Type", self.rng.choice(HOSTILE_CONTENT_TYPES))
        if request.body is None:
            request.body, request.raw_body = b'{"name":"x"}', True

    def authorization(self, request):
        rng, w = self.rng, self.world
        token = rng.choice([w.a.token, w.b.token, w.da.token, w.db.token])
        value = rng.choice([
            None, "", " ", "Bearer", "Bearer ", "Bearer  " + token, "bearer " + token, "Bearer " + token + "x", "Bearer " + token[:-1],
            "Bearer " + token + " extra", "Basic " + token, "Basic", "Basic =", "Basic !!!", w.basic(w.da), w.basic(w.db),
            "Basic " + base64.b64encode(b"no-colon").decode(), "Basic " + base64.b64encode(b"\xff\xfe:\x00").decode(),
            "Bearer " + "x" * 4000, "Bearer \u00e9\u00e9", "Bearer fodu_", "Bearer fodd_", "Digest x", "Bearer\t" + token,
        ])
        request.set_header("Authorization", value)
        if rng.random() < 0.2:
            request.headers.append(("Authorization", "Bearer " + rng.choice([w.c.token, "junk"])))

    def path_segment(self, request):
        rng = self.rng
        if not request.segments:
            request.segments = [""]
        index = rng.randrange(len(request.segments))
        choice = rng.randrange(4)
        if choice == 0:
            request.segments[index] = rng.choice(HOSTILE_SEGMENTS)
        elif choice == 1:
            request.segments[index] = "".join("%%%02X" % b for b in request.segments[index].encode())
        elif choice == 2:
            request.segments.insert(index, rng.choice(["", "..", ".", "v1", "%2F"]))
        else:
            request.segments.append(rng.choice(["", "x", "..", "%00"]))

    def method(self, request):
        request.method = self.rng.choice(HOSTILE_METHODS)

    def query_value(self, request):
        rng = self.rng
        names = [p.name for p in request.operation.query_parameters()] + ["since", "limit", "from", "to", "cursor", "token", "x"]
        name = rng.choice(names)
        value = rng.choice(EXTREME_TEXT)
        choice = rng.randrange(5)
        if choice == 0:
            request.query.append((name, value, False))
        elif choice == 1 and request.query:
            index = rng.randrange(len(request.query))
            request.query[index] = (request.query[index][0], value, False)
        elif choice == 2:
            request.query.append((name, rng.choice(["%", "%G1", "%zz", "%00", "%FF%FE", "a%", "%%", "+", "%2B", ""]), True))
        elif choice == 3:
            request.query += [(name, value, False), (name, rng.choice(EXTREME_TEXT), False)]
        else:
            request.query.append((rng.choice(["", "%00", "x" * 2000, "\u00e9"]), value, False))

    def extra_headers(self, request):
        rng = self.rng
        choice = rng.randrange(6)
        if choice == 0:
            request.set_header("X-Request-Id", rng.choice(["", "a b", "x" * 200, "\u00e9", "id\u0001", "ok-id_1.2"]))
        elif choice == 1:
            request.set_header("Last-Event-ID", rng.choice(EXTREME_TEXT[:20]))
        elif choice == 2 and request.body is not None:
            request.set_header("Transfer-Encoding", "chunked")
        elif choice == 3:
            request.headers.append(("X-Fuzz", "y" * rng.choice([100, 8000, 20000])))
        elif choice == 4:
            request.headers.append(("Content-Type", rng.choice(["text/plain", "application/json"])))
        else:
            request.set_header("Accept", rng.choice(["*/*", "text/event-stream", "", "\u0001"]))

    def unauthenticated_large_body(self, request):
        """No credential anywhere in the head (header, `token`, OsmAnd's `id`), a large body
        announced and only a part of it sent: the server must answer before the rest, which
        never comes (refused at the headers: 401, 403, 404, 405 or 413), and hold none of it."""
        rng = self.rng
        request.mutations.append("unauthenticated_large_body")
        request.set_header("Authorization", None)
        request.query = [(n, v, e) for n, v, e in request.query if n not in ("token", "id", "deviceid")]
        if not any(n.lower() == "content-type" for n, _ in request.headers):
            request.set_header("Content-Type", "application/json")
        request.announced_length = rng.choice([1 << 20, 8 << 20, 64 << 20, 1 << 30])
        sent = rng.choice([0, 1, 4096, 65_536, 262_144])
        request.body, request.raw_body = (b'{"locations":[' + b" " * sent)[:sent], True

    def big_body(self, request):
        size = self.rng.choice([1 << 20, 3 << 20, 9 << 20])
        field = self.rng.choice(["id", "name", "email", "displayName", "filter"])
        request.set_header("Content-Type", "application/json")
        request.body, request.raw_body = b'{"' + field.encode() + b'":"' + b"x" * size + b'","location":[1,2]}', True


def describe(request):
    """A short human summary of a request (for the failure list)."""
    return f"{request.method} {request.target()[:160]} [{', '.join(request.mutations) or 'valid'}]"


def reproducer(request, raw, world, kind, detail):
    return {
        "kind": kind, "detail": detail, "operation": request.operation.name, "mutations": request.mutations,
        "summary": describe(request), "world": world.secrets(),
        "request_base64": base64.b64encode(raw).decode(), "request_preview": raw[:600].decode("utf-8", "replace"),
    }


def as_json_line(record):
    return json.dumps(record, ensure_ascii=True)
