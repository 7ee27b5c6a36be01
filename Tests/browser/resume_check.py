"""The live feed resumes where it stopped (Web/live.js): the stream is cut (window.stop(), which
Chromium treats as a failed connection, not one to retry), so the page must open a new stream
itself with ?lastEventId= set to the id of the last event it received (read from the DevTools
Network events); that request is answered with a 503, the page must ask again with the same id
after checking the group, go live, and show a fix posted afterwards."""
import base64
import json
import subprocess
import time
import urllib.parse

from cdp import CheckFailed
from webmap import pin_expr, wait_pin_at

STATUS = 'document.querySelector("#status").textContent.trim()'


def last_event_id(b):
    ids = [e['params'].get('eventId') for e in b.events if e.get('method') == 'Network.eventSourceMessageReceived']
    ids = [i for i in ids if i]
    return ids[-1] if ids else None


def check_resume(b, a, say):
    requests = []  # URLs of the stream requests since the cut

    def on_stream(params):
        requests.append(params['request']['url'])
        if len(requests) == 1:
            body = json.dumps({'error': {'code': 'unavailable', 'message': 'refused by the browser check'}}).encode()
            b.send('Fetch.fulfillRequest', {'requestId': params['requestId'], 'responseCode': 503,
                                            'responseHeaders': [{'name': 'Content-Type', 'value': 'application/json'}],
                                            'body': base64.b64encode(body).decode()})
        else:
            b.send('Fetch.continueRequest', {'requestId': params['requestId']})

    b.send('Network.enable')
    deadline = time.time() + a.timeout
    while not last_event_id(b) and time.time() < deadline:
        b.eval('1')
        time.sleep(0.1)
    b.intercept('*/live?*', on_stream)
    b.eval('(() => { window.stop(); return true; })()')  # cuts the open stream
    last = last_event_id(b)
    if not last:
        raise CheckFailed('no live event with an id arrived within %ss' % a.timeout)
    b.wait_for(STATUS + ' === "reconnecting"', a.timeout, '#status to read "reconnecting" once the stream is cut')
    say('stream cut after event %s; waiting for the page to resume it' % last)
    b.wait_for(STATUS + ' === "live"', a.timeout, '#status to read "live" again after the refused reopen')
    b.stop_intercepting('*/live?*')
    b.send('Network.disable')
    if len(requests) < 2:
        raise CheckFailed('expected the refused reopen and a second one, saw %s' % requests)
    for url in requests[:2]:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
        if query.get('lastEventId') != [last]:
            raise CheckFailed('the page reopened its stream with %s, want lastEventId=%s' % (url, last))
    say('the page reopened with lastEventId=%s (refused with 503), then again with the same id' % last)

    before = b.eval(pin_expr(a.device_id))
    r = subprocess.run(a.resume_fix_command, shell=True, capture_output=True, text=True, timeout=a.timeout)
    if r.returncode != 0:
        raise CheckFailed('--resume-fix-command exited %d: %s %s' % (r.returncode, r.stdout.strip(), r.stderr.strip()))
    now = wait_pin_at(b, a.device_id, a.resume_lon, a.resume_lat, a.tolerance, a.timeout)
    say('after resuming, pin %s moved from %s to %s' % (a.device_id, before, now))
