/*
 * Find Our Devices web app: what the signed-in user has — the profile, groups and invitations
 * of GET /v1/me and the phones of GET /v1/devices — read together and shared by the panels.
 * Ids are kept as strings. Listeners hear every refresh.
 */

function text(v, fallback) { return typeof v === 'string' && v ? v : fallback; }

export class Account {
  constructor(api) {
    this.api = api;
    this.clear();
    this.listeners = new Set();
  }

  clear() {
    this.me = null;          // {id, email, displayName, isAdmin, mustChangePassword}
    this.groups = [];        // [{groupId, groupName, deviceId, isOwner, shareLocation}]
    this.invitations = [];   // [{groupId, groupName, senderEmail}]
    this.devices = [];       // [{id, name, lastLocation, lastSeenAt, battery, receiveGroupLocations, ...}]
    this.gen = (this.gen || 0) + 1;
  }

  /** Calls `fn(account)` after every refresh. */
  onChange(fn) { this.listeners.add(fn); }

  get signedIn() { return !!this.me; }
  get meId() { return this.me ? this.me.id : null; }

  group(id) { return this.groups.find((g) => g.groupId === id) || null; }
  device(id) { return this.devices.find((d) => d.id === id) || null; }
  /** A name for one of my devices (the id when unknown). */
  deviceName(id) { const d = this.device(id); return d ? d.name : String(id || ''); }

  /** Reads /v1/me and /v1/devices; rejects with the ApiError of either (401: signed out). */
  async refresh() {
    const gen = this.gen;
    const [me, list] = await Promise.all([this.api.me(), this.api.devices()]);
    if (gen !== this.gen) return this;
    const m = me || {};
    this.me = { id: m.id == null ? null : String(m.id), email: text(m.email, ''), displayName: text(m.displayName, ''), isAdmin: m.isAdmin === true,
      mustChangePassword: m.mustChangePassword === true };
    this.groups = (Array.isArray(m.groups) ? m.groups : []).filter((g) => g && g.groupId != null).map((g) => ({
      groupId: String(g.groupId), groupName: text(g.groupName, String(g.groupId)), deviceId: g.deviceId == null ? null : String(g.deviceId),
      isOwner: g.isOwner === true, shareLocation: g.shareLocation !== false,
    }));
    this.invitations = (Array.isArray(m.invitations) ? m.invitations : []).filter((i) => i && i.groupId != null).map((i) => ({
      groupId: String(i.groupId), groupName: text(i.groupName, 'a group'), senderEmail: text(i.senderEmail, ''),
    }));
    const devs = list && Array.isArray(list.devices) ? list.devices : (Array.isArray(m.devices) ? m.devices : []);
    this.devices = devs.filter((d) => d && d.id != null).map((d) => Object.assign({}, d, { id: String(d.id), name: text(d.name, String(d.id)) }));
    for (const fn of this.listeners) fn(this);
    return this;
  }
}
