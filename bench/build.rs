//! Writes the benchmarks' folders into `$OUT_DIR`, deterministically (the same bytes on
//! every machine and every build):
//!
//! - `media/`: a 64 MiB `video.bin` of xorshift bytes (so nothing can compress it) and a
//!   small `index.html`, for `bench-disk`;
//! - `site/`: a small frontend for `bench-static`: `index.html`, a real `favicon.ico`
//!   (16x16 and 32x32), `css/app.css` (~230 KB of stylesheet text), `js/app.js`
//!   (~90 KB of script text), `js/bundle.js` (~175 KB of script text, ~27 KB of br: the
//!   large bundle a small app ships) and a real `img/logo.png`;
//! - `site-precompressed/`: the same files plus `.br` (quality 11) and `.gz` (level 9)
//!   siblings of the text files and the icon, for the servers that serve precompressed
//!   siblings (tower-http `ServeDir`, nginx `gzip_static`/`brotli_static`, axum-embed);
//! - `arena/static/`: the 20 files of HTTP Arena's static profile for `bench-arena`, at
//!   HTTP Arena's names and exact sizes, generated (see [`write_arena`]);
//! - `arena-precompressed/static/`: the same files plus `.br` (quality 11) and `.gz`
//!   (level 9) siblings of the 15 text files, for nginx;
//! - `competitors.rs`: the `rust-embed` and `static-serve` macro calls on those folders
//!   (their macros take a string literal, not `$OUT_DIR`), included by `bench::site`.
//!
//! It then runs memory-serve's `load_directory` on `site/`, as memory-serve's users do in
//! their own `build.rs`.

use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// Size of `video.bin`; `bench::VIDEO_LEN` must say the same.
const VIDEO_LEN: u64 = 64 << 20;
/// Sizes the generated stylesheet and script reach (then stop at the end of a rule or
/// function); `bench::site` documents them.
const CSS_LEN: usize = 230_000;
const JS_LEN: usize = 90_000;
const BUNDLE_LEN: usize = 175_000;

fn main() -> io::Result<()> {
    println!("cargo:rerun-if-changed=build.rs");
    let out_dir = std::env::var_os("OUT_DIR").ok_or_else(|| io::Error::other("no OUT_DIR"))?;
    let out_dir = Path::new(&out_dir);
    write_media(&out_dir.join("media"))?;
    write_cold_names(&out_dir.join("cold"))?;
    let site = out_dir.join("site");
    let precompressed = out_dir.join("site-precompressed");
    write_site(&site, &precompressed)?;
    write_arena(&out_dir.join("arena"), &out_dir.join("arena-precompressed"))?;
    write_if_changed(
        &out_dir.join("competitors.rs"),
        competitors(&site, &precompressed)?.as_bytes(),
    )?;
    // memory-serve logs one cargo warning per file unless told to be quiet. Only this
    // (single-threaded) build script reads its environment.
    std::env::set_var("MEMORY_SERVE_QUIET", "1");
    memory_serve::load_directory(&site);
    Ok(())
}

/// Writes `contents` unless the file already holds exactly that, so modification times
/// (nginx's and ServeDir's validators) stay put across builds.
fn write_if_changed(path: &Path, contents: &[u8]) -> io::Result<()> {
    if fs::read(path).ok().as_deref() == Some(contents) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, contents)
}

fn write_media(media: &Path) -> io::Result<()> {
    fs::create_dir_all(media)?;
    let html = "<!doctype html>\n<title>bench</title>\n<video src=\"/video.bin\"></video>\n";
    write_if_changed(&media.join("index.html"), html.as_bytes())?;
    let video = media.join("video.bin");
    if fs::metadata(&video).map(|m| m.len()).ok() != Some(VIDEO_LEN) {
        write_video(&video)?;
    }
    Ok(())
}

/// How many files `bench-disk cold` serves; `bench::COLD_FILES` must say the same.
const COLD_FILES: usize = 32;

/// The names of the cold-cache files, each a 2 KiB stand-in (over the table's 1 KiB
/// `max_embed_size`, so it is listed as on disk): `bench-disk cold` writes the real,
/// large files under another folder and serves them with `.disk_root()`.
fn write_cold_names(cold: &Path) -> io::Result<()> {
    fs::create_dir_all(cold)?;
    for i in 0..COLD_FILES {
        write_if_changed(&cold.join(format!("f{i:02}.bin")), &[b'.'; 2048])?;
    }
    Ok(())
}

