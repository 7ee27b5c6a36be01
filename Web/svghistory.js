/*
 * Find Our Devices web map: what the History panel draws on the SVG map — a day's timeline
 * (stays as dots, trips as lines), a track over a range of days, and the playback cursor with
 * the part of the day played — redrawn in screen pixels on every view change (`draw`).
 */
import { el, r2 } from './svgprojection.js';
import { timelineSegments } from './timelinegeometry.js';

export function createSvgHistory(layer) {
  let timeline = null; // [{type, coords, index}]
  let track = null;    // [[[lon, lat], ...], ...]
  let cursor = null;   // {at: [lon, lat], path: [[lon, lat], ...]}

  const polyline = (pts, cls, extra) => el('polyline', Object.assign({ class: cls, points: pts.map((p) => r2(p[0]) + ',' + r2(p[1])).join(' ') }, extra || {}), layer);

  return {
    setTimeline(features) { timeline = features ? timelineSegments(features) : null; },
    setTrack(lines) { track = lines ? lines.filter((l) => l.length) : null; },
    setCursor(lonLat, path) { cursor = lonLat ? { at: lonLat, path: path || [] } : null; },
    /** Every [lon, lat] of the timeline (for fitting). */
    timelinePoints() { return (timeline || []).flatMap((s) => s.coords); },
    trackPoints() { return (track || []).flat(); },

    /** Redraws; `line(coords)` gives screen points of a line, unwrapped, on the copy nearest the centre. */
    draw(line) {
      while (layer.firstChild) layer.removeChild(layer.firstChild);
      for (const l of track || []) {
        const pts = line(l);
        if (pts.length > 1) polyline(pts, 'history-track');
        else el('circle', { class: 'history-fix', r: 4, cx: r2(pts[0][0]), cy: r2(pts[0][1]) }, layer);
      }
      for (const seg of timeline || []) {
        if (!seg.coords.length) continue;
        const pts = line(seg.coords);
        if (seg.type === 'trip') polyline(pts, 'tl-trip-line', { 'data-index': String(seg.index) });
        else el('circle', { class: 'tl-stay-dot', r: 7, cx: r2(pts[0][0]), cy: r2(pts[0][1]), 'data-index': String(seg.index) }, layer);
      }
      if (cursor) {
        if (cursor.path.length > 1) polyline(line(cursor.path), 'playback-path');
        const p = line([cursor.at])[0];
        el('circle', { class: 'playback-cursor', r: 8, cx: r2(p[0]), cy: r2(p[1]), 'data-lon': String(cursor.at[0]), 'data-lat': String(cursor.at[1]) }, layer);
      }
    },
  };
}
