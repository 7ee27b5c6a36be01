/*
 * Find Our Devices web map: the SVG map's cluster bubbles (cluster.js groups the pins). A bubble
 * is a <g class="cluster"> with a circle and its count as text, focusable, with an accessible
 * name; a click or Enter on it calls `onOpen(ids)` (the map zooms to those pins).
 */
import { el, r2 } from './svgprojection.js';
import { clusterLabel, clusterPoints, clusterSize } from './cluster.js';

export const CLUSTER_RADIUS = 34;

export function createSvgClusters(layer, onOpen) {
  const bubbles = []; // reused in order: {g, circle, text, ids}
  let shown = 0;

  function bubble(i) {
    if (bubbles[i]) return bubbles[i];
    const g = el('g', { class: 'cluster', role: 'button', tabindex: '0' }, layer);
    const b = { g, circle: el('circle', { r: 15 }, g), text: el('text', { dy: '0.35em' }, g), ids: [] };
    g.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); onOpen(b.ids); } });
    g.dataset.index = String(i);
    bubbles[i] = b;
    return b;
  }

  return {
    /** The ids of the bubble at index `i` (a pointer on a `.cluster`), or null. */
    idsAt(i) { return i >= 0 && i < shown ? bubbles[i].ids : null; },

    /** Groups `points` ([{id, x, y}], screen pixels) unless `off`; returns the ids inside a bubble. */
    update(points, keep, off) {
      const groups = off ? [] : clusterPoints(points, CLUSTER_RADIUS, keep).clusters;
      const inside = new Set();
      groups.forEach((c, i) => {
        const b = bubble(i);
        b.ids = c.ids;
        const n = c.ids.length;
        b.g.setAttribute('transform', 'translate(' + r2(c.x) + ' ' + r2(c.y) + ')');
        b.circle.setAttribute('r', String(clusterSize(n) / 2));
        b.text.textContent = clusterLabel(n);
        b.g.setAttribute('aria-label', n + ' devices here: zoom in');
        b.g.dataset.count = String(n);
        if (!b.g.parentNode) layer.appendChild(b.g);
        for (const id of c.ids) inside.add(id);
      });
      for (let i = groups.length; i < shown; i++) bubbles[i].g.remove();
      shown = groups.length;
      document.body.dataset.clusters = String(shown);
      return inside;
    },
  };
}
