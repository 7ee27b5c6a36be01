/*
 * Find Our Devices web app: QR codes drawn in the browser, from data the page already holds
 * (the phone set-up carries the device token: it never goes back to the server to be drawn).
 * The encoder is Debian's node-qrcode-generator (/vendor/qrcode/qrcode.js, when the server has
 * it); the symbol becomes an SVG path built with DOM calls, never markup.
 */
import { loadVendorScript } from './vendor.js';

const QR_JS = '/vendor/qrcode/qrcode.js';
const NS = 'http://www.w3.org/2000/svg';
/** Light modules around the symbol, as the standard asks (4). */
const QUIET_ZONE = 4;

/** `text` as a string of UTF-8 bytes, one char per byte (what the encoder's byte mode reads). */
export function utf8Binary(text) {
  return Array.from(new TextEncoder().encode(text), (b) => String.fromCharCode(b)).join('');
}

/** The dark modules of a symbol as SVG path data ("M x y h w v1 h-w z" per run of a row). */
export function modulesPath(count, isDark) {
  let d = '';
  for (let r = 0; r < count; r++) {
    let c = 0;
    while (c < count) {
      if (!isDark(r, c)) { c++; continue; }
      const start = c;
      while (c < count && isDark(r, c)) c++;
      d += 'M' + (start + QUIET_ZONE) + ' ' + (r + QUIET_ZONE) + 'h' + (c - start) + 'v1h-' + (c - start) + 'z';
    }
  }
  return d;
}

/**
 * An <svg> of the QR code of `text` (error correction M, the smallest version that fits), with
 * `label` as its accessible name; rejects when the encoder is not installed.
 */
export async function qrSvg(text, label) {
  const qrcode = await loadVendorScript(QR_JS, () => window.qrcode);
  const qr = qrcode(0, 'M');
  qr.addData(utf8Binary(text), 'Byte');
  qr.make();
  const n = qr.getModuleCount(), size = n + 2 * QUIET_ZONE;
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', '0 0 ' + size + ' ' + size);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.setAttribute('shape-rendering', 'crispEdges');
  const bg = document.createElementNS(NS, 'rect');
  bg.setAttribute('width', String(size));
  bg.setAttribute('height', String(size));
  bg.setAttribute('fill', '#ffffff');
  svg.appendChild(bg);
  const path = document.createElementNS(NS, 'path');
  path.setAttribute('d', modulesPath(n, (r, c) => qr.isDark(r, c)));
  path.setAttribute('fill', '#000000');
  svg.appendChild(path);
  return svg;
}
