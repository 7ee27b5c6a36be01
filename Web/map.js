/*
 * Find Our Devices web map: picks and starts a map renderer for a page.
 *
 * Leaflet (Debian's libjs-leaflet, served from /vendor/leaflet) when /static/config.json says
 * {"leaflet": true} and it loads, else the built-in SVG map; both work offline over the
 * countries basemap, tiles only when the server was given --tile-url. Both renderers have the
 * same interface, on devices of the shape described in state.js:
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
 *
 * hooks: onPinClick(id), onPinHover(id, clientX, clientY), onPinLeave(id | null),
 * onUserMove(), onFitRequest(), onMapClick([lon, lat]). Labels and attributions are text, never HTML.
 */
import { createSvgMap } from './svgmap.js';
import { createLeafletMap } from './leafletmap.js';

const LEAFLET_JS = '/vendor/leaflet/leaflet.js';
const LEAFLET_CSS = '/vendor/leaflet/leaflet.css';
/** Street-scale shorelines of the demo region (Data/, built by scripts/make-shoreline.py). */
const DETAIL_BASEMAP = 'shoreline-ny-harbor.geojson';

/** The server's map settings: {leaflet, tileURL, tileAttribution}; offline defaults on failure. */
export async function loadMapConfig() {
  const config = { leaflet: false, tileURL: null, tileAttribution: '' };
  try {
    const r = await fetch('/static/config.json', { cache: 'no-store' });
    if (r.ok) Object.assign(config, await r.json());
  } catch (_) { /* no config: offline SVG map */ }
  return config;
}

let leafletPolicy = null;

/**
 * The Leaflet script URL as the page's CSP wants it: with Trusted Types enforced, a script URL
 * must come from the `fod-leaflet` policy, which creates this one URL and nothing else.
 */
function leafletScriptURL() {
  if (!window.trustedTypes) return LEAFLET_JS;
  if (!leafletPolicy) {
    leafletPolicy = window.trustedTypes.createPolicy('fod-leaflet', {
      createScriptURL(url) {
        if (url !== LEAFLET_JS) throw new TypeError('script URL not allowed: ' + url);
        return url;
      },
    });
  }
  return leafletPolicy.createScriptURL(LEAFLET_JS);
}

function loadLeaflet() {
  if (!document.querySelector('link[data-leaflet]')) {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = LEAFLET_CSS;
    link.dataset.leaflet = '1';
    document.head.appendChild(link);
  }
  if (window.L) return Promise.resolve(window.L);
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.addEventListener('load', () => (window.L ? resolve(window.L) : reject(new Error('Leaflet did not define L'))));
    s.addEventListener('error', () => reject(new Error('failed to load ' + LEAFLET_JS)));
    s.src = leafletScriptURL();
    document.head.appendChild(s);
  });
}

/**
 * Starts the map in `container` and loads the basemap in the background. Marks the page for
 * tests: body[data-map] is the renderer, body[data-basemap="1"] once the countries are drawn.
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
  if (!map) map = createSvgMap(container, hooks);
  document.body.dataset.map = map.kind;
  fetch('/static/countries-110m.geojson')
    .then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
    .then((gj) => { map.setBasemap(gj); document.body.dataset.basemap = '1'; })
    .catch((e) => { console.warn('Basemap unavailable:', e.message); });
  fetch('/static/' + DETAIL_BASEMAP)
    .then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
    .then((gj) => { map.setDetail(gj); document.body.dataset.detail = '1'; })
    .catch((e) => { console.warn('Shorelines unavailable:', e.message); });
  return map;
}
