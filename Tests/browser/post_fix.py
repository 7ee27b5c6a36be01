#!/usr/bin/env python3
"""Posts one fix for a device through the API: POST /v1/devices/{id}/locations with its device token.

Works against the mock (device token "dtok-<deviceId>") and the real server (the deviceToken
returned by POST /v1/devices). Prints the server's answer; exits non-zero on an HTTP error.

  python3 mock/post_fix.py --base http://127.0.0.1:8765 --device-id d_alice_iphone \
      --token dtok-d_alice_iphone --lon 2.2945 --lat 48.8584
"""
import argparse
import json
import sys
import urllib.error
import urllib.request


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--base', required=True)
    ap.add_argument('--device-id', required=True)
    ap.add_argument('--token', required=True, help='the device token')
    ap.add_argument('--lon', type=float, required=True)
    ap.add_argument('--lat', type=float, required=True)
    ap.add_argument('--timestamp', help='RFC 3339 or epoch; default: now (server side)')
    a = ap.parse_args()
    fix = {'location': [a.lon, a.lat]}
    if a.timestamp:
        fix['timestamp'] = float(a.timestamp) if a.timestamp.replace('.', '', 1).isdigit() else a.timestamp
    req = urllib.request.Request(
        a.base.rstrip('/') + '/v1/devices/%s/locations' % urllib.request.quote(a.device_id, safe=''),
        data=json.dumps(fix).encode(), method='POST',
        headers={'Content-Type': 'application/json', 'Authorization': 'Bearer ' + a.token})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            print(r.read().decode())
    except urllib.error.HTTPError as e:
        print('HTTP %d: %s' % (e.code, e.read().decode()), file=sys.stderr)
        return 1
    except OSError as e:
        print('cannot reach %s: %s' % (a.base, e), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
