#!/usr/bin/env bash
# Runs schemathesis against a fresh `fod serve`, reading the OpenAPI document the server
# itself serves at /openapi.yaml, with a signed-in user's token. Exits non-zero on any failure.
#   scripts/schemathesis-check.sh [fod binary] [max examples per operation] [extra schemathesis args...]
set -euo pipefail
cd "$(dirname "$0")/.."
fod="${1:-./.build/debug/fod}"; examples="${2:-5}"; shift $(( $# > 2 ? 2 : $# ))
# schemathesis from PyPI, pinned, in .build/python-tools (made on first use).
schemathesis="$(./scripts/python-tools.sh)/bin/schemathesis"
work="$(mktemp -d)"
"$fod" serve --port 0 --bind 127.0.0.1 --data "$work/data" --password-cost minimal --signup open --sign-in-limit 1000000 \
  --log-level warning >"$work/out" 2>"$work/log" &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1200); do grep -q "listening on port" "$work/out" 2>/dev/null && break; sleep 0.1; done  # up to 120 s: a debug build starts slowly on a loaded machine
port="$(awk '/listening on port/ {print $NF}' "$work/out")"
[ -n "$port" ] || { echo "fod serve did not start"; cat "$work/log"; exit 1; }
base="http://127.0.0.1:$port"
token="$(curl -sf -X POST "$base/v1/users" -H 'Content-Type: application/json' \
  -d '{"email":"schemathesis@example.org","password":"password-schemathesis","displayName":"Schemathesis"}' \
  | python3 -c 'import sys, json; print(json.load(sys.stdin)["token"])')"
status=0
"$schemathesis" --config-file scripts/schemathesis.toml run "$base/openapi.yaml" -H "Authorization: Bearer $token" \
  --max-examples "$examples" --seed 1 "$@" || status=$?
kill -0 "$server" 2>/dev/null || { echo "fod serve exited during the run:"; tail -20 "$work/log"; exit 1; }
exit "$status"
