"""The soak benchmark's SVG plot, written by hand: four panels over time (ingest fixes/s; ingest and
query p99; WAL and database file sizes with the WAL bound; server RSS), the end of the load marked."""
from xml.sax.saxutils import escape

WIDTH, PANEL, LEFT, RIGHT, TOP, GAP = 960, 150, 80, 150, 40, 40
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]


def nice_max(value):
    """The smallest 1, 2 or 5 times a power of ten that is at least `value`."""
    if value <= 0:
        return 1
    power = 10 ** len(str(int(value))) / 10
    for step in (1, 2, 5, 10):
        if step * power >= value:
            return step * power
    return 10 * power


def panel(out, index, title, unit, series, t_max, load_end, guide=None):
    top = TOP + index * (PANEL + GAP)
    plot_w = WIDTH - LEFT - RIGHT
    values = [v for _, points in series for _, v in points] + ([guide[1]] if guide else [])
    y_max = nice_max(max(values) if values else 1)
    x = lambda t: LEFT + plot_w * t / t_max
    y = lambda v: top + PANEL - PANEL * min(v, y_max) / y_max
    out.append(f'<text x="{LEFT}" y="{top - 8}" font-weight="bold">{escape(title)} ({escape(unit)})</text>')
    out.append(f'<rect x="{LEFT}" y="{top}" width="{plot_w}" height="{PANEL}" fill="none" stroke="#999"/>')
    for k in range(5):
        v = y_max * k / 4
        out.append(f'<line x1="{LEFT}" y1="{y(v):.1f}" x2="{LEFT + plot_w}" y2="{y(v):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:,.0f}</text>')
    step = nice_max(t_max / 10)
    t = 0
    while t <= t_max:
        out.append(f'<text x="{x(t):.1f}" y="{top + PANEL + 14}" text-anchor="middle">{t:.0f}</text>')
        t += step
    out.append(f'<line x1="{x(load_end):.1f}" y1="{top}" x2="{x(load_end):.1f}" y2="{top + PANEL}" stroke="#555" stroke-dasharray="4 3"/>')
    if guide:
        label, value = guide
        out.append(f'<line x1="{LEFT}" y1="{y(value):.1f}" x2="{LEFT + plot_w}" y2="{y(value):.1f}" stroke="#ff7f0e" stroke-dasharray="6 3"/>')
        out.append(f'<text x="{LEFT + plot_w + 6}" y="{y(value) + 4:.1f}" fill="#ff7f0e">{escape(label)}</text>')
    for n, (name, points) in enumerate(series):
        if not points:
            continue
        path = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{COLORS[n]}" stroke-width="1.5"/>')
        out.append(f'<text x="{LEFT + plot_w + 6}" y="{top + 14 + 16 * n}" fill="{COLORS[n]}">{escape(name)}</text>')


def write_svg(path, rows, load_end, limit, title):
    load = [r for r in rows if r["phase"] == "load"]
    t_max = max(r["t"] for r in rows) or 1
    mib = lambda key: [(r["t"], r[key] / 2**20) for r in rows]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{TOP + 4 * (PANEL + GAP) + 10}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{LEFT}" y="18" font-size="13">{escape(title)}</text>']
    panel(out, 0, "ingest", "fixes/s", [("fixes/s", [(r["t"], r["fixes_per_s"]) for r in load])], t_max, load_end)
    panel(out, 1, "latency p99 per interval", "ms", [("ingest", [(r["t"], r["p99_ms"]) for r in load]),
                                                     ("queries", [(r["t"], r["query_p99_ms"]) for r in load])], t_max, load_end)
    panel(out, 2, "files", "MiB", [("WAL", mib("wal")), ("database", mib("db"))], t_max, load_end,
          ("WAL bound", limit / 2**20) if limit else None)
    panel(out, 3, "server RSS", "MiB", [("RSS", mib("rss"))], t_max, load_end)
    out.append(f'<text x="{WIDTH - RIGHT}" y="{TOP + 4 * (PANEL + GAP) - 6}" text-anchor="end">time (s); dashed: end of the load</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
