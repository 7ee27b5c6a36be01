#!/usr/bin/env python3
"""Builds and runs the libFuzzer targets in Fuzz/ (see Fuzz/README.md).

Every `Fuzz/<Name>.swift` is one target. Its header says what it needs:

    // fuzz-modules: LocationFormats        package modules it imports (dependencies follow)
    // fuzz-support: FixInvariants          files of Fuzz/Support/ compiled in with it
    // fuzz-max-len: 8192                   libFuzzer -max_len (bytes)

The package's modules are compiled with swiftc (-O, -sanitize=fuzzer,address, -enable-testing)
into .build/fuzz/modules, apart from SwiftPM's own build, so `swift build` is unaffected; a
module is recompiled only when one of its sources or dependencies changed. Each target links
into .build/fuzz/bin/fuzz-<name>.

    Fuzz/fuzz.py build [target ...]
    Fuzz/fuzz.py run [--seconds N] [--jobs N] [target ...]    fails if any target finds a bug
    Fuzz/fuzz.py list

`run` fuzzes from the checked-in seeds (Fuzz/Corpus/<target>/, read only) into a working corpus
in .build/fuzz/corpus/<target>/ that persists between runs. Crashes, sanitizer reports,
timeouts (a single input running longer than --timeout seconds) and out-of-memory (more than
--rss-limit-mb) are failures; the reproducer is written to .build/fuzz/artifacts/<target>/.
Run one with `.build/fuzz/bin/fuzz-<target> <file>`.
"""
import argparse, json, os, pathlib, re, shutil, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor

ROOT = pathlib.Path(__file__).resolve().parent.parent
FUZZ = ROOT / "Fuzz"
OUT = ROOT / ".build" / "fuzz"
MODULES = OUT / "modules"
BIN = OUT / "bin"
SWIFT_FLAGS = ["-O", "-g", "-swift-version", "6", "-package-name", "FindOurDevices",
               "-parse-as-library", "-sanitize=fuzzer,address"]


def log(message):
    print(message, flush=True)


def package_targets():
    """name -> {"kind", "path", "deps"} from `swift package dump-package`."""
    scratch = OUT / "manifest"
    text = subprocess.run(["swift", "package", "--scratch-path", str(scratch), "dump-package"],
                          cwd=ROOT, check=True, capture_output=True, text=True).stdout
    targets = {}
    for t in json.loads(text)["targets"]:
        deps = []
        for d in t["dependencies"]:
            kind, value = next(iter(d.items()))
            deps.append(value[0])
        default = "Sources/" + t["name"]
        targets[t["name"]] = {"kind": t["type"], "path": ROOT / (t.get("path") or default),
                              "deps": deps, "exclude": t.get("exclude", [])}
    return targets


def closure(names, targets):
    """The modules `names` need, dependencies first."""
    order, seen = [], set()

    def visit(name):
        if name in seen:
            return
        if name not in targets:
            sys.exit(f"fuzz: unknown module {name}")
        seen.add(name)
        for dep in targets[name]["deps"]:
            visit(dep)
        order.append(name)

    for name in names:
        visit(name)
    return order


def swift_sources(target):
    path = target["path"]
    excluded = [path / e for e in target["exclude"]]
    return sorted(p for p in path.rglob("*.swift")
                  if not any(p == e or e in p.parents for e in excluded))


def system_includes(names, targets):
    return [arg for n in names if targets[n]["kind"] == "system" for arg in ("-I", str(targets[n]["path"]))]


def newest(paths):
    return max((p.stat().st_mtime for p in paths), default=0)


def build_module(name, targets, order):
    target = targets[name]
    obj, module = MODULES / f"{name}.o", MODULES / f"{name}.swiftmodule"
    sources = swift_sources(target)
    deps = [d for d in closure([name], targets) if d != name and targets[d]["kind"] != "system"]
    inputs = sources + [MODULES / f"{d}.swiftmodule" for d in deps] + [pathlib.Path(__file__)]
    if obj.exists() and module.exists() and obj.stat().st_mtime >= newest(inputs):
        return
    log(f"fuzz: compiling module {name} ({len(sources)} files)")
    command = (["swiftc", "-c", "-wmo", "-enable-testing", "-module-name", name, *SWIFT_FLAGS,
                "-I", str(MODULES), *system_includes(order, targets),
                "-emit-module", "-emit-module-path", str(module), "-o", str(obj)]
               + [str(s) for s in sources])
    subprocess.run(command, cwd=ROOT, check=True)
    # The driver may leave unchanged outputs untouched; mark them as built now.
    for output in (obj, module):
        os.utime(output)


class FuzzTarget:
    def __init__(self, path):
        self.path = path
        self.name = path.stem.lower()
        header = path.read_text()
        def field(key):
            m = re.search(rf"^// fuzz-{key}:(.*)$", header, re.M)
            return m.group(1).split() if m else []
        self.modules = field("modules")
        self.support = [FUZZ / "Support" / f"{s}.swift" for s in field("support")]
        self.max_len = int((field("max-len") or ["4096"])[0])
        self.binary = BIN / f"fuzz-{self.name}"
        self.seeds = FUZZ / "Corpus" / self.name
        self.dictionary = FUZZ / "Dictionaries" / f"{self.name}.dict"


def all_targets():
    return {t.name: t for t in map(FuzzTarget, sorted(FUZZ.glob("*.swift")))}


def select(names):
    targets = all_targets()
    unknown = [n for n in names if n not in targets]
    if unknown:
        sys.exit(f"fuzz: unknown target(s) {', '.join(unknown)}; known: {', '.join(targets)}")
    return [targets[n] for n in names] if names else list(targets.values())


