"""What the journey check (journey.py) does to a page, as a person would: one person's browser
(headless Chromium at a size and a colour scheme), typing into fields, pressing buttons,
picking options, opening sections, waiting for what the page shows, screenshots of each step,
reading a QR code off the screen with zbarimg, and the page's audits (no horizontal scrolling,
the map's share of the height, every control named and readable, nothing the console
complained about)."""
import base64
import json
import os
import subprocess
import time

from cdp import Browser, CheckFailed, find_chromium, page_problems
from webmap import js_str

# Every visible control has an accessible name, is reachable with Tab, and its text has enough
# contrast with what is behind it (WCAG: 4.5 for text; the ratio of relative luminances).
AUDIT = r'''(() => {
  const lum = (c) => { const m = c.match(/[\d.]+/g); if (!m) return null; const [r, g, b] = m.slice(0, 3).map(Number).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return { l: 0.2126 * r + 0.7152 * g + 0.0722 * b, a: m.length > 3 ? Number(m[3]) : 1 }; };
  const bg = (e) => { for (let n = e; n; n = n.parentElement) { const s = getComputedStyle(n); const c = lum(s.backgroundColor); if (c && c.a > 0.5) return c.l; if (s.backgroundImage !== 'none') return null; } return 1; };
  const visible = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden' && !e.closest('[hidden]'); };
  const name = (e) => (e.getAttribute('aria-label') || (e.labels && e.labels.length ? Array.from(e.labels).map(l => l.textContent).join(' ') : '') || e.getAttribute('title') || e.textContent || e.getAttribute('placeholder') || '').trim();
  const out = { unnamed: [], unreachable: [], lowContrast: [] };
  for (const e of document.querySelectorAll('button, a[href], input:not([type=hidden]), select, [role=button]')) {
    if (!visible(e) || e.closest('.leaflet-control-attribution')) continue;
    const what = e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ')[0] : '');
    if (!name(e)) out.unnamed.push(what);
    if (e.tabIndex < 0 && !e.disabled) out.unreachable.push(what);
    if (e.tagName === 'BUTTON' && e.textContent.trim() && !e.disabled) {
      const fg = lum(getComputedStyle(e).color), b = bg(e);
      if (fg && b != null) { const ratio = (Math.max(fg.l, b) + 0.05) / (Math.min(fg.l, b) + 0.05); if (ratio < 4.5) out.lowContrast.push(what + ' ' + ratio.toFixed(2)); }
    }
  }
  const map = document.querySelector('.map-wrap'), r = map && map.getBoundingClientRect();
  out.scrollWidth = document.documentElement.scrollWidth;
  out.mapShare = r && !document.querySelector('#app').hidden ? r.height / window.innerHeight : null;
  return out;
})()'''


