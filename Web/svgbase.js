/*
 * Find Our Devices web map: the SVG map's ground and overlays — the world drawn once in world
 * units (graticule, countries, the demo region's street-scale shorelines) and shown as three
 * copies (-1, 0, +1 world widths) moved by one transform; the zoom buttons, scale bar and
 * attribution as HTML over it. Colours follow the page's theme (presentation attributes: document
 * style rules do not reach <use> clones reliably).
 */
import { el, geometryPath, graticulePath, latToY, lonToX, WORLD, yToLat } from './svgprojection.js';
import { h } from './dom.js';
import { mapColors } from './theme.js';

/** Adds the ground to `svg`; returns {base (the <g> the view transforms), setBasemap, setDetail}. */
export function createSvgGround(svg, container) {
  const colors = mapColors();
  const defs = el('defs', null, svg);
  const world = el('g', { id: 'fod-world' }, defs);
  el('path', {
    class: 'graticule', d: graticulePath(), fill: 'none', stroke: '#b3cde0', 'stroke-width': 0.6,
    'vector-effect': 'non-scaling-stroke',
  }, world);
  const land = el('g', {
    class: 'land', fill: colors.land, 'fill-rule': 'evenodd', stroke: colors.coast, 'stroke-width': 0.6,
    'stroke-linejoin': 'round',
  }, world);
  // Street-scale shorelines of one region (setDetail): its water first, over the world outlines.
  // No outline: the region's land is cut at its box, whose edges must not show.
  const detail = el('g', { class: 'detail', fill: colors.land, 'fill-rule': 'evenodd', stroke: 'none' }, world);
  el('rect', { class: 'ocean', x: 0, y: 0, width: '100%', height: '100%' }, svg);
  const base = el('g', { class: 'base' }, svg);
  for (const dx of [-1, 0, 1]) el('use', { href: '#fod-world', x: dx * WORLD, y: 0 }, base);
  const attribution = h('div', { className: 'map-attrib' }, 'Countries: Natural Earth (public domain)');
  container.appendChild(attribution);

  return {
    base,

    /** Draws the countries (GeoJSON FeatureCollection, Polygon/MultiPolygon) as the basemap. */
    setBasemap(geojson) {
      while (land.firstChild) land.removeChild(land.firstChild);
      const frag = document.createDocumentFragment();
      for (const f of (geojson && geojson.features) || []) {
        const d = geometryPath(f && f.geometry);
        if (!d) continue;
        const p = el('path', { d: d, class: 'country', 'vector-effect': 'non-scaling-stroke' });
        if (f.properties && f.properties.iso_a3) p.setAttribute('data-iso', f.properties.iso_a3);
        frag.appendChild(p);
      }
      land.appendChild(frag);
    },

    /**
     * Draws one region's street-scale land (GeoJSON with a top-level `bbox` [w, s, e, n]): the
     * region's water over the world outlines, then its land, then its attribution as text.
     */
    setDetail(geojson) {
      while (detail.firstChild) detail.removeChild(detail.firstChild);
      const b = geojson && geojson.bbox;
      if (!Array.isArray(b) || b.length !== 4) return;
      const x0 = lonToX(b[0]), x1 = lonToX(b[2]), y0 = latToY(b[3]), y1 = latToY(b[1]);
      el('rect', { x: x0, y: y0, width: x1 - x0, height: y1 - y0, fill: colors.sea, stroke: 'none' }, detail);
      for (const f of geojson.features || []) {
        const d = geometryPath(f && f.geometry);
        if (d) el('path', { d, class: 'shore', 'vector-effect': 'non-scaling-stroke' }, detail);
      }
      const source = geojson.properties && geojson.properties.source;
      if (source) attribution.textContent = 'Countries: Natural Earth (public domain); shorelines: GSHHG (LGPL)';
    },
  };
}

/** The zoom buttons (data-act in | out | fit | world) and the scale bar; `scale(view)` redraws the bar. */
export function createSvgControls(container) {
  const control = (act, label, text) => h('button', { type: 'button', title: label, dataset: { act }, attrs: { 'aria-label': label } }, text);
  const controls = h('div', { className: 'map-controls' },
    control('in', 'Zoom in', '+'), control('out', 'Zoom out', '\u2212'),
    control('fit', 'Fit to devices', '\u2922'), control('world', 'Whole world', '\u25ef'));
  container.appendChild(controls);
  const bar = h('span', { className: 'bar' });
  const text = h('span', { className: 'txt' });
  container.appendChild(h('div', { className: 'map-scale' }, bar, text));
  return {
    controls,
    /** A bar of a round length (1, 2 or 5 × 10^n m) about 110 px long at the view's centre. */
    scale(view) {
      const lat = yToLat(view.cy);
      const mpp = 40075016.686 * Math.cos(lat * Math.PI / 180) / (WORLD * view.k);
      const target = mpp * 110;
      const p = Math.pow(10, Math.floor(Math.log10(target)));
      let nice = p;
      for (const m of [1, 2, 5]) if (m * p <= target) nice = m * p;
      bar.style.width = Math.round(nice / mpp) + 'px';
      text.textContent = nice >= 1000 ? (nice / 1000) + ' km' : nice + ' m';
    },
  };
}
