#!/usr/bin/env python3
"""Helpers for run.sh: check what a leaf binary serves, and print the summary.

  report.py verify SITE OUTPUT_FILE [--dump DIR] [--present P ...] [--missing P ...]
      OUTPUT_FILE is what the leaf binary printed for `leaf P...`. Checks the file
      count against SITE, each present path's length and FNV-1a hash against the file
      on disk, and, when the binary dumped them (ours), the ETags (sha256 of the bytes)
      and that the gzip body (and the brotli body, if the `brotli` module exists)
      decodes to the file. Prints `ok` or the problems; exit status 0 / 1.

  report.py summary RESULTS_TSV META_FILE
      Medians per crate and phase, then the goals table.
"""

import gzip
import hashlib
import os
import statistics
import sys

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3


def fnv(data):
    h = FNV_OFFSET
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def etag(data):
    return '"' + hashlib.sha256(data).hexdigest()[:32] + '"'


def count_files(site):
    return sum(len(files) for _, _, files in os.walk(site))


def parse_output(path):
    count = None
    files = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0] == "count":
                count = int(parts[1])
            elif len(parts) >= 3 and parts[0] == "file":
                if parts[2] == "MISSING":
                    files[parts[1]] = None
                else:
                    rest = parts[2:]
                    files[parts[1]] = dict(zip(rest[0::2], rest[1::2]))
    return count, files


def verify(argv):
    site, output = argv[0], argv[1]
    dump = None
    present, missing = [], []
    target = None
    for arg in argv[2:]:
        if arg == "--dump":
            target = "dump"
        elif arg == "--present":
            target = present
        elif arg == "--missing":
            target = missing
        elif target == "dump":
            dump = arg
            target = None
        elif target is not None:
            target.append(arg)
    try:
        import brotli  # noqa: F401  (not in the standard library; used when present)
    except ImportError:
        brotli = None
    problems = []
    count, files = parse_output(output)
    expected = count_files(site)
    if count != expected:
        problems.append(f"count {count}, folder has {expected}")
    for p in present:
        got = files.get(p)
        if got is None:
            problems.append(f"{p}: not served")
            continue
        data = open(os.path.join(site, p), "rb").read()
        if int(got.get("len", -1)) != len(data) or got.get("fnv") != f"{fnv(data):016x}":
            problems.append(f"{p}: stale bytes (len {got.get('len')}, disk {len(data)})")
        if "etag" in got and got["etag"] != etag(data):
            problems.append(f"{p}: stale etag {got['etag']}, want {etag(data)}")
        if dump is None:
            continue
        stem = os.path.join(dump, p.replace("/", "__"))
        for enc in ("gzip", "br"):
            if f"{enc}_etag" not in got:
                continue
            body = open(f"{stem}.{enc}", "rb").read()
            if got[f"{enc}_etag"] != etag(body):
                problems.append(f"{p}: {enc} etag does not match its body")
            if enc == "gzip" and gzip.decompress(body) != data:
                problems.append(f"{p}: stale gzip body")
            if enc == "br" and brotli is not None and brotli.decompress(body) != data:
                problems.append(f"{p}: stale brotli body")
        if "etag" in got and "gzip_etag" not in got and len(data) > 1024:
            problems.append(f"{p}: no gzip body for a compressible file")
    for p in missing:
        if p not in files:
            problems.append(f"{p}: not asked")
        elif files[p] is not None:
            problems.append(f"{p}: still served after removal")
    print("ok" if not problems else "; ".join(problems))
    return 0 if not problems else 1


# --- summary -------------------------------------------------------------------------

CRATES = ["ours", "rust-embed", "include-dir"]
PHASES = [
    ("base", "leaf with a one-file folder (baseline, 1 run)"),
    ("clean", "clean leaf build (cargo clean -p; ours: cold cache)"),
    ("leaf", "leaf rebuilt from scratch (ours: warm cache)"),
    ("check", "cargo check of the leaf from scratch"),
    ("noop1", "no-op rebuild, first after the clean build"),
    ("noop", "no-op rebuild, second (steady state)"),
    ("edit", "edit one file (probe.txt, 2 KB)"),
    ("noop_edit", "no-op rebuild, first after that edit"),
    ("edit_large", "edit one file (js/big-edit.js, 1 MiB)"),
    ("add", "add one file"),
    ("remove", "remove one file"),
    ("rename", "rename one file"),
]


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            crate, phase, run, secs, rss_kb, status, *note = line.rstrip("\n").split("\t")
            rows.append(dict(crate=crate, phase=phase, run=int(run), secs=float(secs),
                             rss=int(rss_kb), status=status, note=note[0] if note else ""))
    return rows


