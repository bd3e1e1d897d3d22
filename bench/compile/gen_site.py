#!/usr/bin/env python3
"""Deterministic test folder for the compile-time benchmark.

Writes about FILES files / SIZE_MB megabytes (10^6 bytes) of a web-site-like folder:
mostly compressible text (HTML, CSS, JS, JSON, SVG, Markdown) of many sizes, a few
large bundles, and binary files that do not compress (PNG/JPEG/WebP/WOFF2: random
bytes) or compress a little (WASM: low-entropy bytes). Every byte comes from our own
splitmix64 generator and sha256 in counter mode, never from the `random` module, so
the same arguments give the same bytes on every machine and Python version. Every
file and folder gets the same fixed mtime.

Fixed names the benchmark changes:
  probe.txt        ~2 KB text, edited (compressible, so gzip and brotli bodies exist)
  js/big-edit.js   1 MiB text, edited for the large-edit measurement
  remove-me.txt    removed
  rename-me.txt    renamed

Usage: gen_site.py OUT_DIR [--files N] [--mb MB] [--seed S]
"""

import argparse
import hashlib
import math
import os
import shutil
import sys

MASK = (1 << 64) - 1
FIXED_MTIME = 1_700_000_000  # 2023-11-14T22:13:20Z


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n

    def uniform(self):
        return (self.next() >> 11) / float(1 << 53)

    def log_uniform(self, lo, hi):
        return int(math.exp(math.log(lo) + self.uniform() * (math.log(hi) - math.log(lo))))


SYLLABLES = [
    "ba", "be", "bi", "bo", "ca", "ce", "co", "da", "de", "di", "do", "fa", "fe", "ga",
    "go", "ha", "he", "hi", "ka", "ke", "ki", "la", "le", "li", "lo", "lu", "ma", "me",
    "mi", "mo", "na", "ne", "ni", "no", "pa", "pe", "pi", "po", "ra", "re", "ri", "ro",
    "sa", "se", "si", "so", "ta", "te", "ti", "to", "va", "ve", "vi", "za", "ze", "zo",
    "ar", "el", "in", "on", "ur", "st", "tr", "nd", "th", "qu",
]
CSS_PROPS = [
    "color", "background", "margin", "padding", "display", "font-size", "line-height",
    "border", "width", "height", "flex", "gap", "grid-template-columns", "opacity",
    "transform", "transition", "z-index", "position", "top", "left", "box-shadow",
]
JS_KEYWORDS = ["const", "let", "return", "if", "else", "for", "await", "new", "this"]


def vocabulary(rng, n):
    words = []
    seen = set()
    while len(words) < n:
        w = "".join(SYLLABLES[rng.below(len(SYLLABLES))] for _ in range(1 + rng.below(3)))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


class Text:
    """Text of a kind, built from a Zipf-like vocabulary (so it compresses like real
    text: about 3-6x with gzip, more with brotli)."""

    def __init__(self, rng, words):
        self.rng = rng
        self.words = words

    def word(self):
        # Square of a uniform: small indexes (common words) are far more frequent.
        u = self.rng.uniform()
        return self.words[int(u * u * len(self.words))]

    def num(self, n=1000):
        return str(self.rng.below(n))

    def chunk(self, kind):
        r = self.rng
        w = self.word
        if kind == "css":
            props = "".join(
                f"  {CSS_PROPS[r.below(len(CSS_PROPS))]}: {self.num(64)}px {w()};\n"
                for _ in range(2 + r.below(5))
            )
            return f".{w()}-{w()} > .{w()} {{\n{props}}}\n"
        if kind == "js":
            body = "".join(
                f"  {JS_KEYWORDS[r.below(len(JS_KEYWORDS))]} {w()} = {w()}.{w()}({w()}, {self.num()});\n"
                for _ in range(1 + r.below(6))
            )
            return f"function {w()}_{w()}({w()}, {w()}) {{\n{body}  return {w()};\n}}\n"
        if kind == "html":
            text = " ".join(w() for _ in range(6 + r.below(20)))
            return f'<div class="{w()} {w()}"><p id="{w()}{self.num()}">{text}</p></div>\n'
        if kind == "json":
            fields = ", ".join(f'"{w()}": {self.num(100000)}' for _ in range(2 + r.below(6)))
            return f'  {{"id": {self.num(1000000)}, "name": "{w()} {w()}", {fields}}},\n'
        if kind == "svg":
            pts = " ".join(f"{self.num(512)},{self.num(512)}" for _ in range(4 + r.below(12)))
            return f'<path d="M{pts}Z" fill="#{r.next() & 0xFFFFFF:06x}"/>\n'
        # md / txt
        words = " ".join(w() for _ in range(8 + r.below(30)))
        return words.capitalize() + ".\n"

    HEAD = {
        "html": "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>bench</title></head><body>\n",
        "svg": '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">\n',
        "json": "[\n",
    }

    def make(self, kind, size):
        parts = [self.HEAD.get(kind, "")]
        total = len(parts[0])
        while total < size:
            c = self.chunk(kind)
            parts.append(c)
            total += len(c)
        return "".join(parts).encode()[:size]


