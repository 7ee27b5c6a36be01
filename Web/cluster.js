/*
 * Find Our Devices web map: marker clustering, shared by both renderers. Pure: screen points
 * in, groups out. Pins closer than `radius` pixels to a group's first pin join that group, so a
 * crowded harbour reads as a few numbered bubbles instead of a pile of dots; a group of one is
 * a plain pin. Linear time: a grid of `radius`-sized cells, each pin looking at the 3×3 cells
 * around it (296 pins take well under a millisecond).
 */

/**
 * @param {Array<{id: string, x: number, y: number}>} points screen positions (pixels)
 * @param {number} radius pixels
 * @param {Set<string>} [keep] ids never clustered (the focused device)
 * @returns {{singles: string[], clusters: Array<{ids: string[], x: number, y: number}>}}
 *   every id once: alone in `singles` or in one cluster (of two or more), whose x/y is the
 *   mean of its pins
 */
export function clusterPoints(points, radius, keep) {
  const singles = [];
  const clusters = [];
  if (!(radius > 0)) return { singles: points.map((p) => p.id), clusters };
  const cells = new Map(); // "cx,cy" -> indexes into points
  const cellOf = (p) => [Math.floor(p.x / radius), Math.floor(p.y / radius)];
  points.forEach((p, i) => {
    if (keep && keep.has(p.id)) return;
    const [cx, cy] = cellOf(p);
    const key = cx + ',' + cy;
    let list = cells.get(key);
    if (!list) { list = []; cells.set(key, list); }
    list.push(i);
  });
  const taken = new Uint8Array(points.length);
  const r2 = radius * radius;
  points.forEach((p, i) => {
    if (taken[i]) return;
    taken[i] = 1;
    if (keep && keep.has(p.id)) { singles.push(p.id); return; }
    const [cx, cy] = cellOf(p);
    const members = [i];
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (const j of cells.get((cx + dx) + ',' + (cy + dy)) || []) {
          if (taken[j]) continue;
          const q = points[j];
          const ex = q.x - p.x, ey = q.y - p.y;
          if (ex * ex + ey * ey <= r2) { taken[j] = 1; members.push(j); }
        }
      }
    }
    if (members.length === 1) { singles.push(p.id); return; }
    let sx = 0, sy = 0;
    for (const j of members) { sx += points[j].x; sy += points[j].y; }
    clusters.push({ ids: members.map((j) => points[j].id), x: sx / members.length, y: sy / members.length });
  });
  return { singles, clusters };
}

/** The text in a cluster's bubble: "7", "99+". */
export function clusterLabel(n) { return n > 99 ? '99+' : String(n); }

/** A cluster bubble's diameter in pixels: larger for more pins, 28 to 44. */
export function clusterSize(n) { return Math.round(Math.min(44, 26 + 6 * Math.log10(Math.max(2, n)) * 2)); }
