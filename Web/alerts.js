/*
 * Find Our Devices web app: my alerts in the group on the map (API.md "Notifications": "tell me
 * by this channel when this device — or any — enters or leaves this place — or any"), in the
 * Places panel: listed in words, added from my channels, the group's places and its devices,
 * and deleted. Names are text.
 */
import { byId, h, replaceChildren } from './dom.js';

export class AlertsPanel {
  /** @param hooks {groupId(), places() (the group's places), devices() (the group's devices)} */
  constructor(api, hooks) {
    this.api = api;
    this.hooks = hooks;
    this.alerts = [];
    this.channels = [];
    this.gen = 0;
    byId('alert-form').addEventListener('submit', (e) => { e.preventDefault(); this.add(); });
  }

  /** Reads my channels and my alerts in the group (the Places panel was shown, or the group changed). */
  async load() {
    const gen = ++this.gen, groupId = this.hooks.groupId();
    if (!groupId) { this.render(false); return; }
    try {
      const [c, a] = await Promise.all([this.api.channels(), this.api.alerts(groupId)]);
      if (gen !== this.gen) return;
      this.channels = c && Array.isArray(c.channels) ? c.channels : [];
      this.alerts = a && Array.isArray(a.alerts) ? a.alerts : [];
      this.render(true);
    } catch (e) {
      if (gen !== this.gen) return;
      this.alerts = [];
      this.render(false, e.status === 404 || e.status === 405 ? 'Alerts are not available on this server.' : e.message);
    }
  }

  placeName(id) { const p = this.hooks.places().find((x) => String(x.id) === String(id)); return p ? String(p.name || 'a place') : 'a place'; }
  deviceName(id) { const d = this.hooks.devices().find((x) => x.deviceId === String(id)); return d ? d.deviceName : 'a device'; }
  channelName(id) { const c = this.channels.find((x) => String(x.id) === String(id)); return c ? c.name || c.type : 'a channel'; }

  /** An alert in words: "Ann's phone arrives at School → ntfy". */
  describe(a) {
    const who = a.deviceId ? this.deviceName(a.deviceId) : 'Anyone';
    const events = Array.isArray(a.events) ? a.events : [];
    const verb = events.includes('enter') && events.includes('exit') ? 'arrives at or leaves' : events.includes('exit') ? 'leaves' : 'arrives at';
    return who + ' ' + verb + ' ' + (a.placeId ? this.placeName(a.placeId) : 'any place') + ' \u2192 ' + this.channelName(a.channelId);
  }

  render(available, message) {
    const form = byId('alert-form');
    form.hidden = !available || !this.channels.length;
    const list = byId('alerts');
    if (!available) { replaceChildren(list, message ? h('li', { className: 'empty' }, message) : null); return; }
    const items = this.alerts.map((a) => {
      const del = h('button', { type: 'button', className: 'plain', attrs: { 'aria-label': 'Delete this alert' } }, 'Delete');
      del.addEventListener('click', () => this.act(() => this.api.deleteAlert(this.hooks.groupId(), a.id)));
      return h('li', { dataset: { alertId: String(a.id) } }, h('div', { className: 'item-main' }, this.describe(a)), del);
    });
    if (!this.channels.length) items.push(h('li', { className: 'empty' }, 'Add a notification channel under Account first.'));
    else if (!items.length) items.push(h('li', { className: 'empty' }, 'No alerts yet.'));
    replaceChildren(list, ...items);
    replaceChildren(byId('alert-channel'), ...this.channels.map((c) => h('option', { value: String(c.id) }, c.name || c.type)));
    this.fillChoices();
  }

  /** The place and device pickers (the group's places and devices change while shown). */
  fillChoices() {
    const key = JSON.stringify([this.hooks.places().map((p) => [p.id, p.name]), this.hooks.devices().map((d) => [d.deviceId, d.deviceName, d.displayName])]);
    if (key === this.choicesKey) return;
    this.choicesKey = key;
    const place = byId('alert-place'), device = byId('alert-device');
    const keepPlace = place.value, keepDevice = device.value;
    replaceChildren(place, h('option', { value: '' }, 'any of the group\u2019s places'),
      ...this.hooks.places().map((p) => h('option', { value: String(p.id) }, String(p.name || 'a place'))));
    replaceChildren(device, h('option', { value: '' }, 'anyone'),
      ...this.hooks.devices().map((d) => h('option', { value: d.deviceId }, d.deviceName + ' \u2013 ' + d.displayName)));
    place.value = Array.from(place.options).some((o) => o.value === keepPlace) ? keepPlace : '';
    device.value = Array.from(device.options).some((o) => o.value === keepDevice) ? keepDevice : '';
  }

  async act(fn) {
    try { await fn(); } catch (e) { replaceChildren(byId('alerts'), h('li', { className: 'error' }, e.message)); return; }
    await this.load();
  }

  add() {
    const events = [];
    if (byId('alert-enter').checked) events.push('enter');
    if (byId('alert-exit').checked) events.push('exit');
    if (!events.length) return;
    const body = { channelId: byId('alert-channel').value, events };
    if (byId('alert-place').value) body.placeId = byId('alert-place').value;
    if (byId('alert-device').value) body.deviceId = byId('alert-device').value;
    this.act(() => this.api.createAlert(this.hooks.groupId(), body));
  }
}
