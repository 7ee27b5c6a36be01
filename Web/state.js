/*
 * Find Our Devices web map: page state without DOM — the session (token in session storage)
 * and the devices of the group on screen.
 *
 * A device: {deviceId, userId, displayName, deviceName, shareLocation, located, lon, lat,
 * ts (epoch ms of the fix, or null), color, trail: [[lon, lat], ...] (oldest first, at most
 * TRAIL_MAX, the newest equal to [lon, lat]), label, stale}. `located` is false exactly when lon,
 * lat and ts are null and the trail is empty. The map renderers read devices of this shape.
 */
import { ageText, parseTime, validLonLat } from './geo.js';
import { readJSON } from './api.js';

export const TRAIL_MAX = 20;                   // positions kept per device for its trail
export const STALE_MS = 10 * 60 * 1000;        // a fix older than this dims its pin

// Distinguishable on the beige land and the blue sea (Trubetskoy's 20, pale ones darkened/dropped).
const PALETTE = [
  '#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#1aa3c4', '#f032e6', '#7fae1f',
  '#008080', '#9a6324', '#800000', '#808000', '#000075', '#e05f9b', '#c9a000', '#5a5a5a',
];

/** A stable colour per device: FNV-1a hash of the id into the palette. */
export function colorFor(id) {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) { h ^= id.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  return PALETTE[(h >>> 0) % PALETTE.length];
}

/** A device not on the map yet. */
export function newDevice(id) {
  return {
    deviceId: id, userId: null, displayName: '', deviceName: id, shareLocation: true, color: colorFor(id),
    located: false, lon: null, lat: null, ts: null, trail: [], label: id, stale: false,
  };
}

/** Puts `d` at [lon, lat] (degrees) fixed at `ts` (epoch ms), extending its trail (at most `trailMax` points). */
export function placeDevice(d, lon, lat, ts, trailMax = TRAIL_MAX) {
  d.located = true;
  d.lon = lon;
  d.lat = lat;
  d.ts = ts;
  const last = d.trail[d.trail.length - 1];
  if (!last || last[0] !== lon || last[1] !== lat) d.trail.push([lon, lat]);
  if (d.trail.length > trailMax) d.trail.splice(0, d.trail.length - trailMax);
}

/** Takes `d` off the map and forgets its positions at once, trail included. */
export function unplaceDevice(d) {
  d.located = false;
  d.lon = null; d.lat = null; d.ts = null;
  d.trail = [];
}

/** "12 s ago", or why there is no position. */
export function statusText(d, now) {
  if (d.located) return ageText(now - d.ts) || 'location time unknown';
  return d.shareLocation ? 'no location yet' : 'not sharing';
}

/** The text next to a pin: the device name and the age of its fix. */
export function labelText(d, now) {
  const age = d.located && d.ts != null ? ageText(now - d.ts) : '';
  return d.deviceName + (age ? ' \u00b7 ' + age : '');
}

function text(v, fallback) { return typeof v === 'string' && v ? v : fallback; }

/** The devices of one group, in display order (located first, then by member and device name). */
export class GroupDevices {
  constructor() {
    this.group = null;          // {id, name, ownerId} of the last document applied
    this.byId = new Map();
    this.order = [];
  }

  get size() { return this.byId.size; }
  get(id) { return this.byId.get(id); }
  list() { return this.order.map((id) => this.byId.get(id)).filter(Boolean); }
  locatedCount() { let n = 0; for (const d of this.byId.values()) if (d.located) n++; return n; }

  clear() {
    this.group = null;
    this.byId = new Map();
    this.order = [];
  }

  /**
   * Replaces every device with those of a group document (GET /v1/groups/{id} or a `snapshot`
   * event); a device kept keeps its trail. Returns false for something that is not a document.
   */
  applyDocument(doc, now) {
    if (!doc || typeof doc !== 'object') return false;
    this.group = { id: doc.id, name: text(doc.name, ''), ownerId: doc.ownerId };
    const next = new Map();
    for (const m of Array.isArray(doc.members) ? doc.members : []) {
      if (!m || m.deviceId == null) continue;
      const id = String(m.deviceId);
      const d = this.byId.get(id) || newDevice(id);
      d.userId = m.userId;
      d.displayName = text(m.displayName, '');
      d.deviceName = text(m.deviceName, id);
      d.shareLocation = m.shareLocation !== false;
      const c = m.location && m.location.coordinates;
      if (validLonLat(c)) placeDevice(d, c[0], c[1], parseTime(m.location.updatedAt));
      else unplaceDevice(d);
      d.label = labelText(d, now);
      next.set(id, d);
    }
    this.byId = next;
    this.sort();
    return true;
  }

  /**
   * Applies a `location` event {deviceId, location: [lon, lat], timestamp, latest}. Returns the
   * device and what happened: 'unknown' (a device not in our document: it is out of date),
   * 'ignored' (an older fix, or no valid position), 'placed' (its first position: the order
   * changes) or 'moved'.
   */
  applyLocation(ev, now) {
    if (!ev || ev.deviceId == null) return { kind: 'ignored', device: null };
    const d = this.byId.get(String(ev.deviceId));
    if (!d) return { kind: 'unknown', device: null };
    if (ev.latest === false || !validLonLat(ev.location)) return { kind: 'ignored', device: d };
    const wasLocated = d.located;
    const ts = parseTime(ev.timestamp);
    placeDevice(d, ev.location[0], ev.location[1], ts == null ? now : ts);
    if (!wasLocated) this.sort();
    return { kind: wasLocated ? 'moved' : 'placed', device: d };
  }

  /** @private */
  sort() {
    const rank = (d) => (d.located ? 0 : d.shareLocation ? 1 : 2);
    this.order = Array.from(this.byId.values()).sort((a, b) =>
      rank(a) - rank(b) ||
      a.displayName.localeCompare(b.displayName) ||
      a.deviceName.localeCompare(b.deviceName) ||
      (a.deviceId < b.deviceId ? -1 : 1)).map((d) => d.deviceId);
  }
}

const TOKEN_KEY = 'fod.token';
const USER_KEY = 'fod.user';

/**
 * The signed-in user: the token and user record kept in session storage (this tab only,
 * gone when it closes).
 */
export class Session {
  constructor(storage) {
    this.storage = storage || window.sessionStorage;
    this.token = this.storage.getItem(TOKEN_KEY);
    this.user = readJSON(this.storage.getItem(USER_KEY));
  }

  get signedIn() { return !!this.token; }

  save(token, user) {
    this.token = token;
    this.user = user;
    this.storage.setItem(TOKEN_KEY, token);
    this.storage.setItem(USER_KEY, JSON.stringify(user));
  }

  /**
   * Forgets the token. `signedOut`: the user chose to leave, so the stored user goes too (it
   * stays in memory to prefill this page's form); else (the session expired) it stays stored.
   */
  end(signedOut) {
    this.token = null;
    this.storage.removeItem(TOKEN_KEY);
    if (signedOut) this.storage.removeItem(USER_KEY);
  }
}
