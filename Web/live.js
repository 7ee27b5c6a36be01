/*
 * Find Our Devices web map: one live feed (Server-Sent Events, API.md "Live feed and changes").
 *
 * Resuming: the browser reconnects a dropped EventSource by itself and sends Last-Event-ID. The
 * feed also keeps the id of the last event it received, so that when it has to open a new
 * EventSource — the browser gave up after an HTTP error answer, or the server ended the stream
 * with `resync` — it asks for `lastEventId` and gets exactly the events it missed (or a fresh
 * `snapshot` when they are too old). No page state here: the group map and a share-link page
 * each give their URL and handlers.
 *
 * Invariant: after close() no handler is called again.
 */
import { readJSON } from './api.js';

const RECONNECT_FIRST_MS = 1000;
const RECONNECT_MAX_MS = 30000;
/** A resync this long after the previous one resumes at once; sooner ones back off. */
const RESYNC_RESET_MS = 60000;

export class LiveFeed {
  /**
   * @param {object} options
   * @param {(lastEventId: ?string) => string} options.url the stream URL (null: from the start)
   * @param {Object<string, (data: any, id: string) => void>} options.events handlers by event
   *   name; `data` is the parsed JSON (events whose data is not JSON are dropped)
   * @param {(state: string) => void} [options.onState] 'connecting' | 'live' | 'reconnecting'
   * @param {() => Promise} [options.check] when the browser closed the stream after an HTTP
   *   error: resolves when the stream may be opened again, rejects with an ApiError otherwise
   * @param {(error: Error) => void} [options.onEnd] the feed stopped for good: `check` failed
   *   with 401 (signed out) or 403/404 (no longer allowed)
   */
  constructor(options) {
    this.options = options;
    this.source = null;
    this.lastEventId = null;
    this.closed = false;
    this.timer = 0;
    this.delay = RECONNECT_FIRST_MS;
    this.lastResync = -Infinity;
    this.resyncDelay = 0;
  }

  start() {
    if (!this.closed && !this.source) this.open();
    return this;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = 0;
    if (this.source) { this.source.close(); this.source = null; }
  }

  /** @private */
  state(s) { if (!this.closed && this.options.onState) this.options.onState(s); }

  /** @private Opens a new EventSource, resuming after the last event received. */
  open() {
    if (this.source) this.source.close();
    const es = new EventSource(this.options.url(this.lastEventId));
    this.source = es;
    this.state('connecting');
    const current = () => !this.closed && this.source === es;
    es.onopen = () => {
      if (!current()) return;
      this.delay = RECONNECT_FIRST_MS;
      this.state('live');
    };
    es.onerror = () => {
      if (!current()) return;
      this.state('reconnecting');
      if (es.readyState === EventSource.CLOSED) {
        // An answer that is not a stream (401, 403, 404, 429…): find out why before retrying.
        es.close();
        this.source = null;
        this.retryLater();
      }
    };
    for (const [name, handler] of Object.entries(this.options.events)) {
      es.addEventListener(name, (ev) => {
        if (!current()) return;
        if (ev.lastEventId) this.lastEventId = ev.lastEventId;
        const data = readJSON(ev.data);
        if (data != null) handler(data, ev.lastEventId);
      });
    }
    // The server fell behind us and ended the stream: resume at once rather than after
    // `retry:` — unless it keeps happening, then wait longer each time (1 s, 2 s, … 30 s).
    es.addEventListener('resync', () => { if (current()) this.resync(); });
  }

  /** @private */
  resync() {
    const now = Date.now();
    this.resyncDelay = now - this.lastResync > RESYNC_RESET_MS
      ? 0 : Math.min(RECONNECT_MAX_MS, Math.max(RECONNECT_FIRST_MS, this.resyncDelay * 2));
    this.lastResync = now;
    if (this.resyncDelay === 0) { this.open(); return; }
    if (this.source) { this.source.close(); this.source = null; }
    this.state('reconnecting');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = 0; if (!this.closed) this.open(); }, this.resyncDelay);
  }

  /** @private */
  retryLater() {
    clearTimeout(this.timer);
    const delay = this.delay;
    this.delay = Math.min(RECONNECT_MAX_MS, this.delay * 2);
    this.timer = setTimeout(async () => {
      this.timer = 0;
      if (this.closed) return;
      try {
        if (this.options.check) await this.options.check();
      } catch (e) {
        if (this.closed) return;
        if (e && (e.unauthenticated || e.gone)) {
          this.close();
          if (this.options.onEnd) this.options.onEnd(e);
          return;
        }
        this.retryLater();
        return;
      }
      if (!this.closed) this.open();
    }, delay);
  }
}
