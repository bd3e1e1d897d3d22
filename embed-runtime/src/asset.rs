//! The embedded table: [`Assets`], [`Asset`], [`Variant`], [`Encoding`].
//!
//! Everything here is plain data the macro generates: strings, numbers and
//! `&'static [u8]` bodies, which rustc stores without evaluating anything. The service
//! turns the strings into header values once, when it is built (`service.rs`).

use std::fmt;
use std::io::Read;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use http::HeaderValue;

/// A content coding the server can store a body in (RFC 9110 §8.4.1).
///
/// The declaration order is the server's preference among codings a client accepts
/// with equal q-values: brotli first, then zstd, then gzip, then identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Encoding {
    /// `br` (RFC 7932): the smallest bodies.
    Brotli,
    /// `zstd` (RFC 8878), stored when the `zstd` feature is on: about the size of
    /// brotli's, faster for the client to decode.
    Zstd,
    /// `gzip` (RFC 1952).
    Gzip,
    /// No content coding: the file's own bytes.
    Identity,
}

impl Encoding {
    /// Every coding, in the server's order of preference.
    pub const ALL: [Encoding; 4] = [
        Encoding::Brotli,
        Encoding::Zstd,
        Encoding::Gzip,
        Encoding::Identity,
    ];

    /// The token used in `Content-Encoding` and `Accept-Encoding`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Encoding::Brotli => "br",
            Encoding::Zstd => "zstd",
            Encoding::Gzip => "gzip",
            Encoding::Identity => "identity",
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One stored representation of an asset: its bytes in one content coding.
///
/// Each variant has its own strong ETag (RFC 9110 §8.8.3: representations with different
/// content codings must not share a strong validator).
#[derive(Debug)]
pub struct Variant {
    encoding: Encoding,
    etag: &'static str,
    len: u64,
    body: &'static [u8],
    /// With `compressed_only`, for the identity variant: the gzip body the bytes are
    /// decoded from on first use, into `decoded`, once.
    gzip_source: Option<&'static [u8]>,
    decoded: OnceLock<&'static [u8]>,
    /// `len` in decimal, written on first use: a `Content-Length` value in static
    /// memory, so the clones the service makes of it per response copy a pointer
    /// instead of counting references.
    len_text: OnceLock<String>,
}

impl Variant {
    /// `Content-Length` of this variant, as a static header value.
    pub(crate) fn content_length(&'static self) -> HeaderValue {
        HeaderValue::from_static(self.len_text.get_or_init(|| self.len.to_string()))
    }

    /// The content coding of [`body`](Self::body).
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// The quoted strong entity tag of this representation, e.g. `"1f3a…"`.
    pub fn etag(&self) -> &'static str {
        self.etag
    }

    /// The bytes, already encoded; empty for an on-disk asset.
    ///
    /// For the identity variant of a `compressed_only` asset, the first call decodes
    /// the gzip body (once per process; the bytes are then kept, like a stored body).
    pub fn body(&self) -> &'static [u8] {
        match self.gzip_source {
            None => self.body,
            Some(gzip) => self.decoded.get_or_init(|| gunzip(gzip)),
        }
    }

    /// Length in bytes of this representation (known without decoding anything).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether this representation has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the binary stores these bytes, rather than decoding them on demand
    /// (the identity bytes of a `compressed_only` asset).
    pub fn is_stored(&self) -> bool {
        self.gzip_source.is_none()
    }
}

/// Decodes a gzip body the macro wrote, for the process's lifetime.
fn gunzip(gzip: &[u8]) -> &'static [u8] {
    let mut bytes = Vec::new();
    // NOTE: cannot fail: the macro decoded this very body after writing it and checked
    // the bytes (encode.rs), and it is in the binary, read-only.
    let _ = flate2::read::GzDecoder::new(gzip).read_to_end(&mut bytes);
    Box::leak(bytes.into_boxed_slice())
}

