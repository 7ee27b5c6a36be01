#!/usr/bin/python3
"""Builds Data/shoreline-ny-harbor.geojson: the land of the demo region (New York Harbor) from
the GSHHG full-resolution shorelines, as land polygons for the web map's offline basemap.

Needs, at build time only (the result is committed, so CI does not): Debian's gmt-gshhg-full
(the shorelines), gmt (to read them: `gmt coast -M` dumps the shoreline segments, `gmt select`
tells land from water) and python3-shapely (to close the segments into areas).

Steps: the shoreline segments inside the region and the region's edge are noded and
polygonised into faces; each face is land or water by a point inside it (GSHHG levels: ocean,
land, lake, island in a lake, pond in an island); the land faces are merged, simplified with a
tolerance of TOLERANCE_DEGREES (topology kept) and written with coordinates rounded to 1e-5
degrees (about 1 m). Output: a GeoJSON FeatureCollection with a top-level "bbox" (the region,
where this layer replaces the world outlines) and one MultiPolygon feature of land.

Usage: scripts/make-shoreline.py [--out Data/shoreline-ny-harbor.geojson]
"""
import argparse
import json
import subprocess
import sys

from shapely.geometry import LineString, MultiPolygon, Polygon, box, mapping
from shapely.ops import polygonize, unary_union

REGION = (-74.30, 40.36, -73.60, 40.92)  # west, south, east, north (degrees)
TOLERANCE_DEGREES = 0.00002             # about 2 m
DIGITS = 5


def gmt(args, stdin=None):
    result = subprocess.run(["gmt"] + args, input=stdin, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("gmt " + " ".join(args) + " failed: " + result.stderr.strip())
    return result.stdout


def shoreline_segments(region):
    west, south, east, north = region
    text = gmt(["coast", f"-R{west}/{east}/{south}/{north}", "-Df", "-A0", "-W", "-M"])
    segments, current = [], []
    for line in text.splitlines():
        if line.startswith(">"):
            if len(current) >= 2:
                segments.append(LineString(current))
            current = []
        elif line.strip():
            lon, lat = (float(v) for v in line.split()[:2])
            current.append((lon, lat))
    if len(current) >= 2:
        segments.append(LineString(current))
    return segments


def land_faces(faces):
    """The faces whose representative point GSHHG puts on land (or on an island in a lake)."""
    points = [face.representative_point() for face in faces]
    stdin = "".join(f"{p.x:.9f} {p.y:.9f} {i}\n" for i, p in enumerate(points))
    # -N ocean/land/lake/island/pond: keep land and islands.
    kept = gmt(["select", "-Df", "-Ns/k/s/k/s"], stdin=stdin)
    indexes = {int(float(line.split()[2])) for line in kept.splitlines() if line.strip()}
    return [face for i, face in enumerate(faces) if i in indexes]


def rounded_rings(polygon):
    def ring(coords):
        out = []
        for x, y in coords:
            p = [round(x, DIGITS), round(y, DIGITS)]
            if not out or out[-1] != p:
                out.append(p)
        if out and out[0] != out[-1]:
            out.append(out[0])
        return out
    rings = [ring(polygon.exterior.coords)] + [ring(h.coords) for h in polygon.interiors]
    return [r for r in rings if len(r) >= 4]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="Data/shoreline-ny-harbor.geojson")
    args = parser.parse_args()
    frame = box(*REGION)
    segments = shoreline_segments(REGION)
    noded = unary_union(segments + [frame.exterior])
    faces = [face for face in polygonize(noded) if face.area > 0]
    land = unary_union(land_faces(faces)).intersection(frame)
    land = land.simplify(TOLERANCE_DEGREES, preserve_topology=True)
    polygons = [land] if isinstance(land, Polygon) else [g for g in getattr(land, "geoms", []) if isinstance(g, Polygon)]
    coordinates = [rings for rings in (rounded_rings(p) for p in polygons) if rings]
    collection = {
        "type": "FeatureCollection",
        "bbox": list(REGION),
        "properties": {
            "name": "New York Harbor",
            "source": "GSHHG 2.3.7 full resolution (Wessel and Smith), via Debian gmt-gshhg-full; scripts/make-shoreline.py",
            "licence": "LGPL-3.0-or-later",
        },
        "features": [{"type": "Feature", "properties": {"kind": "land"},
                      "geometry": {"type": "MultiPolygon", "coordinates": coordinates}}],
    }
    with open(args.out, "w") as out:
        json.dump(collection, out, separators=(",", ":"))
        out.write("\n")
    points = sum(len(r) for p in coordinates for r in p)
    print(f"{args.out}: {len(segments)} shoreline segments, {len(faces)} faces, {len(coordinates)} land polygons, {points} positions")


if __name__ == "__main__":
    main()
