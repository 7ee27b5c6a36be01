#!/usr/bin/env python3
"""Fails when a route in Sources/API is missing from docs/openapi.yaml (path and method), or
when the document is not valid YAML with an OpenAPI 3.1 header. The YAML is read with the
fuzzer's own reader (scripts/fuzz_http/yaml_subset.py) and, when PyYAML is installed, must
read the same with PyYAML."""
import pathlib, re, sys
root = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(root / "scripts"))
from fuzz_http import yaml_subset
doc = (root / "docs/openapi.yaml").read_text()
if not doc.startswith("openapi: 3.1"):
    sys.exit("docs/openapi.yaml: expected an OpenAPI 3.1 document")
try:
    parsed = yaml_subset.load(doc)
except yaml_subset.YAMLError as error:
    sys.exit(f"docs/openapi.yaml: {error}")
try:
    import yaml
except ImportError:
    yaml = None
if yaml is not None and yaml.safe_load(doc) != parsed:
    sys.exit("docs/openapi.yaml: scripts/fuzz_http/yaml_subset.py reads it differently from PyYAML (a YAML feature outside its subset?)")
routes = set()
for source in (root / "Sources/API").rglob("*.swift"):
    text = source.read_text()
    routes |= {(m, p) for m, p in re.findall(r'Route\("([A-Z]+)", "([^"]+)"', text)}
    routes |= {(m, p) for m, p in re.findall(r'\.(?:inline|deferred)\("([A-Z]+)", "([^"]+)"', text)}
    routes |= {("GET", p) for p in re.findall(r'case \w+ = "(/v1/[^"]+)"', text)}
# Paths in the document and the methods under each.
documented, current = {}, None
for line in doc.splitlines():
    m = re.match(r"^  (/[^:]*):\s*$", line)
    if m:
        current = m.group(1); documented[current] = set(); continue
    m = re.match(r"^    (get|post|put|patch|delete):", line)
    if m and current:
        documented[current].add(m.group(1).upper())
missing = sorted(f"{m} {p}" for m, p in routes if m not in documented.get(p, set()))
if missing:
    sys.exit("routes missing from docs/openapi.yaml:\n  " + "\n  ".join(missing))
print(f"openapi: all {len(routes)} routes documented")
