"""The report's data: people-like fixes, the query sets, and the country polygons.

Fixes: a place picked uniformly from GeoNames cities1000 (Data/places-cities1000.bin, CC BY 4.0,
geonames.org) plus Gaussian jitter of sigma 2 km, with a fixed seed; fix i has id i and, in our
server, timestamp t0 + i ms (so an answer's timestamps give back the ids).
Files for the C client are described in client/bench.h.
"""
import array
import json
import math
import random

OUR_RADIUS = 6378100.0          # the server's sphere (meters)
REDIS_RADIUS = 6372797.560856   # Redis GEO's haversine sphere
MEAN_RADIUS = 6371008.7714      # PostGIS geography and SpatiaLite great-circle sphere ((2a+b)/3 of WGS84)
JITTER_M = 2000.0


def read_places(path):
    """(lon, lat) of every place in the compact places file (format: scripts/make-places.py)."""
    data = open(path, "rb").read()
    if data[:10] != b"FODPLACES\x01":
        raise SystemExit(f"{path}: not a places file")
    at = 10

    def varint():
        nonlocal at
        shift = value = 0
        while True:
            byte = data[at]
            at += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7

    def zigzag():
        n = varint()
        return (n >> 1) ^ -(n & 1)

    countries = varint()
    at += 2 * countries
    lat = lon = 0
    places = []
    for _ in range(varint()):
        lat += zigzag()
        lon += zigzag()
        varint()
        name_length = varint()
        at += name_length
        places.append((lon / 1e5, lat / 1e5))
    return places


def write_places(places, path):
    """The towns as a points file for the C client's `points` mode."""
    flat = array.array("d")
    for lon, lat in places:
        flat.extend((lon, lat))
    with open(path, "wb") as f:
        flat.tofile(f)


def make_points(client, places_path, n, seed, path):
    """n fixes written to `path` by the C client (a town picked uniformly + Gaussian jitter of
    sigma JITTER_M, seeded); returns them as a flat array('d') [lon0, lat0, lon1, lat1, ...]."""
    client.run("points", places_path, n, seed, path)
    points = array.array("d")
    with open(path, "rb") as f:
        points.fromfile(f, 2 * n)
    return points


def meters(lon1, lat1, lon2, lat2, radius=OUR_RADIUS):
    r = math.pi / 180
    a = math.sin((lat2 - lat1) * r / 2) ** 2 + math.cos(lat1 * r) * math.cos(lat2 * r) * math.sin((lon2 - lon1) * r / 2) ** 2
    return 2 * radius * math.asin(min(1.0, math.sqrt(a)))


def centers(points, count, seed):
    """Query centres where people are: the positions of randomly chosen fixes."""
    rng = random.Random(seed)
    n = len(points) // 2
    return [(points[2 * j], points[2 * j + 1]) for j in (rng.randrange(n) for _ in range(count))]


def planar_contains(ring, lon, lat):
    inside = False
    j = len(ring) - 1
    for i in range(len(ring)):
        (xi, yi), (xj, yj) = ring[i], ring[j]
        if (yi > lat) != (yj > lat) and lon < (xj - xi) * (lat - yi) / (yj - yi) + xi:
            inside = not inside
        j = i
    return inside


def edge_sag_m(ring):
    """Largest distance (m) between a great-circle edge and the straight lon/lat edge (at the
    midpoint): how far the geodesic and the planar polygon tests may disagree."""
    worst = 0.0
    for (x1, y1), (x2, y2) in zip(ring, ring[1:] + ring[:1]):
        p1, p2 = to_xyz(x1, y1), to_xyz(x2, y2)
        mid = [a + b for a, b in zip(p1, p2)]
        norm = math.sqrt(sum(c * c for c in mid)) or 1
        lon, lat = math.degrees(math.atan2(mid[1], mid[0])), math.degrees(math.asin(mid[2] / norm))
        worst = max(worst, meters(lon, lat, (x1 + x2) / 2, (y1 + y2) / 2))
    return worst


def to_xyz(lon, lat):
    lo, la = math.radians(lon), math.radians(lat)
    return (math.cos(la) * math.cos(lo), math.cos(la) * math.sin(lo), math.sin(la))


def country_polygons(path, places, n_points, target_hits, count):
    """Single-ring countries whose expected hits at n_points are nearest `target_hits` (at most
    6,000, so every system returns all of them within our 10,000 limit); [(name, ring)]."""
    grid = {}
    for lon, lat in places:
        grid.setdefault((math.floor(lon), math.floor(lat)), []).append((lon, lat))
    chosen = []
    for feature in json.load(open(path))["features"]:
        geometry = feature["geometry"]
        if geometry["type"] != "Polygon" or len(geometry["coordinates"]) != 1:
            continue
        ring = [tuple(p) for p in geometry["coordinates"][0][:-1]]
        w, e = min(p[0] for p in ring), max(p[0] for p in ring)
        s, n = min(p[1] for p in ring), max(p[1] for p in ring)
        if e - w > 15 or n - s > 15:  # a large country holds far more than the target (and is slow to count here)
            continue
        inside = sum(1 for gx in range(math.floor(w), math.floor(e) + 1) for gy in range(math.floor(s), math.floor(n) + 1)
                     for lon, lat in grid.get((gx, gy), ()) if planar_contains(ring, lon, lat))
        expected = inside * n_points / len(places)
        if inside and expected <= 6000:
            chosen.append((abs(math.log(expected / target_hits)), feature["properties"]["name"], ring))
    chosen.sort()
    return [(name, ring) for _, name, ring in chosen[:count]]


def http_body(kind, query, ring=None):
    """The JSON body of our POST /v1/groups/{id}/query for one query."""
    if kind == "R":
        lon, lat, r = query
        location = {"$geoWithin": {"$centerSphere": [[lon, lat], r / OUR_RADIUS]}}
        limit = 10000
    elif kind == "P":
        location = {"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [[list(p) for p in ring + ring[:1]]]}}}
        limit = 10000
    else:
        lon, lat, k = query
        location = {"$near": {"$geometry": {"type": "Point", "coordinates": [lon, lat]}}}
        limit = k
    return json.dumps({"filter": {"location": location}, "scope": "history", "limit": limit}, separators=(",", ":"))


def client_line(kind, query, radius=OUR_RADIUS):
    """One line of the C client's query file; radii converted to the peer's sphere (same angle)."""
    if kind == "R":
        lon, lat, r = query
        return f"R {lon:.9f} {lat:.9f} {r * radius / OUR_RADIUS:.4f}\n"
    if kind == "P":
        return f"P {query}\n"
    lon, lat, k = query
    return f"K {lon:.9f} {lat:.9f} {k}\n"


def polygon_line(ring):
    return f"{len(ring)} " + " ".join(f"{x:.7f} {y:.7f}" for x, y in ring) + "\n"


def polygon_wkt(ring):
    return "POLYGON((" + ",".join(f"{x:.7f} {y:.7f}" for x, y in ring + ring[:1]) + "))"
