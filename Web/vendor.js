/*
 * Find Our Devices web app: the scripts loaded at run time from Debian packages — Leaflet
 * (libjs-leaflet) and the QR code encoder (node-qrcode-generator) — as classic scripts. With
 * Trusted Types enforced (the page's CSP), a script URL must come from a policy: `fod-vendor`
 * creates these URLs and nothing else.
 */
const ALLOWED = new Set(['/vendor/leaflet/leaflet.js', '/vendor/qrcode/qrcode.js']);
let policy = null;

function scriptURL(url) {
  if (!ALLOWED.has(url)) throw new TypeError('script URL not allowed: ' + url);
  if (!window.trustedTypes) return url;
  if (!policy) {
    policy = window.trustedTypes.createPolicy('fod-vendor', {
      createScriptURL(u) {
        if (!ALLOWED.has(u)) throw new TypeError('script URL not allowed: ' + u);
        return u;
      },
    });
  }
  return policy.createScriptURL(url);
}

const loading = new Map(); // url -> Promise

/** Loads the vendor script `url` once; resolves with `global()` (what it defined) or rejects. */
export function loadVendorScript(url, global) {
  const ready = global();
  if (ready) return Promise.resolve(ready);
  if (!loading.has(url)) {
    loading.set(url, new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.addEventListener('load', () => { const g = global(); if (g) resolve(g); else reject(new Error(url + ' defined nothing')); });
      s.addEventListener('error', () => { loading.delete(url); reject(new Error('failed to load ' + url)); });
      s.src = scriptURL(url);
      document.head.appendChild(s);
    }));
  }
  return loading.get(url);
}
