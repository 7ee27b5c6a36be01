/*
 * Find Our Devices web map: pointer, wheel, keyboard and button input of the SVG map.
 * Drag pans, wheel and double-click zoom at the pointer, +/- and arrows act on the focused
 * map; a click without a drag on a pin is a pin click, on a cluster bubble a cluster click
 * (its index), elsewhere a map click ([lon, lat]). `nav` is the map's view
 * ({cx, cy, k} in world units, see svgmap.js) with zoomAt(factor, px?, py?), changed() after
 * moving the view, showWorld(), refit() (when the page has no onFitRequest hook) and lonLatAt(px, py).
 */

/** A drag shorter than this (pixels, |dx| + |dy|) is still a click. */
const CLICK_SLOP = 4;

export function attachSvgInput(svg, container, controls, hooks, nav) {
  const view = nav.view;
  const userMoved = () => { if (hooks.onUserMove) hooks.onUserMove(); };
  const pinId = (t) => (t && t.classList && t.classList.contains('pin') ? t.getAttribute('data-device-id') : null);

  let drag = null;
  svg.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
    const pinEl = e.target.closest ? e.target.closest('.pin') : null;
    const clusterEl = e.target.closest ? e.target.closest('.cluster') : null;
    drag = { x: e.clientX, y: e.clientY, cx: view.cx, cy: view.cy, moved: false, pin: pinEl && pinEl.getAttribute('data-device-id'),
      cluster: clusterEl ? Number(clusterEl.dataset.index) : null, id: e.pointerId };
    try { svg.setPointerCapture(e.pointerId); } catch (_) { /* capture is best effort */ }
  });
  svg.addEventListener('pointermove', (e) => {
    if (drag && drag.id === e.pointerId) {
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) < CLICK_SLOP) return;
      if (!drag.moved) { drag.moved = true; svg.classList.add('dragging'); if (hooks.onPinLeave) hooks.onPinLeave(null); userMoved(); }
      view.cx = drag.cx - dx / view.k;
      view.cy = drag.cy - dy / view.k;
      nav.changed();
      return;
    }
    const id = pinId(e.target);
    if (id && hooks.onPinHover) hooks.onPinHover(id, e.clientX, e.clientY);
  });
  function endDrag(e) {
    if (!drag || drag.id !== e.pointerId) return;
    const d = drag;
    drag = null;
    svg.classList.remove('dragging');
    if (!d.moved && d.cluster != null && e.type === 'pointerup' && hooks.onClusterClick) hooks.onClusterClick(d.cluster);
    else if (!d.moved && d.pin && e.type === 'pointerup' && hooks.onPinClick) hooks.onPinClick(d.pin);
    else if (!d.moved && !d.pin && e.type === 'pointerup' && hooks.onMapClick) {
      const r = svg.getBoundingClientRect();
      hooks.onMapClick(nav.lonLatAt(e.clientX - r.left, e.clientY - r.top));
    }
  }
  svg.addEventListener('pointerup', endDrag);
  svg.addEventListener('pointercancel', endDrag);
  svg.addEventListener('pointerout', (e) => {
    const id = pinId(e.target);
    if (id && hooks.onPinLeave) hooks.onPinLeave(id);
  });
  svg.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = svg.getBoundingClientRect();
    const dy = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
    nav.zoomAt(Math.exp(-dy * 0.0025), e.clientX - r.left, e.clientY - r.top);
    userMoved();
  }, { passive: false });
  svg.addEventListener('dblclick', (e) => {
    const r = svg.getBoundingClientRect();
    nav.zoomAt(e.shiftKey ? 0.5 : 2, e.clientX - r.left, e.clientY - r.top);
    userMoved();
  });
  container.addEventListener('keydown', (e) => {
    if (e.target !== container) return;
    const step = 80 / view.k;
    let handled = true;
    switch (e.key) {
      case '+': case '=': nav.zoomAt(2); break;
      case '-': case '_': nav.zoomAt(0.5); break;
      case 'ArrowLeft': view.cx -= step; break;
      case 'ArrowRight': view.cx += step; break;
      case 'ArrowUp': view.cy -= step; break;
      case 'ArrowDown': view.cy += step; break;
      default: handled = false;
    }
    if (handled) { e.preventDefault(); nav.changed(); userMoved(); }
  });
  controls.addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (!b) return;
    const act = b.dataset.act;
    if (act === 'in') { nav.zoomAt(2); userMoved(); }
    else if (act === 'out') { nav.zoomAt(0.5); userMoved(); }
    else if (act === 'fit') { if (hooks.onFitRequest) hooks.onFitRequest(); else nav.refit(); }
    else if (act === 'world') { nav.showWorld(); userMoved(); }
  });
}
