/*
 * Find Our Devices web map: the Leaflet renderer's places and the place being drawn.
 * Polygons in their own pane under the pins; a place's name is a tooltip holding a text node
 * (Leaflet would parse a string as HTML).
 */
import { h } from './dom.js';
import { draftRings, placeRings } from './placegeometry.js';

const toLatLngs = (rings) => rings.map((ring) => ring.map((p) => [p[1], p[0]]));

export function createLeafletPlaceLayer(L, map) {
  map.createPane('fod-places').style.zIndex = 405;
  const renderer = L.svg({ pane: 'fod-places' });
  const group = L.layerGroup().addTo(map);
  const draft = L.polygon([], { renderer, className: 'place-draft', weight: 2, dashArray: '6 4', fillOpacity: 0.1, interactive: false }).addTo(map);
  return {
    setPlaces(places) {
      group.clearLayers();
      for (const p of places || []) {
        const rings = placeRings(p);
        if (!rings.length) continue;
        const occupied = Array.isArray(p.inside) && p.inside.length > 0;
        const shape = L.polygon(toLatLngs(rings), {
          renderer, className: 'place' + (occupied ? ' occupied' : ''), weight: 2, color: '#7a3db8', fillOpacity: occupied ? 0.25 : 0.12,
        });
        shape.bindTooltip(h('span', null, String(p.name || '')), { sticky: true });
        group.addLayer(shape);
      }
    },
    setDraft(value) { draft.setLatLngs(toLatLngs(draftRings(value))); },
  };
}
