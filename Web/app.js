/*
 * Find Our Devices web map: the group page (index.html). Wires the modules together: sign in
 * (ui.js) with the API client (api.js), the group picker, the group's live feed (live.js) into
 * the device state (state.js), and that state into the device list (devicelist.js) and the map
 * (map.js). Every async step checks `page.gen`, bumped whenever the group or the session
 * changes, so that answers for a group we already left are dropped.
 */
import { ApiClient } from './api.js';
import { byId, h } from './dom.js';
import { LiveFeed } from './live.js';
import { createMap, loadMapConfig } from './map.js';
import { GroupDevices, labelText, Session, STALE_MS } from './state.js';
import { DeviceList } from './devicelist.js';
import { PlacesPanel } from './places.js';
import { PinTooltip, SignInForm, setReady, setStatus, showApp, showBanner } from './ui.js';
import { TimelinePanel } from './timeline.js';

const LABEL_MAX = 25;        // permanent labels on the map up to this many located devices

const session = new Session();
const api = new ApiClient(() => session.token);
const devices = new GroupDevices();
const page = {
  me: null,          // GET /v1/me
  groups: [],        // the user's groups, ids as strings
  groupId: null,     // the group on screen
  focus: null,       // the focused device id
  follow: false,     // keep the focused device centred (until the user moves the map)
  fitted: false,     // the view was fitted to this group's devices once
  feed: null,
  gen: 0,
  refetchTimer: 0,
  map: null,
};
const list = new DeviceList();
const tooltip = new PinTooltip();
const signInForm = new SignInForm(signIn);
const timeline = new TimelinePanel(api, {
  draw: (features) => { if (page.map) page.map.setTimeline(features); },
  focus: (feature) => { page.follow = false; if (page.map) page.map.focusTimeline(feature); },
});
const places = new PlacesPanel(api, {
  onPlaces: (list) => { if (page.map) page.map.setPlaces(list); },
  onDraft: (draft) => { if (page.map) page.map.setDraft(draft); },
  deviceName: (id) => { const d = devices.get(id); return d ? d.deviceName : 'A device'; },
  canChange: (place) => !!page.me && (place.createdBy === page.me.id || (devices.group && devices.group.ownerId === page.me.id)),
  onError: (message) => showBanner(message, 'error'),
});

// ---- sign in / out ------------------------------------------------------------------------
async function signIn(email, password) {
  const r = await api.signIn(email, password);
  session.save(r.token, r.user || { email });
  await enterApp();
}

function showSignin(message) {
  setReady(false);
  signInForm.show(message, session.user && session.user.email);
}

function clearSession() {
  closeLive();
  page.gen++;
  session.end(false);
  page.me = null;
  page.groups = [];
  page.groupId = null;
  page.fitted = false;
  resetDevices();
  places.setGroup(null);
  setStatus('offline');
  showBanner('');
}

async function signOut() {
  const token = session.token;
  clearSession();
  session.end(true);
  showSignin('');
  if (token) {
    try { await api.signOut(token); } catch (_) { /* already gone */ }
  }
}

function sessionExpired() {
  clearSession();
  showSignin('Your session has ended. Please sign in again.');
}

