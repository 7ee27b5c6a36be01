/*
 * Find Our Devices web map: place (geofence) shapes as rings of [lon, lat] for drawing, and the
 * GeoJSON bodies the API takes (API.md, "Places (geofences) and arrivals"). Pure functions.
 * Distances on the sphere of radius 6,378,100 m, as the server measures them.
 */
const EARTH_RADIUS_M = 6378100;
const RAD = Math.PI / 180;

/** A closed ring of `n` + 1 positions [lon, lat] around a circle of `radius` meters. */
export function circleRing(lon, lat, radius, n = 72) {
  const d = radius / EARTH_RADIUS_M, phi1 = lat * RAD, lambda1 = lon * RAD;
  const ring = [];
  for (let i = 0; i <= n; i++) {
    const theta = (i % n) / n * 2 * Math.PI;
    const phi2 = Math.asin(Math.sin(phi1) * Math.cos(d) + Math.cos(phi1) * Math.sin(d) * Math.cos(theta));
    const lambda2 = lambda1 + Math.atan2(Math.sin(theta) * Math.sin(d) * Math.cos(phi1), Math.cos(d) - Math.sin(phi1) * Math.sin(phi2));
    ring.push([lambda2 / RAD, phi2 / RAD]);
  }
  return ring;
}

/** The rings to draw for a place document ({geometry, radius?}); [] for anything else. */
export function placeRings(place) {
  const g = place && place.geometry;
  if (!g || !Array.isArray(g.coordinates)) return [];
  if (g.type === 'Point' && typeof place.radius === 'number') {
    const [lon, lat] = g.coordinates;
    return Number.isFinite(lon) && Number.isFinite(lat) ? [circleRing(lon, lat, place.radius)] : [];
  }
  if (g.type === 'Polygon') return g.coordinates.filter((r) => Array.isArray(r) && r.length >= 4);
  return [];
}

/** A draft being drawn: {kind: 'circle', center?, radius} or {kind: 'polygon', vertices: [...]}. */
export function draftRings(draft) {
  if (!draft) return [];
  if (draft.kind === 'circle') return draft.center ? [circleRing(draft.center[0], draft.center[1], draft.radius)] : [];
  const v = draft.vertices || [];
  return v.length >= 2 ? [v.concat([v[0]])] : [];
}

/** The body of POST /v1/groups/{id}/places for a finished draft, or null when not finished. */
export function draftBody(name, draft) {
  if (!draft || !name) return null;
  if (draft.kind === 'circle') {
    return draft.center ? { name, geometry: { type: 'Point', coordinates: draft.center }, radius: draft.radius } : null;
  }
  const v = draft.vertices || [];
  return v.length >= 3 ? { name, geometry: { type: 'Polygon', coordinates: [v.concat([v[0]])] } } : null;
}
