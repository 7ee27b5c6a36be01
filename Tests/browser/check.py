#!/usr/bin/env python3
"""End-to-end check of the Find Our Devices web map in headless Chromium (DevTools protocol).

Against a running server (the mock in this folder or the real one) it:
  1. loads <base>/ (with #group=<id> when --group is given), fills form#signin (typed with
     Input.insertText) and clicks its submit button;
  2. waits for body[data-ready="1"] (fails early with the text of #signin-error), checks #app is
     visible, select#group has options, there are at least --min-pins `.pin` elements, #devices
     holds one [data-device-id] entry per pin at least, and #status reads "live";
  3. then, either
       - with --post-fix-command: runs it (a shell command, e.g. one posting a fix through the API)
         and waits until the pin of --device-id has data-lon/data-lat equal to --expect-lon/
         --expect-lat (within --tolerance); or
       - with --device-id/--expect-lon/--expect-lat alone: just waits for that; or
       - otherwise (unless --no-move-check): reads every pin's data-lon/data-lat and waits
         until one of them changes (a pin moved);
  4. optional checks (security_checks.py, resume_check.py):
       --hostile-device-name/--hostile-member-name/--hostile-group-name: those names (HTML and
         script) show as literal text in the list, pickers, map label and hover tooltip, and
         nothing runs; --resume-fix-command: the live feed resumes with lastEventId after a
         refused reconnect; --check-csp: CSP and security headers on the page and its assets,
         no violation in normal use, and enforced; --force-map svg: run on the SVG map;
  5. saves a 1280x800 screenshot (--screenshot) and fails on uncaught exceptions or
     console.error calls in the page (--allow-console-errors to only report them).

Exit status: 0 success, 1 a check failed, 2 the browser could not be started or driven.
Needs: Debian's chromium, and websocket-client (Debian: python3-websocket).
Run against `fod demo` by scripts/browser-check.sh, which shows every option in use.
"""
import argparse
import base64
import os
import subprocess
import sys
import time
import urllib.parse

try:
    import websocket  # websocket-client
except ImportError:  # pragma: no cover
    sys.stderr.write('check.py needs websocket-client: pip install websocket-client\n')
    sys.exit(2)

from cdp import Browser, CheckFailed, SetupFailed, find_chromium, page_problems
from webmap import ALL_PINS, click, is_number, js_str, pin_expr, wait_pin_at
import resume_check
import security_checks
import places_check
import timeline_check


# ---------------------------------------------------------------------------------------------
# the check