/// One file of the embedded folder, with everything a response needs precomputed.
#[derive(Debug)]
pub struct Asset {
    path: &'static str,
    content_type: &'static str,
    last_modified: &'static str,
    modified: u64,
    len: u64,
    identity: Variant,
    gzip: Option<Variant>,
    br: Option<Variant>,
    zstd: Option<Variant>,
    disk_path: Option<&'static str>,
    fingerprinted: Option<&'static str>,
    integrity: Option<&'static str>,
    page: Option<&'static PageInit>,
}

impl Asset {
    /// The URL path this asset answers to, e.g. `/css/app.css` (decoded, `/`-separated).
    pub fn path(&self) -> &'static str {
        self.path
    }

    /// The `Content-Type`, with `; charset=utf-8` for text that is valid UTF-8.
    pub fn content_type(&self) -> &'static str {
        self.content_type
    }

    /// The strong ETag of the identity (unencoded) representation, quoted.
    pub fn etag(&self) -> &'static str {
        self.identity.etag
    }

    /// `Last-Modified` as an HTTP date (`SOURCE_DATE_EPOCH` when set at build time,
    /// else the file's modification time).
    pub fn last_modified(&self) -> &'static str {
        self.last_modified
    }

    /// [`last_modified`](Self::last_modified) as a time.
    pub fn modified(&self) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(self.modified)
    }

    /// Length of the file's own (identity) bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The Subresource Integrity value of this asset, `sha384-` and the base64 of
    /// the SHA-384 digest of its identity bytes as served (after `rewrite_references`),
    /// for an `integrity` attribute or a policy of your own. A browser checks
    /// integrity after content decoding, so one value covers every encoding.
    ///
    /// Computed at compile time; `None` for a file over `max_embed_size`, whose bytes
    /// are read at run time.
    ///
    /// ```
    /// # use embed_runtime::{embed_assets, Assets};
    /// static ASSETS: Assets = embed_assets!("../examples/public");
    /// let css = ASSETS.get("/css/app.css").unwrap();
    /// let value = css.integrity().unwrap();
    /// assert!(value.starts_with("sha384-") && value.len() == 7 + 64);
    /// ```
    pub fn integrity(&self) -> Option<&'static str> {
        self.integrity
    }

    /// The Content-Security-Policy hash sources (`'sha256-…'`, quotes included) of
    /// this HTML page's inline scripts: each `<script>` without `src` that runs
    /// (classic, `module`, `importmap`; not a data block such as
    /// `application/ld+json`), over its text as the browser reads it (CSP Level 3
    /// §8.4), in document order without repeats. A policy whose `script-src` lists
    /// them runs exactly these scripts, with no `'unsafe-inline'` and no nonce; see
    /// [`ServeAssets::content_security_policy`](crate::ServeAssets::content_security_policy).
    ///
    /// Empty for other files, for a page with no inline script, and for a page read
    /// from disk (over `max_embed_size`), which the macro does not read.
    ///
    /// ```
    /// # use embed_runtime::{embed_assets, Assets};
    /// static ASSETS: Assets = embed_assets!("../examples/public");
    /// let page = ASSETS.get("/index.html").unwrap();
    /// let policy = format!("script-src 'self' {}", page.script_hashes().join(" "));
    /// assert!(policy.contains("'sha256-"));
    /// ```
    pub fn script_hashes(&self) -> &'static [&'static str] {
        self.page.map_or(&[], |page| page.script_hashes)
    }

    /// The same for this HTML page's `<style>` elements, for `style-src`.
    pub fn style_hashes(&self) -> &'static [&'static str] {
        self.page.map_or(&[], |page| page.style_hashes)
    }

    /// The inline code of this HTML page that no hash source allows, one line each:
    /// event handler attributes (``line 12: `onclick` on <button>``), `javascript:`
    /// URLs and `style` attributes. A policy without `'unsafe-inline'` (or
    /// `'unsafe-hashes'` with their hashes) blocks them; the macro's
    /// `strict_csp = true` makes the script ones a compile error.
    pub fn unhashable_inline(&self) -> &'static [&'static str] {
        self.page.map_or(&[], |page| page.unhashable_inline)
    }

    /// The `Link` field values (RFC 8288) that announce what this HTML page's `<head>`
    /// loads before it can render, computed at compile time, in document order:
    /// `<url>; rel=preload; as=style` for a style sheet, `rel=modulepreload` for a
    /// module script or module preload, `rel=preload; as=script` for a classic
    /// script, then `rel=preload; as=font; crossorigin` for the fonts those style
    /// sheets load. Only files of the table; each URL as the page names it (so the
    /// hashed one after `rewrite_references`), a font's as an absolute path with the
    /// macro's `base`. A `crossorigin` attribute is repeated, so the preload matches.
    ///
    /// [`ServeAssets::preload_links`](crate::ServeAssets::preload_links) sends them;
    /// CDNs turn such a header into 103 Early Hints. Empty for other files and pages
    /// read from disk.
    ///
    /// ```
    /// # use embed_runtime::{embed_assets, Assets};
    /// static ASSETS: Assets = embed_assets!("../examples/public");
    /// let page = ASSETS.get("/index.html").unwrap();
    /// assert_eq!(
    ///     page.preload_links(),
    ///     ["</css/app.css>; rel=preload; as=style", "</js/app.js>; rel=preload; as=script"]
    /// );
    /// ```
    pub fn preload_links(&self) -> &'static [&'static str] {
        self.page.map_or(&[], |page| page.preload_links)
    }

    /// The content-hashed URL this asset is also served at (`/js/app.3f2a1b9c.js`),
    /// with a long-lived `immutable` cache policy; `None` unless the macro's
    /// `fingerprint` option selected it.
    pub fn fingerprinted_path(&self) -> Option<&'static str> {
        self.fingerprinted
    }

    /// The URL to link to: the fingerprinted one when there is one, else
    /// [`path`](Self::path).
    pub fn url(&self) -> &'static str {
        self.fingerprinted.unwrap_or(self.path)
    }

    /// `true` when the bytes are in the binary; `false` for a file over
    /// `max_embed_size`, which is listed but read from disk.
    pub fn is_embedded(&self) -> bool {
        self.disk_path.is_none()
    }

    /// For an on-disk asset, its path relative to the embedded folder.
    pub fn disk_path(&self) -> Option<&'static str> {
        self.disk_path
    }

    /// The stored representations, in the server's order of preference (identity last).
    pub fn variants(&self) -> impl Iterator<Item = &Variant> + '_ {
        self.br
            .iter()
            .chain(&self.zstd)
            .chain(&self.gzip)
            .chain(Some(&self.identity))
    }

    /// The representation stored in `encoding`, if any.
    pub fn variant(&self, encoding: Encoding) -> Option<&Variant> {
        match encoding {
            Encoding::Identity => Some(&self.identity),
            Encoding::Gzip => self.gzip.as_ref(),
            Encoding::Brotli => self.br.as_ref(),
            Encoding::Zstd => self.zstd.as_ref(),
        }
    }

    /// The body stored in `encoding`: `None` if that coding is not stored, or if the
    /// asset lives on disk.
    pub fn body(&self, encoding: Encoding) -> Option<&'static [u8]> {
        if !self.is_embedded() {
            return None;
        }
        self.variant(encoding).map(Variant::body)
    }

    /// Whether any encoded variant exists, i.e. whether responses depend on
    /// `Accept-Encoding` and so carry `Vary: Accept-Encoding`.
    pub fn is_negotiated(&self) -> bool {
        self.gzip.is_some() || self.br.is_some() || self.zstd.is_some()
    }

    pub(crate) fn identity(&self) -> &Variant {
        &self.identity
    }

    pub(crate) fn modified_secs(&self) -> u64 {
        self.modified
    }

    /// Builds an asset from the macro's output. Not a stable API.
    ///
    /// Plain moves, so rustc's const evaluation of a large table stays cheap: header
    /// values are built by the service, not here.
    #[doc(hidden)]
    pub const fn __new(init: AssetInit) -> Asset {
        let (identity, gzip, br, zstd, disk_path) = match init.source {
            Source::Embedded {
                identity,
                gzip,
                br,
                zstd,
            } => (identity, gzip, br, zstd, None),
            Source::OnDisk { relative_path } => {
                (Some(&[] as &[u8]), None, None, None, Some(relative_path))
            }
        };
        // No identity bytes: decoded from the gzip body on first use.
        let gzip_source = match (identity, &gzip) {
            (None, Some(gzip)) => Some(gzip.body),
            _ => None,
        };
        Asset {
            path: init.path,
            content_type: init.content_type,
            last_modified: init.last_modified,
            modified: init.modified,
            len: init.len,
            identity: Variant {
                encoding: Encoding::Identity,
                etag: init.etag,
                len: init.len,
                body: match identity {
                    Some(body) => body,
                    None => &[],
                },
                gzip_source,
                decoded: OnceLock::new(),
                len_text: OnceLock::new(),
            },
            gzip: encoded(Encoding::Gzip, gzip),
            br: encoded(Encoding::Brotli, br),
            zstd: encoded(Encoding::Zstd, zstd),
            disk_path,
            fingerprinted: init.fingerprinted,
            integrity: init.integrity,
            page: init.page,
        }
    }
}