/// xorshift64 from a fixed seed, little-endian words: the same bytes on every machine.
fn write_video(path: &Path) -> io::Result<()> {
    let tmp = path.with_extension("bin.tmp");
    let mut out = io::BufWriter::with_capacity(1 << 20, fs::File::create(&tmp)?);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..VIDEO_LEN / 8 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.write_all(&state.to_le_bytes())?;
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    fs::rename(&tmp, path)
}

/// The site's files, into both folders; the compressible ones also get their `.br` and
/// `.gz` siblings in `precompressed`.
fn write_site(site: &Path, precompressed: &Path) -> io::Result<()> {
    let files: [(&str, Vec<u8>, bool); 6] = [
        ("index.html", index_html().into_bytes(), true),
        ("favicon.ico", favicon_ico(), true),
        ("css/app.css", stylesheet().into_bytes(), true),
        (
            "js/app.js",
            script("app.js", 0xFEDC_BA98_7654_3210, JS_LEN).into_bytes(),
            true,
        ),
        (
            "js/bundle.js",
            script("bundle.js", 0x0BAD_5EED_2701_0001, BUNDLE_LEN).into_bytes(),
            true,
        ),
        ("img/logo.png", logo_png()?, false),
    ];
    for (name, bytes, compress) in &files {
        write_if_changed(&site.join(name), bytes)?;
        write_if_changed(&precompressed.join(name), bytes)?;
        if *compress {
            write_if_changed(&precompressed.join(format!("{name}.br")), &brotli(bytes)?)?;
            write_if_changed(&precompressed.join(format!("{name}.gz")), &gzip(bytes)?)?;
        }
    }
    Ok(())
}

fn brotli(bytes: &[u8]) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: 22,
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &bytes[..], &mut out, &params)?;
    Ok(out)
}

fn gzip(bytes: &[u8]) -> io::Result<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(9));
    encoder.write_all(bytes)?;
    encoder.finish()
}

/// The generated Rust: `rust-embed` on the folder with siblings (axum-embed serves
/// them), `static-serve` on the plain folder (it compresses by itself).
fn competitors(site: &Path, precompressed: &Path) -> io::Result<String> {
    let literal = |path: &Path| -> io::Result<String> {
        let text = path
            .to_str()
            .ok_or_else(|| io::Error::other(format!("{} is not UTF-8", path.display())))?;
        Ok(format!("{text:?}"))
    };
    Ok(format!(
        "// Generated by bench/build.rs.\n\
         /// rust-embed's view of `site-precompressed/` (served by axum-embed).\n\
         #[derive(Clone, ::rust_embed::RustEmbed)]\n\
         #[folder = {}]\n\
         pub(crate) struct RustEmbedSite;\n\
         \n\
         ::static_serve::embed_assets!({}, compress = true);\n",
        literal(precompressed)?,
        literal(site)?,
    ))
}

/// A deterministic pseudo-random source (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, words: &[&'a str]) -> &'a str {
        words[self.below(words.len())]
    }

    /// A made-up identifier of `len` lowercase letters.
    fn ident(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| char::from(b'a' + self.below(26) as u8))
            .collect()
    }
}

const COMPONENTS: &[&str] = &[
    "btn",
    "card",
    "nav",
    "navbar",
    "modal",
    "dropdown",
    "alert",
    "badge",
    "table",
    "form",
    "input",
    "list",
    "tabs",
    "toast",
    "tooltip",
    "sidebar",
    "header",
    "footer",
    "hero",
    "grid",
    "avatar",
    "chip",
    "menu",
    "panel",
    "pager",
    "spinner",
    "progress",
    "breadcrumb",
    "toolbar",
];
const PARTS: &[&str] = &[
    "body", "title", "item", "link", "icon", "label", "group", "content", "footer", "header",
    "close", "text", "image", "caption", "toggle", "divider", "actions", "meta",
];
const MODIFIERS: &[&str] = &[
    "primary",
    "secondary",
    "success",
    "danger",
    "warning",
    "info",
    "light",
    "dark",
    "sm",
    "lg",
    "outline",
    "active",
    "disabled",
    "compact",
    "inverse",
    "flush",
    "sticky",
    "rounded",
];
const STATES: &[&str] = &[
    "",
    "",
    "",
    ":hover",
    ":focus",
    ":active",
    ":disabled",
    "::before",
    "::after",
    ":first-child",
    ":focus-visible",
    ":not(:last-child)",
];
const UNITS: &[&str] = &["px", "rem", "em", "%", "px", "rem"];

