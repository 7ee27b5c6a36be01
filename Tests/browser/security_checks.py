"""Security checks of the web map in Chromium (issue 11):

- names are text: a device, a member and a group named with HTML and script show their literal
  text in the device list, the "Show" picker, the user name, the group picker, the map label and
  the hover tooltip, and nothing in them runs (window.__xss stays undefined, no element or
  request comes from the markup, and no CSP violation happens: the text is never parsed);
- the Content-Security-Policy: the page and every asset it loaded carry the same strict policy
  and the other security headers, modules are served as text/javascript, the page has no inline
  script or handler, normal use reports no `securitypolicyviolation`, and probes show the browser
  enforces it (a cross-origin fetch and a string given to innerHTML are refused);
- the SVG map can be forced (config.json answered with {"leaflet": false}) to check it too.
"""
import base64
import json
import re
import time
import urllib.parse
import urllib.request

from cdp import CheckFailed
from webmap import click, js_str

VIOLATION_RECORDER = '''
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push({ directive: e.effectiveDirective || e.violatedDirective, blocked: e.blockedURI,
    sample: e.sample, at: e.sourceFile + ':' + e.lineNumber });
});
'''

SECURITY_HEADERS = {'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY'}


def install(b, a):
    """Before the page loads: record CSP violations; answer config.json when forcing the SVG map."""
    b.send('Page.addScriptToEvaluateOnNewDocument', {'source': VIOLATION_RECORDER})
    if a.force_map == 'svg':
        body = json.dumps({'leaflet': False, 'qrcode': True, 'tileURL': None, 'tileAttribution': ''}).encode()

        def answer(params):
            b.send('Fetch.fulfillRequest', {'requestId': params['requestId'], 'responseCode': 200,
                                            'responseHeaders': [{'name': 'Content-Type', 'value': 'application/json'}],
                                            'body': base64.b64encode(body).decode()})
        b.intercept('*/static/config.json', answer)


def violations(b):
    v = b.eval('window.__cspViolations')
    if v is None:
        raise CheckFailed('the securitypolicyviolation recorder is missing from the page')
    return v


# ---- names are text ---------------------------------------------------------------------------

NOTHING_RAN = ('(() => ({ xss: typeof window.__xss === "undefined" ? null : String(window.__xss),'
               ' planted: Array.from(document.querySelectorAll("iframe, img[src=x], [onerror], [onload], [onmouseover]"))'
               '   .map(e => e.outerHTML.slice(0, 120)),'
               ' scripts: Array.from(document.scripts).map(s => s.src ? new URL(s.src).pathname : "inline:" + s.text.slice(0, 60)),'
               ' requests: performance.getEntriesByType("resource").map(e => new URL(e.name).pathname)'
               '   .filter(p => p === "/x" || p.endsWith("/x")) }))()')


def assert_nothing_ran(b, when):
    r = b.eval(NOTHING_RAN)
    if r['xss'] is not None:
        raise CheckFailed('%s: a name ran as script (window.__xss = %s)' % (when, r['xss']))
    if r['planted']:
        raise CheckFailed('%s: markup from a name became elements: %s' % (when, r['planted'][:3]))
    bad = [s for s in r['scripts'] if not (s.startswith('/static/') or s in ('/vendor/leaflet/leaflet.js', '/vendor/qrcode/qrcode.js'))]
    if bad:
        raise CheckFailed('%s: unexpected scripts in the page: %s' % (when, bad))
    if r['requests']:
        raise CheckFailed('%s: the page requested %s (an <img src=x> was parsed)' % (when, r['requests']))
    found = violations(b)
    if found:
        raise CheckFailed('%s: CSP violations (a name reached an HTML sink?): %s' % (when, found[:3]))


def texts(b, selector):
    return b.eval('Array.from(document.querySelectorAll(%s)).map(e => ({ text: e.textContent,'
                  ' tags: Array.from(e.querySelectorAll("*")).map(c => c.tagName.toLowerCase()) }))' % js_str(selector))


def expect_text(found, what, want, allowed_tags, exact=False):
    """One element of `found` has text `want` (exactly, or at its start) and only `allowed_tags` inside."""
    hits = [f for f in found if (f['text'] == want if exact else f['text'].startswith(want))]
    if not hits:
        raise CheckFailed('%s does not show the literal text %r; it shows %r' % (what, want, [f['text'] for f in found][:5]))
    stray = sorted(set(t for f in hits for t in f['tags']) - set(allowed_tags))
    if stray:
        raise CheckFailed('%s holds elements made from the name: %s' % (what, stray))


