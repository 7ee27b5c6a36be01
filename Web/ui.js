/*
 * Find Our Devices web map: the group page's small views — which view shows, the banner, the
 * live status, the sign-in form and the hover tooltip. All text goes in as text (dom.js).
 */
import { byId, h, replaceChildren } from './dom.js';
import { retryAfterSeconds } from './api.js';
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

/**
 * The sign-in form. Its submit button stays disabled in the HTML until this is created, so the
 * form can never be submitted natively (the CSP's form-action 'none' would refuse it anyway).
 * `signIn(email, password)` rejects with an ApiError to show.
 */
export class SignInForm {
  constructor(signIn) {
    this.signIn = signIn;
    this.form = byId('signin');
    this.email = byId('email');
    this.password = byId('password');
    this.button = this.form.querySelector('button[type=submit]');
    this.errorEl = byId('signin-error');
    this.retryTimer = 0;
    this.form.addEventListener('submit', (e) => { e.preventDefault(); this.submit(); });
    this.button.disabled = false;
  }

  /** Shows the form, prefilled with `email`, with an optional message. */
  show(message, email) {
    showSigninView();
    this.error(message || '');
    if (email && !this.email.value) this.email.value = email;
    (this.email.value ? this.password : this.email).focus();
  }

  error(message) {
    this.errorEl.textContent = message;
    this.errorEl.hidden = !message;
  }

  async submit() {
    if (this.button.disabled) return;
    const email = this.email.value.trim();
    const password = this.password.value;
    if (!email || !password) { this.error('Enter your email and password.'); return; }
    this.button.disabled = true;
    this.error('');
    try {
      await this.signIn(email, password);
      this.password.value = '';
      this.button.disabled = false;
    } catch (e) {
      if (e.status === 429) { this.countdown(e.message, retryAfterSeconds(e.retryAfter)); return; }
      this.button.disabled = false;
      this.error(e.status === 401 ? (e.message || 'Wrong email or password.') : e.message);
    }
  }

  /** 429: keeps the button disabled and counts Retry-After down. */
  countdown(message, secs) {
    clearInterval(this.retryTimer);
    const base = message || 'Too many attempts.';
    if (!secs) { this.button.disabled = false; this.error(base + ' Please wait a moment and try again.'); return; }
    const until = Date.now() + secs * 1000;
    const tick = () => {
      const left = Math.ceil((until - Date.now()) / 1000);
      if (left > 0) { this.error(base + ' Try again in ' + left + ' s.'); return; }
      clearInterval(this.retryTimer);
      this.button.disabled = false;
      this.error(base + ' You can try again now.');
    };
    this.button.disabled = true;
    tick();
    this.retryTimer = setInterval(tick, 1000);
  }
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