fn css_value(rng: &mut Rng, property: &str) -> String {
    let length = |rng: &mut Rng| match rng.below(5) {
        0 => "0".to_owned(),
        _ => format!("{}{}", rng.below(48), rng.pick(UNITS)),
    };
    let color = |rng: &mut Rng| match rng.below(4) {
        0 => format!("#{:06x}", rng.next() & 0xff_ffff),
        1 => format!(
            "rgba({}, {}, {}, .{})",
            rng.below(256),
            rng.below(256),
            rng.below(256),
            1 + rng.below(9)
        ),
        2 => format!(
            "var(--{}-{})",
            rng.pick(MODIFIERS),
            rng.pick(&["bg", "fg", "border"])
        ),
        _ => rng
            .pick(&["#fff", "#000", "transparent", "currentColor", "inherit"])
            .to_owned(),
    };
    match property {
        "display" => rng
            .pick(&[
                "block",
                "flex",
                "inline-flex",
                "grid",
                "none",
                "inline-block",
            ])
            .to_owned(),
        "position" => rng
            .pick(&["relative", "absolute", "fixed", "sticky"])
            .to_owned(),
        "color" | "background-color" | "border-color" | "fill" => color(rng),
        "margin" | "padding" => match rng.below(3) {
            0 => length(rng),
            1 => format!("{} {}", length(rng), length(rng)),
            _ => format!(
                "{} {} {} {}",
                length(rng),
                length(rng),
                length(rng),
                length(rng)
            ),
        },
        "border" | "border-bottom" | "border-top" => {
            format!("{}px solid {}", 1 + rng.below(3), color(rng))
        }
        "box-shadow" => format!("0 {}px {}px {}", rng.below(8), rng.below(24), color(rng)),
        "transition" => format!(
            "{} .{}s ease-in-out",
            rng.pick(&["color", "opacity", "transform", "background-color", "all"]),
            1 + rng.below(5)
        ),
        "font-weight" => rng.pick(&["400", "500", "600", "700", "bold"]).to_owned(),
        "opacity" => format!(".{}", rng.below(10)),
        "z-index" => format!("{}", rng.below(1100)),
        "line-height" => format!("1.{}", rng.below(10)),
        "align-items" | "justify-content" => rng
            .pick(&[
                "center",
                "flex-start",
                "flex-end",
                "space-between",
                "stretch",
            ])
            .to_owned(),
        "transform" => format!(
            "translate({}{}, {}{})",
            rng.below(100),
            rng.pick(UNITS),
            rng.below(100),
            rng.pick(UNITS)
        ),
        _ => length(rng),
    }
}

const PROPERTIES: &[&str] = &[
    "display",
    "position",
    "color",
    "background-color",
    "border-color",
    "margin",
    "padding",
    "border",
    "border-bottom",
    "border-radius",
    "box-shadow",
    "transition",
    "font-size",
    "font-weight",
    "line-height",
    "width",
    "max-width",
    "height",
    "min-height",
    "top",
    "left",
    "gap",
    "opacity",
    "z-index",
    "align-items",
    "justify-content",
    "transform",
    "fill",
];

/// About [`CSS_LEN`] bytes of stylesheet: component rules with modifiers and states, a
/// few media queries, in the shape of a framework bundle before minification.
fn stylesheet() -> String {
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    let mut css = String::from(
        "/*! app.css - generated for the benchmark */\n:root {\n  --primary-bg: #0d6efd;\n  \
         --primary-fg: #fff;\n  --font-sans: system-ui, -apple-system, \"Segoe UI\", Roboto, \
         sans-serif;\n}\n*, *::before, *::after {\n  box-sizing: border-box;\n}\n",
    );
    let mut media_open = false;
    while css.len() < CSS_LEN {
        if rng.below(40) == 0 {
            if media_open {
                css.push_str("}\n");
            } else {
                let _ = writeln!(
                    css,
                    "@media (min-width: {}px) {{",
                    rng.pick(&["576", "768", "992", "1200", "1400"])
                );
            }
            media_open = !media_open;
        }
        let selectors = 1 + rng.below(3);
        let mut list = Vec::with_capacity(selectors);
        for _ in 0..selectors {
            let component = rng.pick(COMPONENTS);
            let selector = match rng.below(4) {
                0 => format!(".{component}{}", rng.pick(STATES)),
                1 => format!(".{component}-{}{}", rng.pick(MODIFIERS), rng.pick(STATES)),
                2 => format!(
                    ".{component}__{} > .{component}-{}",
                    rng.pick(PARTS),
                    rng.pick(PARTS)
                ),
                _ => format!(".{component}-{} .{}", rng.pick(PARTS), rng.ident(6)),
            };
            list.push(selector);
        }
        let _ = writeln!(css, "{} {{", list.join(",\n"));
        for _ in 0..2 + rng.below(6) {
            let property = rng.pick(PROPERTIES);
            let _ = writeln!(css, "  {property}: {};", css_value(&mut rng, property));
        }
        css.push_str("}\n");
    }
    if media_open {
        css.push_str("}\n");
    }
    css
}

