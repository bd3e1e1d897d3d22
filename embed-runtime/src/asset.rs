//! One file of the table: [`Asset`] and its stored representations ([`Variant`]), one
//! list in the server's order of preference.
//!
//! Everything here is plain data the macro generates (through `__private`, see
//! `abi.rs`): strings, numbers and `&'static [u8]` bodies, which rustc stores without
//! evaluating anything. The service turns the strings into header values once, when it
//! is built.

use std::io::Read;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use http::HeaderValue;

use crate::coding::Encoding;
use crate::disk::Reader;

/// One stored representation of an asset: its bytes in one content coding, and for a
/// dictionary coding (RFC 9842) the dictionary the client must have.
///
/// Each variant has its own strong ETag (RFC 9110 §8.8.3: representations with different
/// content codings must not share a strong validator).
///
/// ```
/// # use embed_assets::{embed_assets, Assets, Encoding};
/// static ASSETS: Assets = embed_assets!("../examples/public");
///
/// let js = ASSETS.get("/js/app.js").unwrap();
/// for variant in js.variants() {
///     println!("{}: {} bytes, ETag {}", variant.encoding(), variant.len(), variant.etag());
/// }
/// let br = js.variant(Encoding::Brotli).unwrap();
/// assert!(br.len() < js.len() && br.etag() != js.etag());
/// ```
#[derive(Debug)]
pub struct Variant {
    pub(crate) encoding: Encoding,
    /// For a dictionary coding: the dictionary's SHA-256 as `Available-Dictionary`
    /// carries it.
    pub(crate) dictionary: Option<&'static str>,
    pub(crate) etag: &'static str,
    pub(crate) len: u64,
    pub(crate) body: &'static [u8],
    /// With `compressed_only`, for the identity variant: the gzip body the bytes are
    /// decoded from on first use, into `decoded`, once.
    pub(crate) gzip_source: Option<Gzipped>,
    pub(crate) decoded: OnceLock<&'static [u8]>,
    /// `len` in decimal, written on first use: a `Content-Length` value in static
    /// memory, so the clones the service makes of it per response copy a pointer
    /// instead of counting references.
    pub(crate) len_text: OnceLock<String>,
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

    /// For a body compressed against an earlier version of the file (a dictionary
    /// coding, [`Encoding::needs_dictionary`]): that version's SHA-256 as
    /// `Available-Dictionary` carries it, a structured-field byte sequence, `:`
    /// base64 `:` (RFC 8941 §3.3.5). `None` for the other codings.
    pub fn dictionary(&self) -> Option<&'static str> {
        self.dictionary
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
            Some(gzipped) => self.decoded.get_or_init(|| (gzipped.decode)(gzipped.gzip)),
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

/// The identity body of an asset whose list is empty, which the macro never writes.
pub(crate) static NO_BODY: Variant = Variant {
    encoding: Encoding::Identity,
    dictionary: None,
    etag: "",
    len: 0,
    body: &[],
    gzip_source: None,
    decoded: OnceLock::new(),
    len_text: OnceLock::new(),
};

/// The gzip body a `compressed_only` asset's own bytes are decoded from, and the
/// decoder: held only by such a variant (`abi::identity`), so that a binary without
/// one links no gzip decoder.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Gzipped {
    pub(crate) gzip: &'static [u8],
    pub(crate) decode: fn(&[u8]) -> &'static [u8],
}

/// Decodes a gzip body the macro wrote, for the process's lifetime.
pub(crate) fn gunzip(gzip: &[u8]) -> &'static [u8] {
    let mut bytes = Vec::new();
    // NOTE: cannot fail: the macro decoded this very body after writing it and checked
    // the bytes (encode.rs), and it is in the binary, read-only.
    let _ = flate2::read::GzDecoder::new(gzip).read_to_end(&mut bytes);
    Box::leak(bytes.into_boxed_slice())
}

/// An asset left on disk: its path below the folder (`/`-separated), and the code that
/// reads it, which only a table with such an asset links.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OnDisk {
    pub(crate) path: &'static str,
    pub(crate) reader: &'static Reader,
}

/// One file of the embedded folder, with everything a response needs precomputed.
///
/// ```
/// # use embed_assets::{embed_assets, Assets, Encoding};
/// static ASSETS: Assets = embed_assets!("../examples/public");
///
/// let css = ASSETS.get("/css/app.css").unwrap();
/// assert_eq!(css.content_type(), "text/css; charset=utf-8");
/// assert!(css.etag().starts_with('"') && css.is_embedded());
/// let bytes = css.body(Encoding::Identity).unwrap();
/// assert_eq!(bytes.len() as u64, css.len());
/// ```
#[derive(Debug)]
pub struct Asset {
    pub(crate) path: &'static str,
    pub(crate) content_type: &'static str,
    pub(crate) last_modified: &'static str,
    pub(crate) modified: u64,
    pub(crate) len: u64,
    /// The table's list of bodies, of which this asset's are `count` from `first`:
    /// those compressed against a dictionary (smallest first), then one per coding
    /// (brotli, zstd, gzip), then identity, always last (for an on-disk asset: no
    /// bytes, no ETag). Sliced when read: slicing a static while rustc evaluates the
    /// table costs it a tenth of a second per thousand files.
    pub(crate) all_bodies: &'static [Variant],
    pub(crate) first: u32,
    pub(crate) count: u32,
    /// Over `max_embed_size`: where the file is, and the code that reads it.
    pub(crate) disk: Option<OnDisk>,
    pub(crate) fingerprinted: Option<&'static str>,
    /// [`url`](Asset::url) where percent-encoding changes it.
    pub(crate) url: Option<&'static str>,
    pub(crate) integrity: Option<&'static str>,
    pub(crate) page: Option<&'static PageInit>,
    pub(crate) release: Option<&'static str>,
    pub(crate) dictionary_match: Option<&'static str>,
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

