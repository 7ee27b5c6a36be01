/*
 * The same synthetic Takeout Records.json as scripts/generate-records-json.py (field list, one
 * record a minute from 2014-01-01 wandering around Munich, every 50th with timestampMs, every
 * 3rd with an activity list, every 1000th with an out-of-range latitudeE7), written in C because
 * Python needs minutes for 5M records on a loaded machine. Its own seeded generator, so the
 * values differ from the Python file's; the shape and the counts are the same.
 *   gcc -O2 -o genrecords Benchmarks/import/genrecords.c && ./genrecords 5000000 /tmp/Records.json
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t state = 15;

/* SplitMix64: a uniform integer in [lo, hi]. */
static long uniform(long lo, long hi) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return lo + (long)(z % (uint64_t)(hi - lo + 1));
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: genrecords <count> <output>\n"); return 2; }
    long count = atol(argv[1]);
    FILE *out = fopen(argv[2], "w");
    if (!out || count < 0) { perror(argv[2]); return 1; }
    setvbuf(out, NULL, _IOFBF, 1 << 20);
    const time_t start = 1388534400; /* 2014-01-01T00:00:00Z */
    long lat = 481374000, lon = 115755000;
    fputs("{\n  \"locations\": [", out);
    for (long i = 0; i < count; i++) {
        lat += uniform(-2000, 2000);
        lon += uniform(-3000, 3000);
        time_t t = start + i * 60;
        struct tm tm;
        gmtime_r(&t, &tm);
        char day[32];
        strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
        long badLat = i % 1000 == 999 ? 950000000 : lat;
        fprintf(out, "%s{\n    \"latitudeE7\": %ld,\n    \"longitudeE7\": %ld,\n    \"accuracy\": %ld,\n    \"altitude\": %ld,\n"
                "    \"verticalAccuracy\": %ld,\n    \"velocity\": %ld,\n    \"heading\": %ld",
                i ? "," : "", badLat, lon, uniform(3, 60), uniform(480, 560), uniform(2, 10), uniform(0, 30), uniform(0, 359));
        if (i % 3 == 0)
            fprintf(out, ", \"activity\": [{\"activity\": [{\"type\": \"STILL\", \"confidence\": %ld}, {\"type\": \"ON_FOOT\", "
                    "\"confidence\": %ld}], \"timestamp\": \"%sZ\"}]", uniform(50, 100), uniform(0, 50), day);
        fputs(",\n    \"source\": \"WIFI\",\n    \"deviceTag\": 1978223114,\n    \"platformType\": \"ANDROID\",\n    ", out);
        if (i % 50 == 0) fprintf(out, "\"timestampMs\": \"%lld\"\n  }", (long long)t * 1000);
        else fprintf(out, "\"timestamp\": \"%s.%03ldZ\"\n  }", day, uniform(0, 999));
    }
    fputs("]\n}\n", out);
    return fclose(out) == 0 ? 0 : 1;
}
