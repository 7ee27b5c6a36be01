/*
 * Find Our Devices: the share-link page (/s/<token>, API.md "Share links"). No sign-in: the
 * token in the page's own path is the credential. It follows one device live from
 * /v1/shared/<token>/live (a `snapshot`, then `location` events, and `end` when the link is
 * revoked or expires), and shows how old the last fix is and how long the link still works.
 * Everything from the server goes in as text (dom.js); the page runs under the same strict CSP
 * as the group map (no inline script, Trusted Types).
 */
import { path } from './api.js';
import { byId } from './dom.js';
import { ageText, parseTime, validLonLat } from './geo.js';
import { LiveFeed } from './live.js';
import { createMap, loadMapConfig } from './map.js';
import { newDevice, placeDevice, unplaceDevice, labelText, STALE_MS } from './state.js';
import { setReady, setStatus, showBanner } from './ui.js';

const TRACK_MAX = 500;   // track points drawn as the pin's trail

const token = decodeURIComponent(location.pathname.replace(/^\/s\//, ''));
const device = newDevice('shared');
device.trail = [];
const page = { map: null, expiresAt: null, feed: null, fitted: false, ended: false };

/** "in 42 min", "in 1 h 5 min", "expired". */
export function countdownText(ms) {
  if (ms == null || !isFinite(ms)) return '';
  if (ms <= 0) return 'expired';
  const s = Math.floor(ms / 1000);
  if (s < 60) return 'expires in ' + s + ' s';
  const m = Math.floor(s / 60);
  if (m < 60) return 'expires in ' + m + ' min';
  const h = Math.floor(m / 60);
  if (h < 48) return 'expires in ' + h + ' h ' + (m % 60) + ' min';
  return 'expires in ' + Math.floor(h / 24) + ' d';
}

/** Puts the pin at [lon, lat] fixed at `ts`, extending the trail (up to TRACK_MAX points). */
function put(lon, lat, ts) { placeDevice(device, lon, lat, ts, TRACK_MAX); }

function applySnapshot(doc) {
  if (!doc || typeof doc !== 'object') return;
  device.deviceName = typeof doc.deviceName === 'string' && doc.deviceName ? doc.deviceName : 'Shared device';
  byId('device-name').textContent = device.deviceName;
  document.title = device.deviceName + ' · shared location';
  page.expiresAt = parseTime(doc.expiresAt);
  unplaceDevice(device);
  const track = Array.isArray(doc.track) ? doc.track.slice(-TRACK_MAX) : [];
  for (const p of track) {
    if (Array.isArray(p) && validLonLat(p)) put(p[0], p[1], parseTime(p[2]));
  }
  const loc = doc.location;
  if (loc && validLonLat(loc.coordinates)) put(loc.coordinates[0], loc.coordinates[1], parseTime(loc.updatedAt));
  draw(true);
}

function applyLocation(data) {
  if (!data || !validLonLat(data.location)) return;
  const ts = parseTime(data.timestamp);
  // An older fix (a backfill) extends nothing: the pin shows the newest.
  if (device.located && ts != null && device.ts != null && ts < device.ts) return;
  put(data.location[0], data.location[1], ts);
  draw(false);
}

function draw(fit) {
  if (!page.map) return;
  page.map.sync(device.located ? [device] : []);
  if (device.located) page.map.move(device);
  // Street level, the whole trail in view (once, and on a new snapshot).
  if (fit || !page.fitted) {
    if (device.located) { page.map.fitTrail(device); page.fitted = true; document.body.dataset.zoom = page.map.getView().zoom.toFixed(2); }
  }
  tick();
}

function end(reason) {
  page.ended = true;
  if (page.feed) page.feed.close();
  setStatus('closed');
  showBanner(reason === 'revoked' ? 'The person who shared this location turned the link off.' : 'This link has expired.', 'warn');
  byId('expires').textContent = reason === 'revoked' ? 'link turned off' : 'expired';
}

/** Updates "last seen" and the countdown (once a second). */
function tick() {
  const now = Date.now();
  byId('last-seen').textContent = device.located ? 'last seen ' + (ageText(now - device.ts) || 'at an unknown time') : 'no location yet';
  if (!page.ended) byId('expires').textContent = countdownText(page.expiresAt == null ? null : page.expiresAt - now);
  if (!page.ended && page.expiresAt != null && now >= page.expiresAt) end('expired');
  if (page.map && device.located) {
    const label = labelText(device, now);
    if (label !== device.label) { device.label = label; page.map.setLabelText(device, label); }
    const stale = now - device.ts > STALE_MS;
    if (stale !== device.stale) { device.stale = stale; page.map.setStale(device, stale); }
  }
}

async function start() {
  const config = await loadMapConfig();
  page.map = await createMap(byId('map'), {
    onPinClick: () => page.map.centerOn(device, true),
    onPinHover: () => {}, onPinLeave: () => {}, onUserMove: () => {},
    onFitRequest: () => page.map.fitTrail(device),
  }, Object.assign({}, config, { strongTrails: true }));
  page.map.setLabels(true);
  page.feed = new LiveFeed({
    url: () => path`/v1/shared/${token}/live`,
    events: {
      snapshot: (doc) => { applySnapshot(doc); setReady(true); },
      location: applyLocation,
      end: (data) => end(data && data.reason),
    },
    onState: (s) => { if (!page.ended) setStatus(s); },
    // The stream was refused: find out whether the link still works.
    check: async () => {
      const r = await fetch(path`/v1/shared/${token}`, { cache: 'no-store' });
      if (r.status === 404) { const e = new Error('gone'); e.gone = true; throw e; }
      if (!r.ok) throw new Error('HTTP ' + r.status);
    },
    onEnd: () => end('expired'),
  }).start();
  setInterval(tick, 1000);
}

start().catch((e) => showBanner('The map could not start: ' + e.message, 'error'));