const VERBS: &[&str] = &[
    "render", "update", "fetch", "parse", "format", "toggle", "open", "close", "load", "save",
    "validate", "select", "create", "remove", "sync", "bind", "observe", "schedule",
];
const NOUNS: &[&str] = &[
    "User", "Card", "List", "Menu", "Modal", "Form", "Field", "Item", "Page", "Token", "Session",
    "Cart", "Order", "Price", "Filter", "Chart", "Table", "Row", "Tooltip", "Toast", "Route",
];
const LOCALS: &[&str] = &[
    "el", "node", "items", "state", "options", "value", "result", "index", "data", "event",
    "target", "key", "count", "next", "prev", "entry", "config", "response",
];

/// About `len` bytes of script named `file`: ES module functions of the usual shapes
/// (DOM queries, fetches, loops, events), with made-up identifiers and literals drawn
/// from `seed`.
fn script(file: &str, seed: u64, len: usize) -> String {
    let mut rng = Rng(seed);
    let mut js = format!("/*! {file} - generated for the benchmark */\n\"use strict\";\n");
    let mut n = 0usize;
    while js.len() < len {
        n += 1;
        let name = format!("{}{}{n}", rng.pick(VERBS), rng.pick(NOUNS));
        let a = rng.pick(LOCALS);
        let b = rng.pick(LOCALS);
        let _ = writeln!(
            js,
            "export async function {name}({a}, {b}_{}) {{",
            rng.ident(3)
        );
        for _ in 0..2 + rng.below(5) {
            let x = rng.pick(LOCALS);
            let noun = rng.pick(NOUNS);
            let line = match rng.below(7) {
                0 => format!(
                    "  const {x}{} = document.querySelector(\".{}-{}\");",
                    rng.below(10),
                    rng.pick(COMPONENTS),
                    rng.pick(PARTS)
                ),
                1 => format!(
                    "  if (!{a} || {a}.length === {}) {{ return null; }}",
                    rng.below(5)
                ),
                2 => format!(
                    "  for (const {x} of {a}.{}s) {{ {x}.classList.toggle(\"{}\", {x}.id === \
                     {}); }}",
                    noun.to_lowercase(),
                    rng.pick(MODIFIERS),
                    rng.below(1000)
                ),
                3 => format!(
                    "  const {x} = await fetch(`/api/{}/${{{a}.id}}?v={}`).then((r) => \
                     r.json());",
                    noun.to_lowercase(),
                    rng.ident(5)
                ),
                4 => format!(
                    "  {a}.addEventListener(\"{}\", (event) => {}{}(event, {b}), {{ passive: \
                     true }});",
                    rng.pick(&["click", "input", "change", "keydown", "scroll", "submit"]),
                    rng.pick(VERBS),
                    rng.pick(NOUNS)
                ),
                5 => format!(
                    "  let {x}_{} = Math.max({}, {a}.{} * {}) / {};",
                    rng.ident(2),
                    rng.below(100),
                    rng.pick(LOCALS),
                    rng.below(64),
                    1 + rng.below(16)
                ),
                _ => format!(
                    "  console.debug(\"{}: %o\", {{ {x}, {b}, at: Date.now() - {} }});",
                    rng.ident(8),
                    rng.next() % 100_000
                ),
            };
            js.push_str(&line);
            js.push('\n');
        }
        let _ = writeln!(js, "  return {a};\n}}");
    }
    js
}

