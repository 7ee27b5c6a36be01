#!/usr/bin/env bash
# Browser test of the web map with Debian's headless Chromium, against the real server:
# `fod demo` (the New York Harbor vessels), sign in on / as the demo user, open the demo group,
# post a fix through the API with a device token, and see that device's pin move (DOM check).
# Saves a screenshot to Tests/artifacts/webmap.png. Usage: scripts/browser-check.sh [fod-binary]
set -euo pipefail
cd "$(dirname "$0")/.."
fod="${1:-./.build/debug/fod}"
py=/usr/bin/python3   # Debian's python3-websocket lives there
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p Tests/artifacts
port=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
"$fod" demo --port "$port" --bind 127.0.0.1 --data "$work/data" --speed 30 --password-cost minimal --log-level warning \
  >"$work/fod.out" 2>"$work/fod.err" &

# Wait for the demo group to be filled, then take the office device and give it a fresh token.
read -r group device token < <($py - "$base" <<'PY'
import json, sys, time, urllib.request
base = sys.argv[1]
def call(method, path, body=None, token=None):
    req = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json", **({"Authorization": "Bearer " + token} if token else {})})
    return json.load(urllib.request.urlopen(req, timeout=5))
deadline = time.time() + 120
while True:
    try:
        token = call("POST", "/v1/sessions", {"email": "demo@example.org", "password": "demo-password"})["token"]
        me = call("GET", "/v1/me", token=token)
        if me["groups"]:
            group = me["groups"][0]["groupId"]
            if len(call("GET", f"/v1/groups/{group}", token=token)["members"]) > 200:
                break
    except Exception:
        pass
    if time.time() > deadline:
        sys.exit("demo group did not appear")
    time.sleep(0.2)
device = me["devices"][0]["id"]
fresh = call("POST", f"/v1/devices/{device}/token", token=token)["deviceToken"]
print(group, device, fresh)
PY
)
echo "demo group $group ready; office device $device"
$py Tests/browser/check.py --base "$base" --email demo@example.org --password demo-password --group "$group" \
  --device-id "$device" --expect-lon -74.0445 --expect-lat 40.6892 --min-pins 50 \
  --screenshot Tests/artifacts/webmap.png \
  --post-fix-command "$py Tests/browser/post_fix.py --base $base --device-id $device --token $token --lon -74.0445 --lat 40.6892"
echo "browser check passed (screenshot: Tests/artifacts/webmap.png)"
