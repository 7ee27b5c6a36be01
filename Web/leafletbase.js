/*
 * Find Our Devices web map: the Leaflet renderer's ground — the street tiles of `--tile-url`
 * (OpenStreetMap's by default), the offline basemap (country outlines, and the demo region's
 * street-scale shorelines) under them, and the zoom and attribution controls, all built from
 * text (Leaflet's own controls set innerHTML, which the page's Trusted Types forbid).
 *
 * The offline basemap lives in its own pane below the tiles: with tiles it stays hidden under
 * them, and is only drawn once a tile fails to load (no network), so a map online costs no
 * vector drawing; without tiles it is the map. Its colours follow the page's theme.
 */
import { h } from './dom.js';
import { mapColors } from './theme.js';

/** Tile requests carry the page's origin as Referer (OpenStreetMap's tile policy wants one); the page itself sends none. */
const TILE_REFERRER_POLICY = 'strict-origin-when-cross-origin';

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

/** The attribution line, as text; `set(parts)` replaces it. */
function attributionControl(L) {
  let div = null;
  const Attribution = L.Control.extend({
    options: { position: 'bottomright' },
    onAdd() {
      div = h('div', { className: 'leaflet-control-attribution' });
      L.DomEvent.disableClickPropagation(div);
      return div;
    },
  });
  const control = new Attribution();
  control.set = (parts) => { if (div) div.textContent = parts.filter(Boolean).join(' | '); };
  return control;
}

/**
 * Adds the ground to `map`. Returns {setBasemap(geojson), setDetail(geojson), whenOffline(cb)}:
 * `whenOffline(cb)` calls `cb` once the offline basemap is wanted (at once without tiles, at
 * the first tile that fails with them).
 */
export function createLeafletGround(L, map, config) {
  zoomControl(L).addTo(map);
  const attribution = attributionControl(L).addTo(map);
  const credits = { tiles: config.tileURL ? String(config.tileAttribution || '') : '', base: '' };
  const showCredits = () => attribution.set([credits.tiles, credits.base]);
  showCredits();

  map.createPane('fod-base').style.zIndex = 150; // under the tile pane (200)
  const renderer = L.svg({ pane: 'fod-base' });
  let offlineWanted = !config.tileURL;
  const waiting = [];
  const wantOffline = () => {
    if (offlineWanted) return;
    offlineWanted = true;
    document.body.dataset.tiles = config.tileURL ? 'failed' : 'none';
    for (const cb of waiting.splice(0)) cb();
  };
  if (config.tileURL) {
    // Leaflet cancels a tile's request by pointing it at a data: image, which the CSP refuses
    // (img-src has no data:); dropping the src cancels it as well.
    const Tiles = L.TileLayer.extend({
      createTile(coords, done) {
        const img = L.TileLayer.prototype.createTile.call(this, coords, done);
        img.referrerPolicy = TILE_REFERRER_POLICY;
        img.alt = '';
        return img;
      },
      _removeTile(key) {
        const tile = this._tiles[key];
        if (!tile) return undefined;
        tile.el.onload = tile.el.onerror = null;
        tile.el.removeAttribute('src');
        return L.GridLayer.prototype._removeTile.call(this, key);
      },
      _abortLoading() {
        for (const key of Object.keys(this._tiles)) {
          const tile = this._tiles[key];
          if (tile.coords.z === this._tileZoom) continue;
          tile.el.onload = tile.el.onerror = null;
          if (!tile.el.complete) {
            tile.el.removeAttribute('src');
            L.DomUtil.remove(tile.el);
            delete this._tiles[key];
          }
        }
      },
    });
    const tiles = new Tiles(config.tileURL, { maxZoom: 19, crossOrigin: false }).addTo(map);
    tiles.on('tileerror', wantOffline);
    tiles.on('tileload', () => { if (document.body.dataset.tiles !== 'failed') document.body.dataset.tiles = 'loaded'; });
  } else {
    document.body.dataset.tiles = 'none';
  }

  let countries = null, detail = null;
  const style = () => {
    const c = mapColors();
    return { color: c.coast, weight: 0.7, fillColor: c.land, fillOpacity: 1 };
  };
  return {
    whenOffline(cb) { if (offlineWanted) cb(); else waiting.push(cb); },

    /** The countries (GeoJSON FeatureCollection). */
    setBasemap(geojson) {
      if (countries) countries.remove();
      countries = L.geoJSON(geojson, { renderer, pane: 'fod-base', interactive: false, style }).addTo(map);
      countries.bringToBack();
      credits.base = detail ? 'Natural Earth; shorelines GSHHG' : 'Countries: Natural Earth';
      showCredits();
    },

    /** One region's street-scale land over the countries: its water (the `bbox`), then its land. */
    setDetail(geojson) {
      if (detail) detail.remove();
      const b = geojson && geojson.bbox;
      if (!Array.isArray(b) || b.length !== 4) return;
      const c = mapColors();
      const water = L.rectangle([[b[1], b[0]], [b[3], b[2]]], { renderer, pane: 'fod-base', stroke: false, fillColor: c.sea, fillOpacity: 1, interactive: false });
      // No outline: the region's land is cut at its box, whose edges must not show.
      const land = L.geoJSON(geojson, { renderer, pane: 'fod-base', interactive: false, style: () => Object.assign(style(), { stroke: false }) });
      // Water first, land over it: both in one renderer, in this order.
      detail = L.layerGroup().addTo(map);
      water.addTo(detail);
      land.addTo(detail);
      land.bringToFront();
      credits.base = 'Natural Earth; shorelines GSHHG';
      showCredits();
    },
  };
}
