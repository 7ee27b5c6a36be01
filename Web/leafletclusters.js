/*
 * Find Our Devices web map: the Leaflet renderer's cluster bubbles (cluster.js groups the pins).
 * A bubble is a marker whose icon is an element holding its count as text (never HTML), with
 * an accessible name; clicking it (or Enter on it) zooms to its pins.
 */
import { h } from './dom.js';
import { clusterLabel, clusterPoints, clusterSize } from './cluster.js';

/** Pins closer than this (pixels) join a bubble. */
export const CLUSTER_RADIUS = 34;
/** From this zoom on nothing is clustered (pins that still overlap are at one spot). */
export const CLUSTER_MAX_ZOOM = 17;

export function createLeafletClusters(L, map, pane) {
  const markers = []; // bubbles in use, reused in order
  let shown = 0;

  function bubble(i) {
    if (markers[i]) return markers[i];
    const label = h('span', { className: 'cluster-count' });
    const m = L.marker([0, 0], { pane, keyboard: true, riseOnHover: true, icon: L.divIcon({ html: label, className: 'cluster-icon', iconSize: [30, 30] }) });
    m.fodLabel = label;
    m.on('click', () => {
      if (!m.fodBounds) return;
      map.fitBounds(m.fodBounds, { padding: [48, 48], maxZoom: CLUSTER_MAX_ZOOM + 1 });
    });
    markers[i] = m;
    return m;
  }

  return {
    /**
     * Groups `entries` ([{id, latLng}] of the pins on the map) at the current view and draws
     * the bubbles; `keep` holds ids never clustered. Returns the Set of ids inside a bubble.
     */
    update(entries, keep) {
      const clustered = new Set();
      let groups = [];
      if (map.getZoom() < CLUSTER_MAX_ZOOM && entries.length > 1) {
        const pts = entries.map((e) => { const p = map.latLngToLayerPoint(e.latLng); return { id: e.id, x: p.x, y: p.y, latLng: e.latLng }; });
        const byId = new Map(pts.map((p) => [p.id, p]));
        groups = clusterPoints(pts, CLUSTER_RADIUS, keep).clusters.map((c) => ({ ids: c.ids, at: map.layerPointToLatLng([c.x, c.y]), members: c.ids.map((id) => byId.get(id).latLng) }));
      }
      groups.forEach((g, i) => {
        const m = bubble(i);
        const n = g.ids.length, size = clusterSize(n);
        m.fodBounds = L.latLngBounds(g.members);
        m.setLatLng(g.at);
        m.fodLabel.textContent = clusterLabel(n);
        const icon = m.options.icon;
        if (icon.options.iconSize[0] !== size) m.setIcon(L.divIcon({ html: m.fodLabel, className: 'cluster-icon', iconSize: [size, size] }));
        if (!map.hasLayer(m)) m.addTo(map);
        const e = m.getElement();
        if (e && !m.fodKeys) {
          m.fodKeys = true;
          e.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); m.fire('click'); } });
        }
        if (e) {
          e.setAttribute('aria-label', n + ' devices here: zoom in');
          e.setAttribute('role', 'button');
          e.title = n + ' devices';
          e.dataset.count = String(n);
          e.style.width = e.style.height = size + 'px';
        }
        for (const id of g.ids) clustered.add(id);
      });
      for (let i = groups.length; i < shown; i++) markers[i].remove();
      shown = groups.length;
      document.body.dataset.clusters = String(shown);
      return clustered;
    },

    clear() {
      for (let i = 0; i < shown; i++) markers[i].remove();
      shown = 0;
      document.body.dataset.clusters = '0';
    },
  };
}
