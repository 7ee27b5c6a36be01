/*
 * Find Our Devices web map: the HTTP API client (docs: API.md). JSON in and out, the bearer
 * token when there is one, and every failure as an ApiError carrying the server's error shape
 * {"error": {"code", "message"}} (status 0 and code "network" when the server cannot be reached).
 * No DOM, no page state: the sign-in page, the group map and a share-link page all use it.
 */

/** A failed call: HTTP `status` (0 without an answer), the server's `code` and `message`. */
export class ApiError extends Error {
  constructor(status, code, message, retryAfter) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    /** The Retry-After header as sent (seconds or an HTTP date), or null. */
    this.retryAfter = retryAfter || null;
  }

  /** The credential is unknown, expired or revoked: sign in again. */
  get unauthenticated() { return this.status === 401; }
  /** The resource is gone for this caller (not found or no longer allowed). */
  get gone() { return this.status === 403 || this.status === 404; }
}

const DEFAULT_MESSAGES = {
  400: 'The request was not accepted.', 401: 'Please sign in again.', 403: 'You are not allowed to see this.',
  404: 'Not found.', 429: 'Too many requests.', 500: 'The server had a problem.', 503: 'The server is busy.',
};

/** Parses JSON text, null when empty or malformed. */
export function readJSON(text) {
  try { return text ? JSON.parse(text) : null; } catch (_) { return null; }
}

/**
 * A path with every interpolated value percent-encoded as one segment:
 * path`/v1/groups/${id}/live` never lets an id add segments or a query.
 */
export function path(strings, ...values) {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += encodeURIComponent(String(values[i])) + strings[i + 1];
  return out;
}

/** `base` with the query arguments whose value is not null/undefined appended. */
export function withQuery(base, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v != null) q.set(k, String(v));
  const s = q.toString();
  return s ? base + (base.includes('?') ? '&' : '?') + s : base;
}

/** Seconds to wait from a Retry-After value (delta seconds or an HTTP date); 0 when absent. */
export function retryAfterSeconds(value) {
  if (!value) return 0;
  if (/^\d+$/.test(value.trim())) return parseInt(value, 10);
  const t = Date.parse(value);
  return isNaN(t) ? 0 : Math.max(0, Math.ceil((t - Date.now()) / 1000));
}

export class ApiClient {
  /** @param {() => (string|null)} token the current user token, read at each call (none: anonymous). */
  constructor(token) {
    this.token = token || (() => null);
  }

  /**
   * One call. `body` (any JSON value) is sent as JSON when not undefined. `options.token`
   * overrides the current token (null: send none). Resolves to the parsed JSON answer (null for
   * 204 or an empty body); rejects with an ApiError.
   */
  async request(method, url, body, options) {
    const headers = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const token = options && options.token !== undefined ? options.token : this.token();
    if (token) headers.Authorization = 'Bearer ' + token;
    let res;
    try {
      res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
    } catch (_) {
      throw new ApiError(0, 'network', 'Cannot reach the server. Check your connection and try again.');
    }
    const text = res.status === 204 ? '' : await res.text().catch(() => '');
    const data = readJSON(text);
    if (!res.ok) {
      const e = (data && data.error) || {};
      throw new ApiError(res.status, typeof e.code === 'string' ? e.code : 'http_' + res.status,
        typeof e.message === 'string' && e.message ? e.message : DEFAULT_MESSAGES[res.status] || ('Request failed (HTTP ' + res.status + ').'),
        res.headers.get('Retry-After'));
    }
    return data;
  }

  get(url) { return this.request('GET', url); }

  // ---- the calls the pages make ----------------------------------------------------------

  /** POST /v1/sessions: {token, user}. Sent without any current token. */
  async signIn(email, password) {
    return checkedSession(await this.request('POST', '/v1/sessions', { email, password }, { token: null }));
  }

  /** POST /v1/users {email, password, displayName, inviteCode?}: {token, user}. */
  async signUp(body) {
    return checkedSession(await this.request('POST', '/v1/users', body, { token: null }));
  }

  /** DELETE /v1/sessions/current with `token` (the one being signed out). */
  signOut(token) { return this.request('DELETE', '/v1/sessions/current', undefined, { token }); }

  /** GET /v1/server: {signup: "open" | "invite" | "closed", ...}; null when the server has none. */
  async server() {
    try { return await this.request('GET', '/v1/server', undefined, { token: null }); } catch (e) {
      if (e.status === 404 || e.status === 405) return null;
      throw e;
    }
  }

  // ---- the account -------------------------------------------------------------------------
  me() { return this.get('/v1/me'); }
  updateMe(body) { return this.request('PATCH', '/v1/me', body); }
  deleteMe() { return this.request('DELETE', '/v1/me'); }
  /** PUT /v1/me/password: every other session of the user ends. */
  changePassword(currentPassword, newPassword) { return this.request('PUT', '/v1/me/password', { currentPassword, newPassword }); }
  /** POST /v1/admin/invites (an administrator): {inviteCode, expiresAt}, usable once to sign up. */
  makeInviteCode() { return this.request('POST', '/v1/admin/invites', {}); }

