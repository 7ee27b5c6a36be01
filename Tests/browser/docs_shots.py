#!/usr/bin/env python3
"""The screenshots of docs/images/ from a running `fod demo` (signed in as the demo user): the
map of New York Harbor at 1280x800 in light (web-app.png) and at 390x844 in dark
(web-app-phone.png), and a phone's set-up at 1280x800 (phone-setup.png: a phone added to the
demo account, its token shown once). Tile requests are answered locally (the offline basemap).
  docs_shots.py --base URL [--out docs/images]"""
import argparse
import os
import shutil
import sys
import time

from cdp import CheckFailed, SetupFailed
from journeylib import Person


def signed_in(base, width, height, theme, out, say):
    p = Person('demo', base, width, height, theme, out, 30, say)
    p.open('/')
    p.wait('!!document.querySelector("form#signin button[type=submit]:enabled")', 'the sign-in form')
    p.type('#email', 'demo@example.org')
    p.type('#password', 'demo-password')
    p.click('form#signin button[type=submit]')
    p.wait('document.body.dataset.ready === "1" && document.querySelectorAll(".pin").length > 100', 'the harbour')
    p.wait('document.body.dataset.detail === "1"', 'the shorelines')
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--base', required=True)
    ap.add_argument('--out', default='docs/images')
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    say = lambda m: print('docs shots: ' + m, flush=True)  # noqa: E731
    shots = []
    try:
        for width, height, theme, name in ((1280, 800, 'light', 'web-app.png'), (390, 844, 'dark', 'web-app-phone.png')):
            p = signed_in(a.base, width, height, theme, a.out, say)
            try:
                time.sleep(3)  # a few live moves, so the trails show
                shots.append((p.shot('map'), name))
                if name == 'web-app.png':
                    p.section('devices')
                    p.type('#device-add-name', 'Kitchen tablet')
                    p.click('#device-add button[type=submit]')
                    p.wait_visible('.qr[data-app=owntracks] svg', 'the set-up')
                    shots.append((p.shot('setup'), 'phone-setup.png'))
            finally:
                p.close()
    except (CheckFailed, SetupFailed) as e:
        print('docs shots FAILED: %s' % e, file=sys.stderr)
        return 1
    for path, name in shots:
        shutil.move(path, os.path.join(a.out, name))
        say('wrote ' + os.path.join(a.out, name))
    return 0


if __name__ == '__main__':
    sys.exit(main())
