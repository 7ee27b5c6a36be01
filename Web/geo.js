/*
 * Find Our Devices web map: small geometry and time helpers shared by the map renderers and the
 * pages. Pure functions, no DOM. Longitudes/latitudes are degrees (WGS84), GeoJSON order [lon, lat].
 */
/** Web-Mercator latitude limit (degrees): the square world of tile maps. */
export const MAX_LAT = 85.0511287798;

export function clamp(v, lo, hi) { return v < lo ? lo : v > hi ? hi : v; }

/** Normalises a longitude into [-180, 180). */
export function normLon(lon) {
  const l = ((lon + 180) % 360 + 360) % 360 - 180;
  return l;
}

/** True when `p` is a finite [lon, lat] pair inside the usual bounds. */
export function validLonLat(p) {
  return Array.isArray(p) && p.length >= 2 &&
    typeof p[0] === 'number' && typeof p[1] === 'number' &&
    isFinite(p[0]) && isFinite(p[1]) &&
    p[0] >= -180 && p[0] <= 180 && p[1] >= -90 && p[1] <= 90;
}

/**
 * Unwraps a sequence of longitudes so that consecutive values never jump by more than
 * 180 degrees (a track crossing the antimeridian continues past ±180 instead of
 * streaking across the whole map). Returns a new array of longitudes.
 */
export function unwrapLons(lons) {
  const out = new Array(lons.length);
  if (!lons.length) return out;
  out[0] = lons[0];
  for (let i = 1; i < lons.length; i++) {
    let d = lons[i] - lons[i - 1];
    d = ((d + 540) % 360 + 360) % 360 - 180; // shortest signed difference
    out[i] = out[i - 1] + d;
  }
  return out;
}

/**
 * The smallest arc of longitudes holding every point, so that a set of points on both
 * sides of the antimeridian (e.g. Fiji at 179 and -179) fits as a small window.
 * Returns {west, span}: the arc runs from `west` eastwards over `span` degrees
 * (west + span may exceed 180). For no points returns null.
 */
export function lonArc(lons) {
  if (!lons.length) return null;
  const s = lons.map(normLon).sort((a, b) => a - b);
  let bestGap = s[0] + 360 - s[s.length - 1]; // the gap across the antimeridian
  let west = s[0];
  for (let i = 1; i < s.length; i++) {
    const gap = s[i] - s[i - 1];
    if (gap > bestGap) { bestGap = gap; west = s[i]; }
  }
  return { west: west, span: Math.max(0, 360 - bestGap) };
}

/**
 * Splits a trail of n points into `chunks` consecutive runs (sharing their end points)
 * so that each run can be drawn with its own opacity: oldest faint, newest strong.
 * Returns [{from, to, opacity}] with inclusive point indices; runs of one point are skipped.
 */
export function trailChunks(n, chunks) {
  const out = [];
  const segs = n - 1;
  if (segs < 1) return out;
  for (let c = 0; c < chunks; c++) {
    const from = Math.floor(c * segs / chunks);
    const to = Math.floor((c + 1) * segs / chunks);
    if (to > from) out.push({ chunk: c, from: from, to: to, opacity: 0.12 + 0.6 * (c + 1) / chunks });
  }
  return out;
}

/** Human age of a fix: "12 s ago", "5 min ago", "3 h ago", "2 d ago". */
export function ageText(ms) {
  if (ms == null || !isFinite(ms)) return '';
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return s + ' s ago';
  const m = Math.floor(s / 60);
  if (m < 60) return m + ' min ago';
  const h = Math.floor(m / 60);
  if (h < 48) return h + ' h ago';
  return Math.floor(h / 24) + ' d ago';
}

/** Parses an RFC 3339 string or epoch seconds/milliseconds to epoch milliseconds, or null. */
export function parseTime(t) {
  if (t == null) return null;
  if (typeof t === 'number') return t < 1e11 ? t * 1000 : t;
  if (typeof t === 'string' && /^\d+(\.\d+)?$/.test(t)) return parseTime(Number(t));
  const v = Date.parse(t);
  return isNaN(v) ? null : v;
}
