"""Helpers shared by the report's phases: progress lines, running the C client, percentiles."""
import os
import subprocess
import sys
import time

STARTED = time.time()


def progress(message):
    print(f"[{time.time() - STARTED:7.1f} s] {message}", flush=True)


class Client:
    """The compiled C load client (client/*.c)."""

    def __init__(self, path):
        self.path = path

    def run(self, mode, *args):
        """Runs one mode; returns its stdout (ingest modes print "fixes seconds errors")."""
        result = subprocess.run([self.path, mode, *[str(a) for a in args]], capture_output=True, text=True)
        if result.returncode != 0:
            sys.stderr.write(result.stderr[-3000:])
            raise SystemExit(f"benchclient {mode} failed (exit {result.returncode})")
        if result.stderr.strip():
            sys.stderr.write(result.stderr[-2000:])
            raise SystemExit(f"benchclient {mode} reported errors")
        return result.stdout

    def ingest(self, mode, *args):
        fixes, seconds, errors = self.run(mode, *args).split()
        return int(fixes), float(seconds), int(errors)


def percentile(values, p):
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p * (len(ordered) - 1))))]


def summary(values):
    """Median, p99 and the box of a list of latencies (ms)."""
    return {"p5": percentile(values, 0.05), "p25": percentile(values, 0.25), "p50": percentile(values, 0.5),
            "p75": percentile(values, 0.75), "p99": percentile(values, 0.99), "n": len(values)}


def read_latencies(path):
    """[(latency ms, hits)] of a client's output file."""
    out = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            out.append((float(parts[0]) / 1000, int(parts[1])))
    return out


def directory_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total