def random_bytes(seed, n):
    """sha256 in counter mode: incompressible, deterministic, fast."""
    out = bytearray()
    key = seed.to_bytes(8, "little")
    i = 0
    while len(out) < n:
        out += hashlib.sha256(key + i.to_bytes(8, "little")).digest()
        i += 1
    return bytes(out[:n])


LOW_ENTROPY = bytes.maketrans(bytes(range(256)), bytes((b & 0x0F) if b < 200 else b for b in range(256)))

BINARY_MAGIC = {
    "png": b"\x89PNG\r\n\x1a\n",
    "jpg": b"\xff\xd8\xff\xe0",
    "webp": b"RIFF\x00\x00\x00\x00WEBP",
    "woff2": b"wOF2",
    "wasm": b"\x00asm\x01\x00\x00\x00",
}


def plan(rng, words, files, size_mb):
    """(relative path, kind, size) for every file; sizes scaled to size_mb in total."""
    fixed = [
        ("probe.txt", "txt", 2048),
        ("js/big-edit.js", "js", 1 << 20),
        ("remove-me.txt", "txt", 4096),
        ("rename-me.txt", "txt", 4096),
        ("index.html", "html", 16384),
    ]
    rest = files - len(fixed)
    # Shares of the remaining files, by count.
    n_bundle = max(1, rest * 24 // 1000)
    n_wasm = max(1, rest * 6 // 1000)
    n_binary = rest * 250 // 1000
    n_text = rest - n_bundle - n_wasm - n_binary
    text_dirs = {
        "html": ["", "pages", "pages/docs", "pages/blog/2024", "pages/blog/2025"],
        "css": ["css", "css/components", "css/themes"],
        "js": ["js", "js/modules", "js/vendor", "js/chunks"],
        "json": ["data", "data/i18n", "api"],
        "svg": ["img/icons", "img/illustrations"],
        "md": ["docs", "docs/guide", "docs/reference/api"],
        "txt": ["docs/notes"],
    }
    kinds = ["html"] * 3 + ["css"] * 3 + ["js"] * 4 + ["json"] * 2 + ["svg"] * 2 + ["md"] * 2 + ["txt"]
    items = []  # (dir, stem, ext, kind, raw size)
    for _ in range(n_text):
        kind = kinds[rng.below(len(kinds))]
        dirs = text_dirs[kind]
        items.append((dirs[rng.below(len(dirs))], kind, kind, rng.log_uniform(400, 48_000)))
    for _ in range(n_bundle):
        kind = ["js", "js", "css", "json"][rng.below(4)]
        items.append(({"js": "js/bundles", "css": "css", "json": "data"}[kind], kind, kind,
                      rng.log_uniform(150_000, 700_000)))
    for _ in range(n_binary):
        ext = ["png", "png", "jpg", "webp", "woff2"][rng.below(5)]
        items.append(("fonts" if ext == "woff2" else ["img", "img/photos", "img/thumbs"][rng.below(3)],
                      ext, "binary", rng.log_uniform(1_000, 80_000)))
    for _ in range(n_wasm):
        items.append(("wasm", "wasm", "wasm", rng.log_uniform(100_000, 300_000)))
    target = int(size_mb * 1_000_000) - sum(s for _, _, s in fixed)
    scale = target / sum(item[3] for item in items)
    out = list(fixed)
    for i, (d, ext, kind, size) in enumerate(items):
        name = f"{words[rng.below(len(words))]}-{i:04d}.{ext}"
        out.append((f"{d}/{name}" if d else name, kind, max(1, int(size * scale))))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--mb", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.files < 10:
        sys.exit("--files must be at least 10")
    rng = SplitMix64(args.seed)
    words = vocabulary(rng, 3000)
    text = Text(rng, words)
    if os.path.exists(args.out):
        shutil.rmtree(args.out)
    total = 0
    by_kind = {}
    for rel, kind, size in plan(rng, words, args.files, args.mb):
        path = os.path.join(args.out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if kind == "binary" or kind == "wasm":
            ext = rel.rsplit(".", 1)[1]
            data = BINARY_MAGIC[ext] + random_bytes(rng.next(), size)
            data = data[:size]
            if kind == "wasm":
                data = data[:8] + data[8:].translate(LOW_ENTROPY)
        else:
            data = text.make(kind, size)
        with open(path, "wb") as f:
            f.write(data)
        total += len(data)
        count, nbytes = by_kind.get(kind, (0, 0))
        by_kind[kind] = (count + 1, nbytes + len(data))
    for dirpath, _dirs, names in os.walk(args.out, topdown=False):
        for name in names:
            os.utime(os.path.join(dirpath, name), (FIXED_MTIME, FIXED_MTIME))
        os.utime(dirpath, (FIXED_MTIME, FIXED_MTIME))
    nfiles = sum(c for c, _ in by_kind.values())
    detail = ", ".join(f"{k} {c} ({b / 1e6:.1f} MB)" for k, (c, b) in sorted(by_kind.items()))
    print(f"generated {nfiles} files, {total} bytes ({total / 1e6:.1f} MB) in {args.out}: {detail}")


if __name__ == "__main__":
    main()
