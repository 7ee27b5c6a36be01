/*
 * Find Our Devices web map: the SVG map's projection and path building. Web Mercator onto a
 * square "world" of WORLD x WORLD units (x east, y south), latitudes clamped to ±85.05°.
 * Pure functions, except `el`, which creates SVG elements.
 */
import { clamp, MAX_LAT, unwrapLons } from './geo.js';

const NS = 'http://www.w3.org/2000/svg';
export const WORLD = 1024;
export const TILE = 256;               // zoom z means a world of TILE * 2^z pixels

/** World x of a longitude (degrees). */
export function lonToX(lon) { return (lon + 180) / 360 * WORLD; }
/** World y of a latitude (degrees), clamped to the Web-Mercator limit. */
export function latToY(lat) {
  const s = Math.sin(clamp(lat, -MAX_LAT, MAX_LAT) * Math.PI / 180);
  return (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * WORLD;
}
export function yToLat(y) {
  const n = Math.PI - 2 * Math.PI * y / WORLD;
  return 180 / Math.PI * Math.atan(Math.sinh(n));
}
/** Screen pixels per world unit at tile zoom `z`. */
export function kOfZoom(z) { return TILE * Math.pow(2, z) / WORLD; }
/** Rounds to hundredths (pixel coordinates written to attributes). */
export function r2(v) { return Math.round(v * 100) / 100; }

/** An SVG element with attributes (values set as attribute text, never parsed as markup). */
export function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

/**
 * Path data (world units) for one GeoJSON Polygon's rings; holes are cut by evenodd. Rounded to
 * 1e-6 world units (about 4 cm at the equator): street-scale shorelines and places stay exact.
 */
export function ringsPath(rings) {
  let d = '';
  for (const ring of rings) {
    if (!Array.isArray(ring) || ring.length < 3) continue;
    const lons = unwrapLons(ring.map((p) => p[0])); // a ring crossing ±180 stays whole
    for (let i = 0; i < ring.length; i++) {
      const x = lonToX(lons[i]), y = latToY(ring[i][1]);
      d += (i ? 'L' : 'M') + (Math.round(x * 1e6) / 1e6) + ' ' + (Math.round(y * 1e6) / 1e6);
    }
    d += 'Z';
  }
  return d;
}

export function geometryPath(g) {
  if (!g) return '';
  switch (g.type) {
    case 'Polygon': return ringsPath(g.coordinates || []);
    case 'MultiPolygon': return (g.coordinates || []).map(ringsPath).join('');
    case 'GeometryCollection': return (g.geometries || []).map(geometryPath).join('');
    default: return '';
  }
}

/** Meridians every 30° and parallels every 30° up to ±60°, in world units. */
export function graticulePath() {
  let d = '';
  for (let lon = -180; lon <= 180; lon += 30) d += 'M' + lonToX(lon) + ' ' + latToY(MAX_LAT) + 'V' + latToY(-MAX_LAT);
  for (let lat = -60; lat <= 60; lat += 30) d += 'M0 ' + latToY(lat) + 'H' + WORLD;
  return d;
}
