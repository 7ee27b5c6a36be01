/*
 * Find Our Devices web app: the group on the map — its devices (state.js) from the group
 * document and its live feed (live.js), drawn on the map and listed (devicelist.js), the
 * focused device, the places panel's feed, and the hover tooltip. Every async step checks
 * `gen`, bumped whenever the group changes or closes, so answers for a group we left are dropped.
 *
 * For the browser check's benchmark, body[data-first-render-ms] is the time from sign-in (or
 * page load) to the first drawn map of a group (window.__fodPerf.steps: when each step towards
 * it was done), and window.__fodPerf.live the delays from a `location` event's arrival to the
 * drawing of the frame that shows it (milliseconds, the last 200).
 */
import { byId } from './dom.js';
import { LiveFeed } from './live.js';
import { createMap } from './map.js';
import { GroupDevices, labelText, STALE_MS } from './state.js';
import { DeviceList } from './devicelist.js';
import { PinTooltip, setReady, setStatus, showBanner } from './ui.js';

const LABEL_MAX = 25;        // permanent labels on the map up to this many located devices
const PERF_KEEP = 200;

const perf = window.__fodPerf = window.__fodPerf || { live: [], start: performance.now(), firstRender: null, steps: {} };
/** Restarts the first-render clock (a sign-in). */
export function markSignIn() { perf.start = performance.now(); perf.firstRender = null; perf.steps = {}; delete document.body.dataset.firstRenderMs; }
/** Notes when a step towards the first render happened (ms since the sign-in), once. */
export function markStep(name) { if (perf.firstRender == null && !(name in perf.steps)) perf.steps[name] = Math.round(performance.now() - perf.start); }

export class GroupView {
  /**
   * @param api the ApiClient
   * @param config a Promise of the server's map settings (map.js loadMapConfig)
   * @param hooks {places: PlacesPanel, meId(), onSessionExpired(), onGone(message),
   *   onMembershipChange(ev), onFocus(deviceId | null), onDevices()}
   */
  constructor(api, config, hooks) {
    this.api = api;
    this.hooks = hooks;
    this.map = null;
    this.mapReady = config.then((c) => createMap(byId('map'), this.mapHooks(), c)).then((m) => { this.map = m; return m; });
    this.devices = new GroupDevices();
    this.list = new DeviceList();
    this.tooltip = new PinTooltip();
    this.groupId = null;
    this.focus = null;
    this.follow = false;   // keep the focused device centred (until the user moves the map)
    this.fitted = false;   // the view was fitted to this group's devices once
    this.userMoved = false; // the user moved the map since it was fitted (a new pin then refits no more)
    this.feed = null;
    this.gen = 0;
    this.refetchTimer = 0;
    this.moved = new Set();  // devices moved since the last frame (drawMoves)
    this.placed = false;     // a device got its first position since the last frame
    this.arrivals = [];      // when their events arrived (performance.now(), for the benchmark)
    this.moveFrame = 0;
    this.list.onPick((id) => {
      const d = this.devices.get(id);
      if (d && d.located) this.setFocus(this.focus === id ? null : id);
    });
    byId('device').addEventListener('change', (e) => this.setFocus(e.target.value || null));
    setInterval(() => this.tick(), 1000);
  }

  /** Map hooks (map.js): pins, hover, the user moving the map, and clicks for the places panel. */
  mapHooks() {
    return {
      onPinClick: (id) => this.setFocus(this.focus === id ? null : id),
      onPinHover: (id, x, y) => { this.tooltip.show(id, x, y); this.tooltip.render(this.devices.get(id), Date.now()); },
      onPinLeave: () => this.tooltip.hide(),
      onUserMove: () => { this.follow = false; this.userMoved = true; },
      onFitRequest: () => { this.follow = false; this.map.fit(this.devices.list()); },
      onMapClick: (lonLat) => this.hooks.places.mapClick(lonLat),
    };
  }

  /** Opens group `id`: its document, then its live feed. */
  async open(id) {
    this.closeLive();
    const gen = ++this.gen;
    this.groupId = id;
    this.fitted = false;
    this.userMoved = false;
    this.setFocus(null, true);
    setReady(false);
    showBanner('');
    this.reset();
    this.hooks.places.setGroup(id);
    setStatus('connecting');
    let doc;
    try {
      doc = await this.api.group(id);
    } catch (e) {
      if (gen !== this.gen) return;
      if (e.unauthenticated) { this.hooks.onSessionExpired(); return; }
      showBanner(e.message, 'error');
      setStatus('offline');
      setReady(true);
      return;
    }
    markStep('group');
    await this.mapReady;
    if (gen !== this.gen) return;
    markStep('map');
    this.applyDocument(doc);
    this.hooks.places.reload();
    setReady(true);
    this.openLive(gen);
  }