fn index_html() -> String {
    let mut html = String::from(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n  <meta charset=\"utf-8\">\n  \
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n  \
         <title>Bench site</title>\n  <link rel=\"icon\" href=\"/favicon.ico\">\n  \
         <link rel=\"stylesheet\" href=\"/css/app.css\">\n  \
         <script type=\"module\" src=\"/js/app.js\"></script>\n</head>\n<body>\n  \
         <header class=\"navbar\"><img src=\"/img/logo.png\" alt=\"logo\" width=\"160\" \
         height=\"96\"><nav class=\"nav\">\n",
    );
    for item in ["Home", "Products", "Pricing", "Docs", "Blog", "About"] {
        let _ = writeln!(
            html,
            "    <a class=\"nav-link\" href=\"/{}\">{item}</a>",
            item.to_lowercase()
        );
    }
    html.push_str("  </nav></header>\n  <main class=\"grid\">\n");
    let mut rng = Rng(0x1357_9BDF_2468_ACE0);
    for i in 1..=8 {
        let _ = writeln!(
            html,
            "    <article class=\"card card-{}\">\n      <h2 class=\"card__title\">{} {}</h2>\n      \
             <p class=\"card__text\">Item {i}: {} {} {} {}.</p>\n    </article>",
            rng.pick(MODIFIERS),
            rng.pick(VERBS),
            rng.pick(NOUNS),
            rng.ident(7),
            rng.ident(4),
            rng.ident(9),
            rng.ident(5)
        );
    }
    html.push_str(
        "  </main>\n  <footer class=\"footer\">&copy; 2026 Bench site</footer>\n</body>\n</html>\n",
    );
    html
}

/// A real `.ico`: a 16x16 and a 32x32 image, 32-bit BGRA bitmaps with their AND masks,
/// the layout browsers fetch as `/favicon.ico` (5,430 bytes).
fn favicon_ico() -> Vec<u8> {
    let sizes = [16u32, 32];
    let image_len = |s: u32| 40 + s * s * 4 + s * s.div_ceil(32) * 4;
    let mut ico = Vec::new();
    ico.extend_from_slice(&[0, 0, 1, 0]);
    ico.extend_from_slice(&(sizes.len() as u16).to_le_bytes());
    let mut offset = 6 + 16 * sizes.len() as u32;
    for &s in &sizes {
        ico.extend_from_slice(&[s as u8, s as u8, 0, 0]);
        ico.extend_from_slice(&1u16.to_le_bytes()); // planes
        ico.extend_from_slice(&32u16.to_le_bytes()); // bits per pixel
        ico.extend_from_slice(&image_len(s).to_le_bytes());
        ico.extend_from_slice(&offset.to_le_bytes());
        offset += image_len(s);
    }
    for &s in &sizes {
        // BITMAPINFOHEADER; the height counts the XOR and the AND bitmaps.
        ico.extend_from_slice(&40u32.to_le_bytes());
        ico.extend_from_slice(&s.to_le_bytes());
        ico.extend_from_slice(&(2 * s).to_le_bytes());
        ico.extend_from_slice(&1u16.to_le_bytes());
        ico.extend_from_slice(&32u16.to_le_bytes());
        ico.extend_from_slice(&[0; 24]); // BI_RGB, sizes and palette unused
        let c = s as f64 / 2.0;
        for y in 0..s {
            // Rows bottom-up: a filled circle with a soft edge, in two colours.
            for x in 0..s {
                let (dx, dy) = (x as f64 + 0.5 - c, y as f64 + 0.5 - c);
                let r = (dx * dx + dy * dy).sqrt() / c;
                let alpha = ((1.0 - r) * 4.0 * 255.0).clamp(0.0, 255.0) as u8;
                let (b, g, red) = if r < 0.55 {
                    (0xfd, 0x6e, 0x0d)
                } else {
                    (0xff, 0xff, 0xff)
                };
                ico.extend_from_slice(&[b, g, red, alpha]);
            }
        }
        // The AND mask: all zero (alpha decides), rows padded to 32 bits.
        ico.extend(std::iter::repeat_n(0u8, (s * s.div_ceil(32) * 4) as usize));
    }
    ico
}

