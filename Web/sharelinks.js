/*
 * Find Our Devices web app: a phone's share links (API.md "Share links"), inside its card in the
 * Phones panel — made with an expiry, the link shown once with a copy button (its token is
 * stored only hashed), listed with their views, renewed or turned off.
 */
import { h, replaceChildren } from './dom.js';
import { copyText, openDialog, confirmAction } from './dialog.js';
import { expiryText, sinceText } from './format.js';

export const EXPIRIES = [[3600, '1 hour'], [8 * 3600, '8 hours'], [86400, '1 day'], [7 * 86400, '7 days']];

/** The full address of a share link's `url` (`/s/<token>`) on this server. */
export function shareAddress(url) { return new URL(url, location.origin).href; }

export class ShareLinks {
  /** @param hooks {onError(message)} */
  constructor(api, device, hooks) {
    this.api = api;
    this.device = device;
    this.hooks = hooks;
    this.list = h('ul', { className: 'item-list share-list', attrs: { 'aria-label': 'Share links of ' + device.name } });
    this.name = h('input', { type: 'text', maxLength: 100, placeholder: 'For whom (optional)', attrs: { 'aria-label': 'Link name' } });
    this.expiry = h('select', { attrs: { 'aria-label': 'The link works for' } },
      ...EXPIRIES.map(([secs, label]) => h('option', { value: String(secs) }, label)));
    const create = h('button', { type: 'button', className: 'primary share-create' }, 'Create link');
    create.addEventListener('click', () => this.create(create));
    this.element = h('details', { className: 'subsection share-section', dataset: { deviceId: device.id } },
      h('summary', null, 'Share location by link'),
      h('p', { className: 'hint' }, 'Anyone with the link sees this phone live, without an account, until it expires or you turn it off.'),
      h('div', { className: 'inline-form' }, this.name, this.expiry), create, this.list);
    this.element.addEventListener('toggle', () => { if (this.element.open) this.load(); });
  }

  async load() {
    try {
      const r = await this.api.shares(this.device.id);
      this.render(r && Array.isArray(r.shares) ? r.shares : []);
    } catch (e) { this.hooks.onError(e.message); }
  }

  render(shares) {
    const now = Date.now();
    if (!shares.length) { replaceChildren(this.list, h('li', { className: 'empty' }, 'No links yet.')); return; }
    replaceChildren(this.list, ...shares.map((s) => {
      const renew = h('button', { type: 'button', className: 'plain' }, 'Renew');
      renew.addEventListener('click', () => this.act(() => this.api.renewShare(this.device.id, s.id, Number(this.expiry.value))));
      const revoke = h('button', { type: 'button', className: 'plain' }, 'Turn off');
      revoke.addEventListener('click', async () => {
        if (await confirmAction('Turn this link off?', 'Whoever has it stops seeing ' + this.device.name + ' at once.', 'Turn off')) {
          this.act(() => this.api.revokeShare(this.device.id, s.id));
        }
      });
      const active = s.active !== false && Date.parse(s.expiresAt) > now;
      return h('li', { className: 'share-item', dataset: { shareId: String(s.id) } },
        h('div', { className: 'item-main' },
          h('div', { className: 'item-title' }, s.name || 'Link', ' ', h('span', { className: 'pill' + (active ? '' : ' off') }, active ? 'active' : 'off')),
          h('div', { className: 'item-meta' }, [expiryText(s.expiresAt, now), (s.views || 0) + ' view' + (s.views === 1 ? '' : 's'), 'made ' + sinceText(s.createdAt, now)].filter(Boolean).join(' \u00b7 '))),
        h('div', { className: 'button-row compact' }, renew, revoke));
    }));
  }

  async act(call) {
    try { await call(); await this.load(); } catch (e) { this.hooks.onError(e.message); }
  }

  async create(button) {
    button.disabled = true;
    let link;
    try {
      const body = { expiresIn: Number(this.expiry.value) };
      if (this.name.value.trim()) body.name = this.name.value.trim();
      link = await this.api.createShare(this.device.id, body);
    } catch (e) {
      this.hooks.onError(e.message);
      return;
    } finally { button.disabled = false; }
    this.name.value = '';
    this.load();
    const address = shareAddress(link.url);
    const copy = h('button', { type: 'button', className: 'secondary', id: 'share-copy' }, 'Copy link');
    copy.addEventListener('click', () => copyText(address, copy));
    await openDialog({
      title: 'Link to ' + this.device.name, name: 'share-link',
      body: [
        h('p', { className: 'share-url', id: 'share-url' }, address),
        h('p', { className: 'hint' }, 'Copy it now: it is shown only this once. It works ' + expiryText(link.expiresAt, Date.now()).replace('expires in', 'for') + '.'),
        h('div', { className: 'button-row' }, copy, h('a', { href: address, target: '_blank', rel: 'noopener noreferrer' }, 'Open it')),
      ],
      actions: [{ label: 'Done', value: 'done', kind: 'primary' }],
    });
  }
}
