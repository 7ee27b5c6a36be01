/*
 * Find Our Devices web map: the Leaflet renderer (interface in map.js), used when
 * /static/config.json says {"leaflet": true} and /vendor/leaflet/leaflet.js loaded.
 * Basemap: the countries GeoJSON as an L.geoJSON layer; a tile layer only when tileURL is set.
 * Pins are L.circleMarker paths carrying class "pin" and data-device-id/-lon/-lat.
 *
 * Nothing reaches Leaflet as an HTML string: labels are elements holding a text node, and the
 * zoom buttons and attribution are our own controls built from text (Leaflet's set innerHTML,
 * which the page's Trusted Types policy forbids).
 */
import { lonArc, trailChunks, unwrapLons } from './geo.js';
import { timelineSegments } from './svgmap.js';
import { h } from './dom.js';
import { createLeafletPlaceLayer } from './leafletplaces.js';

const TRAIL_CHUNKS = 4;
const PIN_R = 6;
const PIN_R_FOCUS = 8.5;

/** Zoom in/out buttons in Leaflet's look, built from text. */
function zoomControl(L) {
  const Zoom = L.Control.extend({
    options: { position: 'topleft' },
    onAdd(map) {
      const button = (cls, label, text, act) => {
        const a = h('a', { className: cls, href: '#', title: label, attrs: { role: 'button', 'aria-label': label } }, text);
        L.DomEvent.on(a, 'click', (e) => { L.DomEvent.preventDefault(e); act(); });
        return a;
      };
      const bar = h('div', { className: 'leaflet-control-zoom leaflet-bar' },
        button('leaflet-control-zoom-in', 'Zoom in', '+', () => map.zoomIn()),
        button('leaflet-control-zoom-out', 'Zoom out', '\u2212', () => map.zoomOut()));
      L.DomEvent.disableClickPropagation(bar);
      return bar;
    },
  });
  return new Zoom();
}

/** The attribution line, as text. */
function attributionControl(L, text) {
  const Attribution = L.Control.extend({
    options: { position: 'bottomright' },
    onAdd() {
      const div = h('div', { className: 'leaflet-control-attribution' }, text);
      L.DomEvent.disableClickPropagation(div);
      return div;
    },
  });
  return new Attribution();
}

/** A label's content: an element with one text node (Leaflet would parse a string as HTML). */
function labelContent(text) { return h('span', { className: 'pin-label-text' }, text); }

