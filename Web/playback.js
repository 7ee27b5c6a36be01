/*
 * Find Our Devices web app: playing a day back. A track is the day's fixes oldest first,
 * {times: [epoch ms], coords: [[lon, lat]]}; the slider's time gives a position between the two
 * fixes around it (linear in time) and the part of the track already travelled. Pure.
 */

/** A track from `locations` of GET /v1/devices/{id}/locations (valid fixes only, sorted by time). */
export function trackOf(locations) {
  const fixes = (locations || [])
    .map((l) => ({ t: Date.parse(l && l.timestamp), c: l && l.location }))
    .filter((f) => isFinite(f.t) && Array.isArray(f.c) && f.c.length >= 2 && isFinite(f.c[0]) && isFinite(f.c[1]))
    .sort((a, b) => a.t - b.t);
  return { times: fixes.map((f) => f.t), coords: fixes.map((f) => [f.c[0], f.c[1]]) };
}

/** The index of the last fix at or before `t` (-1 before the first). */
export function indexAt(track, t) {
  let lo = 0, hi = track.times.length - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (track.times[mid] <= t) { found = mid; lo = mid + 1; } else hi = mid - 1;
  }
  return found;
}

/** [lon, lat] at time `t` (clamped to the track's span), or null for an empty track. */
export function positionAt(track, t) {
  const n = track.times.length;
  if (!n) return null;
  const i = indexAt(track, t);
  if (i < 0) return track.coords[0].slice();
  if (i >= n - 1) return track.coords[n - 1].slice();
  const t0 = track.times[i], t1 = track.times[i + 1];
  const f = t1 > t0 ? (t - t0) / (t1 - t0) : 0;
  const a = track.coords[i], b = track.coords[i + 1];
  // The shorter way round in longitude (a step over the antimeridian), normalised back.
  let dLon = b[0] - a[0];
  if (dLon > 180) dLon -= 360; else if (dLon < -180) dLon += 360;
  let lon = a[0] + dLon * f;
  if (lon >= 180) lon -= 360; else if (lon < -180) lon += 360;
  return [lon, a[1] + (b[1] - a[1]) * f];
}

/** The fixes up to `t` and the position at `t`: the line already travelled. */
export function pathUntil(track, t) {
  const i = indexAt(track, t);
  const path = track.coords.slice(0, i + 1);
  const here = positionAt(track, t);
  if (here) path.push(here);
  return path;
}

/** The slider's time: `fraction` (0–1) of the way through the track. */
export function timeAt(track, fraction) {
  const n = track.times.length;
  if (!n) return null;
  const f = Math.min(1, Math.max(0, fraction));
  return track.times[0] + (track.times[n - 1] - track.times[0]) * f;
}
