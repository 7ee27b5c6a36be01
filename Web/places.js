/*
 * Find Our Devices web map: the group's places (geofences) and arrivals, in the sidebar.
 * Lists the places with who is inside, draws a new circle or polygon from map clicks, deletes
 * places the user may change (its creator or the group's owner; the server decides), and logs
 * `place` events (enter/exit) as they arrive on the live feed. Names are only ever text.
 *
 * Invariant: answers and events for a group we left are dropped (`gen`, bumped by setGroup).
 */
import { byId, h, replaceChildren } from './dom.js';
import { draftBody } from './placegeometry.js';

const MAX_ARRIVALS = 30;
const INSIDE_NAMES = 5;       // names listed inside a place; the others are counted

/** "inside: A, B and 3 more", or "nobody inside". */
export function insideText(names) {
  if (!names.length) return 'nobody inside';
  const shown = names.slice(0, INSIDE_NAMES).join(', ');
  return 'inside: ' + shown + (names.length > INSIDE_NAMES ? ' and ' + (names.length - INSIDE_NAMES) + ' more' : '');
}
const DEFAULT_RADIUS = 150;

export class PlacesPanel {
  /**
   * @param {import('./api.js').ApiClient} api
   * @param {object} hooks onPlaces(places), onDraft(draft | null), deviceName(deviceId) -> text,
   *   canChange(place) -> bool, onError(message)
   */
  constructor(api, hooks) {
    this.api = api;
    this.hooks = hooks;
    this.groupId = null;
    this.gen = 0;
    this.places = [];
    this.arrivals = [];
    this.draft = null;
    this.list = byId('places');
    this.log = byId('arrivals');
    this.name = byId('place-name');
    this.kind = byId('place-kind');
    this.radius = byId('place-radius');
    this.hint = byId('place-hint');
    byId('place-draw').addEventListener('click', () => this.startDraft());
    byId('place-cancel').addEventListener('click', () => this.setDraft(null));
    byId('place-form').addEventListener('submit', (e) => { e.preventDefault(); this.save(); });
    this.radius.addEventListener('input', () => {
      if (this.draft && this.draft.kind === 'circle') this.setDraft(Object.assign({}, this.draft, { radius: this.radiusValue() }));
    });
    this.render();
  }

  /** Shows another group (null: none); forgets the drawing and the arrivals. */
  setGroup(groupId) {
    this.gen++;
    this.groupId = groupId;
    this.places = [];
    this.arrivals = [];
    this.setDraft(null);
    this.changed();
  }

  /** Replaces the places (a snapshot's `places`, or GET /v1/groups/{id}/places). */
  setPlaces(places) {
    this.places = Array.isArray(places) ? places.filter((p) => p && p.id != null) : [];
    this.changed();
  }

  async reload() {
    const gen = this.gen, groupId = this.groupId;
    if (!groupId) return;
    try {
      const r = await this.api.places(groupId);
      if (gen === this.gen) this.setPlaces(r && r.places);
    } catch (e) {
      if (gen === this.gen) this.hooks.onError(e.message);
    }
  }

  /** A `place` event of the live feed: {type: enter|exit, placeId, placeName, deviceId, timestamp}. */
  onPlaceEvent(ev) {
    if (!ev || (ev.type !== 'enter' && ev.type !== 'exit')) return;
    const place = this.places.find((p) => p.id === ev.placeId);
    if (place) {
      const inside = new Set(Array.isArray(place.inside) ? place.inside : []);
      if (ev.type === 'enter') inside.add(ev.deviceId); else inside.delete(ev.deviceId);
      place.inside = Array.from(inside);
    }
    this.arrivals.unshift(ev);
    this.arrivals.length = Math.min(this.arrivals.length, MAX_ARRIVALS);
    this.changed();
  }

  /** A click on the map at [lon, lat]: the circle's centre or the polygon's next corner. */
  mapClick(lonLat) {
    if (!this.draft || !Array.isArray(lonLat)) return;
    if (this.draft.kind === 'circle') this.setDraft(Object.assign({}, this.draft, { center: lonLat }));
    else this.setDraft(Object.assign({}, this.draft, { vertices: this.draft.vertices.concat([lonLat]) }));
  }

  get drawing() { return !!this.draft; }

  /** @private */
  radiusValue() {
    const r = Number(this.radius.value);
    return Number.isFinite(r) && r >= 25 && r <= 50000 ? r : DEFAULT_RADIUS;
  }

  /** @private */
  startDraft() {
    this.setDraft(this.kind.value === 'polygon' ? { kind: 'polygon', vertices: [] } : { kind: 'circle', center: null, radius: this.radiusValue() });
  }

  /** @private */
  setDraft(draft) {
    this.draft = draft;
    document.body.dataset.drawing = draft ? draft.kind : '';
    this.hooks.onDraft(draft);
    let hint = 'Draw a circle or a polygon on the map to get arrivals.';
    if (draft && draft.kind === 'circle') hint = draft.center ? 'Adjust the radius, name it and save.' : 'Click the centre on the map.';
    if (draft && draft.kind === 'polygon') {
      hint = draft.vertices.length < 3 ? 'Click the corners on the map (at least 3).' : draft.vertices.length + ' corners: name it and save.';
    }
    this.hint.textContent = hint;
  }

  /** @private */
  async save() {
    const gen = this.gen, groupId = this.groupId;
    const body = draftBody(this.name.value.trim(), this.draft);
    if (!groupId || !body) { this.hooks.onError(this.draft ? 'Name the place and finish drawing it first.' : 'Draw the place on the map first.'); return; }
    try {
      await this.api.createPlace(groupId, body);
      if (gen !== this.gen) return;
      this.name.value = '';
      this.setDraft(null);
      await this.reload();
    } catch (e) {
      if (gen === this.gen) this.hooks.onError(e.message);
    }
  }

  /** @private */
  async remove(place) {
    const gen = this.gen, groupId = this.groupId;
    try {
      await this.api.deletePlace(groupId, place.id);
      if (gen === this.gen) await this.reload();
    } catch (e) {
      if (gen === this.gen) this.hooks.onError(e.message);
    }
  }

  /** @private */
  changed() {
    this.render();
    this.hooks.onPlaces(this.places);
  }

  /** @private */
  render() {
    document.body.dataset.places = String(this.places.length);
    replaceChildren(this.list, ...this.places.map((p) => {
      const inside = (Array.isArray(p.inside) ? p.inside : []).map((id) => this.hooks.deviceName(id));
      const item = h('li', { className: 'place-item', dataset: { placeId: String(p.id) } },
        h('span', { className: 'place-name' }, String(p.name || '')),
        h('span', { className: 'place-inside' }, insideText(inside)));
      if (this.hooks.canChange(p)) {
        const del = h('button', { type: 'button', className: 'plain place-delete', title: 'Delete this place', attrs: { 'aria-label': 'Delete place' } }, '\u00d7');
        del.addEventListener('click', () => this.remove(p));
        item.appendChild(del);
      }
      return item;
    }));
    replaceChildren(this.log, ...this.arrivals.map((ev) => {
      const time = typeof ev.timestamp === 'string' ? new Date(ev.timestamp) : null;
      const clock = time && !isNaN(time) ? time.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) + ' ' : '';
      const verb = ev.type === 'enter' ? ' arrived at ' : ' left ';
      return h('li', { className: 'arrival ' + ev.type, dataset: { deviceId: String(ev.deviceId), placeId: String(ev.placeId) } }, clock + this.hooks.deviceName(ev.deviceId) + verb + String(ev.placeName || 'a place'));
    }));
  }
}
