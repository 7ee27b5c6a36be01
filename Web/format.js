/*
 * Find Our Devices web app: times, durations and battery as the panels say them. Pure.
 */
import { ageText, parseTime } from './geo.js';

/** "5 min ago" for an RFC 3339 time (or epoch), `never` when there is none. */
export function sinceText(time, now, never) {
  const t = parseTime(time);
  return t == null ? (never || 'never') : ageText(Math.max(0, now - t));
}

/** "42 min", "3 h 5 min", "2 d" for a positive span of milliseconds. */
export function spanText(ms) {
  const m = Math.max(0, Math.floor(ms / 60000));
  if (m < 1) return Math.max(0, Math.ceil(ms / 1000)) + ' s';
  if (m < 60) return m + ' min';
  const h = Math.floor(m / 60);
  if (h < 48) return h + ' h' + (m % 60 ? ' ' + (m % 60) + ' min' : '');
  return Math.floor(h / 24) + ' d';
}

/** "expires in 42 min" / "expired" for an expiry time. */
export function expiryText(time, now) {
  const t = parseTime(time);
  if (t == null) return '';
  return t <= now ? 'expired' : 'expires in ' + spanText(t - now);
}

/** "Battery 80 %", or '' when unknown. */
export function batteryText(battery) {
  return typeof battery === 'number' && isFinite(battery) ? 'Battery ' + Math.round(battery) + ' %' : '';
}

/** A local date as the value of an <input type=date> (YYYY-MM-DD). */
export function dateInputValue(t) {
  const d = new Date(t);
  const p = (n) => (n < 10 ? '0' : '') + n;
  return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate());
}

/** The local midnight of an <input type=date> value, or null. */
export function dateInputTime(value) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value || '');
  if (!m) return null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return isNaN(d) ? null : d.getTime();
}
