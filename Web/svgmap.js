/*
 * Find Our Devices web map: the offline SVG renderer (no tiles, no libraries; interface in map.js).
 *
 * The basemap is drawn once in world units (svgprojection.js) and moved with a single
 * transform; three copies (-1, 0, +1 world widths) make panning across the antimeridian
 * seamless. Pins, trails and labels live in screen pixels: each pin is placed on the world copy
 * nearest the view centre, so a pin never drops off at ±180. Labels are SVG text nodes.
 *
 * Invariants: view.k > 0 is screen pixels per world unit; view.cx in [0, WORLD) is the
 * world x at the centre of the screen; view.cy in [0, WORLD] the world y there.
 * Moving a pin touches only that pin's attributes (no DOM rebuild); redraws are batched
 * into one requestAnimationFrame.
 */
import { clamp, lonArc, trailChunks, unwrapLons } from './geo.js';
import { el, geometryPath, graticulePath, kOfZoom, latToY, lonToX, r2, TILE, WORLD, yToLat } from './svgprojection.js';
import { h } from './dom.js';
import { attachSvgInput } from './svginput.js';
import { createSvgPlaceLayer } from './svgplaces.js';
import { timelineSegments } from './timelinegeometry.js';
import { createSvgHistory } from './svghistory.js';
import { createSvgClusters } from './svgclusters.js';
import { mapColors } from './theme.js';

const MAX_ZOOM = 18;
const FIT_MAX_ZOOM = 16;
const FOCUS_MIN_ZOOM = 15;
/** From this zoom on nothing is clustered (pins that still overlap are at one spot). */
const CLUSTER_MAX_ZOOM = 17;
const TRAIL_CHUNKS = 4;
const PIN_R = 6;
const PIN_R_FOCUS = 8.5;

