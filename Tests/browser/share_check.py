#!/usr/bin/env python3
"""The share-link page in headless Chromium, against the real server: create a link for a device
(POST /v1/devices/{id}/shares with the owner's user token), open <base>/s/<token> with no
sign-in, see the device's name as text, "last seen", the expiry countdown and the live pin;
post a fix with the device token and see the pin move; revoke the link and see the page say so
at once (the stream's `end` event) with the status closed. Fails on any page error or CSP
violation. Saves a screenshot.
  share_check.py --base URL --user-token T --device-id D --device-token DT [--screenshot PATH]"""
import argparse
import base64
import json
import os
import sys
import urllib.request

from cdp import Browser, CheckFailed, SetupFailed, find_chromium, page_problems
from webmap import wait_pin_at


def call(base, method, path, token, body=None):
    req = urllib.request.Request(base.rstrip('/') + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                 headers={'Content-Type': 'application/json', 'Authorization': 'Bearer ' + token})
    with urllib.request.urlopen(req, timeout=10) as r:
        text = r.read()
    return json.loads(text) if text else None


def run(a):
    link = call(a.base, 'POST', '/v1/devices/%s/shares' % a.device_id, a.user_token, {'name': 'browser check', 'expiresIn': 600})
    b = Browser(find_chromium(None), 1280, 800)
    try:
        for method in ('Page.enable', 'Runtime.enable', 'Log.enable'):
            b.send(method)
        b.stub_tiles()
        url = a.base.rstrip('/') + link['url']
        nav = b.send('Page.navigate', {'url': url})
        if nav.get('errorText'):
            raise CheckFailed('could not load %s: %s' % (url, nav['errorText']))
        b.wait_for('!!document.body && document.body.dataset.ready === "1"', a.timeout, 'body[data-ready="1"] on the share page')
        name = b.eval('document.querySelector("#device-name").textContent')
        if a.expect_name is not None and name != a.expect_name:
            raise CheckFailed('#device-name reads %r, not the device name as text %r' % (name, a.expect_name))
        if b.eval('window.__xss || null') is not None:
            raise CheckFailed('the device name ran script on the share page')
        expires = b.eval('document.querySelector("#expires").textContent')
        if not expires.startswith('expires in'):
            raise CheckFailed('no countdown: #expires reads %r' % expires)
        print('share page: %r, %r, %r' % (name, b.eval('document.querySelector("#last-seen").textContent'), expires), flush=True)
        call(a.base, 'POST', '/v1/devices/%s/locations' % a.device_id, a.device_token, {'location': [a.lon, a.lat]})
        wait_pin_at(b, 'shared', a.lon, a.lat, 1e-7, a.timeout)
        if not b.eval('document.querySelector("#last-seen").textContent.startsWith("last seen")'):
            raise CheckFailed('no "last seen" once located')
        shot = b.send('Page.captureScreenshot', {'format': 'png'})
        os.makedirs(os.path.dirname(os.path.abspath(a.screenshot)), exist_ok=True)
        with open(a.screenshot, 'wb') as f:
            f.write(base64.b64decode(shot['data']))
        call(a.base, 'DELETE', '/v1/devices/%s/shares/%s' % (a.device_id, link['id']), a.user_token)
        b.wait_for('document.querySelector("#status").dataset.state === "closed"', a.timeout, 'the page to close its stream after revocation')
        banner = b.eval('document.querySelector("#banner").textContent')
        if 'turned the link off' not in banner:
            raise CheckFailed('after revocation the banner reads %r' % banner)
        b.eval('1')
        problems = page_problems(b.events, False)
        if problems:
            raise CheckFailed('page reported %d problem(s):\n  ' % len(problems) + '\n  '.join(problems[:20]))
        print('share page: pin moved to [%s, %s]; revocation shown (%r); screenshot %s' % (a.lon, a.lat, banner, a.screenshot), flush=True)
    finally:
        b.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--base', required=True)
    ap.add_argument('--user-token', required=True)
    ap.add_argument('--device-id', required=True)
    ap.add_argument('--device-token', required=True)
    ap.add_argument('--expect-name', help='the device name: it must show as literal text')
    ap.add_argument('--lon', type=float, default=-74.0301)
    ap.add_argument('--lat', type=float, default=40.6950)
    ap.add_argument('--timeout', type=float, default=20.0)
    ap.add_argument('--screenshot', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), 'share.png'))
    a = ap.parse_args()
    try:
        run(a)
    except CheckFailed as e:
        print('share check FAILED: %s' % e, file=sys.stderr)
        return 1
    except SetupFailed as e:
        print('share check could not drive the browser: %s' % e, file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
