//! The pipeline's data: what each phase hands the next. Every phase imports it, and
//! none defines what a later phase needs, so the phases import each other in one
//! direction only (scan → encode → bundler → fingerprint → rewrite → preload →
//! codegen).

use std::path::PathBuf;

use crate::codec::Coding;

/// Which folder a run of the phases is over: this build's, or a kept release's
/// (`releases.rs`), whose hashed files are served too. In an earlier release, a pattern
/// that selects nothing and an empty folder are no mistake of the options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pass {
    Current,
    Earlier,
}

/// One file to embed or list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileEntry {
    /// The URL path: `/` plus the `/`-separated path below the folder.
    pub(crate) url_path: String,
    /// Absolute path, for reading and `include_bytes!`.
    pub(crate) abs_path: PathBuf,
    /// The path below the folder, `/`-separated (`css/app.css`).
    pub(crate) relative: String,
    pub(crate) len: u64,
    /// Seconds since the Unix epoch that an embedded file states: `SOURCE_DATE_EPOCH`
    /// when set (reproducible builds), else its modification time.
    pub(crate) modified: u64,
    /// The file's own modification time, which an on-disk entry states (the runtime
    /// re-checks it).
    pub(crate) mtime: u64,
    /// Over `max_embed_size` but of a kind that compresses: embedded, compressed only,
    /// if its gzip body is within the limit (`encode.rs` decides), else on disk.
    pub(crate) over_limit: bool,
    /// Why the file is served from disk; `None` when it is embedded.
    pub(crate) disk: Option<DiskReason>,
}

/// Why a file is served from disk rather than embedded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DiskReason {
    /// A `disk` glob matches it.
    Listed,
    /// It is over `max_embed_size` and does not compress (a media type or an archive,
    /// or bytes a sample showed not to compress).
    Incompressible,
    /// It is over `max_embed_size` and `gzip = false`: nothing to decode it from.
    NoGzip,
    /// It is over `max_embed_size`, and so is its gzip body (this many bytes).
    CompressedTooLarge(u64),
}

impl FileEntry {
    /// Whether the file is embedded (or, `over_limit`, may be), not served from disk.
    pub(crate) fn is_embedded(&self) -> bool {
        self.disk.is_none()
    }

    /// Whether this is a document whose references `rewrite_references` rewrites: an
    /// embedded HTML or CSS file.
    pub(crate) fn is_document(&self) -> bool {
        self.is_embedded() && Document::of(&self.url_path).is_some()
    }
}

/// The kinds of file whose references are rewritten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Document {
    Html,
    Css,
}

impl Document {
    /// By extension: `.html`/`.htm`, `.css`.
    pub(crate) fn of(url_path: &str) -> Option<Self> {
        let name = url_path.rsplit('/').next().unwrap_or(url_path);
        let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
        match ext.as_str() {
            "html" | "htm" => Some(Document::Html),
            "css" => Some(Document::Css),
            _ => None,
        }
    }
}

/// One file with everything the generated code states about it.
#[derive(Debug)]
pub(crate) struct EncodedAsset {
    pub(crate) url_path: String,
    pub(crate) content_type: String,
    /// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    pub(crate) last_modified: String,
    pub(crate) modified: u64,
    pub(crate) len: u64,
    /// Quoted strong ETag of the identity bytes.
    pub(crate) etag: String,
    pub(crate) body: Body,
    /// The content-hashed URL it is also served at (`fingerprint.rs`).
    pub(crate) fingerprinted: Option<String>,
    /// The Subresource Integrity value of the identity bytes (`sha384-…`); `None` on
    /// disk.
    pub(crate) integrity: Option<String>,
    /// An embedded HTML page's inline scripts and styles (their CSP hashes).
    pub(crate) inline: Option<Inline>,
    /// An embedded HTML page's `Link` preload values (`preload.rs`).
    pub(crate) preload: Vec<String>,
    /// The id of the earlier release it is kept from (`releases.rs`): then it is served
    /// at its hashed URL only. `None` for this build's files.
    pub(crate) release: Option<String>,
    /// Its bodies compressed against earlier versions of it (`delta.rs`), smallest
    /// first.
    pub(crate) deltas: Vec<Encoded>,
    /// The `Use-As-Dictionary` field value its responses carry (`delta.rs`): the URLs of
    /// its later versions, which may be compressed against it.
    pub(crate) dictionary_match: Option<String>,
}

