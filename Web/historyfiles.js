/*
 * Find Our Devices web app: downloads of the History panel — a device's or the whole group's
 * history over the chosen days as GeoJSON, GPX, CSV or NDJSON (README "Exports"). The exports
 * need the user's token, so they are fetched (with progress) and saved from a Blob; the two
 * formats the server has no endpoint for (a device's CSV, a group's GPX) are made here from one
 * it has (exportformats.js).
 */
import { byId } from './dom.js';
import { path, withQuery } from './api.js';
import { geojsonToGPX, ndjsonToCSV } from './exportformats.js';

/** The server request for a download: {url, convert?: (text) => text, type, ext}; null when the choice has none. */
export function exportRequest(scope, format, id, range) {
  const q = range ? { from: range.from, to: range.to } : {};
  if (scope === 'device') {
    switch (format) {
      case 'geojson': return { url: withQuery(path`/v1/devices/${id}/export.geojson`, q), type: 'application/geo+json', ext: 'geojson' };
      case 'gpx': return { url: withQuery(path`/v1/devices/${id}/export.gpx`, q), type: 'application/gpx+xml', ext: 'gpx' };
      case 'ndjson': return { url: withQuery(path`/v1/devices/${id}/export.ndjson`, q), type: 'application/x-ndjson', ext: 'ndjson' };
      case 'csv': return { url: withQuery(path`/v1/devices/${id}/export.ndjson`, q), convert: ndjsonToCSV, type: 'text/csv', ext: 'csv' };
      default: return null;
    }
  }
  switch (format) {
    case 'geojson': return { url: withQuery(path`/v1/groups/${id}/export.geojson`, Object.assign({ tracks: 'true' }, q)), type: 'application/geo+json', ext: 'geojson' };
    case 'ndjson': return { url: withQuery(path`/v1/groups/${id}/export.ndjson`, q), type: 'application/x-ndjson', ext: 'ndjson' };
    case 'csv': return { url: withQuery(path`/v1/groups/${id}/export.ndjson`, q), convert: ndjsonToCSV, type: 'text/csv', ext: 'csv' };
    case 'gpx': return { url: withQuery(path`/v1/groups/${id}/export.geojson`, Object.assign({ tracks: 'true' }, q)), convert: (t) => geojsonToGPX(JSON.parse(t)), type: 'application/gpx+xml', ext: 'gpx' };
    default: return null;
  }
}

/** Saves `blob` as a file named `name` (the browser's download). */
export function saveBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

export class HistoryDownloads {
  /** @param source {deviceId(), groupId(), range()} the panel's choices */
  constructor(api, source) {
    this.api = api;
    this.source = source;
    this.status = byId('export-status');
    byId('export-download').addEventListener('click', () => this.download());
  }

  async download() {
    const scope = byId('export-scope').value, format = byId('export-format').value;
    const id = scope === 'device' ? this.source.deviceId() : this.source.groupId();
    if (!id) { this.status.textContent = scope === 'device' ? 'Pick a device first.' : 'Open a group first.'; return; }
    const range = this.source.range();
    const req = exportRequest(scope, format, id, range);
    if (!req) return;
    const button = byId('export-download');
    button.disabled = true;
    this.status.textContent = 'Preparing\u2026';
    try {
      let blob = await this.api.blob(req.url, (bytes) => { this.status.textContent = 'Downloading\u2026 ' + Math.round(bytes / 1024) + ' KiB'; });
      if (req.convert) blob = new Blob([req.convert(await blob.text())], { type: req.type });
      const day = range ? range.from.slice(0, 10) + '_' + range.to.slice(0, 10) : 'all';
      const name = scope + '-' + id + '-' + day + '.' + req.ext;
      saveBlob(blob, name);
      this.status.textContent = 'Saved ' + name + ' (' + Math.max(1, Math.round(blob.size / 1024)) + ' KiB).';
      this.status.dataset.file = name;
    } catch (e) {
      this.status.textContent = e.message;
    } finally {
      button.disabled = false;
    }
  }
}
