/*
 * Find Our Devices web app: the page (index.html). Signed out it shows sign-in and sign-up
 * (auth.js); signed in, the group on the map (groupview.js) beside one panel at a time
 * (nav.js): the group's devices, places and alerts, history, my phones, groups, the account.
 * The account's state (account.js) is read once and after every change the panels make. `gen`
 * is bumped whenever the session changes, so answers for a session we left are dropped.
 */
import { ApiClient } from './api.js';
import { byId, h, replaceChildren } from './dom.js';
import { loadMapConfig } from './map.js';
import { Session } from './state.js';
import { Account } from './account.js';
import { AuthView } from './auth.js';
import { hashParams, Nav, setHashParams } from './nav.js';
import { GroupView, markSignIn, markStep } from './groupview.js';
import { PlacesPanel } from './places.js';
import { AlertsPanel } from './alerts.js';
import { HistoryPanel } from './historypanel.js';
import { DevicesPanel } from './devicespanel.js';
import { GroupsPanel } from './groupspanel.js';
import { AccountPanel } from './accountpanel.js';
import { closeDialog } from './dialog.js';
import { setReady, setStatus, showApp, showBanner } from './ui.js';

const session = new Session();
const api = new ApiClient(() => session.token);
const account = new Account(api);
const config = loadMapConfig();
const app = { gen: 0, qrcode: false };
config.then((c) => { app.qrcode = !!c.qrcode; });

const places = new PlacesPanel(api, {
  onPlaces: (list) => { if (view.map) view.map.setPlaces(list); if (nav.current === 'places') alerts.fillChoices(); },
  onDraft: (draft) => { if (view.map) view.map.setDraft(draft); },
  deviceName: (id) => { const d = view.devices.get(id); return d ? d.deviceName : 'A device'; },
  canChange: (place) => account.meId != null && (place.createdBy === account.meId || (view.group && view.group.ownerId === account.meId)),
  onError: (message) => showBanner(message, 'error'),
});
const view = new GroupView(api, config, {
  places,
  meId: () => account.meId,
  onSessionExpired: () => sessionExpired(),
  onGone: () => { refreshAccount(); },
  onMembershipChange: () => { refreshAccount(); },
  onFocus: (id) => { byId('timeline-open').disabled = !id; },
  // Only the panel on screen follows the group's devices; the others fill theirs when shown.
  onDevices: () => {
    if (nav.current === 'history') history.fillDevices();
    if (nav.current === 'places') alerts.fillChoices();
    if (nav.current === 'groups') groups.render();
  },
});
const alerts = new AlertsPanel(api, { groupId: () => view.groupId, places: () => places.places, devices: () => view.deviceList });
const history = new HistoryPanel(api, account, {
  map: () => view.map, groupDevices: () => view.deviceList, groupId: () => view.groupId, onError: (m) => showBanner(m, 'error'),
});
const devices = new DevicesPanel(api, account, { qrcode: () => app.qrcode, onChanged: () => refreshAccount() });
const groups = new GroupsPanel(api, account, {
  currentGroupId: () => view.groupId, members: () => view.deviceList, ownerId: () => (view.group ? String(view.group.ownerId) : null),
  openGroup: (id) => { openGroup(id); nav.show('people'); }, showPanel: (name) => nav.show(name), onChanged: () => refreshAccount(),
});
const accountPanel = new AccountPanel(api, account, {
  onChanged: () => refreshAccount(), signOut: () => signOut(), onDeleted: () => { clearSession(); session.end(true); auth.show('Your account was deleted.'); },
  policy: () => auth.policy,
});
const nav = new Nav((name) => {
  if (name !== 'history') history.clear();
  if (name === 'places') alerts.load();
  if (name === 'devices') refreshAccount();
  if (name === 'groups') { groups.render(); refreshAccount(); }
  if (name === 'account') accountPanel.show();
  if (name === 'history') history.fillDevices();
  if (view.map) view.map.invalidateSize();
});
const auth = new AuthView(api, {
  signIn: async (email, password) => { markSignIn(); const r = await api.signIn(email, password); session.save(r.token, r.user || { email }); await enterApp(); },
  signUp: async (body) => { markSignIn(); const r = await api.signUp(body); session.save(r.token, r.user || { email: body.email }); await enterApp(); },
});

// ---- the session --------------------------------------------------------------------------
function clearSession() {
  app.gen++;
  closeDialog();
  view.close();
  history.clear();
  account.clear();
  session.end(false);
  showBanner('');
}

