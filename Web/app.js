/*
 * Find Our Devices web map: sign-in, group picker, device list, live feed.
 * The map itself is drawn by svgmap.js (offline, default) or leafletmap.js (config.leaflet).
 *
 * State: S.devices maps deviceId -> device {deviceId, userId, displayName, deviceName,
 * shareLocation, located, lon, lat, ts (epoch ms of the fix), color, trail: [[lon, lat]...],
 * label}. A snapshot or group document replaces it; location events move one device.
 * Every async step checks S.gen so that answers for a group we already left are dropped.
 */
'use strict';
(function () {
  const G = window.FODGeo;
  const TOKEN_KEY = 'fod.token';
  const USER_KEY = 'fod.user';
  const TRAIL_MAX = 20;        // positions kept per device for its trail
  const LABEL_MAX = 25;        // permanent labels on the map up to this many located devices
  const STALE_MS = 10 * 60 * 1000;
  const RECONNECT_MAX_MS = 30000;
  // Distinguishable on the beige land and the blue sea (Trubetskoy's 20, pale ones darkened/dropped).
  const PALETTE = [
    '#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#1aa3c4', '#f032e6', '#7fae1f',
    '#008080', '#9a6324', '#800000', '#808000', '#000075', '#e05f9b', '#c9a000', '#5a5a5a',
  ];

  const $ = (sel) => document.querySelector(sel);
  const enc = encodeURIComponent;

  const S = {
    token: sessionStorage.getItem(TOKEN_KEY),
    user: readJSON(sessionStorage.getItem(USER_KEY)),
    me: null,
    groups: [],
    groupId: null,
    group: null,
    devices: new Map(),
    order: [],
    focus: null,
    follow: false,
    fitted: false,
    es: null,
    gen: 0,
    reconnectTimer: 0,
    reconnectDelay: 1000,
    refetchTimer: 0,
    map: null,
    boot: null,
    hover: null,
    listEls: new Map(),
    retryTimer: 0,
  };

  function readJSON(s) { try { return s ? JSON.parse(s) : null; } catch (_) { return null; } }

  /** A stable colour per device: FNV-1a hash of the id into the palette. */
  function colorFor(id) {
    let h = 0x811c9dc5;
    for (let i = 0; i < id.length; i++) { h ^= id.charCodeAt(i); h = Math.imul(h, 0x01000193); }
    return PALETTE[(h >>> 0) % PALETTE.length];
  }

  // ---- HTTP -------------------------------------------------------------------------------
  class ApiError extends Error {
    constructor(status, code, message, retryAfter) {
      super(message);
      this.status = status; this.code = code; this.retryAfter = retryAfter;
    }
  }

  const DEFAULT_MESSAGES = {
    400: 'The request was not accepted.', 401: 'Please sign in again.', 403: 'You are not allowed to see this.',
    404: 'Not found.', 429: 'Too many requests.', 500: 'The server had a problem.', 503: 'The server is busy.',
  };

  async function api(method, path, body, opts) {
    opts = opts || {};
    const headers = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const token = opts.token !== undefined ? opts.token : S.token;
    if (opts.auth !== false && token) headers.Authorization = 'Bearer ' + token;
    let res;
    try {
      res = await fetch(path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
    } catch (_) {
      throw new ApiError(0, 'network', 'Cannot reach the server. Check your connection and try again.');
    }
    const text = res.status === 204 ? '' : await res.text().catch(() => '');
    const data = text ? readJSON(text) : null;
    if (!res.ok) {
      const e = (data && data.error) || {};
      throw new ApiError(res.status, e.code || 'http_' + res.status,
        e.message || DEFAULT_MESSAGES[res.status] || ('Request failed (HTTP ' + res.status + ').'),
        res.headers.get('Retry-After'));
    }
    return data;
  }

  function retryAfterSeconds(v) {
    if (!v) return 0;
    if (/^\d+$/.test(v.trim())) return parseInt(v, 10);
    const t = Date.parse(v);
    return isNaN(t) ? 0 : Math.max(0, Math.ceil((t - Date.now()) / 1000));
  }

  // ---- views ------------------------------------------------------------------------------
  function showSignin(message) {
    $('#app').hidden = true;
    $('#signin-view').hidden = false;
    setSigninError(message || '');
    delete document.body.dataset.ready;
    document.title = 'Find Our Devices';
    const email = $('#email');
    if (S.user && S.user.email && !email.value) email.value = S.user.email;
    (email.value ? $('#password') : email).focus();
  }

  function setSigninError(msg) {
    const e = $('#signin-error');
    e.textContent = msg;
    e.hidden = !msg;
  }

  function showApp() {
    $('#signin-view').hidden = true;
    $('#app').hidden = false;
    const name = (S.me && (S.me.displayName || S.me.email)) || (S.user && (S.user.displayName || S.user.email)) || '';
    $('#user-name').textContent = name;
    if (S.map) S.map.invalidateSize();
  }

  function showBanner(msg, kind) {
    const b = $('#banner');
    b.textContent = msg;
    b.className = 'banner ' + (kind || 'info');
    b.hidden = !msg;
  }

  function setStatus(state) {
    const labels = { live: 'live', connecting: 'connecting', reconnecting: 'reconnecting', offline: 'offline', closed: 'closed' };
    const s = $('#status');
    s.textContent = labels[state] || state;
    s.dataset.state = state;
    s.title = state === 'live' ? 'Receiving live updates' :
      state === 'reconnecting' ? 'Connection lost; reconnecting automatically' :
        state === 'closed' ? 'Live updates stopped' : '';
  }

  // ---- boot: config, renderer, basemap -----------------------------------------------------
  function loadScript(src) {
    return new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = src; s.async = true;
      s.onload = () => resolve();
      s.onerror = () => reject(new Error('failed to load ' + src));
      document.head.appendChild(s);
    });
  }
  function loadCSS(href) {
    const l = document.createElement('link');
    l.rel = 'stylesheet'; l.href = href;
    document.head.appendChild(l);
  }

  async function boot() {
    let config = { leaflet: false, tileURL: null, tileAttribution: '' };
    try {
      const r = await fetch('/static/config.json', { cache: 'no-store' });
      if (r.ok) config = Object.assign(config, await r.json());
    } catch (_) { /* no config: offline SVG map */ }
    const hooks = {
      onPinClick: (id) => focusDevice(S.focus === id ? null : id),
      onPinHover: showTooltip,
      onPinLeave: hideTooltip,
      onUserMove: () => { S.follow = false; },
      onFitRequest: () => { S.follow = false; S.map.fit(deviceList()); },
    };
    const container = $('#map');
    let map = null;
    if (config.leaflet) {
      try {
        loadCSS('/vendor/leaflet/leaflet.css');
        if (!window.L) await loadScript('/vendor/leaflet/leaflet.js');
        if (window.L && window.FODLeafletMap) map = window.FODLeafletMap.create(container, hooks, config);
      } catch (e) {
        console.warn('Leaflet unavailable, using the built-in map:', e.message);
      }
    }
    if (!map) map = window.FODSvgMap.create(container, hooks);
    S.map = map;
    document.body.dataset.map = map.kind;
    fetch('/static/countries-110m.geojson')
      .then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
      .then((gj) => { map.setBasemap(gj); document.body.dataset.basemap = '1'; })
      .catch((e) => { console.warn('Basemap unavailable:', e.message); });
    return map;
  }

  // ---- sign in / out ----------------------------------------------------------------------
  async function onSignIn() {
    const email = $('#email').value.trim();
    const password = $('#password').value;
    if (!email || !password) { setSigninError('Enter your email and password.'); return; }
    const btn = $('#signin button[type=submit]');
    btn.disabled = true;
    setSigninError('');
    try {
      const r = await api('POST', '/v1/sessions', { email: email, password: password }, { auth: false });
      if (!r || !r.token) throw new ApiError(0, 'bad_response', 'The server sent an unexpected answer.');
      S.token = r.token;
      S.user = r.user || { email: email };
      sessionStorage.setItem(TOKEN_KEY, S.token);
      sessionStorage.setItem(USER_KEY, JSON.stringify(S.user));
      $('#password').value = '';
      btn.disabled = false;
      await enterApp();
    } catch (e) {
      if (e.status === 429) {
        countdown(btn, e.message, retryAfterSeconds(e.retryAfter));
        return;
      }
      btn.disabled = false;
      setSigninError(e.status === 401 ? (e.message || 'Wrong email or password.') : e.message);
    }
  }

  /** 429: keep the button disabled and count down Retry-After. */
  function countdown(btn, message, secs) {
    clearInterval(S.retryTimer);
    const base = message || 'Too many attempts.';
    if (!secs) { btn.disabled = false; setSigninError(base + ' Please wait a moment and try again.'); return; }
    const until = Date.now() + secs * 1000;
    const tick = () => {
      const left = Math.ceil((until - Date.now()) / 1000);
      if (left <= 0) {
        clearInterval(S.retryTimer);
        btn.disabled = false;
        setSigninError(base + ' You can try again now.');
        return;
      }
      setSigninError(base + ' Try again in ' + left + ' s.');
    };
    btn.disabled = true;
    tick();
    S.retryTimer = setInterval(tick, 1000);
  }

  function clearSession() {
    closeLive();
    S.gen++;
    S.token = null;
    S.me = null;
    S.groups = [];
    S.groupId = null;
    S.group = null;
    S.fitted = false;
    sessionStorage.removeItem(TOKEN_KEY);
    resetDevices();
    setStatus('offline');
    showBanner('');
  }

  async function signOut() {
    const token = S.token;
    clearSession();
    sessionStorage.removeItem(USER_KEY);
    showSignin('');
    if (token) {
      try { await api('DELETE', '/v1/sessions/current', undefined, { token: token }); } catch (_) { /* already gone */ }
    }
  }

  function sessionExpired() {
    clearSession();
    showSignin('Your session has ended. Please sign in again.');
  }

  // ---- groups -----------------------------------------------------------------------------
  function hashGroup() {
    const p = new URLSearchParams(location.hash.replace(/^#/, ''));
    return p.get('group');
  }

  function setHashGroup(id) {
    const h = '#group=' + enc(id);
    if (location.hash !== h) history.replaceState(null, '', location.pathname + location.search + h);
  }

  function fillGroupSelect() {
    const sel = $('#group');
    sel.textContent = '';
    for (const g of S.groups) {
      const o = document.createElement('option');
      o.value = g.groupId;
      o.textContent = (g.groupName || g.groupId) + (g.isOwner ? ' (owner)' : '');
      sel.appendChild(o);
    }
    if (S.groupId && !S.groups.some((g) => g.groupId === S.groupId)) {
      const o = document.createElement('option');
      o.value = S.groupId; o.disabled = true;
      o.textContent = '\u2014 group unavailable \u2014';
      sel.appendChild(o);
    }
    sel.disabled = S.groups.length === 0;
    if (S.groupId) sel.value = S.groupId;
  }

  async function loadMe() {
    const me = await api('GET', '/v1/me');
    S.me = me || {};
    S.groups = Array.isArray(S.me.groups) ? S.me.groups.filter((g) => g && g.groupId != null).map((g) => Object.assign({}, g, { groupId: String(g.groupId) })) : [];
    fillGroupSelect();
  }

  async function enterApp() {
    const gen = ++S.gen;
    try {
      await loadMe();
    } catch (e) {
      if (gen !== S.gen) return;
      if (e.status === 401) { clearSession(); showSignin('Your session has ended. Please sign in again.'); return; }
      showSignin(e.message);
      return;
    }
    if (gen !== S.gen) return;
    await S.boot;
    showApp();
    if (!S.groups.length) {
      const inv = (S.me.invitations || []).length;
      showBanner('You are not in any group yet.' + (inv ? ' You have ' + inv + ' pending invitation' + (inv > 1 ? 's' : '') + '.' : ''), 'info');
      setStatus('offline');
      document.body.dataset.ready = '1';
      return;
    }
    const wanted = hashGroup();
    const id = S.groups.some((g) => g.groupId === wanted) ? wanted : S.groups[0].groupId;
    openGroup(id);
  }

  async function openGroup(id) {
    closeLive();
    const gen = ++S.gen;
    S.groupId = id;
    S.fitted = false;
    S.focus = null;
    S.follow = false;
    setHashGroup(id);
    fillGroupSelect();
    delete document.body.dataset.ready;
    showBanner('');
    resetDevices();
    setStatus('connecting');
    let doc;
    try {
      doc = await api('GET', '/v1/groups/' + enc(id));
    } catch (e) {
      if (gen !== S.gen) return;
      if (e.status === 401) { sessionExpired(); return; }
      showBanner(e.message, 'error');
      setStatus('offline');
      document.body.dataset.ready = '1';
      return;
    }
    if (gen !== S.gen) return;
    applyGroupDoc(doc);
    document.body.dataset.ready = '1';
    openLive(gen);
  }

  /** Replaces the whole state with a group document (GET /v1/groups/{id} or a snapshot). */
  function applyGroupDoc(doc) {
    if (!doc || typeof doc !== 'object') return;
    S.group = { id: doc.id, name: doc.name, ownerId: doc.ownerId };
    document.title = (doc.name ? doc.name + ' \u2013 ' : '') + 'Find Our Devices';
    const next = new Map();
    for (const m of doc.members || []) {
      if (!m || m.deviceId == null) continue;
      const id = String(m.deviceId);
      const prev = S.devices.get(id);
      const d = prev || { deviceId: id, color: colorFor(id), trail: [] };
      d.userId = m.userId;
      d.displayName = m.displayName || '';
      d.deviceName = m.deviceName || id;
      d.shareLocation = m.shareLocation !== false;
      const c = m.location && m.location.coordinates;
      if (G.validLonLat(c)) {
        d.located = true;
        d.lon = c[0]; d.lat = c[1];
        d.ts = G.parseTime(m.location.updatedAt);
        pushTrail(d);
      } else {
        // Not sharing (or nothing yet): forget its positions at once, trail included.
        d.located = false; d.lon = null; d.lat = null; d.ts = null; d.trail = [];
      }
      d.label = labelText(d);
      next.set(id, d);
    }
    S.devices = next;
    if (S.focus && !(next.get(S.focus) || {}).located) S.focus = null;
    renderAll();
    if (!S.fitted && deviceList().some((d) => d.located)) {
      S.map.fit(deviceList());
      S.fitted = true;
    } else if (!S.fitted) {
      S.map.fit([]);
    }
  }

  function pushTrail(d) {
    const last = d.trail[d.trail.length - 1];
    if (last && last[0] === d.lon && last[1] === d.lat) return;
    d.trail.push([d.lon, d.lat]);
    if (d.trail.length > TRAIL_MAX) d.trail.splice(0, d.trail.length - TRAIL_MAX);
  }

  function deviceList() { return S.order.map((id) => S.devices.get(id)).filter(Boolean); }

  function resetDevices() {
    S.devices = new Map();
    S.order = [];
    S.focus = null;
    hideTooltip();
    if (S.map) S.map.clear();
    renderList();
    fillDeviceSelect();
    $('#device-count').textContent = '';
  }

  // ---- rendering: list, dropdown, map -------------------------------------------------------
  function sortKey(d) { return (d.located ? 0 : d.shareLocation ? 1 : 2); }

  function renderAll() {
    S.order = Array.from(S.devices.values()).sort((a, b) =>
      sortKey(a) - sortKey(b) ||
      a.displayName.localeCompare(b.displayName) ||
      a.deviceName.localeCompare(b.deviceName) ||
      (a.deviceId < b.deviceId ? -1 : 1)).map((d) => d.deviceId);
    const devs = deviceList();
    const located = devs.filter((d) => d.located).length;
    S.map.sync(devs);
    S.map.setLabels(located <= LABEL_MAX);
    S.map.setFocus(S.focus);
    renderList();
    fillDeviceSelect();
    $('#device-count').textContent = devs.length ? '(' + located + ' of ' + devs.length + ' on the map)' : '';
    tick();
  }

  function statusText(d) {
    if (d.located) return G.ageText(Date.now() - d.ts) || 'location time unknown';
    return d.shareLocation ? 'no location yet' : 'not sharing';
  }

  function labelText(d) {
    const age = d.located && d.ts != null ? G.ageText(Date.now() - d.ts) : '';
    return d.deviceName + (age ? ' \u00b7 ' + age : '');
  }

  function renderList() {
    const ul = $('#devices');
    ul.textContent = '';
    S.listEls = new Map();
    const frag = document.createDocumentFragment();
    for (const d of deviceList()) {
      const li = document.createElement('li');
      li.className = 'device' + (d.located ? '' : ' no-fix') + (d.deviceId === S.focus ? ' focused' : '');
      li.setAttribute('data-device-id', d.deviceId);
      const btn = document.createElement('button');
      btn.type = 'button';
      btn.className = 'device-btn';
      btn.setAttribute('aria-pressed', d.deviceId === S.focus ? 'true' : 'false');
      const sw = document.createElement('span');
      sw.className = 'swatch';
      sw.style.background = d.color;
      sw.setAttribute('aria-hidden', 'true');
      const name = document.createElement('span');
      name.className = 'dev-name';
      name.textContent = d.deviceName;
      const member = document.createElement('span');
      member.className = 'dev-member';
      member.textContent = d.displayName + (S.me && d.userId === S.me.id ? ' (you)' : '');
      const age = document.createElement('span');
      age.className = 'dev-age';
      age.textContent = statusText(d);
      btn.append(sw, name, ' ', member, ' ', age); // spaces: readable textContent, ignored by the grid
      btn.title = d.located ? d.deviceName + ' \u2013 ' + d.displayName + ': ' + d.lat.toFixed(5) + ', ' + d.lon.toFixed(5) : '';
      li.appendChild(btn);
      frag.appendChild(li);
      S.listEls.set(d.deviceId, { li: li, btn: btn, age: age, ageText: age.textContent });
    }
    if (!S.devices.size && S.groupId) {
      const li = document.createElement('li');
      li.className = 'empty';
      li.textContent = 'No devices in this group.';
      frag.appendChild(li);
    }
    ul.appendChild(frag);
    applyFilter();
  }

  function fillDeviceSelect() {
    const sel = $('#device');
    sel.textContent = '';
    const all = document.createElement('option');
    all.value = '';
    all.textContent = 'All devices';
    sel.appendChild(all);
    for (const d of deviceList()) {
      const o = document.createElement('option');
      o.value = d.deviceId;
      o.textContent = d.deviceName + ' \u2013 ' + d.displayName + (d.located ? '' : ' (' + statusText(d) + ')');
      o.disabled = !d.located;
      sel.appendChild(o);
    }
    sel.value = S.focus || '';
  }

  function applyFilter() {
    const q = $('#device-filter').value.trim().toLowerCase();
    for (const [id, e] of S.listEls) {
      const d = S.devices.get(id);
      e.li.hidden = !!q && !(d.deviceName.toLowerCase().includes(q) || d.displayName.toLowerCase().includes(q));
    }
  }

  /** Refreshes every age shown (list, labels, tooltip): once a second. */
  function tick() {
    const now = Date.now();
    for (const d of S.devices.values()) {
      const e = S.listEls.get(d.deviceId);
      if (e) {
        const t = statusText(d);
        if (t !== e.ageText) { e.age.textContent = t; e.ageText = t; }
      }
      if (d.located) {
        const label = labelText(d);
        if (label !== d.label) { d.label = label; S.map.setLabelText(d, label); }
        const stale = d.ts != null && now - d.ts > STALE_MS;
        if (stale !== !!d.stale) { d.stale = stale; S.map.setStale(d, stale); }
      }
    }
    if (S.hover) updateTooltip();
  }

  function focusDevice(id) {
    S.focus = id || null;
    S.follow = !!S.focus;
    S.map.setFocus(S.focus);
    for (const [did, e] of S.listEls) {
      const on = did === S.focus;
      e.li.classList.toggle('focused', on);
      e.btn.setAttribute('aria-pressed', on ? 'true' : 'false');
    }
    $('#device').value = S.focus || '';
    if (S.focus) {
      const d = S.devices.get(S.focus);
      if (d && d.located) S.map.centerOn(d, true);
      const e = S.listEls.get(S.focus);
      if (e && e.li.scrollIntoView) e.li.scrollIntoView({ block: 'nearest' });
    } else {
      S.map.fit(deviceList());
    }
  }

  // ---- tooltip ------------------------------------------------------------------------------
  function showTooltip(id, x, y) {
    S.hover = { id: id, x: x, y: y };
    updateTooltip();
  }
  function hideTooltip() {
    S.hover = null;
    const t = $('#tooltip');
    if (t) t.hidden = true;
  }
  function updateTooltip() {
    const t = $('#tooltip');
    const d = S.hover && S.devices.get(S.hover.id);
    if (!d || !d.located) { t.hidden = true; return; }
    t.textContent = '';
    const h = document.createElement('strong');
    const sw = document.createElement('span');
    sw.className = 'swatch';
    sw.style.background = d.color;
    h.append(sw, document.createTextNode(d.deviceName));
    const m = document.createElement('div');
    m.textContent = d.displayName;
    const a = document.createElement('div');
    a.className = 'tt-age';
    a.textContent = statusText(d);
    const c = document.createElement('div');
    c.className = 'tt-coord';
    c.textContent = d.lat.toFixed(5) + ', ' + d.lon.toFixed(5);
    t.append(h, m, a, c);
    t.hidden = false;
    const wrap = t.parentElement.getBoundingClientRect();
    let left = S.hover.x - wrap.left + 14, top = S.hover.y - wrap.top + 14;
    if (left + t.offsetWidth > wrap.width - 8) left = S.hover.x - wrap.left - t.offsetWidth - 14;
    if (top + t.offsetHeight > wrap.height - 8) top = S.hover.y - wrap.top - t.offsetHeight - 14;
    t.style.left = Math.max(4, left) + 'px';
    t.style.top = Math.max(4, top) + 'px';
  }

  // ---- live feed ----------------------------------------------------------------------------
  function closeLive() {
    clearTimeout(S.reconnectTimer);
    clearTimeout(S.refetchTimer);
    S.reconnectTimer = 0;
    S.refetchTimer = 0;
    if (S.es) { S.es.close(); S.es = null; }
  }

  function openLive(gen) {
    if (gen !== S.gen || !S.groupId || !S.token) return;
    if (S.es) S.es.close();
    const es = new EventSource('/v1/groups/' + enc(S.groupId) + '/live?token=' + enc(S.token));
    S.es = es;
    setStatus('connecting');
    const mine = () => S.es === es && gen === S.gen;
    es.onopen = () => { if (!mine()) return; setStatus('live'); S.reconnectDelay = 1000; };
    es.onerror = () => {
      if (!mine()) return;
      if (es.readyState === EventSource.CLOSED) {
        // The browser gave up (e.g. a 401/404 answer instead of a stream): check and retry.
        es.close();
        S.es = null;
        setStatus('reconnecting');
        scheduleReconnect(gen);
      } else {
        setStatus('reconnecting');
      }
    };
    const on = (type, fn) => es.addEventListener(type, (ev) => {
      if (!mine()) return;
      const data = readJSON(ev.data);
      if (data == null) return;
      fn(data);
    });
    on('snapshot', (doc) => {
      applyGroupDoc(doc);
      if (S.focus && S.follow) S.map.centerOn(S.devices.get(S.focus), false);
      document.body.dataset.ready = '1';
    });
    on('location', onLocation);
    on('membership', onMembership);
    es.addEventListener('resync', () => { if (mine()) scheduleRefetch(0); });
  }

  function scheduleReconnect(gen) {
    clearTimeout(S.reconnectTimer);
    const delay = S.reconnectDelay;
    S.reconnectDelay = Math.min(RECONNECT_MAX_MS, S.reconnectDelay * 2);
    S.reconnectTimer = setTimeout(async () => {
      if (gen !== S.gen) return;
      try {
        const doc = await api('GET', '/v1/groups/' + enc(S.groupId));
        if (gen !== S.gen) return;
        applyGroupDoc(doc);
        openLive(gen);
      } catch (e) {
        if (gen !== S.gen) return;
        if (e.status === 401) { sessionExpired(); return; }
        if (e.status === 403 || e.status === 404) { groupGone('This group is no longer available to you.'); return; }
        scheduleReconnect(gen);
      }
    }, delay);
  }

  function onLocation(ev) {
    if (!ev || ev.deviceId == null) return;
    const d = S.devices.get(String(ev.deviceId));
    if (!d) { scheduleRefetch(300); return; } // a device we do not know yet: our copy is old
    if (ev.latest === false) return;         // a late, older fix: history, not the pin
    if (!G.validLonLat(ev.location)) return;
    const wasLocated = d.located;
    d.lon = ev.location[0];
    d.lat = ev.location[1];
    d.ts = G.parseTime(ev.timestamp);
    if (d.ts == null) d.ts = Date.now();
    d.located = true;
    pushTrail(d);
    if (!wasLocated) {
      renderAll();
    } else {
      S.map.move(d);
      const e = S.listEls.get(d.deviceId);
      if (e) {
        const t = statusText(d);
        if (t !== e.ageText) { e.age.textContent = t; e.ageText = t; }
      }
      const label = labelText(d);
      if (label !== d.label) { d.label = label; S.map.setLabelText(d, label); }
      if (d.stale) { d.stale = false; S.map.setStale(d, false); }
    }
    if (S.focus === d.deviceId && S.follow) S.map.centerOn(d, false);
    if (S.hover && S.hover.id === d.deviceId) updateTooltip();
  }

  function onMembership(ev) {
    const me = S.me && S.me.id;
    if (ev.type === 'deleted') { groupGone('This group was deleted.'); return; }
    if ((ev.type === 'removed' || ev.type === 'left') && me != null && ev.userId === me) {
      groupGone(ev.type === 'left' ? 'You left this group.' : 'You were removed from this group.');
      return;
    }
    scheduleRefetch(150);
    if (ev.type === 'owner') loadMe().catch(() => {});
  }

  /** Re-reads the group document (after membership changes, resync, unknown devices). */
  function scheduleRefetch(delay) {
    if (S.refetchTimer) return;
    const gen = S.gen;
    S.refetchTimer = setTimeout(async () => {
      S.refetchTimer = 0;
      if (gen !== S.gen) return;
      try {
        const doc = await api('GET', '/v1/groups/' + enc(S.groupId));
        if (gen === S.gen) applyGroupDoc(doc);
      } catch (e) {
        if (gen !== S.gen) return;
        if (e.status === 401) sessionExpired();
        else if (e.status === 403 || e.status === 404) groupGone('This group is no longer available to you.');
      }
    }, delay || 0);
  }

  function groupGone(msg) {
    closeLive();
    S.gen++;
    setStatus('closed');
    resetDevices();
    showBanner(msg + ' Pick another group to continue.', 'warn');
    document.body.dataset.ready = '1';
    loadMe().catch(() => {});
  }

  // ---- wiring -------------------------------------------------------------------------------
  function init() {
    S.boot = boot();
    $('#signout').addEventListener('click', signOut);
    $('#group').addEventListener('change', (e) => { if (e.target.value) openGroup(e.target.value); });
    $('#device').addEventListener('change', (e) => focusDevice(e.target.value || null));
    $('#devices').addEventListener('click', (e) => {
      const li = e.target.closest('li[data-device-id]');
      if (!li) return;
      const id = li.getAttribute('data-device-id');
      const d = S.devices.get(id);
      if (!d || !d.located) return;
      focusDevice(S.focus === id ? null : id);
    });
    $('#device-filter').addEventListener('input', applyFilter);
    window.addEventListener('hashchange', () => {
      const id = hashGroup();
      if (id && id !== S.groupId && S.groups.some((g) => g.groupId === id)) openGroup(id);
    });
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && S.focus && !$('#app').hidden) focusDevice(null);
    });
    setInterval(tick, 1000);
    setStatus('offline');
    initialised();
    if (S.token) enterApp();
    else if (!S.pendingSubmit) showSignin('');
  }

  // Catch the sign-in submit from the very start (this script runs before the form exists), so a
  // click before initialisation never falls through to a native form submission.
  let initialised;
  const ready = new Promise((resolve) => { initialised = resolve; });
  document.addEventListener('submit', (e) => {
    if (!e.target || e.target.id !== 'signin') return;
    e.preventDefault();
    S.pendingSubmit = true;
    ready.then(() => { S.pendingSubmit = false; onSignIn(); });
  }, true);

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();

  // Exposed for debugging and tests only.
  window.FOD = { state: S, colorFor: colorFor };
})();