// ---- groups -------------------------------------------------------------------------------
function hashGroup() {
  return new URLSearchParams(location.hash.replace(/^#/, '')).get('group');
}

function setHashGroup(id) {
  const hash = '#' + new URLSearchParams({ group: id }).toString();
  if (location.hash !== hash) history.replaceState(null, '', location.pathname + location.search + hash);
}

function fillGroupSelect() {
  const sel = byId('group');
  sel.textContent = '';
  for (const g of page.groups) {
    sel.appendChild(h('option', { value: g.groupId }, (g.groupName || g.groupId) + (g.isOwner ? ' (owner)' : '')));
  }
  if (page.groupId && !page.groups.some((g) => g.groupId === page.groupId)) {
    sel.appendChild(h('option', { value: page.groupId, disabled: true }, '\u2014 group unavailable \u2014'));
  }
  sel.disabled = page.groups.length === 0;
  if (page.groupId) sel.value = page.groupId;
}

async function loadMe() {
  const me = (await api.me()) || {};
  page.me = me;
  page.groups = Array.isArray(me.groups)
    ? me.groups.filter((g) => g && g.groupId != null).map((g) => Object.assign({}, g, { groupId: String(g.groupId) }))
    : [];
  fillGroupSelect();
}

async function enterApp() {
  const gen = ++page.gen;
  try {
    await loadMe();
  } catch (e) {
    if (gen !== page.gen) return;
    if (e.unauthenticated) { sessionExpired(); return; }
    showSignin(e.message);
    return;
  }
  if (gen !== page.gen) return;
  const map = await mapReady;
  if (gen !== page.gen) return;
  const me = page.me, user = session.user;
  showApp((me.displayName || me.email) || (user && (user.displayName || user.email)) || '');
  map.invalidateSize();
  if (!page.groups.length) {
    const inv = Array.isArray(me.invitations) ? me.invitations.length : 0;
    showBanner('You are not in any group yet.' + (inv ? ' You have ' + inv + ' pending invitation' + (inv > 1 ? 's' : '') + '.' : ''), 'info');
    setStatus('offline');
    setReady(true);
    return;
  }
  const wanted = hashGroup();
  openGroup(page.groups.some((g) => g.groupId === wanted) ? wanted : page.groups[0].groupId);
}

async function openGroup(id) {
  closeLive();
  const gen = ++page.gen;
  page.groupId = id;
  page.fitted = false;
  page.focus = null;
  page.follow = false;
  setHashGroup(id);
  fillGroupSelect();
  setReady(false);
  showBanner('');
  resetDevices();
  places.setGroup(id);
  setStatus('connecting');
  let doc;
  try {
    doc = await api.group(id);
  } catch (e) {
    if (gen !== page.gen) return;
    if (e.unauthenticated) { sessionExpired(); return; }
    showBanner(e.message, 'error');
    setStatus('offline');
    setReady(true);
    return;
  }
  await mapReady;
  if (gen !== page.gen) return;
  applyGroupDoc(doc);
  places.reload();
  setReady(true);
  openLive(gen);
}

function groupGone(message) {
  closeLive();
  page.gen++;
  setStatus('closed');
  resetDevices();
  showBanner(message + ' Pick another group to continue.', 'warn');
  setReady(true);
  loadMe().catch(() => {});
}

// ---- devices on screen ----------------------------------------------------------------------
/** Replaces the devices with a group document (GET /v1/groups/{id} or a snapshot). */
function applyGroupDoc(doc) {
  if (!devices.applyDocument(doc, Date.now())) return;
  document.title = (devices.group.name ? devices.group.name + ' \u2013 ' : '') + 'Find Our Devices';
  if (page.focus && !(devices.get(page.focus) || {}).located) page.focus = null;
  renderAll();
  const all = devices.list();
  if (!page.fitted && all.some((d) => d.located)) {
    page.map.fit(all);
    page.fitted = true;
  } else if (!page.fitted) {
    page.map.fit([]);
  }
}

function resetDevices() {
  devices.clear();
  page.focus = null;
  timeline.close();
  byId('timeline-open').disabled = true;
  tooltip.hide();
  if (page.map) page.map.clear();
  list.render([], { focus: null, meId: null, emptyText: null, now: Date.now() });
}

function renderAll() {
  const all = devices.list();
  page.map.sync(all);
  page.map.setLabels(devices.locatedCount() <= LABEL_MAX);
  page.map.setFocus(page.focus);
  list.render(all, { focus: page.focus, meId: page.me && page.me.id, emptyText: 'No devices in this group.', now: Date.now() });
  tick();
}

/** Refreshes every age shown (list, labels, tooltip) and the stale dimming: once a second. */
function tick() {
  if (!page.map) return;
  const now = Date.now();
  for (const d of devices.byId.values()) {
    list.refreshAge(d, now);
    if (!d.located) continue;
    const label = labelText(d, now);
    if (label !== d.label) { d.label = label; page.map.setLabelText(d, label); }
    const stale = d.ts != null && now - d.ts > STALE_MS;
    if (stale !== d.stale) { d.stale = stale; page.map.setStale(d, stale); }
  }
  if (tooltip.deviceId) tooltip.render(devices.get(tooltip.deviceId), now);
}

function focusDevice(id) {
  page.focus = id || null;
  byId('timeline-open').disabled = !page.focus;
  if (timeline.isOpen && timeline.deviceId !== page.focus) timeline.close();
  page.follow = !!page.focus;
  page.map.setFocus(page.focus);
  list.setFocus(page.focus);
  const d = page.focus && devices.get(page.focus);
  if (d) { if (d.located) page.map.centerOn(d, true); } else page.map.fit(devices.list());
}

// ---- live feed ------------------------------------------------------------------------------
function closeLive() {
  clearTimeout(page.refetchTimer);
  page.refetchTimer = 0;
  if (page.feed) { page.feed.close(); page.feed = null; }
}

function openLive(gen) {
  if (gen !== page.gen || !page.groupId || !session.token) return;
  const groupId = page.groupId;
  const mine = (fn) => (...args) => { if (gen === page.gen) fn(...args); };
  page.feed = new LiveFeed({
    url: (lastEventId) => api.groupLiveURL(groupId, lastEventId),
    events: {
      snapshot: mine(onSnapshot), location: mine(onLocation), membership: mine(onMembership),
      place: mine((ev) => places.onPlaceEvent(ev)),
    },
    onState: mine(setStatus),
    // The stream was refused: still signed in and allowed? (it then resumes where it stopped)
    check: () => api.group(groupId),
    onEnd: mine((e) => { if (e.unauthenticated) sessionExpired(); else groupGone('This group is no longer available to you.'); }),
  }).start();
}

function onSnapshot(doc) {
  applyGroupDoc(doc);
  // A snapshot past its size budget leaves large shapes out: read them all from the places API.
  if (doc && doc.placesComplete === false) places.reload();
  else if (doc && Array.isArray(doc.places)) places.setPlaces(doc.places);
  if (page.focus && page.follow) page.map.centerOn(devices.get(page.focus), false);
  setReady(true);
}

function onLocation(ev) {
  const now = Date.now();
  const { kind, device: d } = devices.applyLocation(ev, now);
  if (kind === 'unknown') { scheduleRefetch(300); return; } // our copy of the group is old
  if (kind === 'ignored') return;                          // a late, older fix: history, not the pin
  if (kind === 'placed') {
    renderAll();
  } else {
    page.map.move(d);
    list.refreshAge(d, now);
    const label = labelText(d, now);
    if (label !== d.label) { d.label = label; page.map.setLabelText(d, label); }
    if (d.stale) { d.stale = false; page.map.setStale(d, false); }
  }
  if (page.focus === d.deviceId && page.follow) page.map.centerOn(d, false);
  if (tooltip.deviceId === d.deviceId) tooltip.render(d, now);
}

function onMembership(ev) {
  const me = page.me && page.me.id;
  if (ev.type === 'deleted') { groupGone('This group was deleted.'); return; }
  if ((ev.type === 'removed' || ev.type === 'left') && me != null && ev.userId === me) {
    groupGone(ev.type === 'left' ? 'You left this group.' : 'You were removed from this group.');
    return;
  }
  scheduleRefetch(150);
  if (ev.type === 'owner') loadMe().catch(() => {});
}

/** Re-reads the group document (after membership changes and unknown devices). */
function scheduleRefetch(delay) {
  if (page.refetchTimer) return;
  const gen = page.gen;
  page.refetchTimer = setTimeout(async () => {
    page.refetchTimer = 0;
    if (gen !== page.gen) return;
    try {
      const doc = await api.group(page.groupId);
      if (gen === page.gen) applyGroupDoc(doc);
    } catch (e) {
      if (gen !== page.gen) return;
      if (e.unauthenticated) sessionExpired();
      else if (e.gone) groupGone('This group is no longer available to you.');
    }
  }, delay || 0);
}

// ---- wiring ---------------------------------------------------------------------------------
const mapReady = loadMapConfig().then((config) => createMap(byId('map'), {
  onPinClick: (id) => focusDevice(page.focus === id ? null : id),
  onPinHover: (id, x, y) => { tooltip.show(id, x, y); tooltip.render(devices.get(id), Date.now()); },
  onPinLeave: () => tooltip.hide(),
  onUserMove: () => { page.follow = false; },
  onFitRequest: () => { page.follow = false; page.map.fit(devices.list()); },
  onMapClick: (lonLat) => places.mapClick(lonLat),
}, config)).then((map) => { page.map = map; return map; });

byId('signout').addEventListener('click', signOut);
byId('timeline-open').addEventListener('click', () => {
  const d = page.focus && devices.get(page.focus);
  if (!d) return;
  page.follow = false;
  timeline.open(d);
});
byId('group').addEventListener('change', (e) => { if (e.target.value) openGroup(e.target.value); });
byId('device').addEventListener('change', (e) => focusDevice(e.target.value || null));
list.onPick((id) => {
  const d = devices.get(id);
  if (d && d.located) focusDevice(page.focus === id ? null : id);
});
window.addEventListener('hashchange', () => {
  const id = hashGroup();
  if (id && id !== page.groupId && page.groups.some((g) => g.groupId === id)) openGroup(id);
});
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && page.focus && !byId('app').hidden) focusDevice(null);
});
setInterval(tick, 1000);
setStatus('offline');
if (session.signedIn) enterApp();
else showSignin('');