/// A real PNG: 160x96 RGBA, a gradient with bands and a little noise (as a logo with a
/// photo-ish background compresses), zlib level 9, with CRCs.
fn logo_png() -> io::Result<Vec<u8>> {
    const W: u32 = 160;
    const H: u32 = 96;
    let mut rng = Rng(0x0F1E_2D3C_4B5A_6978);
    let mut raw = Vec::with_capacity(((W * 4 + 1) * H) as usize);
    for y in 0..H {
        raw.push(0); // filter: none
        for x in 0..W {
            let noise = (rng.next() % 24) as u32;
            let band = if (x / 20 + y / 12) % 2 == 0 { 40 } else { 0 };
            raw.extend_from_slice(&[
                (x * 255 / W + noise).min(255) as u8,
                (y * 255 / H + band).min(255) as u8,
                ((x + y) + noise).min(255) as u8,
                255,
            ]);
        }
    }
    let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(9));
    zlib.write_all(&raw)?;
    let idat = zlib.finish()?;
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&W.to_be_bytes());
    ihdr.extend_from_slice(&H.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]); // 8-bit RGBA, deflate, no filter, no interlace
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in [
        (b"IHDR", &ihdr[..]),
        (b"IDAT", &idat[..]),
        (b"IEND", &[][..]),
    ] {
        png.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let start = png.len();
        png.extend_from_slice(kind);
        png.extend_from_slice(data);
        let crc = crc32(&png[start..]);
        png.extend_from_slice(&crc.to_be_bytes());
    }
    Ok(png)
}

/// CRC-32 (IEEE, reflected), as PNG chunks carry it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// What kind of text an arena file holds, and so how it is generated.
#[derive(Clone, Copy)]
enum Text {
    Css,
    Js,
    Html,
    Svg,
    Json,
}

/// One file of HTTP Arena's static profile: its name under `static/`, its exact size in
/// HTTP Arena's `data/static/`, and how it is made. `Text(kind, noise)`: generated text
/// of `kind` in which `noise` parts in 10,000 are random tokens (hashes, ids, path
/// data), chosen so the brotli 11 body comes within a few percent of HTTP Arena's own
/// `.br` (their generator also mixes in entropy to reach a ratio); `Binary`: a
/// woff2/webp header followed by incompressible bytes, as theirs are.
enum ArenaFile {
    Text(Text, usize),
    Binary,
}

/// The profile's files in the order its `static-rotate.lua` requests them, with HTTP
/// Arena's sizes; the comments give HTTP Arena's brotli 11 sizes and ours.
const ARENA_FILES: [(&str, usize, ArenaFile); 20] = [
    ("reset.css", 8_192, ArenaFile::Text(Text::Css, 1_687)), // br 2,420 (ours 2,467)
    ("layout.css", 25_600, ArenaFile::Text(Text::Css, 975)), // br 5,615 (ours 5,763)
    ("theme.css", 18_432, ArenaFile::Text(Text::Css, 1_296)), // br 4,520 (ours 4,639)
    ("components.css", 204_800, ArenaFile::Text(Text::Css, 587)), // br 33,268 (ours 33,488)
    ("utilities.css", 61_440, ArenaFile::Text(Text::Css, 744)), // br 11,595 (ours 11,689)
    ("analytics.js", 12_288, ArenaFile::Text(Text::Js, 2_600)), // br 3,899 (ours 3,864)
    ("helpers.js", 22_528, ArenaFile::Text(Text::Js, 2_456)), // br 6,612 (ours 6,584)
    ("app.js", 204_800, ArenaFile::Text(Text::Js, 1_997)),   // br 47,275 (ours 47,207)
    ("vendor.js", 307_200, ArenaFile::Text(Text::Js, 1_875)), // br 67,294 (ours 67,322)
    ("router.js", 35_840, ArenaFile::Text(Text::Js, 2_281)), // br 9,665 (ours 9,769)
    ("header.html", 122_880, ArenaFile::Text(Text::Html, 315)), // br 9,390 (ours 9,385)
    ("footer.html", 56_320, ArenaFile::Text(Text::Html, 931)), // br 6,974 (ours 7,002)
    ("regular.woff2", 18_432, ArenaFile::Binary),
    ("bold.woff2", 22_528, ArenaFile::Binary),
    ("logo.svg", 15_344, ArenaFile::Text(Text::Svg, 650)), // br 3,028 (ours 3,037)
    ("icon-sprite.svg", 71_680, ArenaFile::Text(Text::Svg, 360)), // br 11,739 (ours 11,770)
    ("hero.webp", 46_080, ArenaFile::Binary),
    ("thumb1.webp", 8_192, ArenaFile::Binary),
    ("thumb2.webp", 6_144, ArenaFile::Binary),
    ("manifest.json", 2_883, ArenaFile::Text(Text::Json, 2_057)), // br 735 (ours 729)
];

