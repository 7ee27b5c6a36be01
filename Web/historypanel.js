/*
 * Find Our Devices web app: the History panel — for one device (of the group on the map, or one
 * of mine): its timeline a day at a time (timeline.js), that day played back with a time slider
 * (playback.js), its track over a range of days, downloads (historyfiles.js) and bringing a
 * history file into one of my phones (historyimport.js).
 */
import { byId, h, replaceChildren } from './dom.js';
import { path, withQuery } from './api.js';
import { TimelinePanel } from './timeline.js';
import { pathUntil, positionAt, timeAt, trackOf } from './playback.js';
import { dateInputTime, dateInputValue } from './format.js';
import { geojsonLines } from './exportformats.js';
import { HistoryDownloads } from './historyfiles.js';
import { HistoryImport } from './historyimport.js';

const DAY_FIXES_MAX = 20000;      // fixes read for a day's playback (pages of 10,000)
const PLAY_MS = 20000;            // a whole day plays in this long
const SLIDER_STEPS = 1000;

export class HistoryPanel {
  /**
   * @param hooks {map() (the map, once ready), groupDevices() (the group view's devices),
   *   groupId(), onError(message)}
   */
  constructor(api, account, hooks) {
    this.api = api;
    this.account = account;
    this.hooks = hooks;
    this.select = byId('history-device');
    this.track = null;         // the day's fixes for playback
    this.dayGen = 0;
    this.playing = 0;          // the animation frame while playing
    this.timeline = new TimelinePanel(api, {
      draw: (features) => { const m = hooks.map(); if (m) { m.setTimeline(features); if (!features) m.setCursor(null); } },
      focus: (feature) => { const m = hooks.map(); if (m) m.focusTimeline(feature); },
      onDay: (deviceId, from, to) => this.loadDay(deviceId, from, to),
    });
    this.downloads = new HistoryDownloads(api, { deviceId: () => this.select.value || null, groupId: hooks.groupId, range: () => this.range() });
    this.importer = new HistoryImport(api, account, { onImported: (deviceId) => { if (deviceId === this.select.value) this.timeline.load(); } });
    this.select.addEventListener('change', () => this.openDevice(this.select.value));
    byId('timeline-close').addEventListener('click', () => { this.select.value = ''; this.openDevice(''); });
    byId('playback-slider').addEventListener('input', () => { this.stop(); this.showAt(Number(byId('playback-slider').value) / SLIDER_STEPS); });
    byId('playback-play').addEventListener('click', () => (this.playing ? this.stop() : this.play()));
    byId('range-show').addEventListener('click', () => this.showRange());
    const today = Date.now();
    byId('range-to').value = dateInputValue(today);
    byId('range-from').value = dateInputValue(today - 6 * 86400000);
    account.onChange(() => this.fillDevices());
    this.timeline.close();
  }

  /** The devices to pick from: the group's (by member), then my phones not in it. */
  fillDevices() {
    const group = this.hooks.groupDevices();
    const key = JSON.stringify([group.map((d) => [d.deviceId, d.deviceName, d.displayName]), this.account.devices.map((d) => [d.id, d.name])]);
    this.importer.fillDevices();
    if (key === this.devicesKey) return;
    this.devicesKey = key;
    const keep = this.select.value;
    const seen = new Set(group.map((d) => d.deviceId));
    const options = [h('option', { value: '' }, 'Pick a device')];
    for (const d of group) options.push(h('option', { value: d.deviceId }, d.deviceName + ' \u2013 ' + d.displayName));
    for (const d of this.account.devices) if (!seen.has(d.id)) options.push(h('option', { value: d.id }, d.name + ' (mine)'));
    replaceChildren(this.select, ...options);
    this.select.value = Array.from(this.select.options).some((o) => o.value === keep) ? keep : '';
  }

  deviceName(id) {
    const g = this.hooks.groupDevices().find((d) => d.deviceId === id);
    return g ? g.deviceName : this.account.deviceName(id);
  }

