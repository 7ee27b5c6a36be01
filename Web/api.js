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
    const r = await this.request('POST', '/v1/sessions', { email, password }, { token: null });
    if (!r || typeof r.token !== 'string' || !r.token) throw new ApiError(0, 'bad_response', 'The server sent an unexpected answer.');
    return r;
  }

  /** DELETE /v1/sessions/current with `token` (the one being signed out). */
  signOut(token) { return this.request('DELETE', '/v1/sessions/current', undefined, { token }); }

  /** GET /v1/me. */
  me() { return this.get('/v1/me'); }

  /** GET /v1/groups/{id}: the group document (members with their latest locations). */
  group(id) { return this.get(path`/v1/groups/${id}`); }

  /** GET /v1/groups/{id}/places: {places: [{id, name, geometry, radius?, inside, ...}]}. */
  places(groupId) { return this.get(path`/v1/groups/${groupId}/places`); }

  /** POST /v1/groups/{id}/places with {name, geometry, radius?}. */
  createPlace(groupId, body) { return this.request('POST', path`/v1/groups/${groupId}/places`, body); }

  /** DELETE /v1/groups/{id}/places/{placeId}. */
  deletePlace(groupId, placeId) { return this.request('DELETE', path`/v1/groups/${groupId}/places/${placeId}`); }

  /** The URL of a group's live feed; EventSource cannot send headers, so the token is a query argument. */
  groupLiveURL(id, lastEventId) {
    return withQuery(path`/v1/groups/${id}/live`, { token: this.token(), lastEventId });
  }
}