  /** Leaves the group on screen (signed out, or no group): nothing drawn, no feed. */
  close() {
    this.closeLive();
    this.gen++;
    this.groupId = null;
    this.reset();
    this.hooks.places.setGroup(null);
    setStatus('offline');
  }

  /** The group became unavailable (deleted, left, removed): says so and stops. */
  gone(message) {
    this.closeLive();
    this.gen++;
    setStatus('closed');
    this.reset();
    showBanner(message, 'warn');
    setReady(true);
    this.hooks.onGone(message);
  }

  get group() { return this.devices.group; }
  get deviceList() { return this.devices.list(); }

  // ---- devices on screen --------------------------------------------------------------------
  /** Replaces the devices with a group document (GET /v1/groups/{id} or a snapshot). */
  applyDocument(doc) {
    if (!this.devices.applyDocument(doc, Date.now())) return;
    document.title = (this.devices.group.name ? this.devices.group.name + ' \u2013 ' : '') + 'Find Our Devices';
    if (this.focus && !(this.devices.get(this.focus) || {}).located) this.setFocus(null, true);
    this.renderAll();
    const all = this.devices.list();
    if (!this.fitted && all.some((d) => d.located)) {
      this.map.fit(all);
      this.fitted = true;
    } else if (!this.fitted) {
      this.map.fit([]);
    }
    if (perf.firstRender == null && all.some((d) => d.located)) {
      requestAnimationFrame(() => {
        if (perf.firstRender != null) return;
        markStep('drawn');
        perf.firstRender = performance.now() - perf.start;
        document.body.dataset.firstRenderMs = perf.firstRender.toFixed(0);
      });
    }
    this.hooks.onDevices();
  }

  reset() {
    this.devices.clear();
    this.tooltip.hide();
    if (this.map) this.map.clear();
    this.list.render([], { focus: null, meId: null, emptyText: null, now: Date.now() });
    this.hooks.onDevices();
  }

  renderAll() {
    const all = this.devices.list();
    this.map.sync(all);
    this.map.setLabels(this.devices.locatedCount() <= LABEL_MAX);
    this.map.setFocus(this.focus);
    this.list.render(all, { focus: this.focus, meId: this.hooks.meId(), emptyText: 'No devices in this group.', now: Date.now() });
    this.tick();
  }

  /** Refreshes every age shown (list, labels, tooltip) and the stale dimming: once a second. */
  tick() {
    if (!this.map) return;
    const now = Date.now();
    for (const d of this.devices.byId.values()) {
      this.list.refreshAge(d, now);
      if (!d.located) continue;
      const label = labelText(d, now);
      if (label !== d.label) { d.label = label; this.map.setLabelText(d, label); }
      const stale = d.ts != null && now - d.ts > STALE_MS;
      if (stale !== d.stale) { d.stale = stale; this.map.setStale(d, stale); }
    }
    if (this.tooltip.deviceId) this.tooltip.render(this.devices.get(this.tooltip.deviceId), now);
  }

  /** Focuses one device (centred, labelled, followed) or none (the whole group in view). */
  setFocus(id, quietly) {
    this.focus = id || null;
    this.follow = !!this.focus;
    this.hooks.onFocus(this.focus);
    if (!this.map) return;
    this.map.setFocus(this.focus);
    this.list.setFocus(this.focus);
    if (quietly) return;
    const d = this.focus && this.devices.get(this.focus);
    if (d) { if (d.located) this.map.centerOn(d, true); } else this.map.fit(this.devices.list());
  }

  // ---- live feed ------------------------------------------------------------------------------
  closeLive() {
    clearTimeout(this.refetchTimer);
    this.refetchTimer = 0;
    if (this.feed) { this.feed.close(); this.feed = null; }
  }

