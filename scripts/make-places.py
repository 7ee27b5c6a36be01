#!/usr/bin/env python3
"""Builds Data/places-cities1000.bin, the compact offline place names, from GeoNames cities1000.

Input: a CSV with the header `lat,lon,name,cc` (GeoNames cities1000: every populated place with
at least 1,000 people; CC BY 4.0, https://www.geonames.org). Usage:

    scripts/make-places.py ../shared/data/geonames-cities1000.csv Data/places-cities1000.bin

Format (all integers little-endian base-128 varints; "zigzag" maps n to 2n or -2n-1):
    magic      10 bytes  b"FODPLACES\\x01"
    countries  varint C, then C two-byte ASCII ISO 3166-1 alpha-2 codes, sorted
    places     varint N, then N records:
                 zigzag varint  latitude  × 10^5 minus the previous record's (the first: minus 0)
                 zigzag varint  longitude × 10^5 minus the previous record's
                 varint         index of the country code in the table
                 varint L, then L bytes of the UTF-8 name
Records are in Z-order of their coordinates (so consecutive deltas are small) and, for equal
coordinates, by name. Coordinates are rounded to 5 decimals (about 1 m). The loader
(`Sources/Timeline/PlacesFile.swift`) checks every length and range.
"""
import csv
import sys


def varint(n, out):
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return


def zigzag(n):
    return 2 * n if n >= 0 else -2 * n - 1


def morton(lat, lon):
    # 26-bit unsigned grid coordinates interleaved (lat 0..18e6, lon 0..36e6 fit in 26 bits).
    y, x = lat + 9_000_000, lon + 18_000_000
    key = 0
    for bit in range(26):
        key |= ((x >> bit) & 1) << (2 * bit) | ((y >> bit) & 1) << (2 * bit + 1)
    return key


def main(source, target):
    places = []
    with open(source, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            lat, lon = round(float(row["lat"]) * 1e5), round(float(row["lon"]) * 1e5)
            name, cc = row["name"].strip(), row["cc"].strip().upper()
            if not name or len(cc) != 2 or not cc.isascii() or abs(lat) > 9_000_000 or abs(lon) > 18_000_000:
                continue
            places.append((morton(lat, lon), name, lat, lon, cc))
    places.sort()
    countries = sorted({p[4] for p in places})
    index = {cc: i for i, cc in enumerate(countries)}
    out = bytearray(b"FODPLACES\x01")
    varint(len(countries), out)
    for cc in countries:
        out += cc.encode("ascii")
    varint(len(places), out)
    plat = plon = 0
    for _, name, lat, lon, cc in places:
        varint(zigzag(lat - plat), out)
        varint(zigzag(lon - plon), out)
        plat, plon = lat, lon
        varint(index[cc], out)
        encoded = name.encode("utf-8")
        varint(len(encoded), out)
        out += encoded
    with open(target, "wb") as f:
        f.write(out)
    print(f"{target}: {len(places)} places, {len(countries)} countries, {len(out)} bytes")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: make-places.py <cities1000.csv> <output.bin>")
    main(sys.argv[1], sys.argv[2])