impl EncodedAsset {
    /// A file as the build found it: nothing derived yet (no fingerprinted URL,
    /// integrity, inline code, preload links, release, deltas or dictionary), which
    /// the later steps add.
    pub(crate) fn new(
        url_path: String,
        content_type: String,
        last_modified: String,
        modified: u64,
        len: u64,
        etag: String,
        body: Body,
    ) -> Self {
        EncodedAsset {
            url_path,
            content_type,
            last_modified,
            modified,
            len,
            etag,
            body,
            fingerprinted: None,
            integrity: None,
            inline: None,
            preload: Vec::new(),
            release: None,
            deltas: Vec::new(),
            dictionary_match: None,
        }
    }
}

/// A compressed body of a file: in a plain coding, or (with `dictionary`) compressed
/// against an earlier version of the file (RFC 9842), for a client that has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Encoded {
    pub(crate) coding: &'static Coding,
    /// For a dictionary coding: the SHA-256 of the dictionary (the earlier version's
    /// bytes as served) as a structured-field byte sequence, `:base64:`, as
    /// `Available-Dictionary` names it.
    pub(crate) dictionary: Option<String>,
    pub(crate) blob: Blob,
}

/// Where the bytes are.
#[derive(Debug)]
pub(crate) enum Body {
    Embedded {
        /// The bytes to embed with `include_bytes!`: the file itself, or a cache blob
        /// of it with its references rewritten (`rewrite.rs`).
        identity: PathBuf,
        /// The file in the folder, also passed to `include_bytes!` when it is not
        /// `identity` (or not stored), so rustc still rebuilds when it changes.
        source: PathBuf,
        /// `false` with `compressed_only` when a gzip body exists: the binary leaves
        /// the file's own bytes out and the runtime decodes them from gzip.
        store_identity: bool,
        /// Its bodies in the plain codings the options ask for, where they pay, in
        /// the codings' order (`codec::CODINGS`).
        encoded: Vec<Encoded>,
    },
    /// Served from disk: only listed; `relative` is below the folder.
    OnDisk {
        relative: String,
        reason: DiskReason,
    },
}

impl Body {
    /// Its bodies in plain codings (none on disk).
    pub(crate) fn encoded(&self) -> &[Encoded] {
        match self {
            Body::Embedded { encoded, .. } => encoded,
            Body::OnDisk { .. } => &[],
        }
    }

    /// Whether the binary holds the file's own bytes (embedded, and not decoded from
    /// gzip on demand).
    pub(crate) fn stores_identity(&self) -> bool {
        matches!(
            self,
            Body::Embedded {
                store_identity: true,
                ..
            }
        )
    }

    /// Its gzip body: what `compressed_only` decodes the file's own bytes from.
    pub(crate) fn gzip(&self) -> Option<&Blob> {
        gzip_of(self.encoded())
    }
}

/// The gzip body among `encoded`.
pub(crate) fn gzip_of(encoded: &[Encoded]) -> Option<&Blob> {
    encoded
        .iter()
        .find(|body| *body.coding == crate::codec::GZIP)
        .map(|body| &body.blob)
}

/// A compressed body in the cache folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Blob {
    pub(crate) path: PathBuf,
    /// Quoted strong ETag of these bytes: each content coding is its own representation.
    pub(crate) etag: String,
    pub(crate) len: u64,
}

/// The inline code of an HTML page, for its Content-Security-Policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Inline {
    /// `'sha256-…'` of each inline script's text (CSP Level 3 §8.4), in order, no
    /// duplicates.
    pub(crate) scripts: Vec<String>,
    /// The same for each `<style>` element.
    pub(crate) styles: Vec<String>,
    /// What a policy of hashes cannot allow without `'unsafe-hashes'`, each as
    /// `line N: onclick on <button>`.
    pub(crate) unhashable: Vec<Unhashable>,
}

/// Inline code that no hash source allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unhashable {
    /// Script (an event handler attribute, a `javascript:` URL), or style (a `style`
    /// attribute).
    pub(crate) script: bool,
    /// `line 12: onclick on <button>`.
    pub(crate) what: String,
}

/// An entry point of the manifest (`index.html`, `src/admin.ts`): the script to load
/// and what it needs, as URLs of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The manifest's key: the source file, relative to Vite's root.
    pub(crate) source: String,
    /// `/assets/index-C0x2Zvij.js`.
    pub(crate) file: String,
    /// The stylesheets of the entry and of the chunks it imports, in load order.
    pub(crate) css: Vec<String>,
    /// The JavaScript chunks it imports statically (for `modulepreload`).
    pub(crate) imports: Vec<String>,
}

/// The releases the `releases` option read (`releases.rs`), for the table: this build's
/// id when the newest kept release is its folder, and every kept release, newest first,
/// with when it was recorded (seconds since the Unix epoch).
#[derive(Debug, Clone, Default)]
pub(crate) struct Recorded {
    pub(crate) current: Option<String>,
    pub(crate) kept: Vec<(String, Option<u64>)>,
}