const fn encoded(encoding: Encoding, init: Option<EncodedInit>) -> Option<Variant> {
    match init {
        Some(EncodedInit { etag, body }) => Some(Variant {
            encoding,
            etag,
            len: body.len() as u64,
            body,
            gzip_source: None,
            decoded: OnceLock::new(),
            len_text: OnceLock::new(),
        }),
        None => None,
    }
}

/// What the macro writes for one file. Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct AssetInit {
    pub path: &'static str,
    pub content_type: &'static str,
    pub etag: &'static str,
    pub last_modified: &'static str,
    pub modified: u64,
    pub len: u64,
    pub fingerprinted: Option<&'static str>,
    pub integrity: Option<&'static str>,
    /// What the macro found in an HTML page; `None` for other files, so that a table
    /// of many files has one field to type-check for each, not four.
    pub page: Option<&'static PageInit>,
    pub source: Source,
}

/// What the macro writes for one HTML page. Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct PageInit {
    pub script_hashes: &'static [&'static str],
    pub style_hashes: &'static [&'static str],
    pub unhashable_inline: &'static [&'static str],
    pub preload_links: &'static [&'static str],
}

/// Where an asset's bytes come from. Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub enum Source {
    Embedded {
        /// `None` with `compressed_only`: decoded from `gzip` on first use.
        identity: Option<&'static [u8]>,
        gzip: Option<EncodedInit>,
        br: Option<EncodedInit>,
        zstd: Option<EncodedInit>,
    },
    OnDisk {
        relative_path: &'static str,
    },
}