def run(a):
    b = Browser(find_chromium(a.chromium), a.width, a.height, a.verbose)
    step = 'start'

    def say(msg):
        if not a.quiet:
            print('check: ' + msg, flush=True)

    try:
        b.send('Page.enable')
        b.send('Runtime.enable')
        b.send('Log.enable')
        b.send('Emulation.setDeviceMetricsOverride', {'width': a.width, 'height': a.height, 'deviceScaleFactor': 1, 'mobile': False})
        security_checks.install(b, a)
        b.stub_tiles()
        url = a.base.rstrip('/') + '/' + ('#group=' + a.group if a.group else '')
        step = 'load'
        say('loading ' + url)
        nav = b.send('Page.navigate', {'url': url})
        if nav.get('errorText'):
            raise CheckFailed('could not load %s: %s' % (url, nav['errorText']))
        b.wait_for('(() => { const f = document.querySelector("form#signin"); return !!f && f.offsetParent !== null'
                   ' && !!document.querySelector("input#email") && !!document.querySelector("input#password")'
                   ' && !!document.querySelector("form#signin button[type=submit]:enabled"); })()',
                   a.timeout, 'the sign-in form (form#signin with input#email, input#password, an enabled button[type=submit])')

        step = 'sign in'
        for sel, text in (('input#email', a.email), ('input#password', a.password)):
            b.eval('(() => { const e = document.querySelector(%s); e.focus(); e.value = ""; return true; })()' % js_str(sel))
            b.send('Input.insertText', {'text': text})
        click(b, 'form#signin button[type=submit]')
        say('signed in as %s; waiting for body[data-ready="1"]' % a.email)
        state = b.wait_for('(() => { if (document.body.dataset.ready === "1") return "ready";'
                           ' const e = document.querySelector("#signin-error");'
                           ' const t = e && e.offsetParent !== null ? e.textContent.trim() : "";'
                           ' return t ? "error:" + t : null; })()', a.timeout, 'body[data-ready="1"] after sign-in')
        if state.startswith('error:'):
            raise CheckFailed('sign-in failed, #signin-error says: ' + state[6:])

        step = 'app'
        if not b.eval('(() => { const a = document.querySelector("#app"); return !!a && !a.hidden && a.offsetParent !== null; })()'):
            raise CheckFailed('#app is not visible after sign-in')
        groups = b.eval('Array.from(document.querySelectorAll("select#group option")).map(o => o.value)')
        if not groups:
            raise CheckFailed('select#group has no options')
        if a.group and b.eval('document.querySelector("select#group").value') != a.group:
            raise CheckFailed('select#group is not on the requested group %s' % a.group)
        b.wait_for('document.querySelectorAll(".pin[data-device-id]").length >= %d' % a.min_pins, a.timeout,
                   'at least %d .pin elements' % a.min_pins)
        pins = b.eval(ALL_PINS)
        entries = b.eval('Array.from(document.querySelectorAll("#devices [data-device-id]")).map(e => e.getAttribute("data-device-id"))')
        missing = sorted(set(p[0] for p in pins) - set(entries))
        if missing:
            raise CheckFailed('#devices has no entry for pinned device(s): %s' % ', '.join(missing[:10]))
        bad = [p for p in pins if not (is_number(p[1]) and is_number(p[2]))]
        if bad:
            raise CheckFailed('pins without numeric data-lon/data-lat: %s' % bad[:5])
        say('ready: %d group(s), %d pin(s), %d device entries, map=%s' % (
            len(groups), len(pins), len(entries), b.eval('document.body.dataset.map || "?"')))
        if a.expect_map == 'leaflet':
            # The street tiles: requested (and answered locally), each with the page's origin as
            # Referer and nothing more (OpenStreetMap's policy wants one; the page sends none).
            b.wait_for('document.body.dataset.tiles', a.timeout, 'the tile layer to ask for tiles')
            b.eval('1')
            origin = urllib.parse.urlsplit(a.base)._replace(path='/', query='', fragment='').geturl()
            referers = sorted(set(next((v for k, v in r.get('headers', {}).items() if k.lower() == 'referer'), None) for r in b.tile_requests))
            if not b.tile_requests or referers != [origin]:
                raise CheckFailed('tile requests: %d, Referer %s (want only %s)' % (len(b.tile_requests), referers, origin))
            say('street tiles: %d requests, Referer %s only' % (len(b.tile_requests), origin))
        if a.expect_map and b.eval('document.body.dataset.map') != a.expect_map:
            raise CheckFailed('expected the %s map, page uses %s' % (a.expect_map, b.eval('document.body.dataset.map')))
        b.wait_for('(() => { const s = document.querySelector("#status"); return !!s && s.textContent.trim() === "live"; })()',
                   a.timeout, '#status to read "live"')
        say('#status is live')
        first = b.wait_for('document.body.dataset.firstRenderMs', a.timeout, 'the first-render figure (body[data-first-render-ms])')
        steps = b.eval('JSON.stringify((window.__fodPerf || {}).steps || {})')
        say('benchmark: first render of the signed-in map with %d devices: %s ms from pressing "Sign in" to the pins drawn (ms by then: %s)'
            % (len(entries), first, steps))

        # The live-update benchmark: the delays of the events of the next few seconds (the demo
        # moves its vessels all the time), before the checks below cut and replay the stream.
        b.eval('(() => { if (window.__fodPerf) window.__fodPerf.live.length = 0; return 1; })()')
        deadline = time.time() + 5
        while time.time() < deadline and b.eval('(window.__fodPerf && window.__fodPerf.live.length) || 0') < 100:
            time.sleep(0.2)
        live = sorted(b.eval('(window.__fodPerf && window.__fodPerf.live) || []'))
        if live:
            say('benchmark: live updates drawn %.1f ms (median) / %.1f ms (max) after their event arrived, over %d events'
                % (live[len(live) // 2], live[-1], len(live)))
        step = 'movement'
        if a.device_id and a.expect_lon is not None and a.expect_lat is not None:
            before = b.eval(pin_expr(a.device_id))
            if a.post_fix_command:
                say('pin %s before: %s; running --post-fix-command' % (a.device_id, before))
                r = subprocess.run(a.post_fix_command, shell=True, capture_output=True, text=True, timeout=a.timeout)
                if r.returncode != 0:
                    raise CheckFailed('--post-fix-command exited %d: %s %s' % (r.returncode, r.stdout.strip(), r.stderr.strip()))
                if r.stdout.strip():
                    say('command said: ' + r.stdout.strip()[:300])
            now = wait_pin_at(b, a.device_id, a.expect_lon, a.expect_lat, a.tolerance, a.timeout)
            say('pin %s moved to data-lon=%s data-lat=%s' % (a.device_id, now[0], now[1]))
            entry = b.eval('(() => { const e = document.querySelector("#devices [data-device-id=" + CSS.escape(%s) + "]");'
                           ' return e ? e.textContent.replace(/\\s+/g, " ").trim() : null; })()' % js_str(a.device_id))
            if not entry:
                raise CheckFailed('#devices has no entry for %s' % a.device_id)
            say('#devices entry: ' + entry)
        elif a.device_id or a.expect_lon is not None or a.expect_lat is not None or a.post_fix_command:
            raise CheckFailed('--post-fix-command / --device-id / --expect-lon / --expect-lat go together')
        elif not a.no_move_check:
            start = {p[0]: (p[1], p[2]) for p in b.eval(ALL_PINS)}
            deadline = time.time() + a.timeout
            moved = None
            while time.time() < deadline and not moved:
                for p in b.eval(ALL_PINS):
                    if p[0] in start and start[p[0]] != (p[1], p[2]):
                        moved = p
                        break
                else:
                    time.sleep(0.1)
            if not moved:
                raise CheckFailed('no pin moved within %ss' % a.timeout)
            say('pin %s moved from %s to [%s, %s]' % (moved[0], list(start[moved[0]]), moved[1], moved[2]))

        if a.hostile_device_name:
            step = 'names are text'
            security_checks.check_names(b, a, say)
        if a.timeline_device_token:
            step = 'timeline panel'
            timeline_check.check_timeline(b, a, say)
        if a.resume_fix_command:
            step = 'live feed resume'
            resume_check.check_resume(b, a, say)
        if a.places_fix_command:
            step = 'places'
            places_check.check_places(b, a, say)
        if a.check_csp:
            step = 'csp'
            security_checks.check_csp(b, a, say)

        step = 'screenshot'
        time.sleep(a.settle)
        shot = b.send('Page.captureScreenshot', {'format': 'png'})
        os.makedirs(os.path.dirname(os.path.abspath(a.screenshot)), exist_ok=True)
        with open(a.screenshot, 'wb') as f:
            f.write(base64.b64decode(shot['data']))
        say('screenshot saved to ' + a.screenshot)

        b.eval('1')  # drain pending events
        problems = page_problems(b.events, a.strict_network)
        if problems:
            msg = 'page reported %d problem(s):\n  ' % len(problems) + '\n  '.join(problems[:20])
            if a.allow_console_errors:
                say('warning: ' + msg)
            else:
                raise CheckFailed(msg)
        if a.check_csp:
            step = 'csp enforced'
            security_checks.probe_csp(b, a, say)
        return 0
    except CheckFailed as e:
        raise CheckFailed('[%s] %s' % (step, e))
    finally:
        b.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--base', default='http://127.0.0.1:8765', help='server base URL')
    ap.add_argument('--email', default='demo@example.com')
    ap.add_argument('--password', default='password123')
    ap.add_argument('--group', help='group id to open (via #group=<id>)')
    ap.add_argument('--post-fix-command', help='shell command run once the page is live')
    ap.add_argument('--device-id', help='device whose pin must move')
    ap.add_argument('--expect-lon', type=float)
    ap.add_argument('--expect-lat', type=float)
    ap.add_argument('--tolerance', type=float, default=1e-7, help='degrees')
    ap.add_argument('--min-pins', type=int, default=None,
                    help='pins required once ready (default 1; 0 with --post-fix-command, whose fix may be the first)')
    ap.add_argument('--no-move-check', action='store_true', help='skip waiting for some pin to move')
    ap.add_argument('--expect-map', choices=['svg', 'leaflet'], help='require this renderer')
    ap.add_argument('--force-map', choices=['svg'], help='answer config.json with {"leaflet": false} to use the SVG map')
    ap.add_argument('--hostile-device-name', help='the (HTML/script) name of --device-id: check it shows as text and runs nothing')
    ap.add_argument('--hostile-member-name', help='the (HTML/script) display name of the signed-in user, owner of --device-id')
    ap.add_argument('--hostile-group-name', help='the (HTML/script) name of one of the user\'s groups (as owner)')
    ap.add_argument('--check-csp', action='store_true',
                    help='check the CSP and security headers of the page and its assets, no violations, and enforcement')
    ap.add_argument('--resume-fix-command', help='after a refused reconnect, post a fix moving --device-id to --resume-lon/lat')
    ap.add_argument('--resume-lon', type=float)
    ap.add_argument('--resume-lat', type=float)
    ap.add_argument('--timeline-device-token', help='device token of --device-id: import a short history and check the timeline panel')
    ap.add_argument('--timeline-lon', type=float, default=-74.0445)
    ap.add_argument('--timeline-lat', type=float, default=40.6892)
    ap.add_argument('--places-fix-command', help='draw a place around --device-id, then run this (moving it far away) and wait for its exit')
    ap.add_argument('--timeout', type=float, default=20.0, help='seconds for each wait')
    ap.add_argument('--settle', type=float, default=0.5, help='seconds to wait before the screenshot')
    ap.add_argument('--screenshot', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), 'screenshot.png'))
    ap.add_argument('--width', type=int, default=1280)
    ap.add_argument('--height', type=int, default=800)
    ap.add_argument('--chromium', help='browser binary (default: chromium on PATH)')
    ap.add_argument('--allow-console-errors', action='store_true', help='report page errors without failing')
    ap.add_argument('--strict-network', action='store_true', help='also count failed network requests as page errors')
    ap.add_argument('--quiet', action='store_true')
    ap.add_argument('-v', '--verbose', action='store_true')
    a = ap.parse_args()
    if a.min_pins is None:
        a.min_pins = 0 if a.post_fix_command else 1
    if (a.hostile_device_name or a.resume_fix_command) and not a.device_id:
        ap.error('--hostile-device-name and --resume-fix-command need --device-id')
    if a.resume_fix_command and (a.resume_lon is None or a.resume_lat is None):
        ap.error('--resume-fix-command needs --resume-lon and --resume-lat')
    try:
        run(a)
    except CheckFailed as e:
        print('check FAILED: %s' % e, file=sys.stderr, flush=True)
        return 1
    except SetupFailed as e:
        print('check could not run: %s' % e, file=sys.stderr, flush=True)
        return 2
    except (OSError, websocket.WebSocketException) as e:
        print('check could not run: %s: %s' % (type(e).__name__, e), file=sys.stderr, flush=True)
        return 2
    print('check OK', flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
