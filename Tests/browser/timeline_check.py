"""The timeline panel check: import a short history for the device (POST /v1/devices/{id}/import
with its token: a stay, a trip, a stay in the last two hours), focus the device, open the panel,
and see the day's stays and trips listed (names as text) and drawn on the map; then the previous
day and back."""
import json
import time
import urllib.request

from cdp import CheckFailed
from webmap import click, js_str


def import_history(a, lon, lat):
    """90 one-minute fixes ending 10 minutes ago: 30 at [lon, lat], 30 moving ~3 km east, 30 there."""
    now = int(time.time() * 1000)
    start = now - 100 * 60_000
    fixes = []
    for m in range(90):
        if m < 30:
            x = lon
        elif m < 60:
            x = lon + 0.04 * (m - 29) / 31
        else:
            x = lon + 0.04
        fixes.append({'location': [x + (m % 3) * 0.00002, lat], 'timestamp': start + m * 60_000, 'accuracy': 10})
    req = urllib.request.Request(a.base.rstrip('/') + '/v1/devices/%s/import' % urllib.request.quote(a.device_id, safe=''),
                                 data=json.dumps({'locations': fixes}).encode(), method='POST',
                                 headers={'Content-Type': 'application/json', 'Authorization': 'Bearer ' + a.timeline_device_token})
    with urllib.request.urlopen(req, timeout=30) as r:
        reply = json.load(r)
    if reply.get('accepted', 0) + reply.get('duplicates', 0) != 90:
        raise CheckFailed('the import did not store the 90 fixes: %s' % reply)
    return reply


def check_timeline(b, a, say):
    reply = import_history(a, a.timeline_lon, a.timeline_lat)
    say('imported %s fixes (%s) for %s' % (reply.get('accepted'), reply.get('format'), a.device_id))
    # Focus the device with the "Show" picker (a list click would toggle an existing focus off).
    b.eval('(() => { const s = document.querySelector("select#device"); s.value = %s; s.dispatchEvent(new Event("change")); return true; })()'
           % js_str(a.device_id))
    b.wait_for('!document.querySelector("#timeline-open").disabled', a.timeout, '#timeline-open enabled once the device is focused')
    click(b, '#timeline-open')
    b.wait_for('document.querySelector("#timeline").dataset.state === "ready"', a.timeout, '#timeline[data-state=ready]')
    rows = b.eval('Array.from(document.querySelectorAll("#timeline-list li")).map(li => li.dataset.type)')
    if not rows or 'stay' not in rows:
        raise CheckFailed('the timeline lists no stay today: %s (status: %s)' % (rows, b.eval('document.querySelector("#timeline-status").textContent')))
    drawn = b.eval('[document.querySelectorAll(".tl-stay-dot").length, document.querySelectorAll(".tl-trip-line").length]')
    if drawn[0] < rows.count('stay') or drawn[1] < rows.count('trip'):
        raise CheckFailed('the map draws %s stays and %s trips for rows %s' % (drawn[0], drawn[1], rows))
    title = b.eval('document.querySelector("#timeline-title").textContent')
    if a.hostile_device_name and a.hostile_device_name not in title:
        raise CheckFailed('the timeline title does not show the device name as text: %r' % title)
    say('timeline today: %s; drawn %d stay dot(s), %d trip line(s); title %r' % (rows, drawn[0], drawn[1], title))
    today = b.eval('document.querySelector("#timeline").dataset.day')
    click(b, '#timeline-prev')
    b.wait_for('(() => { const t = document.querySelector("#timeline"); return t.dataset.state === "ready" && t.dataset.day !== %s; })()'
               % js_str(today), a.timeout, 'the previous day to load')
    if not b.eval('document.querySelector("#timeline-next").disabled === false'):
        raise CheckFailed('#timeline-next is disabled on the previous day')
    click(b, '#timeline-next')
    b.wait_for('(() => { const t = document.querySelector("#timeline"); return t.dataset.state === "ready" && t.dataset.day === %s; })()'
               % js_str(today), a.timeout, 'back to today')
    if not b.eval('document.querySelector("#timeline-next").disabled'):
        raise CheckFailed('#timeline-next is enabled on today (the future has no timeline)')
    say('previous day and back: ok')
