#!/usr/bin/env bash
# The web map's picture in the README (docs/images/web-app.png): `fod demo` (the New York Harbor
# vessels), signed in as the demo user in headless Chromium, the demo group open once its pins
# are on the map. Usage: scripts/screenshot-web-app.sh [fod-binary] [output.png]
set -euo pipefail
cd "$(dirname "$0")/.."
fod="${1:-./.build/debug/fod}"; out="${2:-docs/images/web-app.png}"
py=/usr/bin/python3   # Debian's python3-websocket lives there
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
port=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
"$fod" demo --port "$port" --bind 127.0.0.1 --data "$work/data" --speed 10 --password-cost minimal --log-level warning \
  >"$work/fod.out" 2>"$work/fod.err" &
group="$($py - "$base" <<'PY'
import json, sys, time, urllib.request
base = sys.argv[1]
def call(method, path, body=None, token=None):
    req = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json", **({"Authorization": "Bearer " + token} if token else {})})
    return json.load(urllib.request.urlopen(req, timeout=5))
deadline, token = time.time() + 120, None
while time.time() < deadline:
    try:
        token = token or call("POST", "/v1/sessions", {"email": "demo@example.org", "password": "demo-password"})["token"]
        groups = call("GET", "/v1/me", token=token)["groups"]
        if groups and len(call("GET", f"/v1/groups/{groups[0]['groupId']}", token=token)["members"]) > 200:
            print(groups[0]["groupId"])
            sys.exit(0)
    except Exception:
        pass
    time.sleep(0.2)
sys.exit("the demo group did not appear")
PY
)"
mkdir -p "$(dirname "$out")"
$py Tests/browser/check.py --base "$base" --email demo@example.org --password demo-password --group "$group" \
  --min-pins 200 --no-move-check --settle 3 --width 1280 --height 800 --screenshot "$out" --quiet
echo "saved $out"
