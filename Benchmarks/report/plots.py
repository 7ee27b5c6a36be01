"""SVG figures of the report, written by hand (no plotting library): panels of line charts on
log or linear axes, and latency distributions as box plots (p5, p25, p50, p75, p99)."""
import math
from xml.sax.saxutils import escape

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
PANEL_W, PANEL_H = 420, 260
MARGIN = dict(left=64, right=14, top=30, bottom=44)


def color_map(names):
    return {name: COLORS[i % len(COLORS)] for i, name in enumerate(names)}


def _ticks(lo, hi, log):
    if log:
        return [10.0 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]
    step = 10 ** math.floor(math.log10((hi - lo) or 1))
    if (hi - lo) / step < 4:
        step /= 2
    start = math.floor(lo / step) * step
    return [start + i * step for i in range(int((hi - start) / step) + 2)]


def _label(v):
    if v == 0:
        return "0"
    if abs(v) >= 1e6:
        return f"{v / 1e6:g}M"
    if abs(v) >= 1e3:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


class Axis:
    def __init__(self, lo, hi, log, pixels, flip=False):
        if log:
            lo, hi = max(lo, 1e-9), max(hi, lo * 10)
            lo, hi = 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))
        elif hi <= lo:
            hi = lo + 1
        self.lo, self.hi, self.log, self.pixels, self.flip = lo, hi, log, pixels, flip

    def __call__(self, v):
        if self.log:
            f = (math.log10(max(v, self.lo)) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        else:
            f = (v - self.lo) / (self.hi - self.lo)
        return self.pixels * (1 - f if self.flip else f)

    def ticks(self):
        return [t for t in _ticks(self.lo, self.hi, self.log) if self.lo <= t <= self.hi * 1.0001]


def _titled_box_with_x(out, title, xaxis, xlabel, w, h, grid):
    """The panel's title, border, x ticks (grid lines across the panel, or short marks) and label."""
    out.append(f'<text x="{w / 2}" y="-12" text-anchor="middle" font-size="13" font-weight="bold">{escape(title)}</text>')
    out.append(f'<rect x="0" y="0" width="{w}" height="{h}" fill="none" stroke="#888"/>')
    for t in xaxis.ticks():
        x = xaxis(t)
        line = f'y1="0" y2="{h}" stroke="#eee"' if grid else f'y1="{h}" y2="{h + 4}" stroke="#888"'
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" {line}/>'
                   f'<text x="{x:.1f}" y="{h + 16}" text-anchor="middle" font-size="10">{_label(t)}</text>')
    out.append(f'<text x="{w / 2}" y="{h + 34}" text-anchor="middle" font-size="11">{escape(xlabel)}</text>')


def _frame(out, title, xaxis, yaxis, xlabel, ylabel, w, h):
    _titled_box_with_x(out, title, xaxis, xlabel, w, h, grid=False)
    for t in yaxis.ticks():
        y = yaxis(t)
        out.append(f'<line x1="0" y1="{y:.1f}" x2="{w}" y2="{y:.1f}" stroke="#eee"/>'
                   f'<text x="-6" y="{y + 3:.1f}" text-anchor="end" font-size="10">{_label(t)}</text>')
    out.append(f'<text transform="translate(-48,{h / 2}) rotate(-90)" text-anchor="middle" font-size="11">{escape(ylabel)}</text>')


