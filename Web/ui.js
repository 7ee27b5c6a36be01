/*
 * Find Our Devices web map: the group page's small views — which view shows, the banner, the
 * live status and the hover tooltip. All text goes in as text (dom.js).
 */
import { byId, h, replaceChildren } from './dom.js';
import { statusText } from './state.js';

/** Shows the app (signed in) or the sign-in view. */
export function showApp(userName) {
  byId('signin-view').hidden = true;
  byId('app').hidden = false;
  byId('user-name').textContent = userName || '';
}

export function showSigninView() {
  byId('app').hidden = true;
  byId('signin-view').hidden = false;
  document.title = 'Find Our Devices';
}

/** The page has settled (tests wait for body[data-ready="1"]). */
export function setReady(ready) {
  if (ready) document.body.dataset.ready = '1';
  else delete document.body.dataset.ready;
}

/** A message over the map: kind 'info' | 'warn' | 'error'; an empty message hides it. */
export function showBanner(message, kind) {
  const b = byId('banner');
  b.textContent = message || '';
  b.className = 'banner ' + (kind || 'info');
  b.hidden = !message;
}

const STATUS_TITLES = {
  live: 'Receiving live updates',
  reconnecting: 'Connection lost; reconnecting automatically',
  closed: 'Live updates stopped',
};

/** The live-feed badge: 'live' | 'connecting' | 'reconnecting' | 'offline' | 'closed'. */
export function setStatus(state) {
  const s = byId('status');
  s.textContent = state;
  s.dataset.state = state;
  s.title = STATUS_TITLES[state] || '';
}

/** The card shown while the pointer is over a pin: device, member, age, coordinates. */
export class PinTooltip {
  constructor() {
    this.el = byId('tooltip');
    this.hover = null; // {id, x, y} in client pixels
  }

  get deviceId() { return this.hover && this.hover.id; }

  show(id, x, y) { this.hover = { id, x, y }; }

  hide() {
    this.hover = null;
    this.el.hidden = true;
  }

  /** Redraws for device `d` (the hovered one), or hides when it has no position. */
  render(d, now) {
    const t = this.el;
    if (!this.hover || !d || !d.located) { t.hidden = true; return; }
    replaceChildren(t,
      h('strong', null, h('span', { className: 'swatch', style: { background: d.color } }), d.deviceName),
      h('div', null, d.displayName),
      h('div', { className: 'tt-age' }, statusText(d, now)),
      h('div', { className: 'tt-coord' }, d.lat.toFixed(5) + ', ' + d.lon.toFixed(5)));
    t.hidden = false;
    const wrap = t.parentElement.getBoundingClientRect();
    const { x, y } = this.hover;
    let left = x - wrap.left + 14, top = y - wrap.top + 14;
    if (left + t.offsetWidth > wrap.width - 8) left = x - wrap.left - t.offsetWidth - 14;
    if (top + t.offsetHeight > wrap.height - 8) top = y - wrap.top - t.offsetHeight - 14;
    t.style.left = Math.max(4, left) + 'px';
    t.style.top = Math.max(4, top) + 'px';
  }
}
