/*
 * Find Our Devices web app: the sections of the signed-in page. The rail (a bottom bar on a
 * phone) shows one panel at a time; the one shown is marked aria-current and kept in the
 * address (#panel=…, beside #group=…) so a reload or a shared link opens it again.
 */
import { byId } from './dom.js';

export const PANELS = ['people', 'places', 'history', 'devices', 'groups', 'account'];

/** The #key=value pairs of the address. */
export function hashParams() { return new URLSearchParams(location.hash.replace(/^#/, '')); }

/** Sets (or with null removes) #key=value pairs, keeping the others; no history entry. */
export function setHashParams(changes) {
  const p = hashParams();
  for (const [k, v] of Object.entries(changes)) { if (v == null) p.delete(k); else p.set(k, v); }
  const hash = p.toString() ? '#' + p.toString() : '';
  if (location.hash !== hash) history.replaceState(null, '', location.pathname + location.search + hash);
}

export class Nav {
  /** @param {(name: string) => void} onShow called after a panel is shown */
  constructor(onShow) {
    this.onShow = onShow;
    this.current = null;
    this.buttons = Array.from(document.querySelectorAll('.rail button[data-panel]'));
    for (const b of this.buttons) b.addEventListener('click', () => this.show(b.dataset.panel));
  }

  /** Shows panel `name` (one of PANELS; anything else shows the map's). */
  show(name) {
    if (!PANELS.includes(name)) name = 'people';
    this.current = name;
    for (const p of PANELS) byId('panel-' + p).hidden = p !== name;
    for (const b of this.buttons) {
      if (b.dataset.panel === name) b.setAttribute('aria-current', 'page');
      else b.removeAttribute('aria-current');
    }
    document.body.dataset.panel = name;
    setHashParams({ panel: name === 'people' ? null : name });
    byId('panel-' + name).parentElement.scrollTop = 0;
    this.onShow(name);
  }
}
