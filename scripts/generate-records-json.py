#!/usr/bin/env python3
"""Writes a synthetic Google Takeout Records.json for import benchmarks (never commit the output).

    scripts/generate-records-json.py 5000000 /tmp/Records.json

Each record has the fields and shape Takeout writes (latitudeE7, longitudeE7, accuracy,
altitude, verticalAccuracy, velocity, heading, an activity list, source, deviceTag,
platformType, timestamp); one record a minute from 2014-01-01, wandering around Munich,
every 50th record with timestampMs instead of timestamp (older exports), every 1000th with
an out-of-range latitudeE7 (rejected by validation). Deterministic (seeded).
"""
import datetime
import random
import sys


def main(count, path):
    rng = random.Random(15)
    start = datetime.datetime(2014, 1, 1, tzinfo=datetime.timezone.utc)
    lat, lon = 481374000, 115755000
    with open(path, "w", buffering=1 << 20) as out:
        out.write('{\n  "locations": [')
        for i in range(count):
            lat += rng.randint(-2000, 2000)
            lon += rng.randint(-3000, 3000)
            t = start + datetime.timedelta(minutes=i)
            ms = int(t.timestamp() * 1000)
            bad_lat = 950000000 if i % 1000 == 999 else lat
            if i % 50 == 0:
                when = f'"timestampMs": "{ms}"'
            else:
                when = f'"timestamp": "{t.strftime("%Y-%m-%dT%H:%M:%S")}.{rng.randint(0, 999):03d}Z"'
            activity = ""
            if i % 3 == 0:
                activity = (', "activity": [{"activity": [{"type": "STILL", "confidence": %d}, {"type": "ON_FOOT", '
                            '"confidence": %d}], "timestamp": "%s"}]') % (rng.randint(50, 100), rng.randint(0, 50), t.strftime("%Y-%m-%dT%H:%M:%SZ"))
            out.write(("," if i else "") + (
                '{\n    "latitudeE7": %d,\n    "longitudeE7": %d,\n    "accuracy": %d,\n    "altitude": %d,\n'
                '    "verticalAccuracy": %d,\n    "velocity": %d,\n    "heading": %d%s,\n    "source": "WIFI",\n'
                '    "deviceTag": 1978223114,\n    "platformType": "ANDROID",\n    %s\n  }'
            ) % (bad_lat, lon, rng.randint(3, 60), rng.randint(480, 560), rng.randint(2, 10), rng.randint(0, 30),
                 rng.randint(0, 359), activity, when))
        out.write("]\n}\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: generate-records-json.py <count> <output>")
    main(int(sys.argv[1]), sys.argv[2])
