#!/usr/bin/env python3
"""The whole journey of a family in the web app, in headless Chromium against a fresh server,
with nothing but the browser (and the phones' own requests):

  1. Ann signs up on the sign-up page (the page lands on "Phones"); adds her phone and its
     set-up appears: the OwnTracks, Overland and Traccar Client QR codes, read back off the
     screen with zbarimg, hold this server's URLs, the device id and the device token;
  2. Ann makes the group "Family" with her phone and invites Bob's email (on a server with a
     sign-up policy, before Bob has an account: the invitation lets him sign up); Bob signs up,
     adds his phone, sees the invitation and joins with his phone;
  3. Ann's phone posts a fix to the OwnTracks endpoint with the credentials read from its QR
     code, and its pin appears on Bob's map (live); Bob's phone posts with the Traccar Client
     URL from its QR code and appears on Ann's;
  4. Ann turns her sharing off: her pin leaves Bob's map and the list says so; on again; she
     renames the group and Bob's page follows;
  5. Ann adds a webhook channel, draws "Home" on the map and asks to be told when Bob arrives
     there; Bob's phone walks in: the arrival shows in her list and the webhook receives it;
     Ann makes a share link and it opens, in a fresh browser with no sign-in, at street level
     with the trail drawn;
  6. Ann imports a GPX file into her phone from the History panel (with progress), plays the
     day back with the time slider and downloads the day as GPX;
  7. Ann changes her password, signs out, and signs in with the new one.

Then Bob opens every section. Every step is screenshotted (<shots>/<W>x<H>-<theme>-NN-step.png)
and audited (no horizontal scrolling, the map at least 40 % of a phone's height, every control
named, reachable and readable), and no page may log an error. Usage:
  journey.py --base URL --width 1280 --height 800 --theme light --shots DIR
"""
import argparse
import base64
import json
import os
import sys
import time
import urllib.parse

from cdp import CheckFailed, SetupFailed
from journeylib import Person, Receiver, call
from webmap import js_str, wait_pin_at

ANN = {'name': 'Ann', 'email': 'ann@example.org', 'password': 'ann-password-1'}
BOB = {'name': 'Bob', 'email': 'bob@example.org', 'password': 'bob-password-1'}
HOME = (-74.0445, 40.6892)    # Ann's phone, then a walk east
BOB_AT = (-73.9857, 40.7484)


def auth_for(codes):
    """The Traccar Client URL of a phone's set-up codes."""
    return codes['traccar']


def gpx_walk(start_ms, lon, lat, minutes=40):
    """A GPX track: a stay of 10 minutes, a walk east of 20, a stay of 10, a fix a minute."""
    pts = []
    for m in range(minutes):
        x = lon if m < 10 else lon + 0.02 * min(20, m - 10) / 20
        t = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime((start_ms + m * 60000) / 1000))
        pts.append('<trkpt lat="%.6f" lon="%.6f"><time>%s</time></trkpt>' % (lat, x + (m % 3) * 0.00001, t))
    return ('<?xml version="1.0"?><gpx version="1.1" creator="journey" xmlns="http://www.topografix.com/GPX/1/1">'
            '<trk><name>walk</name><trkseg>%s</trkseg></trk></gpx>' % ''.join(pts)).encode()


