"""The group's places on the web map (Web/places.js, API.md "Places (geofences) and arrivals"):
the demo region's street-scale shorelines load (body[data-detail="1"]); a circle drawn with the
mouse next to --device-id's pin and saved through the form is drawn on the map (path.place) and
listed with somebody inside, the device having been set inside silently (no `enter` arrival for
it); after --places-fix-command moves the device far away, its `exit` arrival shows in
#arrivals. The place's name is markup, which must show as text."""
import subprocess
import time

from cdp import CheckFailed
from webmap import click, js_str

NAME = 'Office <b onmouseover="window.__xss=5">zone</b>'


def arrival(device_id, kind):
    return ('!!document.querySelector("#arrivals li.%s[data-device-id=" + CSS.escape(%s) + "]")' % (kind, js_str(device_id)))


def check_places(b, a, say):
    b.wait_for('document.body.dataset.detail === "1"', a.timeout, 'the street-scale shorelines (body[data-detail="1"])')
    click(b, '.rail button[data-panel=places]')
    b.wait_for('document.body.dataset.panel === "places"', a.timeout, 'the Places panel')
    pos = b.eval('(() => { const p = document.querySelector(".pin[data-device-id=" + CSS.escape(%s) + "]"); if (!p) return null;'
                 ' const r = p.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()' % js_str(a.device_id))
    if not pos:
        raise CheckFailed('no pin for %s to draw a place around' % a.device_id)
    b.eval('(() => { document.querySelector("#place-kind").value = "circle"; const r = document.querySelector("#place-radius");'
           ' r.value = "20000"; r.dispatchEvent(new Event("input")); return true; })()')
    click(b, '#place-draw')
    # Next to the pin, not on it nor on any other (a click on a pin focuses that device; the
    # demo harbour is crowded): the nearest free spot of the map within 60 px.
    spot = b.eval('(() => { const x0 = %f, y0 = %f; for (let r = 14; r <= 60; r += 4) for (let a = 0; a < 16; a++) {'
                  ' const x = x0 + r * Math.cos(a * Math.PI / 8), y = y0 + r * Math.sin(a * Math.PI / 8);'
                  ' const e = document.elementFromPoint(x, y);'
                  ' if (e && !e.closest(".pin") && e.closest("svg, .leaflet-container")) return [x, y]; }'
                  ' return null; })()' % (pos[0], pos[1]))
    if not spot:
        raise CheckFailed('no free spot of the map within 60 px of %s to click' % a.device_id)
    for kind in ('mousePressed', 'mouseReleased'):
        b.send('Input.dispatchMouseEvent', {'type': kind, 'x': spot[0], 'y': spot[1], 'button': 'left', 'clickCount': 1})
    b.wait_for('(() => { const d = document.querySelector(".place-draft"); return !!d && (d.getAttribute("d") || "").length > 20; })()',
               a.timeout, 'the drawn circle (.place-draft)')
    b.eval('(() => { const e = document.querySelector("#place-name"); e.focus(); e.value = ""; return true; })()')
    b.send('Input.insertText', {'text': NAME})
    click(b, '#place-save')
    listed = '(() => Array.from(document.querySelectorAll("#places .place-item")).find(e => e.querySelector(".place-name").textContent === %s))()' % js_str(NAME)
    b.wait_for('!!' + listed, a.timeout, 'the saved place in #places, its name as text')
    b.wait_for('!!document.querySelector("path.place")', a.timeout, 'the place drawn on the map (path.place)')
    b.wait_for('(%s).querySelector(".place-inside").textContent.startsWith("inside: ")' % listed, a.timeout,
               'the device shown inside its new place')
    if b.eval(arrival(a.device_id, 'enter')):
        raise CheckFailed('a place drawn around a parked device logged an enter for it')
    say('place drawn, saved and listed; the device is inside, silently')
    subprocess.run(a.places_fix_command, shell=True, check=True, timeout=a.timeout)
    b.wait_for(arrival(a.device_id, 'exit'), a.timeout, 'the device\'s exit in #arrivals')
    if b.eval('window.__xss !== undefined'):
        raise CheckFailed('markup in a place name ran')
    say('the exit arrived live')
    time.sleep(0.2)
