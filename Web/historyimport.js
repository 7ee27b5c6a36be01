/*
 * Find Our Devices web app: bringing a history file (Google Takeout, the phone's Timeline, GPX,
 * GeoJSON, CSV, OwnTracks Recorder, NDJSON) into one of my phones from the browser. The owner
 * asks for a one-time import token (POST /v1/devices/{id}/import-tokens: one import, within an
 * hour) and sends the file with it to POST /v1/devices/{id}/import, with the upload's progress
 * shown; the server's counts are said when it is done.
 */
import { byId, h, replaceChildren } from './dom.js';
import { ApiError, path, readJSON } from './api.js';

/** The server's import reply in words. */
export function importSummary(r) {
  if (!r || typeof r !== 'object') return 'Imported.';
  const n = (v) => (typeof v === 'number' ? v : 0);
  const parts = [n(r.accepted) + ' new position' + (n(r.accepted) === 1 ? '' : 's')];
  if (n(r.duplicates)) parts.push(n(r.duplicates) + ' already there');
  const rejected = Array.isArray(r.rejected) ? r.rejected.length : n(r.rejected);
  if (rejected) parts.push(rejected + ' not usable');
  let text = 'Imported ' + parts.join(', ') + (r.format ? ' (' + r.format + ').' : '.');
  if (r.stopped && r.stopped.message) text += ' The file stopped being readable: ' + r.stopped.message;
  return text;
}

/** POSTs `file` with `token`; resolves to the reply, telling `onProgress(fraction)` as it goes up. */
export function uploadFile(url, token, file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('Authorization', 'Bearer ' + token);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.addEventListener('progress', (e) => { if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total); });
    xhr.addEventListener('load', () => {
      const data = readJSON(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300) { resolve(data); return; }
      const e = (data && data.error) || {};
      reject(new ApiError(xhr.status, e.code || 'http_' + xhr.status, e.message || 'The import failed (HTTP ' + xhr.status + ').'));
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, 'network', 'The upload was interrupted. Check your connection and try again.')));
    xhr.send(file);
  });
}

export class HistoryImport {
  /** @param hooks {onImported(deviceId)} */
  constructor(api, account, hooks) {
    this.api = api;
    this.account = account;
    this.hooks = hooks;
    this.status = byId('import-status');
    this.progress = byId('import-progress');
    byId('import-start').addEventListener('click', () => this.start());
  }

  fillDevices() {
    const sel = byId('import-device');
    const keep = sel.value;
    replaceChildren(sel, ...this.account.devices.map((d) => h('option', { value: d.id }, d.name)));
    if (this.account.devices.some((d) => d.id === keep)) sel.value = keep;
    sel.disabled = byId('import-start').disabled = !this.account.devices.length;
  }

  say(text, state) {
    this.status.textContent = text;
    this.status.dataset.state = state;
  }

  async start() {
    const deviceId = byId('import-device').value;
    const file = byId('import-file').files[0];
    if (!deviceId) { this.say('Add a phone first: a history goes into one of your phones.', 'error'); return; }
    if (!file) { this.say('Choose a file first.', 'error'); return; }
    const button = byId('import-start');
    button.disabled = true;
    this.progress.hidden = false;
    this.progress.value = 0;
    this.say('Starting\u2026', 'running');
    try {
      let grant;
      try { grant = await this.api.importToken(deviceId); } catch (e) {
        if (e.status === 404 || e.status === 405) throw new ApiError(e.status, e.code, 'This server cannot take history files from the browser (no import tokens). Use fod import on the server.');
        throw e;
      }
      const reply = await uploadFile(path`/v1/devices/${deviceId}/import`, grant.token, file, (f) => {
        this.progress.value = f;
        this.say('Sending ' + file.name + '\u2026 ' + Math.round(f * 100) + ' %', 'running');
      });
      this.progress.value = 1;
      this.say(importSummary(reply), 'done');
      this.status.dataset.accepted = String(reply && typeof reply.accepted === 'number' ? reply.accepted : 0);
      byId('import-file').value = '';
      this.hooks.onImported(deviceId);
    } catch (e) {
      this.say(e.message, 'error');
    } finally {
      button.disabled = false;
    }
  }
}