export function createSvgMap(container, hooks, options) {
  hooks = hooks || {};
  const strongTrails = !!(options && options.strongTrails);
  container.classList.add('svgmap-container');
  container.tabIndex = 0;

  const colors = mapColors();
  const svg = el('svg', { class: 'svgmap', role: 'application', 'aria-label': 'Map. Drag to pan, wheel or +/- to zoom.' }, container);
  const defs = el('defs', null, svg);
  const world = el('g', { id: 'fod-world' }, defs);
  // Presentation attributes, not CSS: document style rules do not reach <use> clones reliably.
  el('path', {
    class: 'graticule', d: graticulePath(), fill: 'none', stroke: '#b3cde0', 'stroke-width': 0.6,
    'vector-effect': 'non-scaling-stroke',
  }, world);
  const land = el('g', {
    class: 'land', fill: colors.land, 'fill-rule': 'evenodd', stroke: colors.coast, 'stroke-width': 0.6,
    'stroke-linejoin': 'round',
  }, world);
  // Street-scale shorelines of one region (setDetail): its water first, over the world outlines.
  const detail = el('g', {
    class: 'detail', fill: colors.land, 'fill-rule': 'evenodd', stroke: colors.coast, 'stroke-width': 0.6, 'stroke-linejoin': 'round',
  }, world);
  el('rect', { class: 'ocean', x: 0, y: 0, width: '100%', height: '100%' }, svg);
  const base = el('g', { class: 'base' }, svg);
  for (const dx of [-1, 0, 1]) {
    el('use', { href: '#fod-world', x: dx * WORLD, y: 0 }, base);
  }
  const trailLayer = el('g', { class: 'trails' }, svg);
  const timelineLayer = el('g', { class: 'timeline-layer' }, svg);
  const ringLayer = el('g', { class: 'rings' }, svg);
  const pinLayer = el('g', { class: 'pins' }, svg);
  const labelLayer = el('g', { class: 'labels' }, svg);
  const clusters = createSvgClusters(el('g', { class: 'clusters' }, svg), (ids) => openCluster(ids));
  const placeLayer = createSvgPlaceLayer(svg, trailLayer);
  const focusRing = el('circle', { class: 'focus-ring', r: 14, cx: -100, cy: -100, visibility: 'hidden' }, ringLayer);

  // HTML overlays: zoom buttons, scale bar, attribution.
  const control = (act, label, text) => h('button', { type: 'button', title: label, dataset: { act }, attrs: { 'aria-label': label } }, text);
  const controls = h('div', { className: 'map-controls' },
    control('in', 'Zoom in', '+'), control('out', 'Zoom out', '\u2212'),
    control('fit', 'Fit to devices', '\u2922'), control('world', 'Whole world', '\u25ef'));
  container.appendChild(controls);
  const scaleBar = h('span', { className: 'bar' });
  const scaleText = h('span', { className: 'txt' });
  container.appendChild(h('div', { className: 'map-scale' }, scaleBar, scaleText));
  const attribution = h('div', { className: 'map-attrib' }, 'Countries: Natural Earth (public domain)');
  container.appendChild(attribution);

  const view = { cx: WORLD / 2, cy: WORLD / 2, k: 1, w: 0, h: 0 };
  const items = new Map(); // deviceId -> {dev, pin, label, trail: [polyline], lastKey}
  const dirty = new Set();
  let viewDirty = true;
  let frame = 0;
  let focusId = null;
  let labelsAll = false;
  let lastFit = null;
  const history = createSvgHistory(timelineLayer);

  function size() {
    view.w = container.clientWidth || 800;
    view.h = container.clientHeight || 600;
  }
  function minK() { return Math.max(0.05, Math.min(view.w, view.h) * 0.95 / WORLD); }
  function maxK() { return kOfZoom(MAX_ZOOM); }
  function clampView() {
    view.k = clamp(view.k, minK(), maxK());
    view.cx = ((view.cx % WORLD) + WORLD) % WORLD;
    const halfH = view.h / 2 / view.k;
    if (halfH * 2 >= WORLD) view.cy = WORLD / 2;
    else view.cy = clamp(view.cy, halfH, WORLD - halfH);
  }

  function schedule() {
    if (frame) return;
    const run = () => { frame = 0; render(); };
    // requestAnimationFrame stops in hidden tabs; a timer keeps the state drawn there too.
    frame = document.hidden ? setTimeout(run, 200) : requestAnimationFrame(run);
  }

  /** Screen position of [lon, lat] on the world copy nearest the view centre. */
  function screenOf(lon, lat) {
    let wx = lonToX(lon);
    wx += Math.round((view.cx - wx) / WORLD) * WORLD;
    return [(wx - view.cx) * view.k + view.w / 2, (latToY(lat) - view.cy) * view.k + view.h / 2];
  }

  function render() {
    if (viewDirty) {
      size();
      clampView();
      const tx = view.w / 2 - view.cx * view.k, ty = view.h / 2 - view.cy * view.k;
      base.setAttribute('transform', 'translate(' + tx + ' ' + ty + ') scale(' + view.k + ')');
      placeLayer.setTransform(base.getAttribute('transform'));
      for (const it of items.values()) place(it);
      placeTimeline();
      dirty.clear();
      viewDirty = false;
      updateScale();
    } else {
      for (const id of dirty) { const it = items.get(id); if (it) place(it); }
      dirty.clear();
    }
    recluster();
  }

  /** Groups crowded pins into bubbles (never the focused one; none from CLUSTER_MAX_ZOOM on). */
  function recluster() {
    const points = [];
    for (const it of items.values()) points.push({ id: it.dev.deviceId, x: it.sx, y: it.sy });
    const zoom = Math.log2(view.k * WORLD / TILE);
    const inside = clusters.update(points, new Set(focusId ? [focusId] : []), zoom >= CLUSTER_MAX_ZOOM);
    for (const it of items.values()) {
      const now = inside.has(it.dev.deviceId);
      if (now === it.clustered) continue;
      it.clustered = now;
      it.pin.classList.toggle('clustered', now);
      if (it.label) it.label.classList.toggle('clustered', now);
      if (it.trailGroup) it.trailGroup.classList.toggle('clustered', now);
    }
  }

  /** Fits the view to the located `devs` ({lon, lat}) up to `maxZoom`; the world when there are none. */
  function fitPoints(devs, maxZoom) {
    size();
    const pts = devs.filter((d) => d.located);
    if (!pts.length) {
      view.k = minK(); view.cx = WORLD / 2; view.cy = WORLD / 2;
    } else {
      const arc = lonArc(pts.map((d) => d.lon));
      let ymin = Infinity, ymax = -Infinity;
      for (const d of pts) { const y = latToY(d.lat); if (y < ymin) ymin = y; if (y > ymax) ymax = y; }
      // Room around the pins; more on the right where their labels go.
      const padL = 48, padR = labelsAll ? 200 : 56, padT = 48, padB = 44;
      const dx = arc.span / 360 * WORLD, dy = ymax - ymin;
      const kx = dx > 0 ? Math.max(1, view.w - padL - padR) / dx : Infinity;
      const ky = dy > 0 ? Math.max(1, view.h - padT - padB) / dy : Infinity;
      view.k = clamp(Math.min(kx, ky, kOfZoom(maxZoom)), minK(), maxK());
      view.cx = lonToX(arc.west + arc.span / 2) + (padR - padL) / 2 / view.k;
      view.cy = (ymin + ymax) / 2 + (padB - padT) / 2 / view.k;
    }
    viewDirty = true;
    schedule();
  }

  function openCluster(ids) {
    const devs = ids.map((id) => items.get(id)).filter(Boolean).map((it) => it.dev);
    if (devs.length) fitPoints(devs, CLUSTER_MAX_ZOOM + 1);
    if (hooks.onUserMove) hooks.onUserMove();
  }

  function place(it) {
    const d = it.dev;
    const p = screenOf(d.lon, d.lat);
    const x = r2(p[0]), y = r2(p[1]);
    it.sx = p[0];
    it.sy = p[1];
    it.pin.setAttribute('cx', x);
    it.pin.setAttribute('cy', y);
    if (it.label) {
      it.label.setAttribute('x', r2(x + (d.deviceId === focusId ? 18 : 10)));
      it.label.setAttribute('y', r2(y + 4));
    }
    if (d.deviceId === focusId) { focusRing.setAttribute('cx', x); focusRing.setAttribute('cy', y); }
    placeTrail(it, p);
  }

  function placeTrail(it, head) {
    const pts = it.dev.trail || [];
    const chunks = trailChunks(pts.length, TRAIL_CHUNKS);
    if (!chunks.length) {
      if (it.trail) for (const pl of it.trail) pl.setAttribute('points', '');
      return;
    }
    if (!it.trail) {
      it.trail = [];
      const g = el('g', { class: 'trail', stroke: it.dev.color }, trailLayer);
      for (let c = 0; c < TRAIL_CHUNKS; c++) it.trail.push(el('polyline', { points: '' }, g));
      it.trailGroup = g;
    }
    // Unwrap along the trail, then anchor its newest point on the pin itself.
    const lons = unwrapLons(pts.map((p) => p[0]));
    const n = pts.length;
    const x0 = lonToX(lons[n - 1]), y0 = latToY(pts[n - 1][1]);
    const sx = new Array(n), sy = new Array(n);
    for (let i = 0; i < n; i++) {
      sx[i] = r2(head[0] + (lonToX(lons[i]) - x0) * view.k);
      sy[i] = r2(head[1] + (latToY(pts[i][1]) - y0) * view.k);
    }
    const used = new Array(TRAIL_CHUNKS).fill(false);
    for (const ch of chunks) {
      let s = '';
      for (let i = ch.from; i <= ch.to; i++) s += sx[i] + ',' + sy[i] + ' ';
      const pl = it.trail[ch.chunk];
      pl.setAttribute('points', s);
      pl.setAttribute('stroke-opacity', (strongTrails ? 0.55 + ch.opacity * 0.45 : ch.opacity).toFixed(2));
      used[ch.chunk] = true;
    }
    for (let c = 0; c < TRAIL_CHUNKS; c++) if (!used[c]) it.trail[c].setAttribute('points', '');
  }

  /** Screen points of a line of [lon, lat]: unwrapped along it, anchored on the world copy nearest the centre. */
  function lineScreen(coords) {
    if (!coords.length) return [];
    const lons = unwrapLons(coords.map((c) => c[0]));
    const head = screenOf(lons[0], coords[0][1]);
    const shift = head[0] - ((lonToX(lons[0]) - view.cx) * view.k + view.w / 2);
    return coords.map((c, i) => [(lonToX(lons[i]) - view.cx) * view.k + view.w / 2 + shift, (latToY(c[1]) - view.cy) * view.k + view.h / 2]);
  }

  function placeTimeline() { history.draw(lineScreen); }

  function fitLonLats(coords) {
    if (coords.length) api.fit(coords.map((c) => ({ located: true, lon: c[0], lat: c[1] })));
    viewDirty = true;
    schedule();
  }

  function wantsLabel(id) { return labelsAll || id === focusId; }

  function ensureLabel(it) {
    const want = wantsLabel(it.dev.deviceId);
    if (want && !it.label) {
      it.label = el('text', { class: 'pin-label' }, labelLayer);
      it.label.textContent = it.dev.label || it.dev.deviceName || '';
      dirty.add(it.dev.deviceId);
    } else if (!want && it.label) {
      it.label.remove();
      it.label = null;
    }
  }

  function setDataAttrs(it) {
    it.pin.setAttribute('data-lon', String(it.dev.lon));
    it.pin.setAttribute('data-lat', String(it.dev.lat));
  }

  function addItem(dev) {
    const pin = el('circle', {
      class: 'pin', r: PIN_R, fill: dev.color,
      'data-device-id': dev.deviceId, 'data-lon': String(dev.lon), 'data-lat': String(dev.lat),
    }, pinLayer);
    const it = { dev: dev, pin: pin, label: null, trail: null, trailGroup: null, clustered: false, sx: 0, sy: 0 };
    items.set(dev.deviceId, it);
    ensureLabel(it);
    return it;
  }

  function removeItem(it) {
    it.pin.remove();
    if (it.label) it.label.remove();
    if (it.trailGroup) it.trailGroup.remove();
    items.delete(it.dev.deviceId);
  }

  function updateScale() {
    const lat = yToLat(view.cy);
    const mpp = 40075016.686 * Math.cos(lat * Math.PI / 180) / (WORLD * view.k);
    const target = mpp * 110;
    const p = Math.pow(10, Math.floor(Math.log10(target)));
    let nice = p;
    for (const m of [1, 2, 5]) if (m * p <= target) nice = m * p;
    scaleBar.style.width = Math.round(nice / mpp) + 'px';
    scaleText.textContent = nice >= 1000 ? (nice / 1000) + ' km' : nice + ' m';
  }

  function zoomAt(f, px, py) {
    size();
    if (px == null) { px = view.w / 2; py = view.h / 2; }
    const wx = view.cx + (px - view.w / 2) / view.k;
    const wy = view.cy + (py - view.h / 2) / view.k;
    view.k = clamp(view.k * f, minK(), maxK());
    view.cx = wx - (px - view.w / 2) / view.k;
    view.cy = wy - (py - view.h / 2) / view.k;
    viewDirty = true;
    schedule();
  }

  function viewChanged() { viewDirty = true; schedule(); }

  attachSvgInput(svg, container, controls, Object.assign({}, hooks, { onClusterClick: (i) => openCluster(clusters.idsAt(i) || []) }), {
    view,
    zoomAt,
    changed: viewChanged,
    showWorld() { view.k = minK(); view.cx = WORLD / 2; view.cy = WORLD / 2; viewChanged(); },
    refit() { if (lastFit) api.fit(lastFit); },
    /** [lon, lat] under the screen point (px, py). */
    lonLatAt(px, py) {
      const wx = view.cx + (px - view.w / 2) / view.k, wy = view.cy + (py - view.h / 2) / view.k;
      return [(((wx / WORLD) * 360) % 360 + 360) % 360 - 180, yToLat(wy)];
    },
  });
  if (typeof ResizeObserver !== 'undefined') {
    new ResizeObserver(() => { viewDirty = true; schedule(); }).observe(container);
  } else {
    window.addEventListener('resize', () => { viewDirty = true; schedule(); });
  }

  // --- public API ----------------------------------------------------------------------
  const api = {
    kind: 'svg',
    element: svg,

    /** Draws the countries (GeoJSON FeatureCollection, Polygon/MultiPolygon) as the basemap. */
    setBasemap(geojson) {
      while (land.firstChild) land.removeChild(land.firstChild);
      const feats = (geojson && geojson.features) || [];
      const frag = document.createDocumentFragment();
      for (const f of feats) {
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

    /** Draws the group's places (documents of GET /v1/groups/{id}/places). */
    setPlaces(places) { placeLayer.setPlaces(places); },

    /** Shows the place being drawn (see placegeometry.js), null for none. */
    setDraft(draft) { placeLayer.setDraft(draft); },

    /** Replaces the set of pins: `devs` is every device of the group; those located get a pin. */
    sync(devs) {
      const seen = new Set();
      for (const d of devs) {
        if (!d.located) continue;
        seen.add(d.deviceId);
        let it = items.get(d.deviceId);
        if (!it) it = addItem(d);
        else { it.dev = d; it.pin.setAttribute('fill', d.color); setDataAttrs(it); ensureLabel(it); }
      }
      for (const it of Array.from(items.values())) if (!seen.has(it.dev.deviceId)) removeItem(it);
      if (focusId && !items.has(focusId)) api.setFocus(null);
      viewDirty = true;
      schedule();
    },

    /** A device moved: update its attributes now, its position on the next frame. */
    move(dev) {
      const it = items.get(dev.deviceId);
      if (!it) return;
      it.dev = dev;
      setDataAttrs(it);
      dirty.add(dev.deviceId);
      schedule();
    },

    setFocus(id) {
      const old = focusId && items.get(focusId);
      focusId = id || null;
      if (old) { old.pin.classList.remove('focused'); old.pin.setAttribute('r', PIN_R); ensureLabel(old); }
      const it = focusId && items.get(focusId);
      if (it) {
        it.pin.classList.add('focused');
        it.pin.setAttribute('r', PIN_R_FOCUS);
        pinLayer.appendChild(it.pin); // on top of the others
        ensureLabel(it);
        focusRing.setAttribute('stroke', it.dev.color);
        focusRing.setAttribute('visibility', 'visible');
        dirty.add(focusId);
        schedule();
      } else {
        focusRing.setAttribute('visibility', 'hidden');
      }
    },

    /** Centres the view on a device; with `zoomIn`, zooms to at least a regional scale. */
    centerOn(dev, zoomIn) {
      if (!dev || !dev.located) return;
      size();
      let wx = lonToX(dev.lon);
      wx += Math.round((view.cx - wx) / WORLD) * WORLD;
      view.cx = wx;
      view.cy = latToY(dev.lat);
      if (zoomIn) view.k = Math.max(view.k, kOfZoom(FOCUS_MIN_ZOOM));
      viewDirty = true;
      schedule();
    },

    /** Fits the view to the located devices (the world when there are none). */
    fit(devs) {
      lastFit = devs;
      fitPoints(devs, FIT_MAX_ZOOM);
    },

    /** Permanent labels for every pin (small groups) or only for the focused one. */
    setLabels(all) {
      labelsAll = !!all;
      for (const it of items.values()) ensureLabel(it);
      schedule();
    },

    /** New label text for a device (called by the age ticker, about once a second). */
    setLabelText(dev, text) {
      const it = items.get(dev.deviceId);
      if (it && it.label && it.label.textContent !== text) it.label.textContent = text;
    },

    setStale(dev, stale) {
      const it = items.get(dev.deviceId);
      if (it) it.pin.classList.toggle('stale', !!stale);
    },

    invalidateSize() { viewDirty = true; schedule(); },

    /**
     * Draws a timeline (GeoJSON features: stays as Points, trips as LineStrings) and fits the
     * view to it; null removes it.
     */
    setTimeline(features) {
      history.setTimeline(features);
      fitLonLats(history.timelinePoints());
    },

    /** Centres the view on one timeline feature. */
    focusTimeline(feature) {
      const seg = feature && timelineSegments([feature])[0];
      if (seg) fitLonLats(seg.coords);
    },

    /** A history track (lines of [lon, lat]), fitted; null removes it. */
    setTrack(lines) {
      history.setTrack(lines);
      fitLonLats(history.trackPoints());
    },

    /** The playback cursor at [lon, lat] and the part of the day played; null hides them. */
    setCursor(lonLat, path) {
      history.setCursor(lonLat, path);
      viewDirty = true;
      schedule();
    },

    /** The view on a device's trail (the share page). */
    fitTrail(dev) {
      if (dev && dev.located) fitLonLats(dev.trail && dev.trail.length ? dev.trail : [[dev.lon, dev.lat]]);
    },

    clear() {
      for (const it of Array.from(items.values())) removeItem(it);
      api.setFocus(null);
    },

    /** For tests: the current view. */
    getView() { return { lon: view.cx / WORLD * 360 - 180, lat: yToLat(view.cy), zoom: Math.log2(view.k * WORLD / TILE) }; },
  };
  size();
  api.fit([]);
  return api;
}