async function signOut() {
  const token = session.token;
  clearSession();
  session.end(true);
  auth.show('');
  if (token) { try { await api.signOut(token); } catch (_) { /* already gone */ } }
}

function sessionExpired() {
  clearSession();
  auth.show('Your session has ended. Please sign in again.', session.user && session.user.email);
}

/** The panel a user lands on: a phone to add first, then a group to make or join, then the map. */
function firstPanel() {
  if (!account.devices.length) return 'devices';
  if (!account.groups.length) return 'groups';
  return 'people';
}

/** The next step, over the map, while there is no group to show. */
function onboarding() {
  if (!account.devices.length) return 'Welcome! Start with your phone: add it under Phones, then scan its set-up code.';
  if (account.invitations.length) return 'You have an invitation: accept it under Groups.';
  return 'Make a group for your family under Groups, then invite them by email.';
}

async function enterApp() {
  const gen = ++app.gen;
  markStep('signed-in');
  try {
    await account.refresh();
  } catch (e) {
    if (gen !== app.gen) return;
    if (e.unauthenticated) { sessionExpired(); return; }
    auth.show(e.message);
    return;
  }
  if (gen !== app.gen) return;
  markStep('account');
  await view.mapReady;
  if (gen !== app.gen) return;
  showApp(account.me.displayName || account.me.email);
  auth.loadPolicy().then(() => accountPanel.render());
  fillGroupSelect();
  const params = hashParams();
  nav.show(account.me.mustChangePassword ? 'account' : params.get('panel') || firstPanel());
  view.map.invalidateSize();
  const wanted = params.get('group');
  if (account.groups.length) openGroup(account.groups.some((g) => g.groupId === wanted) ? wanted : account.groups[0].groupId);
  else showNoGroup();
}

function showNoGroup() {
  view.close();
  setHashParams({ group: null });
  showBanner(onboarding(), 'info');
  setReady(true);
}

/** Re-reads the account after a change; follows the group on screen coming and going. */
async function refreshAccount() {
  const gen = app.gen;
  try { await account.refresh(); } catch (e) {
    if (gen === app.gen && e.unauthenticated) sessionExpired();
    return;
  }
  if (gen !== app.gen) return;
  byId('user-name').textContent = account.me.displayName || account.me.email;
  fillGroupSelect();
  const current = view.groupId;
  if (current && !account.group(current)) {
    if (account.groups.length) openGroup(account.groups[0].groupId); else showNoGroup();
  } else if (!current && account.groups.length) {
    openGroup(account.groups[0].groupId);
  } else if (!current) {
    showBanner(onboarding(), 'info');
  } else if (nav.current === 'groups') {
    view.scheduleRefetch(0);
  }
}

// ---- groups ---------------------------------------------------------------------------------
function fillGroupSelect() {
  const sel = byId('group');
  replaceChildren(sel, ...account.groups.map((g) => h('option', { value: g.groupId }, g.groupName + (g.isOwner ? ' (owner)' : ''))));
  if (!account.groups.length) sel.appendChild(h('option', { value: '' }, 'No group yet'));
  sel.disabled = account.groups.length === 0;
  if (view.groupId && account.group(view.groupId)) sel.value = view.groupId;
}

function openGroup(id) {
  setHashParams({ group: id });
  history.clear();
  view.open(id);
  fillGroupSelect();
  byId('group').value = id;
  if (nav.current === 'places') alerts.load();
  if (nav.current === 'groups') groups.render();
}

// ---- wiring ---------------------------------------------------------------------------------
byId('signout').addEventListener('click', signOut);
byId('group').addEventListener('change', (e) => { if (e.target.value) openGroup(e.target.value); });
byId('timeline-open').addEventListener('click', () => {
  const id = view.focus;
  if (!id) return;
  view.follow = false;
  nav.show('history');
  history.openDevice(id);
});
window.addEventListener('hashchange', () => {
  const p = hashParams();
  const id = p.get('group');
  if (id && id !== view.groupId && account.group(id)) openGroup(id);
  const panel = p.get('panel') || 'people';
  if (session.signedIn && panel !== nav.current) nav.show(panel);
});
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && view.focus && !byId('app').hidden && !byId('dialog').open) view.setFocus(null);
});
setStatus('offline');
if (session.signedIn) enterApp();
else auth.show('', session.user && session.user.email);