def build(selected):
    MODULES.mkdir(parents=True, exist_ok=True)
    BIN.mkdir(parents=True, exist_ok=True)
    targets = package_targets()
    order = closure(sorted({m for t in selected for m in t.modules}), targets)
    for name in order:
        if targets[name]["kind"] != "system":
            build_module(name, targets, order)
    for t in selected:
        needed = closure(t.modules, targets)
        objects = [MODULES / f"{n}.o" for n in needed if targets[n]["kind"] != "system"]
        inputs = [t.path, *t.support, *objects, pathlib.Path(__file__)]
        if t.binary.exists() and t.binary.stat().st_mtime >= newest(inputs):
            continue
        log(f"fuzz: linking fuzz-{t.name}")
        command = (["swiftc", *SWIFT_FLAGS, "-use-ld=lld", "-module-name", f"Fuzz{t.name}",
                    "-I", str(MODULES), *system_includes(needed, targets), "-o", str(t.binary),
                    str(t.path), *map(str, t.support), *map(str, objects)])
        subprocess.run(command, cwd=ROOT, check=True)


def final_stats(text):
    stats = {k: int(v) for k, v in re.findall(r"^stat::(\w+):\s+(\d+)", text, re.M)}
    return stats


def run_one(t, args):
    work = OUT / "corpus" / t.name
    artifacts = OUT / "artifacts" / t.name
    logs = OUT / "logs"
    for d in (work, artifacts, logs):
        d.mkdir(parents=True, exist_ok=True)
    command = [str(t.binary), str(work)]
    if t.seeds.is_dir():
        command.append(str(t.seeds))
    command += [f"-max_total_time={args.seconds}", f"-timeout={args.timeout}",
                f"-rss_limit_mb={args.rss_limit_mb}", f"-max_len={t.max_len}",
                f"-artifact_prefix={artifacts}/", "-print_final_stats=1", "-print_pcs=0"]
    if t.dictionary.exists():
        command.append(f"-dict={t.dictionary}")
    if args.nice:
        command = ["nice", "-n", str(args.nice)] + command
    # Swift's own crash backtracer would race ASan's report; libFuzzer prints the stack.
    env = dict(os.environ, SWIFT_BACKTRACE="enable=no", ASAN_OPTIONS=os.environ.get(
        "ASAN_OPTIONS", "detect_leaks=1:handle_abort=1"))
    started = time.monotonic()
    log_path = logs / f"{t.name}.log"
    with open(log_path, "w") as out:
        rc = subprocess.run(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env).returncode
    seconds = time.monotonic() - started
    text = log_path.read_text(errors="replace")
    stats = final_stats(text)
    corpus = sum(1 for p in work.iterdir() if p.is_file())
    found = sorted(str(p) for p in artifacts.iterdir()
                   if p.is_file() and p.stat().st_mtime >= time.time() - seconds - 1)
    return {"target": t.name, "rc": rc, "seconds": round(seconds), "execs": stats.get("number_of_executed_units", 0),
            "execs_per_sec": stats.get("average_exec_per_sec", 0), "new_units": stats.get("new_units_added", 0),
            "peak_rss_mb": stats.get("peak_rss_mb", 0), "corpus": corpus, "artifacts": found, "log": str(log_path)}


def run(selected, args):
    build(selected)
    log(f"fuzz: {len(selected)} target(s), {args.seconds} s each, {args.jobs} at a time")
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda t: run_one(t, args), selected))
    log(f"{'target':<12} {'result':<7} {'seconds':>7} {'executions':>11} {'exec/s':>7} {'corpus':>7} {'new':>5} {'rss MB':>6}")
    failed = []
    for r in results:
        ok = r["rc"] == 0 and not r["artifacts"]
        log(f"{r['target']:<12} {'ok' if ok else 'FAILED':<7} {r['seconds']:>7} {r['execs']:>11} "
            f"{r['execs_per_sec']:>7} {r['corpus']:>7} {r['new_units']:>5} {r['peak_rss_mb']:>6}")
        if not ok:
            failed.append(r)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    for r in failed:
        log(f"\n== {r['target']} failed (exit {r['rc']}); log {r['log']}")
        for a in r["artifacts"]:
            log(f"   reproducer: {a}   (run: .build/fuzz/bin/fuzz-{r['target']} {a})")
        tail = pathlib.Path(r["log"]).read_text(errors="replace").splitlines()
        report = [i for i, line in enumerate(tail) if re.search(r"ERROR|==\d+==|Fatal error|deadly signal|timeout|out-of-memory", line)]
        start = report[0] if report else max(0, len(tail) - 30)
        log("\n".join("   " + line for line in tail[start:start + 40]))
    if failed:
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description="libFuzzer targets of Find Our Devices")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("targets", nargs="*")
    r = sub.add_parser("run")
    r.add_argument("targets", nargs="*")
    r.add_argument("--seconds", type=int, default=600, help="fuzzing time per target")
    r.add_argument("--jobs", type=int, default=1, help="targets fuzzed at the same time")
    r.add_argument("--timeout", type=int, default=10, help="seconds one input may take")
    r.add_argument("--rss-limit-mb", type=int, default=2048, help="memory limit of a target")
    r.add_argument("--nice", type=int, default=0, help="run the fuzzers with this nice level")
    r.add_argument("--json", help="also write the results to this file")
    sub.add_parser("list")
    args = parser.parse_args()
    if args.command == "list":
        for t in select([]):
            log(f"{t.name:<12} modules: {' '.join(t.modules)}  max_len {t.max_len}")
    elif args.command == "build":
        build(select(args.targets))
    else:
        run(select(args.targets), args)


if __name__ == "__main__":
    main()