def med(values):
    return statistics.median(values) if values else None


def fmt_s(v):
    return "-" if v is None else (f"{v:.2f} s" if v < 10 else f"{v:.1f} s")


def fmt_mib(kb):
    return "-" if kb is None else f"{kb / 1024:.0f} MiB"


def load_meta(path):
    meta = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if "\t" in line:
                    k, v = line.rstrip("\n").split("\t", 1)
                    meta[k] = v
    return meta


def summary(argv):
    rows = load(argv[0])
    meta = load_meta(argv[1])
    runs = max((r["run"] for r in rows), default=0)

    def cell(crate, phase):
        sel = [r for r in rows if r["crate"] == crate and r["phase"] == phase]
        return sel

    print()
    print(f"== Medians over {runs} run(s): wall time, and in brackets max RSS of the largest process")
    print("   (GNU time on the cargo command; for a build that compiles the leaf that is rustc,")
    print("   with our proc macro running inside it; for a no-op it is cargo itself)")
    print()
    head = f"{'phase':<48}" + "".join(f"{c:>24}" for c in CRATES)
    print(head)
    print("-" * len(head))
    stats = {}
    for phase, label in PHASES:
        line = f"{label:<48}"
        for crate in CRATES:
            sel = cell(crate, phase)
            if not sel:
                line += f"{'-':>24}"
                continue
            s = med([r["secs"] for r in sel])
            rss = med([r["rss"] for r in sel])
            stats[(crate, phase)] = (s, rss)
            bad = [r for r in sel if r["status"] not in ("ok", "noop", "served", "not-served")]
            text = f"{fmt_s(s)} [{fmt_mib(rss)}]" + ("!" if bad else "")
            line += f"{text:>24}"
        print(line)
    print()
    print("== What the binary serves after each change (status per run)")
    for phase in ("edit", "edit_large", "add", "add_touch", "remove", "rename"):
        line = f"{phase:<12}"
        for crate in CRATES:
            sel = sorted(cell(crate, phase), key=lambda r: r["run"])
            if not sel:
                continue
            line += f"  {crate}: " + ",".join(r["status"] for r in sel)
        print(line)
    print("   (add_touch: after `add` was not served, `touch src/main.rs` and build again;")
    print("   rebuilt: cargo recompiled the leaf although nothing had changed)")
    problems = [r for r in rows if r["status"] not in ("ok", "noop", "served", "not-served")]
    for r in problems:
        print(f"   run {r['run']} {r['crate']} {r['phase']}: {r['status']} {r['note']}")

    print()
    print("== Sizes")
    for crate in CRATES:
        size = meta.get(f"{crate}.release_size")
        idb = meta.get(f"{crate}.identity_bytes")
        line = f"{crate:<12} release binary {int(size) / 2**20:.1f} MiB" if size else f"{crate:<12} release binary -"
        if idb:
            line += f"; embedded identity bytes {int(idb)} ({int(idb) / 2**20:.1f} MiB)"
        sb = meta.get(f"{crate}.stored_bytes")
        if sb:
            line += f"; stored incl. gzip+br {int(sb)} ({int(sb) / 2**20:.1f} MiB)"
        if meta.get(f"{crate}.packages"):
            line += f"; {meta[f'{crate}.packages']} packages in its build graph"
        print(line)
    if meta.get("ours.cache"):
        print(f"ours compression cache after a cold build: {meta['ours.cache']}")
    for key in sorted(k for k in meta if k.startswith("extra.")):
        print(f"{key[6:]}: {meta[key]}")

    # --- goals
    def ratio(phase):
        a, b = stats.get(("ours", phase)), stats.get(("rust-embed", phase))
        if not a or not b or not b[0]:
            return None, a, b
        return a[0] / b[0], a, b

    print()
    print("== Goals (ours against rust-embed with debug-embed, dev profile)")
    head = f"{'goal':<58}{'ours':>12}{'rust-embed':>12}{'ratio':>9}  result"
    print(head)
    print("-" * len(head))
    verdicts = []

    def goal(label, value_ours, value_ref, r, ok):
        verdict = "PASS" if ok else "MISS"
        verdicts.append(verdict)
        rs = "-" if r is None else f"{r:.2f}x"
        print(f"{label:<58}{value_ours:>12}{value_ref:>12}{rs:>9}  {verdict}")

    for phase, limit, label in (
        ("noop", 1.5, "no-op rebuild (steady state) <= 1.5x rust-embed"),
        ("noop1", 1.5, "no-op rebuild right after the clean build <= 1.5x"),
        ("noop_edit", 1.5, "no-op rebuild right after an edit <= 1.5x"),
        ("edit", 1.5, "one-file edit rebuild (2 KB file) <= 1.5x rust-embed"),
        ("leaf", 2.0, "warm-cache clean leaf build <= 2x rust-embed"),
    ):
        r, a, b = ratio(phase)
        goal(label, fmt_s(a[0] if a else None), fmt_s(b[0] if b else None), r, r is not None and r <= limit)
    r, a, b = ratio("edit_large")
    if r is not None:
        print(f"{'  (info) one-file edit, 1 MiB file: ratio':<58}{fmt_s(a[0]):>12}{fmt_s(b[0]):>12}{r:>8.2f}x")
    cold = stats.get(("ours", "clean"))
    limit = 0.6 * 116
    goal(f"cold-cache build (all compressed) < 0.6 x 116 s = {limit:.1f} s",
         fmt_s(cold[0] if cold else None), "", None, cold is not None and cold[0] < limit)
    for phase in ("edit", "add", "remove", "rename"):
        sel = cell("ours", phase)
        good = sum(1 for r in sel if r["status"] in ("ok", "served"))
        goal(f"correct after {phase} (served, fresh bytes, ETags, gzip)", f"{good}/{len(sel)}", "",
             None, bool(sel) and good == len(sel))
    idb = int(meta.get("ours.identity_bytes", "0") or 0)
    sb = int(meta.get("ours.stored_bytes", "0") or 0)
    ours_rows = [r for r in rows if r["crate"] == "ours" and r["phase"] != "base"]
    peak = max((r["rss"] for r in ours_rows), default=0)
    peak_phase = next((r["phase"] for r in ours_rows if r["rss"] == peak), "-")
    if idb:
        r_id = peak * 1024 / idb
        goal(f"peak rustc RSS < 4x embedded bytes (peak in '{peak_phase}')",
             fmt_mib(peak), "", r_id, r_id < 4)
        print(f"   ratio above is to the identity bytes ({idb / 2**20:.1f} MiB); to the stored bytes incl. "
              f"compressed bodies ({sb / 2**20:.1f} MiB) it is {peak * 1024 / sb:.2f}x")
        for crate in CRATES:
            sel = [r for r in rows if r["crate"] == crate and r["phase"] != "base"]
            base = [r["rss"] for r in rows if r["crate"] == crate and r["phase"] == "base"]
            if not sel:
                continue
            top = max(sel, key=lambda r: r["rss"])
            line = f"   {crate:<12} peak {fmt_mib(top['rss'])} in '{top['phase']}' = {top['rss'] * 1024 / idb:.2f}x identity"
            if base:
                grow = top["rss"] - base[0]
                line += (f"; over its one-file baseline ({fmt_mib(base[0])}): +{fmt_mib(grow)}"
                         f" = {grow * 1024 / idb:.2f}x identity")
            print(line)
    print()
    print("== Added file served without touching a source file?")
    for crate in CRATES:
        sel = sorted(cell(crate, "add"), key=lambda r: r["run"])
        touch = sorted(cell(crate, "add_touch"), key=lambda r: r["run"])
        served = all(r["status"] in ("ok", "served") for r in sel) if sel else None
        line = f"{crate:<12} {'-' if served is None else ('yes' if served else 'no')}"
        if touch:
            line += "; after touching src/main.rs: " + ",".join(r["status"] for r in touch)
        print(line)
    print()
    print(f"{verdicts.count('PASS')} PASS, {verdicts.count('MISS')} MISS")
    return 0


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, argv = sys.argv[1], sys.argv[2:]
    if cmd == "verify":
        return verify(argv)
    if cmd == "summary":
        return summary(argv)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
