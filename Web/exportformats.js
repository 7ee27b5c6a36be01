/*
 * Find Our Devices web app: the download formats the server has no endpoint for, made in the
 * browser from one it has — CSV from an NDJSON export (a device's: every fix, every field), and
 * GPX from a group's GeoJSON tracks (a track per device). Pure.
 */
const CSV_FIELDS = ['deviceId', 'longitude', 'latitude', 'timestamp', 'accuracy', 'altitude', 'speed', 'heading', 'battery', 'id'];

/** A CSV field: quoted when it holds a comma, quote or line break (RFC 4180). */
export function csvField(v) {
  if (v == null) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

/** NDJSON export text → CSV text with a header line (deviceId empty for a device's own export). */
export function ndjsonToCSV(text) {
  const rows = [CSV_FIELDS.join(',')];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let f;
    try { f = JSON.parse(line); } catch (_) { continue; }
    const loc = Array.isArray(f.location) ? f.location : [];
    const row = { deviceId: f.deviceId, longitude: loc[0], latitude: loc[1], timestamp: f.timestamp, accuracy: f.accuracy,
      altitude: f.altitude, speed: f.speed, heading: f.heading, battery: f.battery, id: f.id };
    rows.push(CSV_FIELDS.map((k) => csvField(row[k])).join(','));
  }
  return rows.join('\r\n') + '\r\n';
}

/** Text as XML character data (and attribute values). */
export function xmlText(s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * A group's GeoJSON export with tracks → GPX 1.1: one <trk> per track feature (named after its
 * device), a <trkseg> per line, <time> from `coordTimes` where given.
 */
export function geojsonToGPX(fc, creator) {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>',
    '<gpx version="1.1" creator="' + xmlText(creator || 'Find Our Devices') + '" xmlns="http://www.topografix.com/GPX/1/1">'];
  for (const f of (fc && Array.isArray(fc.features) ? fc.features : [])) {
    const g = f && f.geometry, p = (f && f.properties) || {};
    if (!g || (g.type !== 'LineString' && g.type !== 'MultiLineString')) continue;
    const lines = g.type === 'LineString' ? [g.coordinates] : g.coordinates;
    const times = g.type === 'LineString' ? [p.coordTimes] : (p.coordTimes || []);
    out.push('  <trk><name>' + xmlText(p.deviceName || p.deviceId || 'track') + '</name>');
    lines.forEach((line, i) => {
      out.push('    <trkseg>');
      (line || []).forEach((c, j) => {
        if (!Array.isArray(c) || c.length < 2) return;
        const t = times[i] && times[i][j];
        out.push('      <trkpt lat="' + Number(c[1]) + '" lon="' + Number(c[0]) + '">' + (t ? '<time>' + xmlText(t) + '</time>' : '') + '</trkpt>');
      });
      out.push('    </trkseg>');
    });
    out.push('  </trk>');
  }
  out.push('</gpx>');
  return out.join('\n') + '\n';
}

/** [lon, lat] lines of a GeoJSON export's tracks and lone fixes (for drawing a range). */
export function geojsonLines(fc) {
  const lines = [];
  for (const f of (fc && Array.isArray(fc.features) ? fc.features : [])) {
    const g = f && f.geometry;
    if (!g) continue;
    if (g.type === 'LineString') lines.push(g.coordinates);
    else if (g.type === 'MultiLineString') lines.push(...g.coordinates);
    else if (g.type === 'Point' && f.properties && f.properties.kind === 'fix') lines.push([g.coordinates]);
  }
  return lines.map((l) => (l || []).filter((c) => Array.isArray(c) && c.length >= 2 && isFinite(c[0]) && isFinite(c[1]))).filter((l) => l.length);
}
