"""REPORT.md and its SVG figures from the results of one run (figures/results.json)."""
import os

import plots

KIND_TITLES = {"radius-20": "radius, ~20 hits", "radius-10k": "radius, ~10,000 hits", "polygon": "country polygon",
               "near-10": "$near k = 10", "near-100": "$near k = 100"}
OURS = ("fod HTTP", "fod engine", "fod HTTP, before", "fod HTTP, alternating")
NOTES = {
    "Redis GEO": "in memory; the query set was loaded without persistence (its ingest rows name the durability)",
    "SpatiaLite": "planar polygon test (ST_Within); no geodesic k-nearest (KNN2 orders by planar degrees), so no $near row",
    "SQLite R*Tree": "boxes from the R*Tree, exact sphere / planar polygon test in the client (as an application would)",
    "PostGIS": "geography: ST_DWithin (sphere), ST_Covers, <-> ; one prepared statement per kind",
}


def ms(v):
    return f"{v:.3f}" if v < 10 else f"{v:.1f}"


def mib(v):
    return f"{v / 2**20:,.0f}"


def best_peer(measures, key="p50"):
    peers = {k: v[key] for k, v in measures.items() if k not in OURS}
    if not peers:
        return None, None
    name = min(peers, key=peers.get)
    return name, peers[name]


def query_tables(out, size):
    out.append(f"### N = {size['n']:,} fixes\n")
    polygons = ", ".join(size.get("polygons", []))
    for kind, measures in size["queries"].items():
        check = size["check"].get(kind, {})
        hits = f"hits median {check.get('hits_median', 0):,} ({check.get('hits_min', 0):,}–{check.get('hits_max', 0):,})"
        extra = f"; countries: {polygons}" if kind == "polygon" else ""
        out.append(f"**{KIND_TITLES[kind]}** — {measures['fod HTTP']['n']} queries a system, {hits}{extra}\n")
        out.append("| system | p50 ms | p99 ms | p50 ÷ best peer's | boundary differences in the check |")
        out.append("| --- | ---: | ---: | ---: | ---: |")
        peer, best = best_peer(measures)
        for name, m in sorted(measures.items(), key=lambda kv: kv[1]["p50"]):
            ratio = f"{m['p50'] / best:.2f}" if best and name in OURS else ("best peer" if name == peer else "")
            checked = check.get(name, "—") if name not in OURS else ("reference" if name == "fod HTTP" else 0)
            out.append(f"| {name} | {ms(m['p50'])} | {ms(m['p99'])} | {ratio} | {checked} |")
        out.append("")


def goals(results):
    """(goal, figure, met) rows at the largest size."""
    size = results["sizes"][-1]
    rows = []
    for kind in ("radius-20", "radius-10k", "polygon"):
        m = size["queries"].get(kind, {})
        if "Redis GEO" in m:
            r = m["fod HTTP"]["p50"] / m["Redis GEO"]["p50"]
            rows.append((f"{KIND_TITLES[kind]}: HTTP p50 ≤ Redis GEO p50", f"{ms(m['fod HTTP']['p50'])} vs {ms(m['Redis GEO']['p50'])} ms (×{r:.2f})", r <= 1))
    for kind in ("near-10", "near-100"):
        m = size["queries"].get(kind, {})
        peer, best = best_peer(m)
        if best:
            r = m["fod HTTP"]["p50"] / best
            rows.append((f"{KIND_TITLES[kind]}: HTTP p50 ≤ best peer ({peer})", f"{ms(m['fod HTTP']['p50'])} vs {ms(best)} ms (×{r:.2f})", r <= 1))
    for kind, m in size["queries"].items():
        peer, best = best_peer(m)
        if best and "fod engine" in m:
            r = m["fod engine"]["p50"] / best
            rows.append((f"{KIND_TITLES[kind]}: engine p50 ≤ best peer ({peer})", f"{ms(m['fod engine']['p50'])} vs {ms(best)} ms (×{r:.2f})", r <= 1))
    d = size.get("during_merge")
    if d:
        r = d["p99"] / d["p50"]
        phases = "".join(f"; {title}: p50 {ms(p['p50'])}, p99 {ms(p['p99'])} ms (×{p['p99'] / p['p50']:.1f})"
                         for title, p in (("while posting", d.get("posting")), ("after the load, merge alone", d.get("after_load")))
                         if p and p.get("n") and p.get("p50"))
        rows.append(("radius-20 over HTTP while merging: p99 ≤ 3 × p50", f"p50 {ms(d['p50'])}, p99 {ms(d['p99'])} ms (×{r:.1f}){phases}", r <= 3))
    ingest = results["ingest"]
    ours = ingest.get("fod HTTP", {})
    durable = {k: v for k, v in ingest.items() if k not in ("fod HTTP", "Redis no persistence")}
    for batch, m in ours.items():
        peer = max(durable, key=lambda k: durable[k].get(batch, {}).get("fixes_per_second", 0), default=None)
        if peer:
            theirs = durable[peer][batch]["fixes_per_second"]
            rows.append((f"durable ingest, {int(batch):,} a batch: ≥ every durable peer ({peer})",
                         f"{m['fixes_per_second']:,.0f} vs {theirs:,.0f} fixes/s (×{m['fixes_per_second'] / theirs:.2f})", m["fixes_per_second"] >= theirs))
    pss = size["memory"]["fod"][0]
    rows.append((f"server memory with {size['n']:,} fixes ≤ 300 MB", f"{pss / 1e6:,.0f} MB PSS (peak RSS {size['memory']['fod'][1] / 1e6:,.0f} MB)", pss <= 300e6))
    e = size.get("export")
    if e:
        rows.append((f"GeoJSON export of {size['n']:,} fixes ≥ 300k fixes/s", f"{e['fixes_per_second']:,.0f} fixes/s ({e['seconds']:.1f} s, {e['bytes'] / 1e6:,.0f} MB)", e["fixes_per_second"] >= 300e3))
    return rows