export function createLeafletMap(L, container, hooks, config) {
  hooks = hooks || {};
  config = config || {};
  container.classList.add('leaflet-mode');

  const map = L.map(container, {
    worldCopyJump: true, minZoom: 1, maxZoom: 18, zoomSnap: 0.25, zoomControl: false, attributionControl: false,
  });
  zoomControl(L).addTo(map);
  const credits = ['Countries: Natural Earth'];
  if (config.tileURL && config.tileAttribution) credits.push(String(config.tileAttribution));
  attributionControl(L, credits.join(' | ')).addTo(map);
  map.setView([20, 0], 2);
  if (config.tileURL) {
    L.tileLayer(config.tileURL, { maxZoom: 19 }).addTo(map);
  }
  map.createPane('fod-trails').style.zIndex = 410;
  map.createPane('fod-pins').style.zIndex = 420;
  const trailRenderer = L.svg({ pane: 'fod-trails' });
  const pinRenderer = L.svg({ pane: 'fod-pins' });
  let baseLayer = null;
  let timelineLayer = null;
  const items = new Map(); // deviceId -> {dev, marker, trail: [polyline] | null}
  let focusId = null;
  let labelsAll = false;
  let programmatic = 0;
  const focusRing = L.circleMarker([0, 0], {
    renderer: pinRenderer, radius: 14, fill: false, weight: 3, opacity: 0, interactive: false, className: 'focus-ring',
  }).addTo(map);

  const places = createLeafletPlaceLayer(L, map);
  map.on('click', (e) => { if (hooks.onMapClick) hooks.onMapClick([e.latlng.lng, e.latlng.lat]); });

  function quiet(fn) { programmatic++; try { fn(); } finally { setTimeout(() => { programmatic--; }, 0); } }
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
    const want = labelsAll || it.dev.deviceId === focusId;
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
    const pts = it.dev.trail || [];
    const chunks = trailChunks(pts.length, TRAIL_CHUNKS);
    if (!chunks.length && !it.trail) return;
    if (!it.trail) {
      it.trail = [];
      for (let c = 0; c < TRAIL_CHUNKS; c++) {
        it.trail.push(L.polyline([], { renderer: trailRenderer, color: it.dev.color, weight: 3, opacity: 0, interactive: false, lineCap: 'round', className: 'trail' }).addTo(map));
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
      it.trail[ch.chunk].setStyle({ opacity: ch.opacity, color: it.dev.color });
      used[ch.chunk] = true;
    }
    for (let c = 0; c < TRAIL_CHUNKS; c++) if (!used[c]) it.trail[c].setLatLngs([]);
  }

  function addItem(dev) {
    const marker = L.circleMarker([dev.lat, nearLon(dev.lon)], {
      renderer: pinRenderer, radius: PIN_R, weight: 2, color: '#ffffff', opacity: 1,
      fillColor: dev.color, fillOpacity: 1, className: 'pin', bubblingMouseEvents: false,
    }).addTo(map);
    const it = { dev: dev, marker: marker, trail: null };
    const id = dev.deviceId;
    marker.on('click', () => { if (hooks.onPinClick) hooks.onPinClick(id); });
    marker.on('mouseover mousemove', (e) => {
      if (hooks.onPinHover) hooks.onPinHover(id, e.originalEvent.clientX, e.originalEvent.clientY);
    });
    marker.on('mouseout', () => { if (hooks.onPinLeave) hooks.onPinLeave(id); });
    items.set(id, it);
    setDataAttrs(it);
    labelOn(it);
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
  // so pins on both sides of the antimeridian show up together.
  map.on('moveend', () => {
    for (const it of items.values()) {
      const want = nearLon(it.dev.lon);
      if (Math.abs(it.marker.getLatLng().lng - want) > 1e-9) {
        it.marker.setLatLng([it.dev.lat, want]);
        drawTrail(it);
        if (it.dev.deviceId === focusId) focusRing.setLatLng([it.dev.lat, want]);
      }
    }
  });

  const api = {
    kind: 'leaflet',
    map: map,

    setBasemap(geojson) {
      if (baseLayer) baseLayer.remove();
      baseLayer = L.geoJSON(geojson, {
        interactive: false,
        style: { color: '#9c9583', weight: 0.7, fillColor: '#f3efe4', fillOpacity: config.tileURL ? 0.35 : 1 },
      }).addTo(map);
      baseLayer.bringToBack();
    },

    /** Street-scale land of one region over the countries (GeoJSON with a top-level bbox). */
    setDetail(geojson) { places.setDetail(geojson, config.tileURL ? 0.35 : 1); },
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
        labelOn(it);
        focusRing.setLatLng(it.marker.getLatLng());
        focusRing.setStyle({ opacity: 0.9, color: it.dev.color });
      } else {
        focusRing.setStyle({ opacity: 0 });
      }
    },

    centerOn(dev, zoomIn) {
      if (!dev || !dev.located) return;
      quiet(() => map.setView([dev.lat, nearLon(dev.lon)], zoomIn ? Math.max(map.getZoom(), 7) : map.getZoom(), { animate: false }));
    },

    fit(devs) {
      const pts = devs.filter((d) => d.located);
      quiet(() => {
        if (!pts.length) { map.setView([20, 0], 2, { animate: false }); return; }
        const arc = lonArc(pts.map((d) => d.lon));
        let s = 90, n = -90;
        for (const d of pts) { s = Math.min(s, d.lat); n = Math.max(n, d.lat); }
        map.fitBounds(L.latLngBounds([s, arc.west], [n, arc.west + arc.span]), {
          paddingTopLeft: [56, 56], paddingBottomRight: [labelsAll ? 200 : 56, 48], maxZoom: 14, animate: false,
        });
      });
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

    /** Draws a timeline (stays as dots, trips as lines) and fits the view to it; null removes it. */
    setTimeline(features) {
      if (timelineLayer) { timelineLayer.remove(); timelineLayer = null; }
      if (!features) return;
      timelineLayer = L.layerGroup().addTo(map);
      const all = [];
      for (const seg of timelineSegments(features)) {
        if (!seg.coords.length) continue;
        const lons = unwrapLons(seg.coords.map((c) => c[0]));
        const ll = seg.coords.map((c, i) => [c[1], lons[i]]);
        all.push(...ll);
        if (seg.type === 'trip') {
          L.polyline(ll, { renderer: trailRenderer, color: '#d98b00', weight: 4, opacity: 0.9, interactive: false, className: 'tl-trip-line' }).addTo(timelineLayer);
        } else {
          L.circleMarker(ll[0], { renderer: pinRenderer, radius: 7, color: '#fff', weight: 2, fillColor: '#1f6feb', fillOpacity: 1, interactive: false, className: 'tl-stay-dot' }).addTo(timelineLayer);
        }
      }
      if (all.length) quiet(() => map.fitBounds(L.latLngBounds(all), { padding: [48, 48], maxZoom: 16, animate: false }));
    },

    /** Centres the view on one timeline feature. */
    focusTimeline(feature) {
      const seg = feature && timelineSegments([feature])[0];
      if (!seg || !seg.coords.length) return;
      const lons = unwrapLons(seg.coords.map((c) => c[0]));
      quiet(() => map.fitBounds(L.latLngBounds(seg.coords.map((c, i) => [c[1], lons[i]])), { padding: [48, 48], maxZoom: 16, animate: false }));
    },

    clear() {
      for (const it of Array.from(items.values())) removeItem(it);
      api.setFocus(null);
    },

    getView() { const c = map.getCenter(); return { lon: c.lng, lat: c.lat, zoom: map.getZoom() }; },
  };
  return api;
}
