/*
 * Find Our Devices web map: the offline SVG renderer (no tiles, no libraries; interface in map.js).
 *
 * The basemap (svgbase.js) is drawn once in world units (svgprojection.js) and moved with a
 * single transform; three copies (-1, 0, +1 world widths) make panning across the antimeridian
 * seamless. Pins, trails (svgtrails.js), cluster bubbles (svgclusters.js), the History panel's
 * drawings (svghistory.js) and labels live in screen pixels: each pin is placed on the world
 * copy nearest the view centre, so a pin never drops off at ±180. Labels are SVG text nodes.
 *
 * Invariants: view.k > 0 is screen pixels per world unit; view.cx in [0, WORLD) is the
 * world x at the centre of the screen; view.cy in [0, WORLD] the world y there.
 * Moving a pin touches only that pin's attributes (no DOM rebuild); redraws are batched
 * into one requestAnimationFrame.
 */
import { clamp, lonArc, unwrapLons } from './geo.js';
import { el, kOfZoom, latToY, lonToX, r2, TILE, WORLD, yToLat } from './svgprojection.js';
import { attachSvgInput } from './svginput.js';
import { createSvgPlaceLayer } from './svgplaces.js';
import { timelineSegments } from './timelinegeometry.js';
import { createSvgHistory } from './svghistory.js';
import { createSvgClusters } from './svgclusters.js';
import { createSvgControls, createSvgGround } from './svgbase.js';
import { drawSvgTrail } from './svgtrails.js';

const MAX_ZOOM = 18;
const FIT_MAX_ZOOM = 16;
const FOCUS_MIN_ZOOM = 15;
/** From this zoom on nothing is clustered (pins that still overlap are at one spot). */
const CLUSTER_MAX_ZOOM = 17;
const PIN_R = 6;
const PIN_R_FOCUS = 8.5;

export function createSvgMap(container, hooks, options) {
  hooks = hooks || {};
  const strongTrails = !!(options && options.strongTrails);
  container.classList.add('svgmap-container');
  container.tabIndex = 0;

  const svg = el('svg', { class: 'svgmap', role: 'application', 'aria-label': 'Map. Drag to pan, wheel or +/- to zoom.' }, container);
  const ground = createSvgGround(svg, container);
  const base = ground.base;
  const trailLayer = el('g', { class: 'trails' }, svg);
  const ringLayer = el('g', { class: 'rings' }, svg);
  // Bubbles under the pins: a pin shown alone (the focused one) is never covered by one.
  const clusters = createSvgClusters(el('g', { class: 'clusters' }, svg), (ids) => openCluster(ids));
  const pinLayer = el('g', { class: 'pins' }, svg);
  const labelLayer = el('g', { class: 'labels' }, svg);
  const timelineLayer = el('g', { class: 'timeline-layer' }, svg); // over the pins: what the History panel shows
  const placeLayer = createSvgPlaceLayer(svg, trailLayer);
  const focusRing = el('circle', { class: 'focus-ring', r: 14, cx: -100, cy: -100, visibility: 'hidden' }, ringLayer);

  const overlay = createSvgControls(container);
  const controls = overlay.controls;

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
    drawSvgTrail(it, head, view.k, trailLayer, strongTrails);
    if (it.trailGroup) it.trailGroup.classList.toggle('clustered', it.clustered);
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
    // A device located later goes under the focused pin, which stays on top of the others.
    const focused = focusId && items.get(focusId);
    if (focused) pinLayer.insertBefore(pin, focused.pin);
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

  function updateScale() { overlay.scale(view); }

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
    setBasemap: ground.setBasemap,
    /** Draws one region's street-scale land (GeoJSON with a top-level `bbox`) over the countries. */
    setDetail: ground.setDetail,

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
