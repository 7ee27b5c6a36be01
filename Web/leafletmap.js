/*
 * Find Our Devices web map: the Leaflet renderer (interface in map.js), used when
 * /static/config.json says {"leaflet": true} and /vendor/leaflet/leaflet.js loaded.
 * Ground (tiles, offline basemap, controls) in leafletbase.js, cluster bubbles in
 * leafletclusters.js, what the History panel draws in leaflethistory.js.
 * Pins are L.circleMarker paths carrying class "pin" and data-device-id/-lon/-lat; a pin inside
 * a cluster bubble keeps its element (and its data) with the class "clustered", hidden.
 *
 * Nothing reaches Leaflet as an HTML string: labels are elements holding a text node.
 */
import { lonArc, trailChunks, unwrapLons } from './geo.js';
import { h } from './dom.js';
import { createLeafletPlaceLayer } from './leafletplaces.js';
import { createLeafletGround } from './leafletbase.js';
import { createLeafletClusters } from './leafletclusters.js';
import { createLeafletHistory } from './leaflethistory.js';
import { mapColors } from './theme.js';

const TRAIL_CHUNKS = 4;
const PIN_R = 6;
const PIN_R_FOCUS = 8.5;
/** Zoom levels: a group is fitted up to street level; a focused device is shown at least at neighbourhood level. */
const FIT_MAX_ZOOM = 16;
const FOCUS_MIN_ZOOM = 15;

/** A label's content: an element with one text node (Leaflet would parse a string as HTML). */
function labelContent(text) { return h('span', { className: 'pin-label-text' }, text); }

/**
 * @param config {tileURL, tileAttribution, strongTrails}: `strongTrails` draws the trail bold
 *   and opaque (the share page's single device)
 */
