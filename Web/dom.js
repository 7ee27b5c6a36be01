/*
 * Find Our Devices web map: the one way the pages build DOM. Text from the server (device,
 * member and group names) only ever becomes text nodes: `h` appends strings with
 * Element.append, which never parses markup, and refuses properties that would
 * (innerHTML, outerHTML, srcdoc) or that run code (on* handlers given as strings).
 * The page's Content-Security-Policy enforces the same with Trusted Types.
 */

const FORBIDDEN = new Set(['innerHTML', 'outerHTML', 'srcdoc']);

/**
 * Creates an element. `props`: properties (className, type, title, value, disabled, hidden…),
 * `attrs` (attributes, e.g. aria-*), `dataset`, `style` (CSSOM properties, not a style string).
 * `children`: nodes or strings (as text); null, undefined and false are skipped.
 */
export function h(tag, props, ...children) {
  const e = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (key === 'attrs') { for (const [name, v] of Object.entries(value)) e.setAttribute(name, String(v)); continue; }
      if (key === 'dataset') { Object.assign(e.dataset, value); continue; }
      if (key === 'style') { Object.assign(e.style, value); continue; }
      if (FORBIDDEN.has(key) || /^on/i.test(key)) throw new TypeError('h(): property not allowed: ' + key);
      e[key] = value;
    }
  }
  append(e, children);
  return e;
}

/** Appends `children` (nodes or strings, as text) to `parent`, skipping null, undefined and false. */
export function append(parent, children) {
  for (const c of children) {
    if (c == null || c === false) continue;
    parent.append(typeof c === 'string' || typeof c === 'number' ? String(c) : c);
  }
  return parent;
}

/** Replaces every child of `parent` with `children` (as in `append`). */
export function replaceChildren(parent, ...children) {
  parent.textContent = '';
  return append(parent, children);
}

/** The element with this id (throws when the page lacks it: a wiring error, not bad data). */
export function byId(id) {
  const e = document.getElementById(id);
  if (!e) throw new Error('the page has no #' + id);
  return e;
}
