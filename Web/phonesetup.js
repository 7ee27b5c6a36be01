/*
 * Find Our Devices web app: setting a phone up, right after a phone is added or its token
 * renewed (the only times the page holds the device token). For each app the phone may use —
 * OwnTracks (HTTP mode), Overland, Traccar Client — the link that configures it in one tap, its
 * QR code to scan from another screen, and the fields to type by hand (README "Phone apps").
 * The builders are pure; `showPhoneSetup` draws them in the dialog.
 */
import { h } from './dom.js';
import { copyText, openDialog } from './dialog.js';
import { qrSvg, utf8Binary } from './qr.js';

/** The phone-app endpoints of the server at `origin` (no trailing slash). */
export function ingestURLs(origin) {
  return {
    owntracks: origin + '/v1/ingest/owntracks',
    osmand: origin + '/v1/ingest/osmand',
    overland: origin + '/v1/ingest/overland',
  };
}

/** Two capitals from a name ("Ann's phone" → "AP"), OwnTracks' tracker id; "FD" when none. */
export function trackerId(name) {
  const words = String(name || '').replace(/['\u2019]s\b/gi, '').toUpperCase().match(/[A-Z0-9]+/g) || [];
  const tid = words.length >= 2 ? words[0][0] + words[1][0] : (words[0] || '').slice(0, 2);
  return tid.length === 2 ? tid : (tid + 'FD').slice(0, 2);
}

/**
 * OwnTracks' configuration for HTTP mode (its remote-configuration JSON): this server's URL,
 * HTTP Basic authentication with the device id as username and the device token as password.
 */
export function owntracksConfig({ origin, deviceId, deviceToken, deviceName }) {
  return {
    _type: 'configuration', mode: 3, url: ingestURLs(origin).owntracks,
    auth: true, username: deviceId, password: deviceToken, tid: trackerId(deviceName),
  };
}

/** The `owntracks:///config?inline=` link: the configuration's UTF-8 JSON in base64. */
export function owntracksLink(config) {
  return 'owntracks:///config?inline=' + encodeURIComponent(btoa(utf8Binary(JSON.stringify(config))));
}

/** Overland's set-up link: receiver URL, access token (the device token) and a device name. */
export function overlandLink({ origin, deviceToken, deviceName }) {
  const q = new URLSearchParams({ url: ingestURLs(origin).overland, token: deviceToken, device_id: deviceName || 'phone' });
  return 'overland://setup?' + q.toString();
}

/** Traccar Client reads a scanned server URL and takes its `id` parameter as the device identifier. */
export function traccarURL({ origin, deviceToken }) {
  return ingestURLs(origin).osmand + '?' + new URLSearchParams({ id: deviceToken }).toString();
}

/** The three apps' set-ups for one device: [{app, title, link, qrText, steps, fields: [[label, value]]}]. */
export function phoneSetups(device) {
  const urls = ingestURLs(device.origin);
  const ot = owntracksLink(owntracksConfig(device));
  return [
    {
      app: 'owntracks', title: 'OwnTracks', link: ot, qrText: ot, linkLabel: 'Open in OwnTracks',
      steps: ['Install OwnTracks (Android or iPhone).', 'Scan this code with the phone\u2019s camera, or open the link on the phone.', 'Accept the configuration in OwnTracks.'],
      fields: [['Mode', 'HTTP'], ['URL', urls.owntracks], ['Username', device.deviceId], ['Password', device.deviceToken]],
    },
    {
      app: 'overland', title: 'Overland', link: overlandLink(device), qrText: overlandLink(device), linkLabel: 'Open in Overland',
      steps: ['Install Overland (iPhone).', 'Scan this code, or open the link on the phone.', 'Start tracking in Overland.'],
      fields: [['Receiver endpoint', urls.overland], ['Access token', device.deviceToken]],
    },
    {
      app: 'traccar', title: 'Traccar Client', link: null, qrText: traccarURL(device),
      steps: ['Install Traccar Client (Android or iPhone).', 'In its settings, scan this code (it sets the server URL and the device identifier).', 'Turn tracking on.'],
      fields: [['Server URL', urls.osmand], ['Device identifier', device.deviceToken]],
    },
  ];
}

/** One app's pane: QR code, steps, link, fields with copy buttons. */
async function setupPane(setup, qrcodeAvailable) {
  let qr;
  try {
    if (!qrcodeAvailable) throw new Error('no encoder');
    qr = h('div', { className: 'qr', dataset: { app: setup.app, text: setup.qrText } }, await qrSvg(setup.qrText, setup.title + ' set-up code'));
  } catch (_) {
    qr = h('div', { className: 'qr qr-missing', dataset: { app: setup.app } }, 'QR codes need the node-qrcode-generator package on the server. Use the link or the fields below.');
  }
  const fields = h('dl', { className: 'setup-fields' });
  for (const [label, value] of setup.fields) {
    const copy = h('button', { type: 'button', className: 'plain', attrs: { 'aria-label': 'Copy ' + label } }, 'Copy');
    copy.addEventListener('click', () => copyText(value, copy));
    fields.append(h('dt', null, label), h('dd', null, value), copy);
  }
  return h('div', { className: 'setup-pane', id: 'setup-' + setup.app, role: 'tabpanel', dataset: { app: setup.app } },
    h('div', { className: 'setup-qr-row' }, qr, h('ol', { className: 'setup-steps' }, ...setup.steps.map((s) => h('li', null, s)))),
    setup.link ? h('p', null, h('a', { href: setup.link, className: 'setup-link' }, setup.linkLabel + ' (on the phone)')) : null,
    fields);
}

/**
 * Shows the set-up of a phone in the dialog. `device`: {deviceId, deviceName, deviceToken,
 * origin}; `friends`: {on, set(bool)} the OwnTracks friends switch (the device's
 * receiveGroupLocations). Resolves when closed.
 */
export async function showPhoneSetup(device, { qrcode, friends }) {
  const setups = phoneSetups(device);
  const panes = await Promise.all(setups.map((s) => setupPane(s, qrcode)));
  const tabs = h('div', { className: 'tabs setup-tabs', role: 'tablist', attrs: { 'aria-label': 'Phone app' } });
  const select = (i) => {
    panes.forEach((p, j) => { p.hidden = i !== j; });
    Array.from(tabs.children).forEach((b, j) => b.setAttribute('aria-selected', i === j ? 'true' : 'false'));
  };
  setups.forEach((s, i) => {
    const b = h('button', { type: 'button', id: 'setup-tab-' + s.app, attrs: { role: 'tab', 'aria-controls': 'setup-' + s.app } }, s.title);
    b.addEventListener('click', () => select(i));
    tabs.appendChild(b);
  });
  select(0);
  const body = [
    h('p', { className: 'setup-warning' }, 'This is the only time the phone\u2019s token is shown. Set the phone up now; later, \u201cNew token\u201d makes another (the old one stops working).'),
    tabs, ...panes,
  ];
  if (friends) {
    const box = h('input', { type: 'checkbox', id: 'setup-friends', checked: !!friends.on });
    box.addEventListener('change', async () => {
      box.disabled = true;
      try { await friends.set(box.checked); } catch (_) { box.checked = !box.checked; }
      box.disabled = false;
    });
    body.push(h('label', { className: 'switch' }, box, 'Show my groups\u2019 members in OwnTracks (friends)'));
  }
  return openDialog({ title: 'Set up ' + device.deviceName, name: 'phone-setup', body, actions: [{ label: 'Done', value: 'done', kind: 'primary' }] });
}
