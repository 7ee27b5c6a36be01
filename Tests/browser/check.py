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
  4. saves a 1280x800 screenshot (--screenshot) and fails on uncaught exceptions or
     console.error calls in the page (--allow-console-errors to only report them).

Exit status: 0 success, 1 a check failed, 2 the browser could not be started or driven.
Needs: Debian's chromium, and websocket-client (pip install websocket-client).

Example (mock):
  python3 mock/server.py --port 8765 &
  python3 mock/check.py --base http://127.0.0.1:8765 --email demo@example.com --password password123 \\
     --device-id d_alice_iphone --expect-lon 2.2945 --expect-lat 48.8584 \\
     --post-fix-command "python3 mock/post_fix.py --base http://127.0.0.1:8765 \\
        --device-id d_alice_iphone --token dtok-d_alice_iphone --lon 2.2945 --lat 48.8584"
"""
import argparse
import base64
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

try:
    import websocket  # websocket-client
except ImportError:  # pragma: no cover
    sys.stderr.write('check.py needs websocket-client: pip install websocket-client\n')
    sys.exit(2)


class CheckFailed(Exception):
    pass


class SetupFailed(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Chromium + DevTools protocol

def find_chromium(explicit):
    for c in ([explicit] if explicit else []) + ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']:
        p = shutil.which(c) if c else None
        if p:
            return p
    raise SetupFailed('no chromium found (apt-get install -y chromium, or pass --chromium PATH)')


class Browser:
    def __init__(self, binary, width, height, verbose=False):
        self.dir = tempfile.mkdtemp(prefix='fod-check-')
        args = [binary, '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
                '--no-first-run', '--no-default-browser-check', '--disable-extensions', '--hide-scrollbars',
                '--disable-background-timer-throttling', '--disable-renderer-backgrounding',
                '--remote-debugging-port=0', '--remote-allow-origins=*', '--user-data-dir=' + self.dir,
                '--window-size=%d,%d' % (width, height), 'about:blank']
        self.log = open(os.path.join(self.dir, 'chromium.log'), 'wb')
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        port_file = os.path.join(self.dir, 'DevToolsActivePort')
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise SetupFailed('chromium exited with %s; log: %s' % (self.proc.returncode, self.tail_log()))
            if os.path.exists(port_file):
                lines = open(port_file).read().split('\n')
                if len(lines) >= 2 and lines[0].strip():
                    self.port = int(lines[0])
                    break
            time.sleep(0.1)
        else:
            raise SetupFailed('chromium did not open its DevTools port; log: ' + self.tail_log())
        targets = json.load(urllib.request.urlopen('http://127.0.0.1:%d/json/list' % self.port, timeout=10))
        page = next((t for t in targets if t.get('type') == 'page'), None)
        if not page:
            raise SetupFailed('no page target in chromium')
        self.ws = websocket.create_connection(page['webSocketDebuggerUrl'], timeout=30, suppress_origin=True)
        self.next_id = 0
        self.events = []
        self.verbose = verbose

    def tail_log(self):
        try:
            with open(os.path.join(self.dir, 'chromium.log'), 'rb') as f:
                return f.read()[-2000:].decode('utf-8', 'replace')
        except OSError:
            return ''

    def send(self, method, params=None, timeout=30):
        self.next_id += 1
        mid = self.next_id
        self.ws.send(json.dumps({'id': mid, 'method': method, 'params': params or {}}))
        deadline = time.time() + timeout
        while True:
            self.ws.settimeout(max(0.1, deadline - time.time()))
            try:
                msg = json.loads(self.ws.recv())
            except websocket.WebSocketTimeoutException:
                raise SetupFailed('no answer to %s within %ss' % (method, timeout))
            if msg.get('id') == mid:
                if 'error' in msg:
                    raise SetupFailed('%s failed: %s' % (method, msg['error']))
                return msg.get('result', {})
            if 'method' in msg:
                self.events.append(msg)

    def eval(self, expr):
        r = self.send('Runtime.evaluate', {'expression': expr, 'returnByValue': True, 'awaitPromise': True})
        if 'exceptionDetails' in r:
            raise SetupFailed('evaluating %r threw: %s' % (expr[:80], r['exceptionDetails'].get('text')))
        return r.get('result', {}).get('value')

    def wait_for(self, expr, timeout, what, poll=0.1):
        """Polls a JS expression until it is truthy; returns its value or raises CheckFailed."""
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            last = self.eval(expr)
            if last:
                return last
            time.sleep(poll)
        raise CheckFailed('timed out after %ss waiting for %s' % (timeout, what))

    def close(self):
        try:
            self.ws.close()
        except Exception:
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def page_problems(events, include_network):
    """Uncaught exceptions, console.error/assert calls and (optionally network) error log entries."""
    out = []
    for e in events:
        m, p = e.get('method'), e.get('params', {})
        if m == 'Runtime.exceptionThrown':
            d = p.get('exceptionDetails', {})
            desc = (d.get('exception') or {}).get('description') or d.get('text')
            out.append('uncaught exception: %s' % desc)
        elif m == 'Runtime.consoleAPICalled' and p.get('type') in ('error', 'assert'):
            args = ' '.join(str(a.get('value', a.get('description', ''))) for a in p.get('args', []))
            out.append('console.%s: %s' % (p.get('type'), args))
        elif m == 'Log.entryAdded':
            entry = p.get('entry', {})
            if entry.get('level') == 'error' and (include_network or entry.get('source') != 'network'):
                out.append('log (%s): %s %s' % (entry.get('source'), entry.get('text'), entry.get('url', '')))
    return out


# ---------------------------------------------------------------------------------------------
# the check

def js_str(s):
    return json.dumps(s)


def pin_expr(device_id):
    return ('(() => { const p = document.querySelector(".pin[data-device-id=" + CSS.escape(%s) + "]");'
            ' return p ? [p.getAttribute("data-lon"), p.getAttribute("data-lat")] : null; })()' % js_str(device_id))


ALL_PINS = ('Array.from(document.querySelectorAll(".pin[data-device-id]"))'
            '.map(p => [p.getAttribute("data-device-id"), p.getAttribute("data-lon"), p.getAttribute("data-lat")])')


def is_number(v):
    try:
        return math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def close_to(pair, lon, lat, tol):
    try:
        return abs(float(pair[0]) - lon) <= tol and abs(float(pair[1]) - lat) <= tol
    except (TypeError, ValueError, IndexError):
        return False


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
        url = a.base.rstrip('/') + '/' + ('#group=' + a.group if a.group else '')
        step = 'load'
        say('loading ' + url)
        nav = b.send('Page.navigate', {'url': url})
        if nav.get('errorText'):
            raise CheckFailed('could not load %s: %s' % (url, nav['errorText']))
        b.wait_for('(() => { const f = document.querySelector("form#signin"); return !!f && f.offsetParent !== null'
                   ' && !!document.querySelector("input#email") && !!document.querySelector("input#password")'
                   ' && !!document.querySelector("form#signin button[type=submit]"); })()',
                   a.timeout, 'the sign-in form (form#signin with input#email, input#password, button[type=submit])')

        step = 'sign in'
        for sel, text in (('input#email', a.email), ('input#password', a.password)):
            b.eval('(() => { const e = document.querySelector(%s); e.focus(); e.value = ""; return true; })()' % js_str(sel))
            b.send('Input.insertText', {'text': text})
        rect = b.eval('(() => { const r = document.querySelector("form#signin button[type=submit]").getBoundingClientRect();'
                      ' return [r.left + r.width / 2, r.top + r.height / 2]; })()')
        for t in ('mousePressed', 'mouseReleased'):
            b.send('Input.dispatchMouseEvent', {'type': t, 'x': rect[0], 'y': rect[1], 'button': 'left', 'clickCount': 1})
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
        if a.expect_map and b.eval('document.body.dataset.map') != a.expect_map:
            raise CheckFailed('expected the %s map, page uses %s' % (a.expect_map, b.eval('document.body.dataset.map')))
        b.wait_for('(() => { const s = document.querySelector("#status"); return !!s && s.textContent.trim() === "live"; })()',
                   a.timeout, '#status to read "live"')
        say('#status is live')

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
            deadline = time.time() + a.timeout
            now = before
            while time.time() < deadline:
                now = b.eval(pin_expr(a.device_id))
                if now and close_to(now, a.expect_lon, a.expect_lat, a.tolerance):
                    break
                time.sleep(0.1)
            else:
                raise CheckFailed('pin %s did not move to [%s, %s] within %ss (before: %s, last seen: %s)' % (
                    a.device_id, a.expect_lon, a.expect_lat, a.timeout, before, now))
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
