"""Answers checked equal before any time counts: every system's ids for every query against the
reference (our engine), allowing differences only on the boundary, where the systems' models
differ by design:
  - radius: a fix whose distance (on our sphere) is within 1e-4 of the radius + 2 m (float and
    Redis's 52-bit geohash coordinates, ~0.6 m);
  - polygon: a fix within the polygon's edge sag (geodesic vs planar edge, see fixtures.edge_sag_m)
    + 50 m of its boundary;
  - k nearest: a fix whose distance is within 1e-4 + 2 m of the k-th distance (ties)."""
import math

from fixtures import meters


def boundary_meters(ring, lon, lat):
    """Distance (m, local equirectangular) from (lon, lat) to the ring's edges."""
    kx = 111319.49 * math.cos(math.radians(lat))
    ky = 111319.49
    best = float("inf")
    for (x1, y1), (x2, y2) in zip(ring, ring[1:] + ring[:1]):
        ax, ay = (x1 - lon) * kx, (y1 - lat) * ky
        bx, by = (x2 - lon) * kx, (y2 - lat) * ky
        dx, dy = bx - ax, by - ay
        t = max(0.0, min(1.0, -(ax * dx + ay * dy) / (dx * dx + dy * dy))) if dx or dy else 0.0
        best = min(best, math.hypot(ax + t * dx, ay + t * dy))
    return best


class Checker:
    def __init__(self, points, polygons, sags):
        self.points, self.polygons, self.sags = points, polygons, sags

    def position(self, fix):
        return self.points[2 * fix], self.points[2 * fix + 1]

    def tolerated(self, kind, query, reference, fix):
        lon, lat = self.position(fix)
        if kind == "R":
            clon, clat, r = query
            return abs(meters(clon, clat, lon, lat) - r) <= 1e-4 * r + 2
        if kind == "P":
            return boundary_meters(self.polygons[query], lon, lat) <= self.sags[query] + 50
        clon, clat, _ = query
        kth = max((meters(clon, clat, *self.position(f)) for f in reference), default=0)
        return abs(meters(clon, clat, lon, lat) - kth) <= 1e-4 * kth + 2

    def compare(self, kind, queries, reference, answers):
        """(boundary differences, [failure descriptions]) of one system's answers."""
        boundary, failures = 0, []
        if len(answers) != len(reference):
            return 0, [f"{len(answers)} answers for {len(reference)} queries"]
        for i, (query, ref, got) in enumerate(zip(queries, reference, answers)):
            ref_set, got_set = set(ref), set(got)
            if kind == "K" and len(got) != len(ref):
                failures.append(f"query {i}: {len(got)} nearest, expected {len(ref)}")
                continue
            for fix in ref_set ^ got_set:
                if self.tolerated(kind, query, ref, fix):
                    boundary += 1
                elif len(failures) < 5:
                    lon, lat = self.position(fix)
                    side = "missing" if fix in ref_set else "extra"
                    failures.append(f"query {i}: fix {fix} ({lon:.5f}, {lat:.5f}) {side}")
        return boundary, failures


def read_ids(path):
    with open(path) as f:
        return [[int(x) for x in line.split()] for line in f]