  openLive(gen) {
    if (gen !== this.gen || !this.groupId) return;
    const groupId = this.groupId;
    const mine = (fn) => (...args) => { if (gen === this.gen) fn(...args); };
    this.feed = new LiveFeed({
      url: (lastEventId) => this.api.groupLiveURL(groupId, lastEventId),
      events: {
        snapshot: mine((doc) => this.onSnapshot(doc)), location: mine((ev) => this.onLocation(ev)),
        membership: mine((ev) => this.onMembership(ev)), place: mine((ev) => this.hooks.places.onPlaceEvent(ev)),
      },
      onState: mine(setStatus),
      // The stream was refused: still signed in and allowed? (it then resumes where it stopped)
      check: () => this.api.group(groupId),
      onEnd: mine((e) => { if (e.unauthenticated) this.hooks.onSessionExpired(); else this.gone('This group is no longer available to you.'); }),
    }).start();
  }

  onSnapshot(doc) {
    this.applyDocument(doc);
    // A snapshot past its size budget leaves large shapes out: read them all from the places API.
    if (doc && doc.placesComplete === false) this.hooks.places.reload();
    else if (doc && Array.isArray(doc.places)) this.hooks.places.setPlaces(doc.places);
    if (this.focus && this.follow) this.map.centerOn(this.devices.get(this.focus), false);
    setReady(true);
  }

  /**
   * A `location` event: the device's state at once; its pin, row and label on the next frame,
   * once for all the events of that frame (a burst of hundreds of fixes a second then costs one
   * redraw per device per frame, not one per fix).
   */
  onLocation(ev) {
    const arrived = performance.now();
    const now = Date.now();
    const { kind, device: d } = this.devices.applyLocation(ev, now);
    if (kind === 'unknown') { this.scheduleRefetch(300); return; } // our copy of the group is old
    if (kind === 'ignored') return;                               // a late, older fix: history, not the pin
    if (kind === 'placed') this.placed = true;   // a first position: the list's order changes
    else this.moved.add(d.deviceId);
    this.arrivals.push(arrived);
    this.scheduleMoves();
  }

  /** @private Draws the devices moved since the last frame on the next one. */
  scheduleMoves() {
    if (this.moveFrame) return;
    const run = () => { this.moveFrame = 0; this.drawMoves(); };
    // requestAnimationFrame stops in hidden tabs; a timer keeps the state drawn there too.
    this.moveFrame = document.hidden ? setTimeout(run, 200) : requestAnimationFrame(run);
  }

  /** @private */
  drawMoves() {
    const now = Date.now();
    if (this.placed) {
      this.placed = false;
      this.renderAll();
      // A new pin joins the view while the user has not moved the map themselves.
      if (!this.fitted || (!this.userMoved && !this.focus)) { this.map.fit(this.devices.list()); this.fitted = true; }
      this.hooks.onDevices();
    }
    for (const id of this.moved) {
      const d = this.devices.get(id);
      if (!d || !d.located) continue;
      this.map.move(d);
      this.list.refreshAge(d, now);
      const label = labelText(d, now);
      if (label !== d.label) { d.label = label; this.map.setLabelText(d, label); }
      if (d.stale) { d.stale = false; this.map.setStale(d, false); }
      if (this.focus === d.deviceId && this.follow) this.map.centerOn(d, false);
      if (this.tooltip.deviceId === d.deviceId) this.tooltip.render(d, now);
    }
    this.moved.clear();
    const drawn = performance.now();
    for (const t of this.arrivals) perf.live.push(drawn - t);
    this.arrivals = [];
    if (perf.live.length > PERF_KEEP) perf.live.splice(0, perf.live.length - PERF_KEEP);
  }

  onMembership(ev) {
    const me = this.hooks.meId();
    if (ev.type === 'deleted') { this.gone('This group was deleted.'); return; }
    if ((ev.type === 'removed' || ev.type === 'left') && me != null && ev.userId === me) {
      this.gone(ev.type === 'left' ? 'You left this group.' : 'You were removed from this group.');
      return;
    }
    this.scheduleRefetch(150);
    this.hooks.onMembershipChange(ev);
  }

  /** Re-reads the group document (after membership changes and unknown devices). */
  scheduleRefetch(delay) {
    if (this.refetchTimer) return;
    const gen = this.gen;
    this.refetchTimer = setTimeout(async () => {
      this.refetchTimer = 0;
      if (gen !== this.gen) return;
      try {
        const doc = await this.api.group(this.groupId);
        if (gen === this.gen) this.applyDocument(doc);
      } catch (e) {
        if (gen !== this.gen) return;
        if (e.unauthenticated) this.hooks.onSessionExpired();
        else if (e.gone) this.gone('This group is no longer available to you.');
      }
    }, delay || 0);
  }
}
