/*
 * Find Our Devices web app: the Phones panel — the user's devices with battery and last seen,
 * adding one (then its set-up, shown once), a new token (the old one stops at once; set-up
 * again), renaming, removing, the OwnTracks friends switch, the share links and what the phone
 * sent that could not be stored. Names are text.
 */
import { byId, h, replaceChildren } from './dom.js';
import { confirmAction, promptText } from './dialog.js';
import { batteryText, sinceText } from './format.js';
import { showPhoneSetup } from './phonesetup.js';
import { ShareLinks } from './sharelinks.js';
import { DeviceRejections } from './rejections.js';

const LOW_BATTERY = 20;

export class DevicesPanel {
  /**
   * @param hooks {qrcode: () => bool (the encoder is served), onChanged() (devices changed:
   *   refresh the account and the map)}
   */
  constructor(api, account, hooks) {
    this.api = api;
    this.account = account;
    this.hooks = hooks;
    this.list = byId('my-devices');
    this.errorEl = byId('devices-error');
    this.shares = new Map(); // deviceId -> ShareLinks (kept across renders, so an open one stays open)
    this.rejections = new Map(); // deviceId -> DeviceRejections (the same)
    byId('device-add').addEventListener('submit', (e) => { e.preventDefault(); this.add(); });
    account.onChange(() => this.render());
  }

  error(message) { this.errorEl.textContent = message || ''; this.errorEl.hidden = !message; }

  /** Redraws when the phones changed, or their ages are a minute old. */
  render() {
    const now = Date.now();
    const devices = this.account.devices;
    const key = JSON.stringify([devices, this.account.groups, Math.floor(now / 60000)]);
    if (key === this.shown) return;
    this.shown = key;
    for (const kept of [this.shares, this.rejections]) {
      for (const id of Array.from(kept.keys())) if (!this.account.device(id)) kept.delete(id);
    }
    if (!devices.length) {
      replaceChildren(this.list, h('li', { className: 'empty' }, 'No phone yet. Add yours: the next screen shows how to set its app up in one scan.'));
      return;
    }
    replaceChildren(this.list, ...devices.map((d) => this.card(d, now)));
  }

  card(d, now) {
    const battery = batteryText(d.battery);
    const last = d.lastLocation && d.lastLocation.timestamp;
    const facts = h('div', { className: 'facts' },
      battery ? h('span', { className: 'fact-battery' + (d.battery <= LOW_BATTERY ? ' low' : '') }, battery) : null,
      h('span', { className: 'fact-seen' }, 'Seen ' + sinceText(d.lastSeenAt, now, 'never')),
      h('span', null, last ? 'Last fix ' + sinceText(last, now) : 'No location yet'));
    const groups = this.account.groups.filter((g) => g.deviceId === d.id).map((g) => g.groupName);
    const button = (label, cls, act) => {
      const b = h('button', { type: 'button', className: cls }, label);
      b.addEventListener('click', () => act(b));
      return b;
    };
    const friends = h('input', { type: 'checkbox', checked: d.receiveGroupLocations === true });
    friends.addEventListener('change', () => this.setFriends(d, friends));
    let shares = this.shares.get(d.id);
    if (!shares) { shares = new ShareLinks(this.api, d, { onError: (m) => this.error(m) }); this.shares.set(d.id, shares); }
    let rejections = this.rejections.get(d.id);
    if (!rejections) { rejections = new DeviceRejections(this.api, d, { onError: (m) => this.error(m) }); this.rejections.set(d.id, rejections); }
    return h('li', { className: 'device-card', dataset: { deviceId: d.id } },
      h('div', { className: 'card-top' },
        h('div', { className: 'item-main' },
          h('div', { className: 'item-title' }, d.name),
          h('div', { className: 'item-meta' }, groups.length ? 'In ' + groups.join(', ') : 'In no group yet')),
      ),
      facts,
      h('label', { className: 'switch' }, friends, 'Show group members in OwnTracks'),
      h('div', { className: 'button-row compact' },
        button('New token & set-up', 'secondary device-rotate', () => this.rotate(d)),
        button('Rename', 'secondary device-rename', () => this.rename(d)),
        button('Remove', 'danger device-remove', () => this.remove(d))),
      shares.element,
      rejections.element);
  }

  async add() {
    const input = byId('device-add-name');
    const name = input.value.trim();
    if (!name) { this.error('Name the phone first.'); input.focus(); return; }
    this.error('');
    let r;
    try { r = await this.api.addDevice(name); } catch (e) { this.error(e.message); return; }
    input.value = '';
    await this.hooks.onChanged();
    await this.setup(r.device, r.deviceToken);
  }

  async rotate(d) {
    if (!await confirmAction('New token for ' + d.name + '?', 'The phone stops sending with its current set-up at once, until you set it up again with the new one.', 'Make a new token')) return;
    let r;
    try { r = await this.api.rotateToken(d.id); } catch (e) { this.error(e.message); return; }
    await this.setup(d, r.deviceToken);
  }

  /** Shows the set-up of `device` ({id, name}) with its fresh token (held only by the dialog). */
  setup(device, deviceToken) {
    const id = String(device.id);
    const current = this.account.device(id);
    return showPhoneSetup({ deviceId: id, deviceName: device.name, deviceToken, origin: location.origin }, {
      qrcode: this.hooks.qrcode(),
      friends: {
        on: !!(current && current.receiveGroupLocations),
        set: async (on) => { await this.api.updateDevice(id, { receiveGroupLocations: on }); await this.hooks.onChanged(); },
      },
    });
  }

  async rename(d) {
    const name = await promptText('Rename ' + d.name, 'New name', d.name);
    if (!name || name === d.name) return;
    try { await this.api.updateDevice(d.id, { name }); await this.hooks.onChanged(); } catch (e) { this.error(e.message); }
  }

  async remove(d) {
    if (!await confirmAction('Remove ' + d.name + '?', 'Its whole history goes too, and it leaves the groups it is in. This cannot be undone.', 'Remove')) return;
    try { await this.api.removeDevice(d.id); await this.hooks.onChanged(); } catch (e) { this.error(e.message); }
  }

  async setFriends(d, box) {
    box.disabled = true;
    try { await this.api.updateDevice(d.id, { receiveGroupLocations: box.checked }); await this.hooks.onChanged(); } catch (e) {
      box.checked = !box.checked;
      this.error(e.message);
    }
    box.disabled = false;
  }
}