/// One precompressed body. Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct EncodedInit {
    pub etag: &'static str,
    pub body: &'static [u8],
}

/// Set in a map value when the key is an asset's fingerprinted URL. Not a stable API.
#[doc(hidden)]
pub const FINGERPRINTED: u32 = 1 << 31;

/// Every file of one `embed_assets!` folder, looked up by URL path.
///
/// Built at compile time: `static ASSETS: Assets = embed_assets!("public");`.
pub struct Assets {
    map: &'static phf::Map<&'static str, u32>,
    files: &'static [Asset],
    root: Option<&'static str>,
    selection: Selection,
}

/// Which files of its folder the macro embedded (its `dotfiles`, `follow_symlinks`,
/// `include` and `exclude` options), so dev mode serves files added since the build
/// by the same rules. Not a stable API.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Selection {
    /// Files and folders whose name starts with `.` are embedded too.
    pub dotfiles: bool,
    /// Symbolic links were followed.
    pub follow_symlinks: bool,
    /// Only files matching one of these globs were embedded (none: every file).
    pub include: &'static [&'static str],
    /// Files matching one of these globs were skipped.
    pub exclude: &'static [&'static str],
}

impl Selection {
    /// The macro's defaults.
    pub const DEFAULT: Selection = Selection {
        dotfiles: false,
        follow_symlinks: false,
        include: &[],
        exclude: &[],
    };
}

