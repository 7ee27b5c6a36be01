/*
 * Find Our Devices web app: what a phone sent that the server could not store (API.md "Phone apps
 * never stall"), inside its card in the Phones panel. The phone-app endpoints answer 2xx to such
 * messages, so the app does not retry them forever; this list is where the owner learns of them:
 * when, from which app, why, and the message as sent (never the token). Loaded when opened.
 */
import { h, replaceChildren } from './dom.js';
import { sinceText } from './format.js';

/** The apps' names as the owner knows them, by the `source` of a rejection. */
const SOURCES = { owntracks: 'OwnTracks', osmand: 'Traccar Client / OsmAnd', overland: 'Overland' };

export class DeviceRejections {
  /** @param hooks {onError(message)} */
  constructor(api, device, hooks) {
    this.api = api;
    this.device = device;
    this.hooks = hooks;
    this.list = h('ul', { className: 'item-list rejection-list', attrs: { 'aria-label': 'Messages of ' + device.name + ' that were not stored' } });
    this.element = h('details', { className: 'subsection rejection-section', dataset: { deviceId: device.id } },
      h('summary', null, 'Messages not stored'),
      h('p', { className: 'hint' }, 'What this phone sent that could not be stored, newest first (the last 100). The phone was told it arrived, so it does not send it again.'),
      this.list);
    this.element.addEventListener('toggle', () => { if (this.element.open) this.load(); });
  }

  async load() {
    try {
      const r = await this.api.rejections(this.device.id);
      this.render(r && Array.isArray(r.rejections) ? r.rejections : []);
    } catch (e) { this.hooks.onError(e.message); }
  }

  render(rejections) {
    const now = Date.now();
    if (!rejections.length) { replaceChildren(this.list, h('li', { className: 'empty' }, 'Everything it sent was stored.')); return; }
    replaceChildren(this.list, ...rejections.map((r) => h('li', { className: 'rejection-item', dataset: { reason: String(r.reason) } },
      h('div', { className: 'item-main' },
        h('div', { className: 'item-title' }, String(r.message || r.reason)),
        h('div', { className: 'item-meta' }, [sinceText(r.at, now), SOURCES[r.source] || String(r.source), String(r.reason),
          r.count > 1 ? r.count + ' messages' : ''].filter(Boolean).join(' \u00b7 ')),
        r.sample ? h('code', { className: 'rejection-sample' }, String(r.sample)) : null))));
  }
}