class Person:
    """One person's browser at `width`×`height` in the `theme` ('light' | 'dark')."""

    def __init__(self, name, base, width, height, theme, shots, timeout, say):
        self.name, self.base, self.width, self.height, self.theme = name, base.rstrip('/'), width, height, theme
        self.shots, self.timeout, self.say_to = shots, timeout, say
        self.b = Browser(find_chromium(None), width, height)
        for method in ('Page.enable', 'Runtime.enable', 'Log.enable'):
            self.b.send(method)
        self.b.send('Emulation.setDeviceMetricsOverride', {'width': width, 'height': height, 'deviceScaleFactor': 1, 'mobile': width < 600})
        self.b.send('Emulation.setEmulatedMedia', {'features': [{'name': 'prefers-color-scheme', 'value': theme}]})
        self.b.stub_tiles()
        self.downloads = os.path.join(self.b.dir, 'downloads')
        os.makedirs(self.downloads, exist_ok=True)
        self.b.send('Browser.setDownloadBehavior', {'behavior': 'allow', 'downloadPath': self.downloads})

    def say(self, msg):
        self.say_to('%s: %s' % (self.name, msg))

    def close(self):
        self.b.close()

    def open(self, path):
        nav = self.b.send('Page.navigate', {'url': self.base + path})
        if nav.get('errorText'):
            raise CheckFailed('%s could not load %s: %s' % (self.name, path, nav['errorText']))

    def eval(self, expr):
        return self.b.eval(expr)

    def wait(self, expr, what, timeout=None):
        """Polls `expr` until truthy (an expression that throws, as while a page loads, counts as false)."""
        guarded = '(() => { try { return (%s); } catch (e) { return null; } })()' % expr
        return self.b.wait_for(guarded, timeout or self.timeout, '%s: %s' % (self.name, what))

    def visible(self, selector):
        return self.eval('(() => { const e = document.querySelector(%s); if (!e) return false; const r = e.getBoundingClientRect();'
                         ' return r.width > 0 && r.height > 0 && !e.closest("[hidden]"); })()' % js_str(selector))

    def wait_visible(self, selector, what=None):
        self.wait('(() => { const e = document.querySelector(%s); if (!e) return false; const r = e.getBoundingClientRect();'
                  ' return r.width > 0 && r.height > 0 && !e.closest("[hidden]"); })()' % js_str(selector), what or selector)

    def click(self, selector):
        """A real mouse click in the middle of the element (scrolled into view first)."""
        self.wait_visible(selector)
        rect = self.eval('(() => { const e = document.querySelector(%s); e.scrollIntoView({block: "center"});'
                         ' const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()' % js_str(selector))
        for kind in ('mousePressed', 'mouseReleased'):
            self.b.send('Input.dispatchMouseEvent', {'type': kind, 'x': rect[0], 'y': rect[1], 'button': 'left', 'clickCount': 1})

    def press(self, selector, until, what):
        """Clicks `selector` until `until` holds (a panel redrawn between finding the button and
        the mouse's release takes the click away, as it would a person's: they click again)."""
        for attempt in range(3):
            self.click(selector)
            try:
                return self.wait(until, what, timeout=self.timeout / 3)
            except CheckFailed:
                if attempt == 2:
                    raise

    def type(self, selector, text):
        """Empties the field and types `text` into it."""
        self.wait_visible(selector)
        self.eval('(() => { const e = document.querySelector(%s); e.focus(); e.value = ""; return true; })()' % js_str(selector))
        self.b.send('Input.insertText', {'text': text})

    def choose(self, selector, value):
        self.eval('(() => { const s = document.querySelector(%s); s.value = %s; s.dispatchEvent(new Event("change", {bubbles: true})); return s.value; })()'
                  % (js_str(selector), js_str(value)))

    def section(self, name):
        """Opens a section of the page from the rail (the bottom bar on a phone)."""
        self.click('.rail button[data-panel=%s]' % name)
        self.wait('document.body.dataset.panel === %s' % js_str(name), 'the %s panel' % name)

    def expand(self, selector):
        self.eval('(() => { const d = document.querySelector(%s); d.open = true; return true; })()' % js_str(selector))

    def token(self):
        return self.eval('sessionStorage.getItem("fod.token")')

    def text(self, selector):
        return self.eval('(() => { const e = document.querySelector(%s); return e ? e.textContent.trim() : null; })()' % js_str(selector))

    def shot(self, step):
        """Saves the screen as <shots>/<size>-<theme>-<step>.png; returns the path."""
        time.sleep(0.25)
        data = self.b.send('Page.captureScreenshot', {'format': 'png'})['data']
        path = os.path.join(self.shots, '%dx%d-%s-%s.png' % (self.width, self.height, self.theme, step))
        with open(path, 'wb') as f:
            f.write(base64.b64decode(data))
        return path

    def read_qr(self, selector):
        """The text of the QR code drawn in `selector`, read off a screenshot by zbarimg."""
        self.wait_visible(selector + ' svg', 'the QR code in ' + selector)
        rect = self.eval('(() => { const e = document.querySelector(%s); e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect();'
                         ' return {x: r.left, y: r.top, width: r.width, height: r.height}; })()' % js_str(selector))
        data = self.b.send('Page.captureScreenshot', {'format': 'png', 'clip': dict(rect, scale=2)})['data']
        path = os.path.join(self.b.dir, 'qr.png')
        with open(path, 'wb') as f:
            f.write(base64.b64decode(data))
        r = subprocess.run(['zbarimg', '--raw', '-q', path], capture_output=True, text=True, timeout=30)
        if r.returncode != 0 or not r.stdout.strip():
            raise CheckFailed('%s: zbarimg read no QR code in %s (exit %d: %s)' % (self.name, selector, r.returncode, r.stderr.strip()))
        return r.stdout.rstrip('\n')

    def audit(self, step, phone_layout):
        """No horizontal scrolling, the map at least 40 % of the height on a phone, every control named, reachable and readable."""
        r = self.eval(AUDIT)
        if r['scrollWidth'] > self.width:
            raise CheckFailed('%s at %s: the page is %d px wide in a %d px window' % (self.name, step, r['scrollWidth'], self.width))
        if phone_layout and r['mapShare'] is not None and r['mapShare'] < 0.4:
            raise CheckFailed('%s at %s: the map takes %.0f %% of the height' % (self.name, step, r['mapShare'] * 100))
        for key, what in (('unnamed', 'controls without an accessible name'), ('unreachable', 'controls out of the Tab order'),
                          ('lowContrast', 'buttons whose text contrast is under 4.5')):
            if r[key]:
                raise CheckFailed('%s at %s: %s: %s' % (self.name, step, what, r[key][:8]))

    def problems(self):
        self.eval('1')
        found = page_problems(self.b.events, False)
        if found:
            raise CheckFailed('%s\'s page reported %d problem(s):\n  ' % (self.name, len(found)) + '\n  '.join(found[:20]))

    def download(self, name, timeout=None):
        """Waits for the downloaded file `name`; returns its bytes."""
        path = os.path.join(self.downloads, name)
        deadline = time.time() + (timeout or self.timeout)
        while time.time() < deadline:
            if os.path.exists(path) and not os.path.exists(path + '.crdownload'):
                with open(path, 'rb') as f:
                    return f.read()
            time.sleep(0.1)
        raise CheckFailed('%s: %s was not downloaded (%s)' % (self.name, name, os.listdir(self.downloads)))


class Receiver:
    """A webhook receiver on 127.0.0.1 (a thread): records the JSON bodies POSTed to it."""

    def __init__(self):
        import http.server
        import threading
        bodies = self.bodies = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get('Content-Length') or 0)
                try:
                    bodies.append(json.loads(self.rfile.read(length) or b'null'))
                except ValueError:
                    bodies.append(None)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.url = 'http://127.0.0.1:%d/hook' % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def call(base, method, path, body=None, headers=None):
    """One HTTP call (what a phone app does); returns (status, parsed JSON or text)."""
    import urllib.error
    import urllib.request
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    req = urllib.request.Request(base.rstrip('/') + path, method=method, data=data,
                                 headers=dict({'Content-Type': 'application/json'}, **(headers or {})))
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            text = r.read().decode()
            status = r.status
    except urllib.error.HTTPError as e:
        text, status = e.read().decode(), e.code
    try:
        return status, json.loads(text) if text else None
    except ValueError:
        return status, text