impl Assets {
    /// Wraps the macro's perfect-hash map and file table. Not a stable API.
    #[doc(hidden)]
    pub const fn __new(
        map: &'static phf::Map<&'static str, u32>,
        files: &'static [Asset],
        root: Option<&'static str>,
        selection: Selection,
    ) -> Self {
        Assets {
            map,
            files,
            root,
            selection,
        }
    }

    /// The macro's file selection, for dev mode.
    pub(crate) fn selection(&self) -> &Selection {
        &self.selection
    }

    /// An empty set, which the macro emits next to its compile error.
    #[doc(hidden)]
    pub const EMPTY: Assets = Assets {
        map: &phf::Map {
            key: 0,
            disps: &[],
            entries: &[],
        },
        files: &[],
        root: None,
        selection: Selection::DEFAULT,
    };

    /// The asset at a URL path such as `/css/app.css` (already percent-decoded; no
    /// index-file or trailing-slash handling, which belongs to the service), or at its
    /// fingerprinted URL.
    pub fn get(&self, path: &str) -> Option<&'static Asset> {
        self.index_of(path).map(|index| &self.files[index])
    }

    /// The URL to link to for the file at `path`: its fingerprinted URL when the
    /// `fingerprint` option covers it, else `path` itself; `None` if there is no such
    /// file. For templates: `ASSETS.url("/js/app.js")` → `/js/app.3f2a1b9c.js`.
    /// (The item form of the macro also defines these as constants in `paths`.)
    pub fn url(&self, path: &str) -> Option<&'static str> {
        self.get(path).map(Asset::url)
    }

    /// Every asset, sorted by path.
    pub fn iter(&self) -> std::slice::Iter<'static, Asset> {
        self.files.iter()
    }

    /// How many assets there are, embedded and on disk.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether the folder was empty.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The absolute folder the macro read, where on-disk assets are looked for by
    /// default; `None` when every file is embedded.
    pub fn build_root(&self) -> Option<&'static str> {
        self.root
    }

    /// What the macro embedded: counts and bytes per stored encoding, and the files
    /// left on disk. Its `Display` is one line, for a start-up log.
    pub fn report(&self) -> Report {
        let mut report = Report::default();
        for asset in self.files {
            report.files += 1;
            if !asset.is_embedded() {
                report.on_disk += 1;
                report.on_disk_bytes += asset.len;
                continue;
            }
            report.embedded += 1;
            report.identity_bytes += asset.len;
            if !asset.identity.is_stored() {
                report.decoded_on_demand += 1;
                report.decoded_on_demand_bytes += asset.len;
            }
            if let Some(gzip) = &asset.gzip {
                report.gzip_files += 1;
                report.gzip_bytes += gzip.len();
            }
            if let Some(br) = &asset.br {
                report.br_files += 1;
                report.br_bytes += br.len();
            }
            if let Some(zstd) = &asset.zstd {
                report.zstd_files += 1;
                report.zstd_bytes += zstd.len();
            }
        }
        report
    }

    pub(crate) fn index_of(&self, path: &str) -> Option<usize> {
        self.lookup(path).map(|(index, _)| index)
    }

    /// The index of the asset at `path`, and whether `path` is its fingerprinted URL.
    pub(crate) fn lookup(&self, path: &str) -> Option<(usize, bool)> {
        self.map.get(path).map(|&value| {
            (
                (value & !FINGERPRINTED) as usize,
                value & FINGERPRINTED != 0,
            )
        })
    }

    pub(crate) fn files(&self) -> &'static [Asset] {
        self.files
    }
}

