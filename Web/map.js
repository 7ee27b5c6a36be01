/*
 * Find Our Devices web map: picks and starts a map renderer for a page.
 *
 * Leaflet (Debian's libjs-leaflet, served from /vendor/leaflet) when /static/config.json says
 * {"leaflet": true} and it loads, else the built-in SVG map. Leaflet draws the street tiles of
 * --tile-url (OpenStreetMap's by default) over the offline basemap (countries, the demo
 * region's shorelines), which it draws only when tiles are off or fail; the SVG map always
 * draws the offline basemap. Both renderers have the same interface, on devices of the shape
 * described in state.js:
 *
 *   kind                      'leaflet' | 'svg'
 *   setBasemap(geojson)       countries FeatureCollection
 *   setDetail(geojson)        street-scale land of one region (a top-level `bbox`), over the countries
 *   setPlaces(places)         the group's places (documents with `inside`); setDraft(draft | null)
 *   sync(devices)             the full set (those located get a pin, the others none)
 *   move(device)              one device moved (cheap: no rebuild)
 *   setFocus(id | null), centerOn(device, zoomIn), fit(devices)
 *   setLabels(all)            permanent labels on every pin, or on the focused one only
 *   setLabelText(device, text), setStale(device, stale)
 *   invalidateSize(), clear(), getView() -> {lon, lat, zoom}
 *   setTimeline(features | null)  a day of the timeline panel (GeoJSON stays and trips), fitted
 *   focusTimeline(feature)    fits the view to one of them
 *   setTrack(lines | null)    a history track: lines of [lon, lat], fitted
 *   setCursor(lonLat | null, path)  the playback cursor and the part of the day played
 *   fitTrail(device)          the view on a device's trail (the share page)
 *   whenOffline(cb)           (Leaflet only) cb once the offline basemap is wanted
 * Pins are grouped into numbered bubbles where they crowd (cluster.js); the focused one never.
 *
 * hooks: onPinClick(id), onPinHover(id, clientX, clientY), onPinLeave(id | null),
 * onUserMove(), onFitRequest(), onMapClick([lon, lat]). Labels and attributions are text, never HTML.
 */
import { createSvgMap } from './svgmap.js';
import { createLeafletMap } from './leafletmap.js';
import { loadVendorScript } from './vendor.js';

const LEAFLET_JS = '/vendor/leaflet/leaflet.js';
const LEAFLET_CSS = '/vendor/leaflet/leaflet.css';
/** Street-scale shorelines of the demo region (Data/, built by scripts/make-shoreline.py). */
const DETAIL_BASEMAP = 'shoreline-ny-harbor.geojson';

/** The server's settings for the page: {leaflet, qrcode, tileURL, tileAttribution}; offline defaults on failure. */
export async function loadMapConfig() {
  const config = { leaflet: false, qrcode: false, tileURL: null, tileAttribution: '' };
  try {
    const r = await fetch('/static/config.json', { cache: 'no-store' });
    if (r.ok) Object.assign(config, await r.json());
  } catch (_) { /* no config: offline SVG map */ }
  return config;
}

function loadLeaflet() {
  if (!document.querySelector('link[data-leaflet]')) {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = LEAFLET_CSS;
    link.dataset.leaflet = '1';
    document.head.appendChild(link);
  }
  return loadVendorScript(LEAFLET_JS, () => window.L);
}

/** Fetches the offline basemap (countries, the demo region's shorelines) into `map`. */
function loadOfflineBasemap(map) {
  fetch('/static/countries-110m.geojson')
    .then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
    .then((gj) => { map.setBasemap(gj); document.body.dataset.basemap = '1'; })
    .catch((e) => { console.warn('Basemap unavailable:', e.message); });
  fetch('/static/' + DETAIL_BASEMAP)
    .then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
    .then((gj) => { map.setDetail(gj); document.body.dataset.detail = '1'; })
    .catch((e) => { console.warn('Shorelines unavailable:', e.message); });
}

/**
 * Starts the map in `container`. Marks the page for tests: body[data-map] is the renderer,
 * body[data-tiles] 'loaded' | 'failed' | 'none', body[data-basemap="1"] once the countries are
 * drawn and body[data-detail="1"] the shorelines (the offline basemap: always on the SVG map;
 * on Leaflet without tiles, or once a tile failed to load).
 */
export async function createMap(container, hooks, config) {
  let map = null;
  if (config.leaflet) {
    try {
      map = createLeafletMap(await loadLeaflet(), container, hooks, config);
    } catch (e) {
      console.warn('Leaflet unavailable, using the built-in map:', e.message);
    }
  }
  if (!map) map = createSvgMap(container, hooks, config);
  document.body.dataset.map = map.kind;
  if (map.whenOffline) map.whenOffline(() => loadOfflineBasemap(map));
  else loadOfflineBasemap(map);
  return map;
}
