/*
 * Find Our Devices web map: the timeline of one device (#timeline, in the History panel). A day
 * at a time (the browser's local day): GET /v1/devices/{id}/export.geojson?timeline=true for
 * that day, stays and trips listed in order and drawn on the map (map.setTimeline),
 * previous/next day; the day is handed on (`hooks.onDay`) for its playback. Place and device
 * names are text nodes only (dom.js). Every load checks `gen`, bumped on each change, so a late
 * answer for another day or device is dropped.
 */
import { path, withQuery } from './api.js';
import { byId, h, replaceChildren } from './dom.js';

/** The local midnight starting the day of `t` (ms). */
export function dayStart(t) {
  const d = new Date(t);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** The local midnight `days` days after `start` (days may be negative; DST-safe). */
export function shiftDay(start, days) {
  const d = new Date(start);
  d.setDate(d.getDate() + days);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

function clock(iso) {
  const d = new Date(iso);
  return isNaN(d) ? '' : d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** "1 h 05 min", "12 min". */
export function duration(ms) {
  const minutes = Math.max(0, Math.round(ms / 60000));
  if (minutes < 60) return minutes + ' min';
  const m = minutes % 60;
  return Math.floor(minutes / 60) + ' h ' + (m < 10 ? '0' : '') + m + ' min';
}

/** "850 m", "12.4 km". */
export function distanceText(meters) {
  if (!(meters >= 0)) return '';
  return meters < 1000 ? Math.round(meters) + ' m' : (meters / 1000).toFixed(1) + ' km';
}

/** The text of a stay's place: "Paris, FR", a group place's name, or a fallback. */
export function placeText(place) {
  if (!place || typeof place.name !== 'string' || !place.name) return 'Unnamed place';
  return place.country ? place.name + ', ' + place.country : place.name;
}

export class TimelinePanel {
  /**
   * @param api the ApiClient
   * @param hooks {draw(features | null), focus(feature)}: the map's side; onDay(deviceId, from,
   *   to) after a day loaded (ms, local midnight to the next), onDay(null) once closed
   */
  constructor(api, hooks) {
    this.api = api;
    this.hooks = hooks;
    this.root = byId('timeline');
    this.title = byId('timeline-title');
    this.day = byId('timeline-day');
    this.list = byId('timeline-list');
    this.status = byId('timeline-status');
    this.deviceId = null;
    this.start = dayStart(Date.now());
    this.gen = 0;
    byId('timeline-prev').addEventListener('click', () => this.move(-1));
    byId('timeline-next').addEventListener('click', () => this.move(1));
    byId('timeline-close').addEventListener('click', () => this.close());
    this.list.addEventListener('click', (e) => {
      const li = e.target.closest('li[data-index]');
      if (li && this.features) this.hooks.focus(this.features[Number(li.dataset.index)]);
    });
  }

  get isOpen() { return this.deviceId != null; }

  /** Shows the timeline of `device` ({deviceId, deviceName}) on today. */
  open(device) {
    this.deviceId = device.deviceId;
    this.start = dayStart(Date.now());
    this.root.dataset.open = '1';
    replaceChildren(this.title, 'Timeline \u2013 ', device.deviceName || 'device');
    this.load();
  }

  /** Stops showing a timeline (and its drawing). */
  close() {
    this.gen++;
    this.deviceId = null;
    this.features = null;
    delete this.root.dataset.open;
    delete this.root.dataset.state;
    replaceChildren(this.title, 'Timeline');
    replaceChildren(this.list);
    replaceChildren(this.day);
    replaceChildren(this.status, 'Pick a device to see its days.');
    this.hooks.draw(null);
    this.hooks.onDay(null);
  }

  move(days) {
    if (!this.deviceId) return;
    const next = shiftDay(this.start, days);
    if (next > Date.now()) return;
    this.start = next;
    this.load();
  }

  async load() {
    const gen = ++this.gen;
    const from = this.start, to = shiftDay(this.start, 1) - 1;
    replaceChildren(this.day, new Date(from).toLocaleDateString([], { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric' }));
    byId('timeline-next').disabled = shiftDay(this.start, 1) > Date.now();
    this.root.dataset.day = new Date(from).toISOString();
    this.root.dataset.state = 'loading';
    replaceChildren(this.status, 'Loading\u2026');
    let doc;
    try {
      const url = withQuery(path`/v1/devices/${this.deviceId}/export.geojson`,
        { timeline: 'true', from: new Date(from).toISOString(), to: new Date(to).toISOString() });
      doc = await this.api.get(url);
    } catch (e) {
      if (gen !== this.gen) return;
      this.features = null;
      replaceChildren(this.list);
      replaceChildren(this.status, e.message || 'The timeline could not be loaded.');
      this.root.dataset.state = 'error';
      this.hooks.draw(null);
      this.hooks.onDay(null);
      return;
    }
    if (gen !== this.gen) return;
    const features = (doc && Array.isArray(doc.features) ? doc.features : []).filter((f) => f && f.properties && f.geometry);
    this.features = features;
    this.render(features);
    this.hooks.draw(features);
    this.root.dataset.state = 'ready';
    this.hooks.onDay(this.deviceId, from, shiftDay(this.start, 1));
  }

  render(features) {
    const frag = document.createDocumentFragment();
    features.forEach((f, i) => {
      const p = f.properties;
      const span = clock(p.start) + '\u2013' + clock(p.end);
      const ms = Date.parse(p.end) - Date.parse(p.start);
      const row = p.type === 'stay'
        ? h('li', { className: 'tl-stay', dataset: { index: String(i), type: 'stay' } },
          h('span', { className: 'tl-time' }, span),
          h('span', { className: 'tl-what' }, placeText(p.place)),
          h('span', { className: 'tl-meta' }, duration(ms)))
        : h('li', { className: 'tl-trip', dataset: { index: String(i), type: 'trip' } },
          h('span', { className: 'tl-time' }, span),
          h('span', { className: 'tl-what' }, 'Trip ' + distanceText(p.distance)),
          h('span', { className: 'tl-meta' }, duration(ms) + (p.averageSpeed > 0 ? ' \u00b7 ' + (p.averageSpeed * 3.6).toFixed(0) + ' km/h' : '')));
      frag.appendChild(row);
    });
    replaceChildren(this.list, frag);
    const stays = features.filter((f) => f.properties.type === 'stay').length;
    replaceChildren(this.status, features.length
      ? stays + ' stay' + (stays === 1 ? '' : 's') + ', ' + (features.length - stays) + ' trip' + (features.length - stays === 1 ? '' : 's')
      : 'Nothing recorded this day.');
  }
}
