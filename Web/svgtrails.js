/*
 * Find Our Devices web map: a pin's trail on the SVG map, in screen pixels — its last positions
 * as a few polylines, oldest faint, newest strong (`strong`: all of them bold, the share page's),
 * unwrapped along the trail and anchored on the pin itself.
 */
import { trailChunks, unwrapLons } from './geo.js';
import { el, latToY, lonToX, r2 } from './svgprojection.js';

const TRAIL_CHUNKS = 4;

/**
 * Draws `it.dev.trail` for a pin drawn at `head` ([x, y] pixels) with `k` pixels per world unit;
 * creates the trail's elements in `layer` on first use (`it.trail`, `it.trailGroup`).
 */
export function drawSvgTrail(it, head, k, layer, strong) {
  const pts = it.dev.trail || [];
  const chunks = trailChunks(pts.length, TRAIL_CHUNKS);
  if (!chunks.length) {
    if (it.trail) for (const pl of it.trail) pl.setAttribute('points', '');
    return;
  }
  if (!it.trail) {
    it.trail = [];
    const g = el('g', { class: 'trail', stroke: it.dev.color }, layer);
    for (let c = 0; c < TRAIL_CHUNKS; c++) it.trail.push(el('polyline', { points: '' }, g));
    it.trailGroup = g;
  }
  const lons = unwrapLons(pts.map((p) => p[0]));
  const n = pts.length;
  const x0 = lonToX(lons[n - 1]), y0 = latToY(pts[n - 1][1]);
  const sx = new Array(n), sy = new Array(n);
  for (let i = 0; i < n; i++) {
    sx[i] = r2(head[0] + (lonToX(lons[i]) - x0) * k);
    sy[i] = r2(head[1] + (latToY(pts[i][1]) - y0) * k);
  }
  const used = new Array(TRAIL_CHUNKS).fill(false);
  for (const ch of chunks) {
    let s = '';
    for (let i = ch.from; i <= ch.to; i++) s += sx[i] + ',' + sy[i] + ' ';
    const pl = it.trail[ch.chunk];
    pl.setAttribute('points', s);
    pl.setAttribute('stroke-opacity', (strong ? 0.55 + ch.opacity * 0.45 : ch.opacity).toFixed(2));
    used[ch.chunk] = true;
  }
  for (let c = 0; c < TRAIL_CHUNKS; c++) if (!used[c]) it.trail[c].setAttribute('points', '');
}