class Journey:
    def __init__(self, a):
        self.a = a
        self.phone = a.width < 600
        self.step_no = 0
        self.people = []
        self.started = time.time()

    def say(self, msg):
        print('journey %dx%d %s [%4.1f s]: %s' % (self.a.width, self.a.height, self.a.theme, time.time() - self.started, msg), flush=True)

    def person(self, name):
        p = Person(name, self.a.base, self.a.width, self.a.height, self.a.theme, self.a.shots, self.a.timeout, self.say)
        self.people.append(p)
        return p

    def step(self, p, name):
        """Screenshot and audit of `p`'s page after a step."""
        self.step_no += 1
        path = p.shot('%02d-%s' % (self.step_no, name))
        p.audit(name, self.phone)
        self.say('%s ok (%s)' % (name, os.path.basename(path)))

    def sign_up(self, p, who, policy=None):
        """Signs `who` up; with `policy`, the page must say that sign-up policy first."""
        p.open('/')
        p.wait('!!document.querySelector("form#signup button[type=submit]:enabled")', 'the sign-up form')
        if policy:
            p.wait('document.body.dataset.signup === %s' % json.dumps(policy), 'the %s policy on the sign-up page' % policy)
            if policy == 'invite' and not p.eval('(() => { document.querySelector("#tab-signup").click();'
                                                 ' return !document.querySelector("#signup-invite-row").hidden; })()'):
                raise CheckFailed('the sign-up page of a server by invitation offers no invite code field')
        p.click('#tab-signup')
        p.type('#signup-name', who['name'])
        p.type('#signup-email', who['email'])
        p.type('#signup-password', who['password'])
        p.click('form#signup button[type=submit]')
        state = p.wait('document.body.dataset.ready === "1" ? "ready" : (document.querySelector("#signup-error").hidden ? null'
                       ' : "error:" + document.querySelector("#signup-error").textContent)', 'the app after sign-up')
        if state != 'ready':
            raise CheckFailed('%s could not sign up: %s' % (who['name'], state))

    def invite(self, p, email):
        p.section('groups')
        p.type('.group-card.current .invite-email', email)
        p.click('.group-card.current .invite-form button[type=submit]')
        p.wait('!!document.querySelector(".group-card.current .notice")', 'the invitation to be sent')
        self.step(p, 'invited')

    def add_phone(self, p, name):
        """Adds a phone; returns (device id, the set-up QR codes' texts by app)."""
        p.section('devices')
        p.type('#device-add-name', name)
        p.click('#device-add button[type=submit]')
        p.wait('document.querySelector("#dialog").open && document.querySelector("#dialog").dataset.name === "phone-setup"', 'the set-up dialog')
        codes = {'owntracks': p.read_qr('.qr[data-app=owntracks]')}
        self.step(p, 'phone-setup')
        for app in ('overland', 'traccar'):
            p.click('#setup-tab-' + app)
            codes[app] = p.read_qr('.qr[data-app=%s]' % app)
        p.click('#dialog-actions button[data-value=done]')
        p.wait('!document.querySelector("#dialog").open', 'the dialog to close')
        device_id = p.eval('(() => { const c = Array.from(document.querySelectorAll("#my-devices .device-card"))'
                           '.find(e => e.querySelector(".item-title").textContent === %s); return c ? c.dataset.deviceId : null; })()' % js_str(name))
        if not device_id:
            raise CheckFailed('%s is not listed under Phones' % name)
        return device_id, codes

    def check_codes(self, device_id, codes):
        """The QR codes configure the apps with this server, the device id and a working token; returns the token."""
        prefix = 'owntracks:///config?inline='
        if not codes['owntracks'].startswith(prefix):
            raise CheckFailed('the OwnTracks code is not a configuration link: %r' % codes['owntracks'][:60])
        config = json.loads(base64.b64decode(urllib.parse.unquote(codes['owntracks'][len(prefix):])))
        want = {'_type': 'configuration', 'mode': 3, 'url': self.a.base.rstrip('/') + '/v1/ingest/owntracks', 'auth': True, 'username': device_id}
        wrong = {k: config.get(k) for k, v in want.items() if config.get(k) != v}
        if wrong or not config.get('password'):
            raise CheckFailed('the OwnTracks configuration is wrong in %s: %s' % (sorted(wrong), config))
        token = config['password']
        overland = urllib.parse.urlparse(codes['overland'])
        q = urllib.parse.parse_qs(overland.query)
        if (overland.scheme, overland.netloc) != ('overland', 'setup') or q.get('url') != [self.a.base.rstrip('/') + '/v1/ingest/overland'] or q.get('token') != [token]:
            raise CheckFailed('the Overland code is wrong: %r' % codes['overland'])
        traccar = urllib.parse.urlparse(codes['traccar'])
        if traccar.path != '/v1/ingest/osmand' or urllib.parse.parse_qs(traccar.query).get('id') != [token]:
            raise CheckFailed('the Traccar Client code is wrong: %r' % codes['traccar'])
        return token

    def run(self):
        a = self.a
        ann = self.person('Ann')
        self.sign_up(ann, ANN)
        if ann.eval('document.body.dataset.panel') != 'devices':
            raise CheckFailed('a new account lands on %r, not on Phones' % ann.eval('document.body.dataset.panel'))
        self.step(ann, 'signed-up')
        ann_dev, codes = self.add_phone(ann, "Ann's phone")
        ann_token = self.check_codes(ann_dev, codes)
        config = json.loads(base64.b64decode(urllib.parse.unquote(codes['owntracks'].split('inline=', 1)[1])))
        self.say('set-up codes decoded: OwnTracks for %s, Overland, Traccar Client' % config['username'])

        ann.section('groups')
        ann.type('#group-create-name', 'Family')
        ann.click('#group-create button[type=submit]')
        ann.wait('document.body.dataset.panel === "people" && document.querySelector("select#group").selectedOptions[0]?.textContent.startsWith("Family")', 'the new group on the map')
        self.step(ann, 'group-created')

        # With a sign-up policy (GET /v1/server), Bob's email is invited before he has an account
        # and that invitation lets him sign up; without one, he signs up first.
        policy = ann.eval('document.body.dataset.signup')
        if policy != 'unknown':
            self.invite(ann, BOB['email'])
        bob = self.person('Bob')
        # After its first account a server takes new ones by invitation (by default).
        self.sign_up(bob, BOB, 'invite' if policy != 'unknown' else None)
        bob_dev, bob_codes = self.add_phone(bob, "Bob's phone")
        self.check_codes(bob_dev, bob_codes)
        if policy == 'unknown':
            self.invite(ann, BOB['email'])
        bob.section('groups')
        bob.wait_visible('.invitation .invitation-accept', 'the invitation')
        self.step(bob, 'invitation')
        bob.click('.invitation .invitation-accept')
        bob.wait('document.body.dataset.panel === "people" && document.body.dataset.ready === "1" && !!document.querySelector("#devices [data-device-id=\\"%s\\"]")' % ann_dev, 'Family on Bob\'s map')

        # Ann's phone posts with the OwnTracks credentials of its QR code; Bob sees it live. (Fix times
        # are whole seconds: one taken in the second its device joined the group would be before
        # the join, which the group never sees, so Bob's phone dates its fix a second ahead.)
        auth = 'Basic ' + base64.b64encode(('%s:%s' % (config['username'], config['password'])).encode()).decode()
        status, reply = call(a.base, 'POST', '/v1/ingest/owntracks', {'_type': 'location', 'lat': HOME[1], 'lon': HOME[0], 'tst': int(time.time()) - 60, 'acc': 8, 'batt': 76, 'tid': 'AP'},
                             {'Authorization': auth})
        if status != 200:
            raise CheckFailed('OwnTracks post with the QR code\'s credentials: %s %s' % (status, reply))
        call(a.base, 'POST', '/v1/ingest/owntracks', {'_type': 'location', 'lat': HOME[1] + 0.001, 'lon': HOME[0] + 0.002, 'tst': int(time.time()), 'acc': 8, 'tid': 'AP'},
             {'Authorization': auth})
        wait_pin_at(bob.b, ann_dev, HOME[0] + 0.002, HOME[1] + 0.001, 1e-7, a.timeout)
        traccar = urllib.parse.urlparse(bob_codes['traccar'])
        status, reply = call(a.base, 'GET', traccar.path + '?' + traccar.query + '&' + urllib.parse.urlencode({'lat': BOB_AT[1], 'lon': BOB_AT[0], 'timestamp': int(time.time()) + 1}))
        if status != 200 or not isinstance(reply, dict) or reply.get('accepted') != 1:
            raise CheckFailed('Traccar Client post with the QR code\'s URL: %s %s' % (status, reply))
        wait_pin_at(ann.b, bob_dev, BOB_AT[0], BOB_AT[1], 1e-7, a.timeout)
        self.step(bob, 'live-on-bobs-map')
        self.step(ann, 'live-on-anns-map')

        # What the server cannot store (a latitude past the pole) is answered 200, so the app moves
        # on rather than resending it forever, and Ann reads it under her phone.
        status, reply = call(a.base, 'POST', '/v1/ingest/owntracks', {'_type': 'location', 'lat': 95, 'lon': HOME[0], 'tst': int(time.time()), 'tid': 'AP'},
                             {'Authorization': auth})
        if status != 200:
            raise CheckFailed('an OwnTracks message that cannot be stored: %s %s (the app would resend it forever)' % (status, reply))
        ann.section('devices')
        card = '.device-card[data-device-id=\\"%s\\"]' % ann_dev
        # The card is drawn again when the post's `lastSeenAt` arrives; a redraw between the
        # mouse's press and release takes the click away, as it would a person's: click again.
        ann.press(card.replace('\\', '') + ' .rejection-section > summary',
                  '(document.querySelector("%s .rejection-item") || {}).dataset?.reason === "invalid_location"' % card,
                  'the message not stored under Ann\'s phone')
        self.step(ann, 'not-stored')

        # Sharing off hides Ann from Bob at once; on again.
        ann.section('groups')
        ann.click('.group-card.current .sharing-switch')
        bob.wait('!document.querySelector(".pin[data-device-id=\\"%s\\"]")' % ann_dev, 'Ann\'s pin to leave Bob\'s map')
        bob.wait('(document.querySelector("#devices [data-device-id=\\"%s\\"] .dev-age") || {}).textContent === "not sharing"' % ann_dev, 'Bob\'s list to say Ann is not sharing')
        self.step(bob, 'sharing-off')
        ann.wait('!document.querySelector(".group-card.current .sharing-switch").disabled', 'the switch to settle')
        ann.click('.group-card.current .sharing-switch')
        bob.wait('!!document.querySelector(".pin[data-device-id=\\"%s\\"]")' % ann_dev, 'Ann\'s pin back on Bob\'s map')
        # Ann renames the group; Bob's picker follows live.
        ann.press('.group-card.current .group-rename', 'document.querySelector("#dialog").open && document.querySelector("#dialog").dataset.name === "prompt"', 'the rename dialog')
        ann.type('#dialog-input', 'The Family')
        ann.click('#dialog-actions button[data-value=ok]')
        bob.wait('document.querySelector("select#group").selectedOptions[0]?.textContent === "The Family"', 'the new name on Bob\'s page')

        self.alert(ann, bob, auth_for(bob_codes), ann_dev)

        # A share link, opened by someone without an account.
        ann.section('devices')
        card = '#my-devices .device-card[data-device-id="%s"]' % ann_dev
        ann.expand(card + ' .share-section')
        ann.click(card + ' .share-create')
        ann.wait('document.querySelector("#dialog").dataset.name === "share-link" && document.querySelector("#dialog").open', 'the new link')
        link = ann.text('#share-url')
        self.step(ann, 'share-link')
        ann.click('#dialog-actions button[data-value=done]')
        guest = self.person('Guest')
        guest.open(urllib.parse.urlparse(link).path)
        guest.wait('document.body.dataset.ready === "1" && !!document.querySelector(".pin[data-device-id=shared]")', 'the shared pin')
        zoom = float(guest.wait('document.body.dataset.zoom', 'the share page\'s view'))
        if zoom < 12:
            raise CheckFailed('the share page opens at zoom %.1f, not street level' % zoom)
        # The phone moves on: the pin follows and its trail (the fixes since the link was made) shows.
        call(a.base, 'POST', '/v1/ingest/owntracks', {'_type': 'location', 'lat': HOME[1] + 0.002, 'lon': HOME[0] + 0.004, 'tst': int(time.time()) + 1, 'acc': 8, 'tid': 'AP'},
             {'Authorization': auth})
        wait_pin_at(guest.b, 'shared', HOME[0] + 0.004, HOME[1] + 0.002, 1e-7, a.timeout)
        guest.wait('Array.from(document.querySelectorAll("path.trail, .trail polyline")).some(e => (e.getAttribute("d") || e.getAttribute("points") || "").length > 10'
                   ' && Number(e.getAttribute("stroke-opacity") || 1) >= 0.5)', 'the trail on the share page')
        self.step(guest, 'share-page')
        guest.close()
        self.people.remove(guest)

        if policy == 'unknown':  # a server without the administration work (import tokens, PUT /v1/me/password)
            self.say('this server has no GET /v1/server: the import and the password change are skipped')
        else:
            self.history_and_password(ann, ann_dev)
        # Every section once more, as Bob (a member, not the owner): audited and screenshotted.
        for panel in ('people', 'places', 'history', 'devices', 'groups', 'account'):
            bob.section(panel)
            self.step(bob, 'section-' + panel)
        for p in self.people:
            p.problems()

    def alert(self, ann, bob, bob_traccar, ann_dev):
        """Ann draws "Home" around her pin and asks to be told by a webhook when Bob arrives; Bob's
        phone walks in: the arrival shows in Ann's list and the webhook receives it. (Skipped on a
        server whose notifications refuse a receiver on this machine: no --notify-allow-private.)"""
        a = self.a
        receiver = Receiver()
        try:
            ann.section('account')
            ann.type('#channel-name', 'My webhook')
            ann.choose('#channel-type', 'webhook')
            ann.type('#channel-url', receiver.url)
            ann.click('#channel-form button[type=submit]')
            said = ann.wait('(() => { const m = document.querySelector("#account-message"); return !m.hidden && m.textContent; })()', 'the new channel')
            if 'secret' not in said:
                self.say('no webhook channel to this machine (%s): the alert is skipped' % said)
                return
            ann.section('places')
            ann.type('#place-name', 'Home')
            ann.choose('#place-kind', 'circle')
            ann.eval('(() => { const r = document.querySelector("#place-radius"); r.value = "1500"; r.dispatchEvent(new Event("input")); return 1; })()')
            # Ann's pin in view, alone (a focused pin never joins a bubble), to draw around it.
            ann.choose('select#device', ann_dev)
            ann.wait('(() => { const r = document.querySelector(".pin.focused[data-device-id=\\"%s\\"]")?.getBoundingClientRect(); return r && r.width > 0; })()' % ann_dev, 'Ann\'s pin in view')
            ann.click('#place-draw')
            spot = ann.eval('(() => { const p = document.querySelector(".pin[data-device-id=\\"%s\\"]"); const r = p.getBoundingClientRect();'
                            ' const x0 = r.left + r.width / 2, y0 = r.top + r.height / 2;'
                            ' for (let d = 16; d <= 60; d += 4) for (let k = 0; k < 16; k++) { const x = x0 + d * Math.cos(k * Math.PI / 8), y = y0 + d * Math.sin(k * Math.PI / 8);'
                            ' const e = document.elementFromPoint(x, y); if (e && !e.closest(".pin, .leaflet-tooltip, .cluster-icon") && e.closest(".map")) return [x, y]; } return null; })()' % ann_dev)
            if not spot:
                raise CheckFailed('no free spot of the map next to Ann\'s pin to draw Home around')
            for kind in ('mousePressed', 'mouseReleased'):
                ann.b.send('Input.dispatchMouseEvent', {'type': kind, 'x': spot[0], 'y': spot[1], 'button': 'left', 'clickCount': 1})
            ann.click('#place-save')
            ann.wait('Array.from(document.querySelectorAll("#places .place-name")).some(e => e.textContent === "Home")', 'Home in the list')
            ann.choose('#alert-place', ann.eval('document.querySelector("#alert-place").options[1].value'))
            ann.choose('#alert-device', ann.eval('Array.from(document.querySelector("#alert-device").options).find(o => o.textContent.startsWith("Bob")).value'))
            ann.click('#alert-form button[type=submit]')
            ann.wait('(document.querySelector("#alerts li[data-alert-id]") || {}).textContent?.startsWith("Bob\'s phone arrives at Home")', 'the alert listed')
            self.step(ann, 'alert')
            traccar = urllib.parse.urlparse(bob_traccar)
            status, _ = call(a.base, 'GET', traccar.path + '?' + traccar.query + '&' + urllib.parse.urlencode({'lat': HOME[1], 'lon': HOME[0], 'timestamp': int(time.time()) + 2}))
            if status != 200:
                raise CheckFailed('Bob\'s phone could not post at Home: %s' % status)
            ann.wait('Array.from(document.querySelectorAll("#arrivals li.enter")).some(e => e.textContent.includes("Bob\'s phone arrived at Home"))', 'Bob\'s arrival in Ann\'s list')
            deadline = time.time() + a.timeout
            while time.time() < deadline and not any(b and b.get('type') == 'place.enter' for b in receiver.bodies):
                time.sleep(0.1)
            hook = next((b for b in receiver.bodies if b and b.get('type') == 'place.enter'), None)
            if not hook or (hook.get('place') or {}).get('name') != 'Home' or (hook.get('device') or {}).get('name') != "Bob's phone":
                raise CheckFailed('the webhook did not receive Bob\'s arrival at Home: %s' % receiver.bodies)
            self.step(ann, 'arrival')
            self.say('the webhook received: Bob\'s phone arrived at Home')
        finally:
            receiver.close()

    def history_and_password(self, ann, ann_dev):
        a = self.a
        # History: a GPX file into Ann's phone, the day played back, a download.
        ann.section('history')
        ann.expand('#import-section')
        ann.choose('#import-device', ann_dev)
        gpx = os.path.join(ann.b.dir, 'walk.gpx')
        # Today in the browser's day (it shows today's timeline): 42 minutes ago, or just after midnight.
        midnight = time.mktime(time.localtime()[:3] + (0, 0, 0, 0, 0, -1))
        start = int(max(time.time() - 42 * 60, midnight + 60) * 1000)
        with open(gpx, 'wb') as f:
            f.write(gpx_walk(start, HOME[0], HOME[1]))
        node = ann.b.send('DOM.querySelector', {'nodeId': ann.b.send('DOM.getDocument')['root']['nodeId'], 'selector': '#import-file'})['nodeId']
        ann.b.send('DOM.setFileInputFiles', {'nodeId': node, 'files': [gpx]})
        ann.click('#import-start')
        state = ann.wait('["done", "error"].includes(document.querySelector("#import-status").dataset.state) && document.querySelector("#import-status").dataset.state', 'the import')
        if state != 'done' or ann.eval('document.querySelector("#import-status").dataset.accepted') != '40':
            raise CheckFailed('the GPX import says: %s' % ann.text('#import-status'))
        self.say('imported: ' + ann.text('#import-status'))
        ann.choose('#history-device', ann_dev)
        ann.wait('document.querySelector("#timeline").dataset.state === "ready" && !document.querySelector("#playback").hidden', 'the day\'s timeline and playback')
        ann.eval('(() => { const s = document.querySelector("#playback-slider"); s.value = "300"; s.dispatchEvent(new Event("input")); return 1; })()')
        ann.wait('!!document.querySelector(".playback-cursor[data-lon]")', 'the playback cursor')
        self.step(ann, 'history-playback')
        ann.expand('#range-section')
        ann.choose('#export-format', 'gpx')
        ann.click('#export-download')
        name = ann.wait('document.querySelector("#export-status").dataset.file', 'the download')
        if b'<trkpt' not in ann.download(name):
            raise CheckFailed('the downloaded GPX %s holds no track point' % name)

        # A new password, then signing in with it.
        ann.section('account')
        ann.type('#password-current', ANN['password'])
        ann.type('#password-new', ANN['password'] + '-new')
        ann.click('#password-form button[type=submit]')
        ann.wait('(document.querySelector("#account-message").textContent || "").startsWith("Password changed")', 'the password change')
        self.step(ann, 'password-changed')
        ann.click('#account-signout')
        ann.wait_visible('form#signin', 'the sign-in page')
        ann.type('#email', ANN['email'])
        ann.type('#password', ANN['password'] + '-new')
        ann.click('form#signin button[type=submit]')
        ann.wait('document.body.dataset.ready === "1" && !document.querySelector("#app").hidden', 'signing in with the new password')
        self.step(ann, 'signed-in-again')

    def close(self):
        for p in self.people:
            p.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--base', required=True)
    ap.add_argument('--width', type=int, default=1280)
    ap.add_argument('--height', type=int, default=800)
    ap.add_argument('--theme', choices=['light', 'dark'], default='light')
    ap.add_argument('--shots', required=True, help='directory for the screenshots')
    ap.add_argument('--timeout', type=float, default=20.0)
    a = ap.parse_args()
    os.makedirs(a.shots, exist_ok=True)
    j = Journey(a)
    started = time.time()
    try:
        j.run()
    except CheckFailed as e:
        for p in j.people:
            try:
                p.shot('failed-' + p.name)
            except Exception:
                pass
        print('journey FAILED: %s' % e, file=sys.stderr, flush=True)
        return 1
    except SetupFailed as e:
        print('journey could not drive the browser: %s' % e, file=sys.stderr, flush=True)
        return 2
    finally:
        j.close()
    j.say('passed in %.1f s' % (time.time() - started))
    return 0


if __name__ == '__main__':
    sys.exit(main())