def figures(results, out):
    sizes = results["sizes"]
    names = sorted({name for s in sizes for m in s["queries"].values() for name in m}, key=lambda n: (n not in OURS, n))
    colors = plots.color_map(names)
    last = sizes[-1]
    panels = [plots.box_panel(KIND_TITLES[k], [(name, m["p5"], m["p25"], m["p50"], m["p75"], m["p99"]) for name, m in sorted(ms_.items())],
                              colors, "latency, ms (box p25–p75, line p5–p99)") for k, ms_ in last["queries"].items()]
    plots.figure(os.path.join(out, "figures", "latency.svg"), f"Query latency at N = {last['n']:,} (one query at a time)", panels, colors, legend=False)
    panels = []
    for kind in KIND_TITLES:
        series = {name: [(s["n"], s["queries"][kind][name]["p50"]) for s in sizes if name in s["queries"].get(kind, {})] for name in names}
        panels.append(plots.line_panel(KIND_TITLES[kind], {k: v for k, v in series.items() if v}, colors, "fixes stored", "p50 ms"))
    plots.figure(os.path.join(out, "figures", "latency-vs-n.svg"), "Median query latency vs N", panels, colors)
    ingest = results["ingest"]
    icolors = plots.color_map(list(ingest))
    series = {name: [(int(b), m["fixes_per_second"]) for b, m in v.items()] for name, v in ingest.items()}
    plots.figure(os.path.join(out, "figures", "ingest.svg"), "Ingest throughput vs batch size",
                 [plots.line_panel("fixes/s acknowledged", series, icolors, "fixes a batch", "fixes/s")], icolors, columns=1)
    systems = sorted({k for s in sizes for k in s["memory"]})
    mcolors = plots.color_map(systems)
    series = {k: [(s["n"], s["memory"][k][0] / 2**20) for s in sizes if k in s["memory"]] for k in systems}
    dsystems = sorted({k for s in sizes for k in s["disk"]})
    dcolors = plots.color_map(dsystems)
    disk = {k: [(s["n"], s["disk"][k] / 2**20) for s in sizes if k in s["disk"]] for k in dsystems}
    plots.figure(os.path.join(out, "figures", "memory-vs-n.svg"), "Memory and disk vs N",
                 [plots.line_panel("server memory (PSS, after loading)", series, mcolors, "fixes stored", "MiB"),
                  plots.line_panel("on disk", disk, dcolors, "fixes stored", "MiB")], {**mcolors, **dcolors})


