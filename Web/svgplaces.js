/*
 * Find Our Devices web map: the SVG map's place layer. Places (and the one being drawn) are
 * paths in world units (svgprojection.js) under the same transform as the basemap, with
 * non-scaling strokes; a place's name is its <title> text (never markup). A place with a
 * device inside is marked `occupied`.
 */
import { el, ringsPath } from './svgprojection.js';
import { draftRings, placeRings } from './placegeometry.js';

export function createSvgPlaceLayer(svg, before) {
  const layer = el('g', { class: 'places' }, null);
  svg.insertBefore(layer, before);
  const shapes = el('g', null, layer);
  const draft = el('path', { class: 'place-draft', d: '', 'vector-effect': 'non-scaling-stroke' }, layer);
  return {
    /** Moves the layer with the basemap: `transform` is the basemap's attribute text. */
    setTransform(transform) { layer.setAttribute('transform', transform); },

    /** Draws `places` (place documents with `inside` lists). */
    setPlaces(places) {
      while (shapes.firstChild) shapes.removeChild(shapes.firstChild);
      for (const p of places || []) {
        const d = ringsPath(placeRings(p));
        if (!d) continue;
        const path = el('path', { class: 'place', d, 'data-place-id': String(p.id), 'vector-effect': 'non-scaling-stroke' }, shapes);
        if (Array.isArray(p.inside) && p.inside.length) path.classList.add('occupied');
        el('title', null, path).textContent = String(p.name || '');
      }
    },

    /** Shows the shape being drawn (null: none). */
    setDraft(value) { draft.setAttribute('d', ringsPath(draftRings(value))); },
  };
}