/// HTTP Arena's static profile (`data/static/` of github.com/MDA2AV/HttpArena): 5 CSS,
/// 5 JS, 2 HTML, 2 woff2, 2 SVG, 3 webp and a JSON manifest, 1,271,603 bytes, under
/// `static/` so the URLs are theirs (`/static/reset.css`). The text files are cut at
/// their exact size, as HTTP Arena's are. `precompressed` also gets `.br` (quality 11)
/// and `.gz` (level 9) siblings of the text files, as HTTP Arena ships them.
fn write_arena(arena: &Path, precompressed: &Path) -> io::Result<()> {
    for (i, (name, len, file)) in ARENA_FILES.iter().enumerate() {
        let seed = 0xA7E4_A000_0000_0001 ^ ((i as u64 + 1) << 32);
        let bytes = match file {
            ArenaFile::Text(kind, noise) => arena_text(*kind, seed, *len, *noise).into_bytes(),
            ArenaFile::Binary => arena_binary(name, seed, *len),
        };
        let name = format!("static/{name}");
        write_if_changed(&arena.join(&name), &bytes)?;
        write_if_changed(&precompressed.join(&name), &bytes)?;
        if matches!(file, ArenaFile::Text(..)) {
            write_if_changed(&precompressed.join(format!("{name}.br")), &brotli(&bytes)?)?;
            write_if_changed(&precompressed.join(format!("{name}.gz")), &gzip(&bytes)?)?;
        }
    }
    Ok(())
}

/// `len` bytes of text of `kind`, `noise` parts in 10,000 of it random tokens.
fn arena_text(kind: Text, seed: u64, len: usize, noise: usize) -> String {
    let mut rng = Rng(seed);
    let mut out = String::with_capacity(len + 4096);
    out.push_str(match kind {
        Text::Css => "/*! generated for bench-arena */\n",
        Text::Js => "/*! generated for bench-arena */\n\"use strict\";\n",
        Text::Html => "<!-- generated for bench-arena -->\n<div class=\"page\">\n",
        Text::Svg => "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 512 512\">\n<defs>\n",
        Text::Json => {
            "{\n  \"name\": \"Bench Arena\",\n  \"short_name\": \"Arena\",\n  \
                       \"start_url\": \"/\",\n  \"display\": \"standalone\",\n  \
                       \"theme_color\": \"#0d6efd\",\n  \"icons\": [\n"
        }
    });
    let mut random = 0usize;
    let mut n = 0usize;
    while out.len() < len {
        n += 1;
        out.push_str(&arena_chunk(kind, &mut rng, n));
        // Tokens of random letters and digits until they are `noise` parts in 10,000.
        while random * 10_000 < noise * out.len() {
            let token: String = (0..16 + rng.below(32))
                .map(|_| char::from(b"0123456789abcdefghijklmnopqrstuvwxyz"[rng.below(36)]))
                .collect();
            random += token.len();
            let line = match kind {
                Text::Css => format!(".u-{token}{{--h:{}}}\n", rng.below(360)),
                Text::Js => format!("const k{n}_{} = \"{token}\";\n", rng.below(100)),
                Text::Html => format!("<i data-k=\"{token}\"></i>\n"),
                Text::Svg => format!("<use href=\"#i-{token}\"/>\n"),
                Text::Json => format!("    {{ \"id\": \"{token}\" }},\n"),
            };
            out.push_str(&line);
        }
    }
    out.truncate(len);
    out
}