def write(results, out):
    figures(results, out)
    m = results["machine"]
    o = results["options"]
    lines = ["# Find Our Devices against the alternatives", "",
             "<!-- Written by Benchmarks/report/run.py (make bench) from figures/results.json; do not edit by hand. -->", ""]
    if results.get("quick"):
        lines += ["**--quick smoke run: the figures mean nothing.**", ""]
    lines += ["## Goals (one run, largest size)", "", "| goal | figure | met |", "| --- | --- | --- |"]
    lines += [f"| {g} | {f} | {'yes' if ok else '**no**'} |" for g, f, ok in goals(results)]
    before = [(s["n"], k, q) for s in results["sizes"] for k, q in s["queries"].items() if "fod HTTP, before" in q]
    if before:
        alternating = all("fod HTTP, alternating" in measures for _, _, measures in before)
        how = "alternating rounds on the two servers" if alternating else "the build before timed after ours"
        lines += ["", f"## The HTTP query path, before and after (same run, {how}; before = {o['before']})", "",
                  "| N | query | before p50 / p99 ms | after p50 / p99 ms | after ÷ before (p50) |", "| ---: | --- | ---: | ---: | ---: |"]
        for n, kind, measures in before:
            b, a = measures["fod HTTP, before"], measures.get("fod HTTP, alternating", measures["fod HTTP"])
            lines.append(f"| {n:,} | {KIND_TITLES[kind]} | {ms(b['p50'])} / {ms(b['p99'])} | {ms(a['p50'])} / {ms(a['p99'])} | {a['p50'] / b['p50']:.2f} |")
    # Hand-written: why each missed goal is missed (findings.md), where the query time went (profile.md).
    for name in ("findings.md", "profile.md"):
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
        if os.path.exists(path) and not results.get("quick"):
            lines += [""] + open(path).read().rstrip().splitlines()
    lines += ["", "## Machine and command", "",
              f"- {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB RAM, Linux {m['kernel']}; shared: load average "
              f"{m['load_start'][0]:.1f} at the start, {m.get('load_end', [0])[0]:.1f} at the end (other people build on it).",
              "- " + "; ".join(f"{k} {v}" for k, v in m["versions"].items()),
              f"- `{results['command']}` ({results.get('seconds', 0) / 60:.1f} min): sizes {', '.join(f'{n:,}' for n in o['sizes'])}; "
              f"{o['queries']} queries of each kind, {o['passes']} timed pass after an untimed one; {o['members']} group members "
              f"sharing a device each; seed {o['seed']}.",
              "- Data: fix i = a GeoNames cities1000 place (Data/places-cities1000.bin, CC BY 4.0, geonames.org) chosen uniformly "
              "+ Gaussian jitter σ = 2 km. Query centres are the positions of random fixes. Radius queries take, per centre, the "
              "radius halfway between its k-th and (k+1)-th nearest fix (k = 20 or 9,900 — under our 10,000-result limit —, capped at N/10); countries are "
              "single-ring Natural Earth 1:110m polygons with about 2,000 expected hits.",
              "- Every system's answer to every query was checked against ours (fod over HTTP) before timing: differences "
              "only on the boundary (within 1e-4 of the radius + 2 m, the k-th distance, or a polygon's geodesic/planar "
              "edge sag + 50 m) are allowed and counted in the tables.", ""]
    lines += ["## Queries", "", "One connection, one query at a time (latency, not throughput). fod HTTP: `POST /v1/groups/{id}/query` "
              "with `scope: history` from the C client (kept-alive, the group owner's token: authentication, membership and "
              "visibility checks, JSON both ways). fod engine: `GeoQueryService.queryHistory` on the same data directory, "
              "readable devices loaded once. Peers: their own protocol from the same C client.", ""]
    lines += [f"- {k}: {v}." for k, v in NOTES.items()]
    lines += ["", "![latency](figures/latency.svg)", "", "![latency vs N](figures/latency-vs-n.svg)", ""]
    for size in results["sizes"]:
        query_tables(lines, size)
    lines += ["## Ingest", "", f"Each system's natural bulk path at each batch size for {o['ingest_seconds']:g} s, into an empty store "
              "with its spatial index; fixes acknowledged per second. fod: `POST /v1/devices/{id}/locations` batches on 4 "
              "connections (8 devices), SQLite `synchronous=FULL` (every acknowledged batch survives power loss; the index "
              "merge runs after the acknowledgement). PostGIS: one `COPY` a transaction on 4 connections, "
              "`synchronous_commit=on`, GiST index present. Redis: one `GEOADD` of the batch a round trip on 4 connections, "
              "with `appendfsync always` (durable) and without persistence (not durable). SQLite R*Tree and SpatiaLite: one "
              "transaction a batch, WAL, `synchronous=FULL`, one writer (SQLite has one). Batch sizes run one after "
              "another into the same store; before each, fod's index merge of what the previous one stored is waited for "
              "and PostgreSQL is checkpointed, so that no batch size pays for the background work of the one before it "
              "(the merge of fixes stored during a measurement still runs during it).", "",
              "![ingest](figures/ingest.svg)", ""]
    batches = sorted({b for v in results["ingest"].values() for b in v}, key=int)
    lines += ["| system | " + " | ".join(f"{int(b):,} a batch: fixes/s (request p50 / p99 ms)" for b in batches) + " |",
              "| --- |" + " ---: |" * len(batches)]
    for name, v in results["ingest"].items():
        cells = [f"{v[b]['fixes_per_second']:,.0f} ({ms(v[b]['p50_ms'])} / {ms(v[b]['p99_ms'])})" if b in v else "—" for b in batches]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "## Memory, disk, loading, export, merges", "", "![memory](figures/memory-vs-n.svg)", "",
              "| N | system | memory PSS MiB (peak RSS) | disk MiB | load s |", "| ---: | --- | ---: | ---: | ---: |"]
    for size in results["sizes"]:
        for system in sorted(set(size["memory"]) | set(size["disk"])):
            mem = size["memory"].get(system)
            lines.append(f"| {size['n']:,} | {system} | {mib(mem[0]) + ' (' + mib(mem[1]) + ')' if mem else '—'} | "
                         f"{mib(size['disk'][system]) if system in size['disk'] else '— (in memory)'} | {size['load_seconds'].get(system, 0):.1f} |")
    lines += ["", "| N | GeoJSON export with tracks | radius-20 over HTTP while N/10 more fixes are posted and merged |", "| ---: | --- | --- |"]
    for size in results["sizes"]:
        e, d = size.get("export", {}), size.get("during_merge", {})
        lines.append(f"| {size['n']:,} | {e.get('fixes_per_second', 0):,.0f} fixes/s ({e.get('bytes', 0) / 1e6:,.0f} MB in {e.get('seconds', 0):.1f} s) | "
                     f"p50 {ms(d.get('p50', 0))} ms, p99 {ms(d.get('p99', 0))} ms over {d.get('n', 0)} queries "
                     + "".join(f"({title} {p['n']}: p50 {ms(p['p50'])}, p99 {ms(p['p99'])} ms) "
                               for title, p in (("while posting", d.get("posting")), ("after the load", d.get("after_load")))
                               if p and p.get("n"))
                     + f"({'a merge ran meanwhile' if d.get('merge_seen') else 'no merge cycle observed'}; idle, after an "
                     f"untimed warm-up pass: p50 {ms(d.get('idle_p50', 0))}, p99 {ms(d.get('idle_p99', 0))} ms) |")
    lines += ["", "## Not like for like", "",
              "- Redis keeps everything in memory and is not durable by default; the query comparison used it without "
              "persistence. Its GEO set holds only (member, position): no device, time or visibility, and a polygon is a "
              "box search plus the client's test. Its coordinates are 52-bit geohashes (~0.6 m).",
              "- Our HTTP figures include what the peers do not do per query: the bearer token lookup, the group membership "
              "check, the visibility windows of every member's device (only what the caller may read is ever "
              "considered) and JSON in and out. The engine rows leave those out.",
              "- Peers answer on their own sphere (Redis 6,372,797.6 m, PostGIS and SpatiaLite 6,371,008.8 m); the radii "
              "were converted so every system draws the same circle. SpatiaLite, R*Tree and Redis test polygons in planar "
              "lon/lat, we and PostGIS on the sphere (geodesic edges); the check allows the difference at the edges.",
              "- Ingest: our acknowledgement is durable, and the cell index is merged after it (the merge time is in the "
              "load column); the peers' rows include their index maintenance in the acknowledgement. Redis AOF always "
              "fsyncs per write command; PostgreSQL and SQLite per commit.",
              "- The machine is shared: other people's builds ran during the run. Compare ratios within this run, not "
              "single figures across runs.", ""]
    with open(os.path.join(out, "REPORT.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
