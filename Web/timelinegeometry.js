/*
 * Find Our Devices web map: the timeline's GeoJSON (GET /v1/devices/{id}/export.geojson?
 * timeline=true) as segments both renderers draw. Pure.
 */
import { validLonLat } from './geo.js';

/** Timeline features as {type: 'stay' | 'trip', coords: [[lon, lat], ...], index}, keeping only valid positions. */
export function timelineSegments(features) {
  return features.map((f, index) => {
    const g = f.geometry || {};
    const raw = g.type === 'LineString' ? g.coordinates : g.type === 'Point' ? [g.coordinates] : [];
    return { type: g.type === 'LineString' ? 'trip' : 'stay', coords: (Array.isArray(raw) ? raw : []).filter(validLonLat), index };
  });
}