  // ---- devices -----------------------------------------------------------------------------
  devices() { return this.get('/v1/devices'); }
  device(id) { return this.get(path`/v1/devices/${id}`); }
  /** POST /v1/devices: {device, deviceToken} (the token is shown this once). */
  addDevice(name) { return this.request('POST', '/v1/devices', { name }); }
  updateDevice(id, body) { return this.request('PATCH', path`/v1/devices/${id}`, body); }
  removeDevice(id) { return this.request('DELETE', path`/v1/devices/${id}`); }
  /** POST /v1/devices/{id}/token: {deviceToken}; the old token stops working at once. */
  rotateToken(id) { return this.request('POST', path`/v1/devices/${id}/token`); }
  /** POST /v1/devices/{id}/import-tokens: {token, expiresAt}, good for one import within an hour. */
  importToken(id) { return this.request('POST', path`/v1/devices/${id}/import-tokens`); }
  /** GET /v1/devices/{id}/rejections: {rejections: [{at, source, reason, message, sample, count}]}, newest first. */
  rejections(id) { return this.get(path`/v1/devices/${id}/rejections`); }
  locations(id, params) { return this.get(withQuery(path`/v1/devices/${id}/locations`, params)); }

  // ---- share links -------------------------------------------------------------------------
  shares(deviceId) { return this.get(path`/v1/devices/${deviceId}/shares`); }
  createShare(deviceId, body) { return this.request('POST', path`/v1/devices/${deviceId}/shares`, body); }
  renewShare(deviceId, shareId, expiresIn) { return this.request('POST', path`/v1/devices/${deviceId}/shares/${shareId}/renew`, { expiresIn }); }
  revokeShare(deviceId, shareId) { return this.request('DELETE', path`/v1/devices/${deviceId}/shares/${shareId}`); }

  // ---- groups ------------------------------------------------------------------------------
  /** GET /v1/groups/{id}: the group document (members with their latest locations). */
  group(id) { return this.get(path`/v1/groups/${id}`); }
  createGroup(name, deviceId) { return this.request('POST', '/v1/groups', { name, deviceId }); }
  /** PATCH /v1/groups/{id} {name} (owner): members get a `renamed` membership event. */
  renameGroup(id, name) { return this.request('PATCH', path`/v1/groups/${id}`, { name }); }
  deleteGroup(id) { return this.request('DELETE', path`/v1/groups/${id}`); }
  invite(groupId, email) { return this.request('POST', path`/v1/groups/${groupId}/invitations`, { email }); }
  acceptInvitation(groupId, deviceId) { return this.request('POST', path`/v1/invitations/${groupId}/accept`, { deviceId }); }
  declineInvitation(groupId) { return this.request('POST', path`/v1/invitations/${groupId}/decline`); }
  /** The owner removing a member, or a member leaving (own id). */
  removeMember(groupId, userId) { return this.request('DELETE', path`/v1/groups/${groupId}/members/${userId}`); }
  transferOwnership(groupId, userId) { return this.request('POST', path`/v1/groups/${groupId}/owner`, { userId }); }
  setSharing(groupId, shareLocation) { return this.request('PUT', path`/v1/groups/${groupId}/sharing`, { shareLocation }); }

  // ---- places and alerts -------------------------------------------------------------------
  /** GET /v1/groups/{id}/places: {places: [{id, name, geometry, radius?, inside, ...}]}. */
  places(groupId) { return this.get(path`/v1/groups/${groupId}/places`); }
  createPlace(groupId, body) { return this.request('POST', path`/v1/groups/${groupId}/places`, body); }
  deletePlace(groupId, placeId) { return this.request('DELETE', path`/v1/groups/${groupId}/places/${placeId}`); }
  alerts(groupId) { return this.get(path`/v1/groups/${groupId}/alerts`); }
  createAlert(groupId, body) { return this.request('POST', path`/v1/groups/${groupId}/alerts`, body); }
  deleteAlert(groupId, alertId) { return this.request('DELETE', path`/v1/groups/${groupId}/alerts/${alertId}`); }
  channels() { return this.get('/v1/me/channels'); }
  createChannel(body) { return this.request('POST', '/v1/me/channels', body); }
  updateChannel(id, body) { return this.request('PATCH', path`/v1/me/channels/${id}`, body); }
  deleteChannel(id) { return this.request('DELETE', path`/v1/me/channels/${id}`); }
  testChannel(id) { return this.request('POST', path`/v1/me/channels/${id}/test`); }

  /** The URL of a group's live feed; EventSource cannot send headers, so the token is a query argument. */
  groupLiveURL(id, lastEventId) {
    return withQuery(path`/v1/groups/${id}/live`, { token: this.token(), lastEventId });
  }

  /**
   * GET `url` with the token as a Blob (exports): rejects with an ApiError like `request`.
   * `onProgress(bytes)` is told as the body arrives.
   */
  async blob(url, onProgress) {
    let res;
    try {
      res = await fetch(url, { headers: { Authorization: 'Bearer ' + this.token() }, cache: 'no-store' });
    } catch (_) {
      throw new ApiError(0, 'network', 'Cannot reach the server. Check your connection and try again.');
    }
    if (!res.ok) {
      const e = (readJSON(await res.text().catch(() => '')) || {}).error || {};
      throw new ApiError(res.status, e.code || 'http_' + res.status, e.message || DEFAULT_MESSAGES[res.status] || 'HTTP ' + res.status);
    }
    if (!onProgress || !res.body) return res.blob();
    const reader = res.body.getReader(), parts = [];
    let bytes = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      bytes += value.length;
      onProgress(bytes);
    }
    return new Blob(parts, { type: res.headers.get('Content-Type') || 'application/octet-stream' });
  }
}

function checkedSession(r) {
  if (!r || typeof r.token !== 'string' || !r.token) throw new ApiError(0, 'bad_response', 'The server sent an unexpected answer.');
  return r;
}