    /// The strong ETag of the identity (unencoded) representation, quoted: from the
    /// SHA-256 of its bytes.
    ///
    /// Empty for a file read from disk (over `max_embed_size`): its bytes can change
    /// after the build, so its ETag is computed from them at run time, once per version
    /// of the file (see [`ServeAssets::check_disk`](crate::ServeAssets::check_disk)).
    pub fn etag(&self) -> &'static str {
        self.identity().etag
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
    /// # use embed_assets::{embed_assets, Assets};
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
    /// # use embed_assets::{embed_assets, Assets};
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
    /// # use embed_assets::{embed_assets, Assets};
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

    /// The id of the earlier release this file is kept from (the macro's `releases`
    /// option): then it is served at its [`fingerprinted_path`](Self::fingerprinted_path)
    /// only, and [`path`](Self::path) is where it was in that release's folder. `None`
    /// for the files of this build. (This build's own release id is
    /// [`Assets::release`](crate::Assets::release).)
    pub fn earlier_release(&self) -> Option<&'static str> {
        self.release
    }

    /// The URL to link to: the fingerprinted one when there is one, else
    /// [`path`](Self::path), percent-encoded as a URL path (RFC 3986), exactly as the
    /// `paths` constants are: `/a b?.txt` is linked as `/a%20b%3F.txt` (fingerprinted:
    /// `/a%20b%3F.3f2a1b9c.txt`), so a `?` or `#` in a name never starts a query or a
    /// fragment. [`path`](Self::path) and
    /// [`fingerprinted_path`](Self::fingerprinted_path) are the decoded forms, as a
    /// request's path is looked up.
    ///
    /// ```
    /// # use embed_assets::{embed_assets, Assets};
    /// static ASSETS: Assets = embed_assets!("../examples/public", fingerprint = true);
    /// let css = ASSETS.get("/css/app.css").unwrap();
    /// assert_eq!(css.url(), css.fingerprinted_path().unwrap());
    /// assert!(css.url().starts_with("/css/app."));
    /// ```
    pub fn url(&self) -> &'static str {
        match self.url {
            Some(encoded) => encoded,
            None => self.fingerprinted.unwrap_or(self.path),
        }
    }

    /// `true` when the bytes are in the binary; `false` for a file over
    /// `max_embed_size`, which is listed but read from disk.
    pub fn is_embedded(&self) -> bool {
        self.disk.is_none()
    }

    /// For an on-disk asset, its path relative to the embedded folder.
    pub fn disk_path(&self) -> Option<&'static str> {
        self.disk.map(|disk| disk.path)
    }

    /// The stored representations, in the server's order of preference (identity
    /// last), without those compressed against a dictionary ([`deltas`](Self::deltas)).
    pub fn variants(&self) -> impl Iterator<Item = &Variant> + '_ {
        self.bodies()
            .iter()
            .filter(|body| body.dictionary.is_none())
    }

    /// The representation stored in `encoding`, if any; `None` for the dictionary
    /// codings, whose bodies are one per dictionary ([`deltas`](Self::deltas)).
    pub fn variant(&self, encoding: Encoding) -> Option<&Variant> {
        self.variants().find(|body| body.encoding == encoding)
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
        self.count > 1
    }

    /// Its bodies compressed against earlier versions of it (RFC 9842), each naming
    /// its [`dictionary`](Variant::dictionary), smallest first; empty without the
    /// macro's `releases` option, or when no kept release had another version of the
    /// file. The responses of an asset that has any carry
    /// `Vary: accept-encoding, available-dictionary`.
    ///
    /// The earlier version of a file at a hashed URL is the kept releases' file at a
    /// URL with the same name and another hash (`/js/app.*.js`); of an HTML page, the
    /// page at the same path.
    pub fn deltas(&self) -> &'static [Variant] {
        let count = self
            .bodies()
            .iter()
            .take_while(|body| body.dictionary.is_some())
            .count();
        &self.bodies()[..count]
    }

    /// The `Use-As-Dictionary` field value (RFC 9842 §2.1) its responses carry, with
    /// the macro's `releases` option: `match="app.*.js"` for a file at a hashed URL (its
    /// name with any hash, relative to its own URL, so it holds wherever the service is
    /// mounted), and a page's own URL. A browser keeps the file as a dictionary for
    /// the URLs the pattern matches, and names it when it asks for one of them.
    pub fn dictionary_match(&self) -> Option<&'static str> {
        self.dictionary_match
    }

    /// Every stored body, in the server's order of preference, identity last.
    pub(crate) fn bodies(&self) -> &'static [Variant] {
        let (first, count) = (self.first as usize, self.count as usize);
        self.all_bodies
            .get(first..first + count)
            .unwrap_or_default()
    }

    /// The identity body: the file's own bytes (none for an on-disk asset).
    pub(crate) fn identity(&self) -> &'static Variant {
        self.bodies().last().unwrap_or(&NO_BODY)
    }
}

/// What the macro found in one HTML page: its CSP hash sources, the inline code no hash
/// allows, its preload links. Written by the macro (`__private`), not a stable API.
#[derive(Debug)]
pub struct PageInit {
    /// [`Asset::script_hashes`].
    pub script_hashes: &'static [&'static str],
    /// [`Asset::style_hashes`].
    pub style_hashes: &'static [&'static str],
    /// [`Asset::unhashable_inline`].
    pub unhashable_inline: &'static [&'static str],
    /// [`Asset::preload_links`].
    pub preload_links: &'static [&'static str],
}