def check_names(b, a, say):
    dev, name, member = a.device_id, a.hostile_device_name, a.hostile_member_name
    assert_nothing_ran(b, 'after loading')
    row = '#devices li[data-device-id=%s]' % json.dumps(dev)
    expect_text(texts(b, row + ' .dev-name'), 'the device list', name, [], exact=True)
    if member:
        expect_text(texts(b, row + ' .dev-member'), 'the device list (member)', member + ' (you)', [], exact=True)
        expect_text(texts(b, '#user-name'), 'the signed-in user name', member, [], exact=True)
    expect_text(texts(b, '#device option[value=%s]' % json.dumps(dev)), 'the "Show" picker', name + ' \u2013 ' + (member or ''), [])
    title = b.eval('document.querySelector(%s).title' % js_str(row + ' button'))
    if not title.startswith(name):
        raise CheckFailed('the device row title is %r, not the literal name' % title)
    if a.hostile_group_name:
        expect_text(texts(b, '#group option'), 'the group picker', a.hostile_group_name, [])
    say('list, pickers and user name show the literal names')

    click(b, row + ' button')
    b.wait_for('document.querySelector(%s).classList.contains("focused")' % js_str(row), a.timeout, 'the device to be focused')
    label_sel = '.pin-label-leaflet, text.pin-label'
    try:
        b.wait_for('Array.from(document.querySelectorAll(%s)).some(e => e.textContent.startsWith(%s))' % (js_str(label_sel), js_str(name)),
                   a.timeout, 'the map label of the focused device')
    except CheckFailed:
        assert_nothing_ran(b, 'after focusing')  # the more telling failure, when there is one
        expect_text(texts(b, label_sel), 'the map label', name, ['span'])
        raise
    expect_text(texts(b, label_sel), 'the map label', name, ['span'])
    say('map label shows the literal name')

    hover_pin(b, a, dev)
    expect_text(texts(b, '#tooltip'), 'the hover tooltip', name, ['strong', 'span', 'div'])
    tip = b.eval('document.querySelector("#tooltip").textContent')
    if member and member not in tip:
        raise CheckFailed('the hover tooltip does not show the member name %r: %r' % (member, tip))
    say('hover tooltip shows the literal names')
    assert_nothing_ran(b, 'after focusing and hovering')


def hover_pin(b, a, dev):
    """Moves the mouse onto the pin of `dev` and waits for the tooltip. Live updates may redraw
    the pins under a mouse that no longer moves (no new mouseover then), so the hover is
    repeated, from a fresh position of the pin, until the tooltip shows or `a.timeout` ends; a pin
    covered at its centre is looked at again until then too."""
    deadline = time.time() + a.timeout
    while True:
        point = b.eval('(() => { const p = document.querySelector(".pin[data-device-id=" + CSS.escape(%s) + "]");'
                       ' if (!p) return null; const r = p.getBoundingClientRect(); const x = r.left + r.width / 2, y = r.top + r.height / 2;'
                       ' const top = document.elementFromPoint(x, y);'
                       ' return [x, y, !!top && (top === p || p.contains(top))]; })()' % js_str(dev))
        if not point:
            raise CheckFailed('no pin for %s to hover' % dev)
        if not point[2]:
            # A live update may put another device's pin over this one for a moment (a demo
            # vessel passing): look again until the deadline, then fail.
            uncovered = ('(() => { const p = document.querySelector(".pin[data-device-id=" + CSS.escape(%s) + "]");'
                         ' if (!p) return false; const r = p.getBoundingClientRect();'
                         ' const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);'
                         ' return !!top && (top === p || p.contains(top)); })()' % js_str(dev))
            try:
                b.wait_for(uncovered, max(0.1, deadline - time.time()), 'the pin of %s uncovered' % dev)
            except CheckFailed:
                raise CheckFailed('the pin of %s is covered at its centre; cannot hover it' % dev)
            continue
        b.send('Input.dispatchMouseEvent', {'type': 'mouseMoved', 'x': point[0] + 60, 'y': point[1] + 60})
        b.send('Input.dispatchMouseEvent', {'type': 'mouseMoved', 'x': point[0], 'y': point[1]})
        try:
            b.wait_for('(() => { const t = document.querySelector("#tooltip"); return !!t && !t.hidden && t.textContent.length > 0; })()',
                       max(0.1, min(2.0, deadline - time.time())), 'the hover tooltip of %s' % dev)
            return
        except CheckFailed:
            if time.time() >= deadline:
                raise