/// Counts and sizes of one embedded folder, from [`Assets::report`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Report {
    /// Every listed file, embedded or on disk.
    pub files: usize,
    /// Files whose bytes are in the binary.
    pub embedded: usize,
    /// The embedded files' own (identity) bytes.
    pub identity_bytes: u64,
    /// Embedded files that also have a gzip body.
    pub gzip_files: usize,
    /// Bytes of all gzip bodies.
    pub gzip_bytes: u64,
    /// Embedded files that also have a brotli body.
    pub br_files: usize,
    /// Bytes of all brotli bodies.
    pub br_bytes: u64,
    /// Embedded files that also have a zstd body.
    pub zstd_files: usize,
    /// Bytes of all zstd bodies.
    pub zstd_bytes: u64,
    /// Embedded files stored only compressed (`compressed_only`), whose own bytes are
    /// decoded from gzip when first needed.
    pub decoded_on_demand: usize,
    /// Their own bytes, which the binary does not carry.
    pub decoded_on_demand_bytes: u64,
    /// Files over `max_embed_size`, served from disk.
    pub on_disk: usize,
    /// Their size at build time.
    pub on_disk_bytes: u64,
}

impl Report {
    /// Bytes the binary carries for these assets: the stored identity bodies plus the
    /// encoded ones.
    pub fn stored_bytes(&self) -> u64 {
        self.identity_bytes - self.decoded_on_demand_bytes
            + self.gzip_bytes
            + self.br_bytes
            + self.zstd_bytes
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} files: {} embedded ({}; {} stored with br for {} files ({}), ",
            self.files,
            self.embedded,
            Size(self.identity_bytes),
            Size(self.stored_bytes()),
            self.br_files,
            Size(self.br_bytes),
        )?;
        if self.decoded_on_demand > 0 {
            write!(
                f,
                "{} decoded from gzip on demand ({}), ",
                self.decoded_on_demand,
                Size(self.decoded_on_demand_bytes)
            )?;
        }
        if self.zstd_files > 0 {
            write!(
                f,
                "zstd for {} ({}), ",
                self.zstd_files,
                Size(self.zstd_bytes)
            )?;
        }
        write!(
            f,
            "gzip for {} ({})), {} on disk ({})",
            self.gzip_files,
            Size(self.gzip_bytes),
            self.on_disk,
            Size(self.on_disk_bytes),
        )
    }
}

/// A byte count in binary units, for reports.
struct Size(u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
        if self.0 < 1024 {
            return write!(f, "{} B", self.0);
        }
        let mut value = self.0 as f64 / 1024.0;
        let mut unit = 0;
        while value >= 1024.0 && unit < UNITS.len() - 1 {
            value /= 1024.0;
            unit += 1;
        }
        write!(f, "{value:.1} {}", UNITS[unit])
    }
}

impl fmt::Debug for Assets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.files.iter().map(Asset::path))
            .finish()
    }
}

impl IntoIterator for &Assets {
    type Item = &'static Asset;
    type IntoIter = std::slice::Iter<'static, Asset>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// An entry point of a Vite build (`index.html`, `src/admin.ts`), from the folder's
/// `.vite/manifest.json`: the script to load, with the stylesheets and chunks it
/// needs, as URLs of the embedded table.
///
/// The macro's item form defines one constant per entry in `paths::entries`, so
/// server-rendered HTML can link to the hashed files:
///
/// ```ignore
/// let entry = paths::entries::INDEX_HTML;
/// let head: String = entry
///     .css()
///     .iter()
///     .map(|href| format!(r#"<link rel="stylesheet" href="{href}">"#))
///     .chain(std::iter::once(format!(r#"<script type="module" src="{}"></script>"#, entry.file())))
///     .collect();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    file: &'static str,
    css: &'static [&'static str],
    imports: &'static [&'static str],
}

impl Entry {
    /// Made by the macro only. Not a stable API.
    #[doc(hidden)]
    pub const fn __new(
        file: &'static str,
        css: &'static [&'static str],
        imports: &'static [&'static str],
    ) -> Entry {
        Entry { file, css, imports }
    }

    /// The entry's script (`/assets/index-C0x2Zvij.js`), to load with
    /// `<script type="module">`.
    pub const fn file(&self) -> &'static str {
        self.file
    }

    /// The stylesheets of the entry and of the chunks it imports, in load order.
    pub const fn css(&self) -> &'static [&'static str] {
        self.css
    }

    /// The JavaScript chunks the entry imports statically, for
    /// `<link rel="modulepreload">`.
    pub const fn imports(&self) -> &'static [&'static str] {
        self.imports
    }
}