export function createLeafletMap(L, container, hooks, config) {
  hooks = hooks || {};
  config = config || {};
  container.classList.add('leaflet-mode');

  const map = L.map(container, {
    worldCopyJump: true, minZoom: 1, maxZoom: 19, zoomSnap: 0.25, zoomControl: false, attributionControl: false,
  });
  map.setView([20, 0], 2);
  const ground = createLeafletGround(L, map, config);
  map.createPane('fod-trails').style.zIndex = 410;
  // Bubbles under the pins: a pin shown alone (the focused one) is never covered by one.
  map.createPane('fod-clusters').style.zIndex = 415;
  map.createPane('fod-pins').style.zIndex = 420;
  const renderers = { trails: L.svg({ pane: 'fod-trails' }), pins: L.svg({ pane: 'fod-pins' }) };
  const items = new Map(); // deviceId -> {dev, marker, trail: [polyline] | null, clustered}
  let focusId = null;
  let labelsAll = false;
  let programmatic = 0;
  let frame = 0;
  const focusRing = L.circleMarker([0, 0], {
    renderer: renderers.pins, radius: 14, fill: false, weight: 3, opacity: 0, interactive: false, className: 'focus-ring',
  }).addTo(map);
  const clusters = createLeafletClusters(L, map, 'fod-clusters');
  const places = createLeafletPlaceLayer(L, map);
  const colors = mapColors();
  const trailStyle = config.strongTrails ? { weight: 4, scale: (o) => 0.55 + o * 0.45 } : { weight: 3, scale: (o) => o };

  function quiet(fn) { programmatic++; try { fn(); } finally { setTimeout(() => { programmatic--; }, 0); } }
  const history = createLeafletHistory(L, map, quiet);

  map.on('click', (e) => { if (hooks.onMapClick) hooks.onMapClick([e.latlng.lng, e.latlng.lat]); });
  map.on('dragstart', () => { if (hooks.onUserMove) hooks.onUserMove(); if (hooks.onPinLeave) hooks.onPinLeave(null); });
  container.addEventListener('wheel', () => { if (hooks.onUserMove) hooks.onUserMove(); }, { passive: true });
  map.on('zoomstart', () => { if (!programmatic && hooks.onUserMove) hooks.onUserMove(); });

  function setDataAttrs(it) {
    const e = it.marker.getElement();
    if (!e) return;
    e.setAttribute('data-device-id', it.dev.deviceId);
    e.setAttribute('data-lon', String(it.dev.lon));
    e.setAttribute('data-lat', String(it.dev.lat));
  }

  function labelOn(it) {
    const want = !it.clustered && (labelsAll || it.dev.deviceId === focusId);
    const has = !!it.marker.getTooltip();
    if (want && !has) {
      it.labelText = it.dev.label || it.dev.deviceName || '';
      it.marker.bindTooltip(labelContent(it.labelText), {
        permanent: true, direction: 'right', offset: [8, 0], className: 'pin-label-leaflet', interactive: false,
      });
    } else if (!want && has) {
      it.marker.unbindTooltip();
    }
  }

  function drawTrail(it) {
    const pts = it.clustered ? [] : it.dev.trail || [];
    const chunks = trailChunks(pts.length, TRAIL_CHUNKS);
    if (!chunks.length && !it.trail) return;
    if (!it.trail) {
      it.trail = [];
      for (let c = 0; c < TRAIL_CHUNKS; c++) {
        it.trail.push(L.polyline([], { renderer: renderers.trails, color: it.dev.color, weight: trailStyle.weight, opacity: 0, interactive: false, lineCap: 'round', className: 'trail' }).addTo(map));
      }
    }
    // Unwrapped so a trail over the antimeridian stays short; anchored on the pin's longitude.
    const lons = unwrapLons(pts.map((p) => p[0]));
    const shift = pts.length ? it.marker.getLatLng().lng - lons[lons.length - 1] : 0;
    const used = new Array(TRAIL_CHUNKS).fill(false);
    for (const ch of chunks) {
      const ll = [];
      for (let i = ch.from; i <= ch.to; i++) ll.push([pts[i][1], lons[i] + shift]);
      it.trail[ch.chunk].setLatLngs(ll);
      it.trail[ch.chunk].setStyle({ opacity: trailStyle.scale(ch.opacity), color: it.dev.color });
      used[ch.chunk] = true;
    }
    for (let c = 0; c < TRAIL_CHUNKS; c++) if (!used[c]) it.trail[c].setLatLngs([]);
  }

  /** Regroups the pins into bubbles on the next frame (after moves, zooms and focus changes). */
  function scheduleClusters() {
    if (frame) return;
    const run = () => { frame = 0; recluster(); };
    frame = document.hidden ? setTimeout(run, 200) : requestAnimationFrame(run);
  }

  function recluster() {
    const entries = [];
    for (const it of items.values()) entries.push({ id: it.dev.deviceId, latLng: it.marker.getLatLng() });
    const inside = clusters.update(entries, new Set(focusId ? [focusId] : []));
    for (const it of items.values()) {
      const was = !!it.clustered, now = inside.has(it.dev.deviceId);
      if (was === now) continue;
      it.clustered = now;
      const e = it.marker.getElement();
      if (e) e.classList.toggle('clustered', now);
      labelOn(it);
      drawTrail(it);
    }
  }

  function addItem(dev) {
    const marker = L.circleMarker([dev.lat, nearLon(dev.lon)], {
      renderer: renderers.pins, radius: PIN_R, weight: 2, color: colors.pinRing,
      opacity: 1, fillColor: dev.color, fillOpacity: 1, className: 'pin', bubblingMouseEvents: false,
    }).addTo(map);
    const it = { dev: dev, marker: marker, trail: null, clustered: false };
    const id = dev.deviceId;
    marker.on('click', () => { if (hooks.onPinClick) hooks.onPinClick(id); });
    marker.on('mouseover mousemove', (e) => {
      if (hooks.onPinHover) hooks.onPinHover(id, e.originalEvent.clientX, e.originalEvent.clientY);
    });
    marker.on('mouseout', () => { if (hooks.onPinLeave) hooks.onPinLeave(id); });
    items.set(id, it);
    setDataAttrs(it);
    labelOn(it);
    // A device located later goes under the focused pin, which stays on top of the others.
    const focused = focusId && items.get(focusId);
    if (focused) focused.marker.bringToFront();
    drawTrail(it);
    return it;
  }

  function removeItem(it) {
    it.marker.remove();
    if (it.trail) for (const pl of it.trail) pl.remove();
    items.delete(it.dev.deviceId);
  }

  function nearLon(lon) {
    const c = map.getCenter().lng;
    return lon + Math.round((c - lon) / 360) * 360;
  }

  // After any pan or zoom, put each pin (and its trail) on the world copy nearest the centre,
  // so pins on both sides of the antimeridian show up together; then regroup the bubbles.
  map.on('moveend', () => {
    for (const it of items.values()) {
      const want = nearLon(it.dev.lon);
      if (Math.abs(it.marker.getLatLng().lng - want) > 1e-9) {
        it.marker.setLatLng([it.dev.lat, want]);
        drawTrail(it);
        if (it.dev.deviceId === focusId) focusRing.setLatLng([it.dev.lat, want]);
      }
    }
    scheduleClusters();
  });

  function fitLatLngs(pts, maxZoom) {
    const arc = lonArc(pts.map((p) => p[1]));
    let s = 90, n = -90;
    for (const p of pts) { s = Math.min(s, p[0]); n = Math.max(n, p[0]); }
    quiet(() => map.fitBounds(L.latLngBounds([s, arc.west], [n, arc.west + arc.span]), {
      paddingTopLeft: [56, 56], paddingBottomRight: [labelsAll ? 180 : 56, 48], maxZoom, animate: false,
    }));
  }

  const api = {
    kind: 'leaflet',
    map: map,

    /** Calls `cb` once the offline basemap is wanted (no tiles, or a tile failed to load). */
    whenOffline: ground.whenOffline,
    setBasemap: ground.setBasemap,
    /** Street-scale land of one region over the countries (GeoJSON with a top-level bbox). */
    setDetail: ground.setDetail,
    setPlaces(list) { places.setPlaces(list); },
    setDraft(draft) { places.setDraft(draft); },

    sync(devs) {
      const seen = new Set();
      for (const d of devs) {
        if (!d.located) continue;
        seen.add(d.deviceId);
        const it = items.get(d.deviceId);
        if (!it) { addItem(d); continue; }
        it.dev = d;
        it.marker.setLatLng([d.lat, nearLon(d.lon)]);
        it.marker.setStyle({ fillColor: d.color });
        setDataAttrs(it);
        labelOn(it);
        drawTrail(it);
      }
      for (const it of Array.from(items.values())) if (!seen.has(it.dev.deviceId)) removeItem(it);
      if (focusId && !items.has(focusId)) api.setFocus(null);
      scheduleClusters();
    },

    move(dev) {
      const it = items.get(dev.deviceId);
      if (!it) return;
      it.dev = dev;
      const lon = nearLon(dev.lon); // the world copy in view, as in the SVG map
      it.marker.setLatLng([dev.lat, lon]);
      setDataAttrs(it);
      drawTrail(it);
      if (dev.deviceId === focusId) focusRing.setLatLng([dev.lat, lon]);
      scheduleClusters();
    },

    setFocus(id) {
      const old = focusId && items.get(focusId);
      focusId = id || null;
      if (old) { old.marker.setRadius(PIN_R); const e = old.marker.getElement(); if (e) e.classList.remove('focused'); labelOn(old); }
      const it = focusId && items.get(focusId);
      if (it) {
        it.marker.setRadius(PIN_R_FOCUS);
        it.marker.bringToFront();
        const e = it.marker.getElement();
        if (e) e.classList.add('focused');
        it.clustered = false;
        if (e) e.classList.remove('clustered');
        labelOn(it);
        drawTrail(it);
        focusRing.setLatLng(it.marker.getLatLng());
        focusRing.setStyle({ opacity: 0.9, color: it.dev.color });
      } else {
        focusRing.setStyle({ opacity: 0 });
      }
      scheduleClusters();
    },

    centerOn(dev, zoomIn) {
      if (!dev || !dev.located) return;
      quiet(() => map.setView([dev.lat, nearLon(dev.lon)], zoomIn ? Math.max(map.getZoom(), FOCUS_MIN_ZOOM) : map.getZoom(), { animate: false }));
    },

    fit(devs) {
      const pts = devs.filter((d) => d.located).map((d) => [d.lat, d.lon]);
      if (!pts.length) { quiet(() => map.setView([20, 0], 2, { animate: false })); return; }
      fitLatLngs(pts, FIT_MAX_ZOOM);
    },

    /** Fits a device's trail (the share page): at least neighbourhood scale, the whole trail in view. */
    fitTrail(dev) {
      if (!dev || !dev.located) return;
      const pts = (dev.trail && dev.trail.length ? dev.trail : [[dev.lon, dev.lat]]).map((p) => [p[1], p[0]]);
      fitLatLngs(pts, FIT_MAX_ZOOM);
      if (map.getZoom() < 12) quiet(() => map.setView([dev.lat, nearLon(dev.lon)], 12, { animate: false }));
    },

    setLabels(all) {
      labelsAll = !!all;
      for (const it of items.values()) labelOn(it);
    },

    setLabelText(dev, text) {
      const it = items.get(dev.deviceId);
      if (!it || !it.marker.getTooltip() || it.labelText === text) return;
      it.labelText = text;
      it.marker.setTooltipContent(labelContent(text));
    },

    setStale(dev, stale) {
      const it = items.get(dev.deviceId);
      if (!it) return;
      it.marker.setStyle({ fillOpacity: stale ? 0.45 : 1 });
      const e = it.marker.getElement();
      if (e) e.classList.toggle('stale', !!stale);
    },

    invalidateSize() { map.invalidateSize(); },
    setTimeline: history.setTimeline,
    focusTimeline: history.focusTimeline,
    setTrack: history.setTrack,
    setCursor: history.setCursor,

    clear() {
      for (const it of Array.from(items.values())) removeItem(it);
      api.setFocus(null);
      clusters.clear();
    },

    getView() { const c = map.getCenter(); return { lon: c.lng, lat: c.lat, zoom: map.getZoom() }; },
  };
  if (typeof ResizeObserver !== 'undefined') new ResizeObserver(() => map.invalidateSize()).observe(container);
  return api;
}