# ---- Content-Security-Policy -----------------------------------------------------------------

def fetch_headers(url):
    with urllib.request.urlopen(urllib.request.Request(url), timeout=10) as r:
        return {k.lower(): v for k, v in r.headers.items()}, r.read()


def check_policy_text(csp):
    directives = {}
    for part in csp.split(';'):
        words = part.split()
        if words:
            directives[words[0]] = words[1:]
    want = {'default-src': ["'self'"], 'script-src': ["'self'"], 'frame-ancestors': ["'none'"], 'object-src': ["'none'"]}
    for name, sources in want.items():
        if directives.get(name) != sources:
            raise CheckFailed('CSP %s is %s, want %s (policy: %s)' % (name, directives.get(name), sources, csp))
    for bad in ("'unsafe-inline'", "'unsafe-eval'", "'unsafe-hashes'", 'data:', '*'):
        if any(bad in v for v in directives.values()):
            raise CheckFailed('CSP allows %s: %s' % (bad, csp))


def check_csp(b, a, say):
    base = a.base.rstrip('/')
    headers, html = fetch_headers(base + '/')
    csp = headers.get('content-security-policy')
    if not csp:
        raise CheckFailed('GET / has no Content-Security-Policy header')
    check_policy_text(csp)
    page = html.decode('utf-8', 'replace')
    if re.search(r'<script(?![^>]*\bsrc=)[^>]*>', page, re.I) or re.search(r'\son[a-z]+\s*=', page, re.I):
        raise CheckFailed('index.html has an inline script or event handler')
    if not re.search(r'<script[^>]*type="module"[^>]*src="/static/app\.js"', page):
        raise CheckFailed('index.html does not load /static/app.js as a module')
    loaded = b.eval('performance.getEntriesByType("resource").map(e => e.name)')
    paths = sorted(set(urllib.parse.urlsplit(u).path for u in loaded
                       if u.startswith(base + '/static/') or u.startswith(base + '/vendor/')))
    modules = [p for p in paths if p.startswith('/static/') and p.endswith('.js')]
    if len(modules) < 5:
        raise CheckFailed('expected the page to load its ES modules, it loaded %s' % paths)
    for path in ['/'] + paths:
        h, _ = fetch_headers(base + path)
        if h.get('content-security-policy') != csp:
            raise CheckFailed('%s: Content-Security-Policy %r differs from the page\'s' % (path, h.get('content-security-policy')))
        for name, value in SECURITY_HEADERS.items():
            if h.get(name) != value:
                raise CheckFailed('%s: %s is %r, want %r' % (path, name, h.get(name), value))
        if path.endswith('.js') and not h.get('content-type', '').startswith('text/javascript'):
            raise CheckFailed('%s: Content-Type %r, modules need text/javascript' % (path, h.get('content-type')))
    found = violations(b)
    if found:
        raise CheckFailed('CSP violations in normal use: %s' % found[:5])
    say('CSP on / and %d assets (%d modules), same policy, no violations in normal use: %s' % (len(paths), len(modules), csp))


def probe_csp(b, a, say):
    """The browser enforces the policy: a cross-origin fetch and an HTML string are refused."""
    fetched = b.eval('fetch("http://127.0.0.2:9/csp-probe").then(() => "loaded", () => "refused")')
    html = b.eval('(() => { try { document.createElement("div").innerHTML = "<b>x</b>"; return "assigned"; }'
                  ' catch (e) { return e.name; } })()')
    evaluated = b.eval('(() => { try { return String(eval("1 + 1")); } catch (e) { return e.name; } })()',
                       allowUnsafeEvalBlockedByCSP=False)
    if fetched != 'refused' or html != 'TypeError' or evaluated != 'EvalError':
        raise CheckFailed('the CSP is not enforced: fetch %s, innerHTML %s, eval %s' % (fetched, html, evaluated))
    # (the eval refused above is thrown by DevTools' own check, which reports no event)
    want = {'connect-src', 'require-trusted-types-for'}
    deadline = time.time() + a.timeout
    seen = set()
    while time.time() < deadline and not want <= seen:
        seen = set(v['directive'] for v in violations(b))
        time.sleep(0.05)
    if not want <= seen:
        raise CheckFailed('expected securitypolicyviolation events for %s, saw %s' % (sorted(want), sorted(seen)))
    say('CSP enforced: cross-origin fetch, innerHTML string and eval refused (%s)' % ', '.join(sorted(seen)))
