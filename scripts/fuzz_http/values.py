"""Values: valid ones generated from the OpenAPI schemas and the world, and the catalogue of
hostile ones a mutation substitutes."""
import copy
import json
import time
import urllib.parse


class Raw:
    """Bytes written as they are into a JSON body (NaN, 1e400, invalid UTF-8, deep nesting …)."""
    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data


class Pairs:
    """A JSON object as (key, value) pairs, so keys may repeat."""
    __slots__ = ("items",)

    def __init__(self, items):
        self.items = list(items)


class _Special(Exception):
    pass


def _refuse(value):
    raise _Special()


def dump(value):
    """JSON bytes of `value`, honouring `Raw` and `Pairs` (the C encoder does the rest)."""
    try:
        return json.dumps(value, ensure_ascii=False, default=_refuse).encode("utf-8", "surrogatepass")
    except _Special:
        pass
    if isinstance(value, Raw):
        return value.data
    if isinstance(value, (dict, Pairs)):
        items = value.items() if isinstance(value, dict) else value.items
        return b"{" + b",".join(json.dumps(str(k), ensure_ascii=False).encode("utf-8", "surrogatepass") + b":" + dump(v) for k, v in items) + b"}"
    return b"[" + b",".join(dump(v) for v in value) + b"]"


# Query-string and header values: numbers at their limits and what breaks careless parsing.
EXTREME_TEXT = [
    "-9223372036854775808", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
    "18446744073709551616", "-1", "0", "-0", "1", "1e400", "-1e400", "1e308", "-1e308", "1e-400", "4.9e-324",
    "123456789012345678901234567890", "NaN", "nan", "Infinity", "-Infinity", "inf", "0x10", "1_000", "+1",
    " 1", "1 ", "1.5", ".5", "5.", "1e", "--1", "", "abc", "true", "null", "[]", "{}", "%", "%zz", "%00", "\u0000",
    "\u00e9", "\U0001F600", "x" * 5000, "2026-11-30T08:00:00Z", "2026-02-30T00:00:00Z", "0000-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999Z", "10000-01-01T00:00:00Z", "2026-11-30T08:00:00+99:99", "2026-11-30T08:00:00.1234567890123Z",
]

# JSON values: wrong types, extreme and impossible numbers, odd strings.
EXTREME_JSON = [
    None, True, False, 0, -1, 1, Raw(b"-0"), Raw(b"-0.0"), 0.5, 1e308, -1e308, Raw(b"1e400"), Raw(b"-1e400"), Raw(b"1e-400"),
    Raw(b"NaN"), Raw(b"Infinity"), Raw(b"-Infinity"), Raw(b"nan"), 9223372036854775807, -9223372036854775808,
    Raw(b"9223372036854775808"), Raw(b"18446744073709551616"), Raw(b"123456789012345678901234567890"),
    Raw(b"0x10"), Raw(b"01"), Raw(b"1."), Raw(b".1"), Raw(b"+1"), "", " ", "abc", "\u0000", "\u202e", "\U0001F600",
    "\ud800", Raw(b'"\xff\xfe"'), Raw(b'"\xc0\xaf"'), Raw(b'"\\ud800"'), Raw(b'"\\u0000"'), "x" * 10000,
    [], {}, [None], [0, 0], [[0, 0]], {"": None}, {"$where": "1"}, {"$gt": ""},
    "2026-11-30T08:00:00Z", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2026-11-30T08:00:00",
]

HOSTILE_CONTENT_TYPES = [
    None, "", ";", " ; ", ";;", "/", "application", "application/", "/json", "application/json;", "application/json; charset=",
    "application/json; charset=latin1", "APPLICATION/JSON", "application/json\t", "application/+json",
    "application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x", "*/*", "\u0001", "é/é",
    "application/json, text/plain", "application/json; " + ";" * 3000, "x" * 8000,
]

HOSTILE_METHODS = ["FOOBAR", "get", "Get", "OPTIONS", "TRACE", "PROPFIND", "M-SEARCH", "BREW", "X" * 300, "PATCH", "PUT", "DELETE", "HEAD", "POST", "GET"]

HOSTILE_SEGMENTS = [
    "%00", "%2F", "%2f..%2f", "%ZZ", "%", "%C0%AF", "%FF%FE", "..", ".", "%2e%2e", "", "x" * 3000, "%E2%80%AE", "%F0%9F%98%80",
    "a%20b", "a+b", "%0D%0AX-Injected:%201", "%22%3E%3Cscript%3E", "user=", "group=%00", "device=" + "x" * 500, "%25", ";x", "?",
]