def line_panel(title, series, colors, xlabel, ylabel, logx=True, logy=True):
    """series: {name: [(x, y), ...]}; returns the panel's SVG body (origin at the plot area)."""
    w, h = PANEL_W - MARGIN["left"] - MARGIN["right"], PANEL_H - MARGIN["top"] - MARGIN["bottom"]
    xs = [x for pts in series.values() for x, _ in pts] or [1]
    ys = [y for pts in series.values() for _, y in pts if y > 0 or not logy] or [1]
    xaxis = Axis(min(xs), max(xs), logx, w)
    yaxis = Axis(0 if not logy else min(ys), max(ys) * (1 if logy else 1.1), logy, h, flip=True)
    out = []
    _frame(out, title, xaxis, yaxis, xlabel, ylabel, w, h)
    for name, pts in series.items():
        pts = sorted(p for p in pts if p[1] > 0 or not logy)
        if not pts:
            continue
        path = " ".join(f"{'M' if i == 0 else 'L'}{xaxis(x):.1f},{yaxis(y):.1f}" for i, (x, y) in enumerate(pts))
        out.append(f'<path d="{path}" fill="none" stroke="{colors[name]}" stroke-width="2"/>')
        out.extend(f'<circle cx="{xaxis(x):.1f}" cy="{yaxis(y):.1f}" r="3" fill="{colors[name]}"/>' for x, y in pts)
    return "\n".join(out)


def box_panel(title, rows, colors, xlabel):
    """rows: [(name, p5, p25, p50, p75, p99)] on a log axis (horizontal boxes)."""
    w, h = PANEL_W - MARGIN["left"] - MARGIN["right"] - 40, PANEL_H - MARGIN["top"] - MARGIN["bottom"]
    values = [v for row in rows for v in row[1:] if v > 0] or [1]
    xaxis = Axis(min(values), max(values), True, w)
    out = [f'<g transform="translate(40,0)">']
    _titled_box_with_x(out, title, xaxis, xlabel, w, h, grid=True)
    band = h / max(1, len(rows))
    for i, (name, p5, p25, p50, p75, p99) in enumerate(rows):
        y, c = band * (i + 0.5), colors[name]
        out.append(f'<text x="-6" y="{y + 3:.1f}" text-anchor="end" font-size="10">{escape(name)}</text>')
        out.append(f'<line x1="{xaxis(p5):.1f}" y1="{y:.1f}" x2="{xaxis(p99):.1f}" y2="{y:.1f}" stroke="{c}"/>')
        out.append(f'<rect x="{xaxis(p25):.1f}" y="{y - band * 0.3:.1f}" width="{max(1, xaxis(p75) - xaxis(p25)):.1f}" '
                   f'height="{band * 0.6:.1f}" fill="{c}" fill-opacity="0.35" stroke="{c}"/>')
        out.append(f'<line x1="{xaxis(p50):.1f}" y1="{y - band * 0.3:.1f}" x2="{xaxis(p50):.1f}" y2="{y + band * 0.3:.1f}" stroke="{c}" stroke-width="2"/>')
        out.append(f'<line x1="{xaxis(p99):.1f}" y1="{y - band * 0.2:.1f}" x2="{xaxis(p99):.1f}" y2="{y + band * 0.2:.1f}" stroke="{c}"/>')
    out.append("</g>")
    return "\n".join(out)


def figure(path, title, panels, colors, columns=2, legend=True):
    """Writes panels (SVG bodies) in a grid with a shared title and legend."""
    rows = math.ceil(len(panels) / columns)
    width = PANEL_W * columns
    per_row = max(1, (width - 40) // 200)
    legend_h = 22 * math.ceil(len(colors) / per_row) if legend else 0
    height = PANEL_H * rows + 36 + legend_h
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           'font-family="sans-serif">', f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">{escape(title)}</text>']
    for i, (name, color) in enumerate(colors.items() if legend else []):
        x, y = 20 + (i % per_row) * (width - 40) / per_row, 44 + 22 * (i // per_row)
        out.append(f'<rect x="{x:.0f}" y="{y - 9}" width="14" height="10" fill="{color}"/>'
                   f'<text x="{x + 20:.0f}" y="{y}" font-size="11">{escape(name)}</text>')
    for i, body in enumerate(panels):
        x = PANEL_W * (i % columns) + MARGIN["left"]
        y = 36 + legend_h + PANEL_H * (i // columns) + MARGIN["top"]
        out.append(f'<g transform="translate({x},{y})">{body}</g>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
