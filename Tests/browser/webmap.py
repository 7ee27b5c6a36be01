"""Page helpers for the web-map checks: selectors of the page (pins, rows), real mouse input
through the DevTools protocol, and waiting for a pin to reach a position."""
import json
import math
import time

from cdp import CheckFailed


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


def click(b, selector):
    """Scrolls the element into view and clicks its centre with the mouse (a real click)."""
    rect = b.eval('(() => { const e = document.querySelector(%s); if (!e) return null; e.scrollIntoView({block: "center"});'
                  ' const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()' % js_str(selector))
    if not rect:
        raise CheckFailed('nothing to click at %s' % selector)
    for t in ('mousePressed', 'mouseReleased'):
        b.send('Input.dispatchMouseEvent', {'type': t, 'x': rect[0], 'y': rect[1], 'button': 'left', 'clickCount': 1})


def wait_pin_at(b, device_id, lon, lat, tolerance, timeout):
    """Waits until the pin of `device_id` has data-lon/data-lat at [lon, lat]; returns them."""
    deadline = time.time() + timeout
    now = None
    while time.time() < deadline:
        now = b.eval(pin_expr(device_id))
        if now and close_to(now, lon, lat, tolerance):
            return now
        time.sleep(0.1)
    raise CheckFailed('pin %s did not move to [%s, %s] within %ss (last seen: %s)' % (device_id, lon, lat, timeout, now))