  /** Opens the panel on device `id` ('' or null: none). */
  openDevice(id) {
    this.fillDevices();
    if (id && !Array.from(this.select.options).some((o) => o.value === id)) {
      this.select.appendChild(h('option', { value: id }, this.deviceName(id)));
      this.devicesKey = null;
    }
    this.select.value = id || '';
    const m = this.hooks.map();
    if (m) m.setTrack(null);
    byId('range-status').textContent = '';
    if (id) this.timeline.open({ deviceId: id, deviceName: this.deviceName(id) });
    else this.timeline.close();
  }

  /** Clears everything drawn (the panel is left, or the group changes). */
  clear() {
    this.stop();
    this.timeline.close();
    const m = this.hooks.map();
    if (m) m.setTrack(null);
  }

  // ---- the day's playback -------------------------------------------------------------------
  async loadDay(deviceId, from, to) {
    const gen = ++this.dayGen;
    this.stop();
    this.track = null;
    byId('playback').hidden = true;
    const m = this.hooks.map();
    if (m) m.setCursor(null);
    if (!deviceId) return;
    const locations = [];
    let cursor = null;
    try {
      do {
        const r = await this.api.locations(deviceId, { from: new Date(from).toISOString(), to: new Date(to - 1).toISOString(), limit: 10000, cursor });
        if (gen !== this.dayGen) return;
        locations.push(...(r && Array.isArray(r.locations) ? r.locations : []));
        cursor = r && r.nextCursor;
      } while (cursor && locations.length < DAY_FIXES_MAX);
    } catch (e) {
      if (gen === this.dayGen) this.hooks.onError(e.message);
      return;
    }
    const track = trackOf(locations);
    if (track.times.length < 2) return;
    this.track = track;
    byId('playback').hidden = false;
    byId('playback-slider').value = String(SLIDER_STEPS);
    this.showAt(1);
  }

  /** Puts the cursor `fraction` of the way through the day. */
  showAt(fraction) {
    if (!this.track) return;
    const t = timeAt(this.track, fraction);
    const here = positionAt(this.track, t);
    const m = this.hooks.map();
    if (m) m.setCursor(here, pathUntil(this.track, t));
    byId('playback-time').textContent = new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    byId('playback').dataset.time = new Date(t).toISOString();
  }

  play() {
    if (!this.track) return;
    const slider = byId('playback-slider');
    let start = Number(slider.value) / SLIDER_STEPS;
    if (start >= 1) start = 0;
    const began = performance.now();
    byId('playback-play').textContent = '\u275A\u275A';
    byId('playback-play').setAttribute('aria-label', 'Pause');
    const step = (now) => {
      const f = Math.min(1, start + (now - began) / PLAY_MS);
      slider.value = String(Math.round(f * SLIDER_STEPS));
      this.showAt(f);
      this.playing = f < 1 ? requestAnimationFrame(step) : 0;
      if (!this.playing) this.stop();
    };
    this.playing = requestAnimationFrame(step);
  }

  stop() {
    if (this.playing) cancelAnimationFrame(this.playing);
    this.playing = 0;
    byId('playback-play').textContent = '\u25B6';
    byId('playback-play').setAttribute('aria-label', 'Play the day');
  }

  // ---- a range of days ----------------------------------------------------------------------
  /** {from, to} as ISO times from the date inputs (to: the end of its day), or null. */
  range() {
    const from = dateInputTime(byId('range-from').value), to = dateInputTime(byId('range-to').value);
    if (from == null || to == null || to < from) return null;
    const end = new Date(to);
    end.setDate(end.getDate() + 1);
    return { from: new Date(from).toISOString(), to: new Date(end.getTime() - 1).toISOString() };
  }

  async showRange() {
    const id = this.select.value, range = this.range();
    const status = byId('range-status');
    if (!id) { status.textContent = 'Pick a device first.'; return; }
    if (!range) { status.textContent = 'Pick a start day before the end day.'; return; }
    status.textContent = 'Loading\u2026';
    try {
      const fc = await this.api.get(withQuery(path`/v1/devices/${id}/export.geojson`, { from: range.from, to: range.to, tracks: 'true' }));
      const lines = geojsonLines(fc);
      const m = this.hooks.map();
      if (m) m.setTrack(lines.length ? lines : null);
      const fixes = lines.reduce((n, l) => n + l.length, 0);
      status.textContent = fixes ? fixes + ' positions drawn.' : 'Nothing recorded in these days.';
    } catch (e) {
      status.textContent = e.message;
    }
  }
}