/// One rule, function, block, icon or entry of `kind`.
fn arena_chunk(kind: Text, rng: &mut Rng, n: usize) -> String {
    let mut out = String::new();
    match kind {
        Text::Css => {
            let component = rng.pick(COMPONENTS);
            let _ = writeln!(
                out,
                ".{component}-{}{}, .{component}__{} {{",
                rng.pick(MODIFIERS),
                rng.pick(STATES),
                rng.pick(PARTS)
            );
            // Values from short lists, as a design system's stylesheet repeats them.
            for _ in 0..2 + rng.below(5) {
                let _ = writeln!(
                    out,
                    "  {}: {};",
                    rng.pick(PROPERTIES),
                    rng.pick(&[
                        "0",
                        "auto",
                        "100%",
                        ".5rem",
                        "1rem",
                        "var(--space-2)",
                        "var(--primary-bg)",
                        "var(--radius)",
                        "inherit",
                        "none",
                    ])
                );
            }
            out.push_str("}\n");
        }
        Text::Js => {
            let a = rng.pick(LOCALS);
            let _ = writeln!(
                out,
                "export function {}{}{n}({a}, options = {{}}) {{",
                rng.pick(VERBS),
                rng.pick(NOUNS)
            );
            for _ in 0..2 + rng.below(4) {
                let x = rng.pick(LOCALS);
                let line = match rng.below(4) {
                    0 => format!(
                        "  const {x} = document.querySelector(\".{}-{}\");",
                        rng.pick(COMPONENTS),
                        rng.pick(PARTS)
                    ),
                    1 => format!("  if (!{a} || {a}.length === 0) {{ return null; }}"),
                    2 => format!(
                        "  {a}.addEventListener(\"{}\", (event) => {}{}(event, options));",
                        rng.pick(&["click", "input", "change", "keydown", "submit"]),
                        rng.pick(VERBS),
                        rng.pick(NOUNS)
                    ),
                    _ => format!(
                        "  for (const {x} of {a}.items) {{ {x}.classList.toggle(\"{}\"); }}",
                        rng.pick(MODIFIERS)
                    ),
                };
                out.push_str(&line);
                out.push('\n');
            }
            let _ = writeln!(out, "  return {a};\n}}");
        }
        Text::Html => {
            let component = rng.pick(COMPONENTS);
            let _ = writeln!(
                out,
                "  <section class=\"{component} {component}-{}\">\n    <h3 class=\"{component}__title\">{} {}</h3>\n    <ul class=\"{component}__list\">",
                rng.pick(MODIFIERS),
                rng.pick(VERBS),
                rng.pick(NOUNS)
            );
            for _ in 0..2 + rng.below(4) {
                let noun = rng.pick(NOUNS);
                let _ = writeln!(
                    out,
                    "      <li class=\"{component}__item\"><a class=\"{component}__link\" href=\"/{}\">{noun}</a></li>",
                    noun.to_lowercase()
                );
            }
            out.push_str("    </ul>\n  </section>\n");
        }
        Text::Svg => {
            let _ = write!(
                out,
                "<symbol id=\"icon-{}-{n}\" viewBox=\"0 0 24 24\"><path d=\"M{} {}",
                rng.pick(NOUNS).to_lowercase(),
                rng.below(24),
                rng.below(24)
            );
            for _ in 0..3 + rng.below(4) {
                let _ = write!(
                    out,
                    "{}{} {}",
                    rng.pick(&["L", "l", "h", "v", "C", "c"]),
                    rng.below(24),
                    rng.below(24)
                );
            }
            out.push_str("z\" fill=\"currentColor\"/></symbol>\n");
        }
        Text::Json => {
            let size = [48, 72, 96, 128, 144, 192, 256, 384, 512][rng.below(9)];
            let _ = writeln!(
                out,
                "    {{ \"src\": \"/icons/icon-{size}x{size}.png\", \"sizes\": \"{size}x{size}\", \"type\": \"image/png\", \"purpose\": \"{}\" }},",
                rng.pick(&["any", "maskable", "any maskable"])
            );
        }
    }
    out
}

/// `len` bytes of a woff2 font or a webp image: the format's header, then
/// incompressible bytes (a real font or photo barely compresses either).
fn arena_binary(name: &str, seed: u64, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    if name.ends_with(".woff2") {
        out.extend_from_slice(b"wOF2");
        out.extend_from_slice(&0x0001_0000u32.to_be_bytes()); // TrueType flavor
        out.extend_from_slice(&(len as u32).to_be_bytes());
    } else {
        out.extend_from_slice(b"RIFF");
        out.extend_from_slice(&(len as u32 - 8).to_le_bytes());
        out.extend_from_slice(b"WEBPVP8 ");
        out.extend_from_slice(&(len as u32 - 20).to_le_bytes());
        out.extend_from_slice(&[0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a]); // key frame, start code
        out.extend_from_slice(&[0x80, 0x02, 0x68, 0x01]); // 640x360
    }
    let mut rng = Rng(seed);
    while out.len() < len {
        out.extend_from_slice(&rng.next().to_le_bytes());
    }
    out.truncate(len);
    out
}
