/*
 * Find Our Devices web map: the device list beside the map (#devices, with its filter and
 * count) and the "Show" picker (#device). Rows carry data-device-id; names are text nodes.
 */
import { byId, h } from './dom.js';
import { statusText } from './state.js';

export class DeviceList {
  constructor() {
    this.ul = byId('devices');
    this.select = byId('device');
    this.count = byId('device-count');
    this.filter = byId('device-filter');
    this.rows = new Map(); // deviceId -> {li, btn, age, ageText, device}
    this.filter.addEventListener('input', () => this.applyFilter());
  }

  /** Clicks on a row of a located device: `handler(deviceId)`. */
  onPick(handler) {
    this.ul.addEventListener('click', (e) => {
      const li = e.target.closest('li[data-device-id]');
      if (li) handler(li.dataset.deviceId);
    });
  }

  /**
   * Shows `devices` (in display order) in the list and the picker. `meId` marks the user's own
   * devices; `emptyText` is shown when there are none (null: nothing). A row whose texts did not
   * change is kept as it is (a group document arrives again after every membership change; a
   * rebuild of hundreds of rows each time would hold the page up).
   */
  render(devices, { focus, meId, emptyText, now }) {
    const rows = new Map();
    const frag = document.createDocumentFragment();
    for (const d of devices) {
      const member = d.displayName + (meId != null && d.userId === meId ? ' (you)' : '');
      const key = [d.deviceName, member, d.color, d.located].join('\u0000');
      let row = this.rows.get(d.deviceId);
      if (!row || row.key !== key) row = this.row(d, member, key, now);
      row.device = d;
      const on = d.deviceId === focus;
      row.li.classList.toggle('focused', on);
      row.btn.setAttribute('aria-pressed', on ? 'true' : 'false');
      row.btn.title = d.located ? d.deviceName + ' \u2013 ' + d.displayName + ': ' + d.lat.toFixed(5) + ', ' + d.lon.toFixed(5) : '';
      frag.appendChild(row.li);
      rows.set(d.deviceId, row);
      this.refreshRowAge(row, now);
    }
    this.rows = rows;
    this.ul.textContent = '';
    if (!devices.length && emptyText) frag.appendChild(h('li', { className: 'empty' }, emptyText));
    this.ul.appendChild(frag);
    this.applyFilter();
    this.fillSelect(devices, focus, now);
    const located = devices.filter((d) => d.located).length;
    this.count.textContent = devices.length ? '(' + located + ' of ' + devices.length + ' on the map)' : '';
  }

  /** @private A new row for `d`. */
  row(d, member, key, now) {
    const age = h('span', { className: 'dev-age' }, statusText(d, now));
    const btn = h('button', { type: 'button', className: 'device-btn' },
      h('span', { className: 'swatch', style: { background: d.color }, attrs: { 'aria-hidden': 'true' } }),
      h('span', { className: 'dev-name' }, d.deviceName), ' ',
      h('span', { className: 'dev-member' }, member), ' ',
      age); // the spaces make textContent readable; the grid ignores them
    const li = h('li', { className: 'device' + (d.located ? '' : ' no-fix'), dataset: { deviceId: d.deviceId } }, btn);
    return { li, btn, age, ageText: age.textContent, device: d, key };
  }

  /** @private The picker, rebuilt only when its choices changed. */
  fillSelect(devices, focus, now) {
    const labels = devices.map((d) => [d.deviceId, d.located, d.deviceName + ' \u2013 ' + d.displayName + (d.located ? '' : ' (' + statusText(d, now) + ')')]);
    const key = JSON.stringify(labels);
    if (key !== this.selectKey) {
      this.selectKey = key;
      this.select.textContent = '';
      this.select.appendChild(h('option', { value: '' }, 'All devices'));
      for (const [id, located, label] of labels) this.select.appendChild(h('option', { value: id, disabled: !located }, label));
    }
    this.select.value = focus || '';
  }

  /** Hides the rows that do not match the filter text (device or member name). */
  applyFilter() {
    const q = this.filter.value.trim().toLowerCase();
    for (const row of this.rows.values()) {
      const d = row.device;
      row.li.hidden = !!q && !(d.deviceName.toLowerCase().includes(q) || d.displayName.toLowerCase().includes(q));
    }
  }

  /** Refreshes the age shown for `d` (cheap: only when its text changed). */
  refreshAge(d, now) {
    const row = this.rows.get(d.deviceId);
    if (row) this.refreshRowAge(row, now);
  }

  /** @private */
  refreshRowAge(row, now) {
    const t = statusText(row.device, now);
    if (t !== row.ageText) { row.age.textContent = t; row.ageText = t; }
  }

  /** Marks the focused row and scrolls it into view. */
  setFocus(id) {
    for (const [did, row] of this.rows) {
      const on = did === id;
      row.li.classList.toggle('focused', on);
      row.btn.setAttribute('aria-pressed', on ? 'true' : 'false');
    }
    this.select.value = id || '';
    const row = id && this.rows.get(id);
    if (row && row.li.scrollIntoView) row.li.scrollIntoView({ block: 'nearest' });
  }
}
