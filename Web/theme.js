/*
 * Find Our Devices web map: the theme's colours for what the maps draw themselves (SVG
 * attributes and Leaflet styles cannot use CSS custom properties): read from style.css, which
 * switches them with prefers-color-scheme.
 */

/** {sea, land, coast, pinRing} as CSS colour strings, with the light theme's as fallbacks. */
export function mapColors() {
  const s = getComputedStyle(document.documentElement);
  const v = (name, fallback) => s.getPropertyValue(name).trim() || fallback;
  return { sea: v('--sea', '#cfe2ee'), land: v('--land', '#f3efe4'), coast: v('--coast', '#a39b87'), pinRing: v('--pin-ring', '#ffffff') };
}