class ValueMaker:
    """Valid values for parameters and bodies, from a schema and the name of the field."""

    def __init__(self, rng, spec, world):
        self.rng, self.spec, self.world = rng, spec, world

    def now_ms(self):
        return int(time.time() * 1000)

    def iso(self, offset_ms=0):
        t = (self.now_ms() + offset_ms) / 1000
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % (int(t * 1000) % 1000)

    def polygon(self):
        return {"type": "Polygon", "coordinates": [[[-74.1, 40.6], [-73.8, 40.6], [-73.8, 40.9], [-74.1, 40.9], [-74.1, 40.6]]]}

    def named(self, name, operation):
        """A value chosen by field name, or None to fall back on the schema."""
        w, rng, path = self.world, self.rng, operation.path
        lowered = name.lower()
        if name == "email":
            if path == "/v1/users":
                return f"fuzz-{w.tag}-{rng.randrange(1 << 40)}@example.org"
            if path == "/v1/sessions":
                return rng.choice(w.users).email
            return rng.choice([w.b, w.c, w.d, w.d]).email
        if name == "password":
            return w.a.password if path == "/v1/sessions" else "password-" + str(rng.randrange(1 << 30))
        if name in ("deviceId", "device"):
            if "/accept" in path:
                return rng.choice([w.dc, w.dc, w.db]).id
            return rng.choice([w.da, w.db, w.da2]).id
        if name in ("userId", "user"):
            return rng.choice(w.users).id
        if name in ("groupId",):
            return w.group
        if name in ("device_id", "deviceid") or (name == "id" and "osmand" in path):
            return rng.choice([w.da, w.db]).token
        if name in ("from", "to", "before"):
            return self.iso(rng.randrange(-3_600_000, 600_000)) if rng.random() < 0.5 else str(self.now_ms() - rng.randrange(3_600_000))
        if name in ("lon", "longitude"):
            return str(round(rng.uniform(-74.1, -73.8), 5))
        if name in ("lat", "latitude"):
            return str(round(rng.uniform(40.6, 40.9), 5))
        if name == "within":
            return json.dumps(self.polygon())
        if lowered in ("timestamp", "tst"):
            return None
        return None

    def from_schema(self, schema, name="", operation=None, depth=0):
        schema = self.spec.schema(schema)
        rng = self.rng
        if operation is not None and name:
            value = self.named(name, operation)
            if value is not None:
                return value
        for key in ("oneOf", "anyOf"):
            if key in schema:
                return self.from_schema(rng.choice(schema[key]), name, operation, depth + 1)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return rng.choice(schema["enum"])
        if "example" in schema and rng.random() < 0.7:
            return copy.deepcopy(schema["example"])
        if "examples" in schema and schema["examples"] and rng.random() < 0.7:
            return copy.deepcopy(rng.choice(schema["examples"]))
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = rng.choice([k for k in kind if k != "null"] or ["null"])
        if kind == "object" or "properties" in schema:
            out = {}
            properties = schema.get("properties") or {}
            required = set(schema.get("required") or [])
            for key, sub in properties.items():
                if depth < 6 and (key in required or rng.random() < 0.4):
                    out[key] = self.from_schema(sub, key, operation, depth + 1)
            return out
        if kind == "array":
            low, high = schema.get("minItems", 1), min(schema.get("maxItems", 3), 3)
            return [self.from_schema(schema.get("items") or {}, name, operation, depth + 1) for _ in range(rng.randint(low, max(low, high)))]
        if kind in ("number", "integer"):
            low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
            high = schema.get("maximum", schema.get("exclusiveMaximum", low + 100))
            value = rng.uniform(low, high)
            return int(value) if kind == "integer" else round(value, 4)
        if kind == "boolean":
            return rng.random() < 0.5
        if kind == "null":
            return None
        if schema.get("maxLength") == 0:
            return ""
        if schema.get("format") == "date-time":
            return self.iso(-rng.randrange(3_600_000))
        return "fuzz-" + str(rng.randrange(1000))

    def body_example(self, operation, media):
        schema, examples = operation.bodies[media]
        if examples and self.rng.random() < 0.6:
            return self.refresh(json.loads(json.dumps(self.rng.choice(examples))), operation)
        return self.from_schema(schema, "", operation)

    def refresh(self, value, operation, key=""):
        """An example with ids, emails and times made real for this world."""
        if isinstance(value, dict):
            return {k: self.refresh(v, operation, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.refresh(v, operation, key) for v in value]
        if key in ("timestamp",) and isinstance(value, str):
            return self.iso(-self.rng.randrange(3_600_000))
        if key == "tst":
            return int(time.time()) - self.rng.randrange(3600)
        replacement = self.named(key, operation) if key else None
        return replacement if replacement is not None and isinstance(value, str) else value

    def path_value(self, operation, parameter):
        """A valid-looking value for a path parameter of `operation`."""
        w, rng, name = self.world, self.rng, parameter.name
        if name in ("id",) and operation.path.startswith("/v1/devices/"):
            return rng.choice([w.da, w.da, w.db, w.da2]).id
        if name == "id" and operation.path.startswith("/v1/sessions/"):
            return rng.choice([w.spare_session, w.spare_session, "s_unknown"])
        if name == "placeId":
            return rng.choice([w.place, w.place, w.group])
        if name == "shareId":
            return rng.choice([w.share, w.share, w.da.id])
        if name == "token":
            return rng.choice([w.share_token, w.share_token, w.da.token, "x"])
        if name in ("id", "groupId"):
            return w.group
        if name == "userId":
            return rng.choice([w.b, w.b, w.a, w.c]).id
        if name == "partition":
            return rng.choice([f"group={w.group}", f"device={w.da.id}", f"device={w.db.id}", f"user={w.a.id}"])
        if name == "file":
            return rng.choice(["app.js", "style.css", "config.json", "countries-110m.geojson", "leaflet.js", "marker-icon.png"])
        return rng.choice([w.group, w.da.id, w.a.id, w.da.token, "x"])

    def query_value(self, operation, parameter):
        value = self.named(parameter.name, operation)
        if value is None:
            value = self.from_schema(parameter.schema, "", None)
        if isinstance(value, bool):
            return "true" if value else "false"
        return value if isinstance(value, str) else json.dumps(value)


def quote(text):
    return urllib.parse.quote(text, safe="-._~:@!$'()*,=[]")
