//! The macro's ABI: what the code `embed_assets!` and `#[embed]` generate calls, reached
//! only through the hidden `embed_assets::__private` module. Plain data in, table out,
//! all `const`, so a table is built by rustc at compile time.
//!
//! Not a stable API: it changes with the macro, which ships in lockstep with this crate
//! (an exact version requirement).

use std::sync::OnceLock;

use crate::asset::{Asset, Delta, Encoding, PageInit, Variant};
use crate::entry::Entry;
use crate::table::{Assets, Selection};

/// What the macro writes for one file.
#[derive(Debug)]
pub struct AssetInit {
    /// The URL path, decoded (`/css/app.css`).
    pub path: &'static str,
    /// The `Content-Type` value, charset included.
    pub content_type: &'static str,
    /// The quoted strong ETag of the identity bytes.
    pub etag: &'static str,
    /// `Last-Modified` as an HTTP date.
    pub last_modified: &'static str,
    /// `last_modified` in seconds since the Unix epoch.
    pub modified: u64,
    /// Length of the identity bytes.
    pub len: u64,
    /// The content-hashed URL path, decoded, when the file is fingerprinted.
    pub fingerprinted: Option<&'static str>,
    /// The URL to link to, percent-encoded, where it differs from `fingerprinted` (or
    /// `path`) as written.
    pub url: Option<&'static str>,
    /// The Subresource Integrity value of the served bytes (`sha384-…`).
    pub integrity: Option<&'static str>,
    /// What the macro found in an HTML page; `None` for other files, so that a table
    /// of many files has one field to type-check for each, not four.
    pub page: Option<&'static PageInit>,
    /// The id of the earlier release the file is kept from; `None` for this build's.
    pub release: Option<&'static str>,
    /// Its bodies compressed against earlier versions of it, each made by [`delta`].
    pub deltas: &'static [Delta],
    /// The `Use-As-Dictionary` field value of its responses.
    pub dictionary_match: Option<&'static str>,
    /// Where the bytes come from.
    pub source: Source,
}

/// Where an asset's bytes come from.
#[derive(Debug)]
pub enum Source {
    /// In the binary.
    Embedded {
        /// `None` with `compressed_only`: decoded from `gzip` on first use.
        identity: Option<&'static [u8]>,
        /// The gzip body, where it pays.
        gzip: Option<EncodedInit>,
        /// The brotli body, where it pays.
        br: Option<EncodedInit>,
        /// The zstd body, where it pays.
        zstd: Option<EncodedInit>,
    },
    /// Over `max_embed_size`: read from disk at run time.
    OnDisk {
        /// The path below the folder, `/`-separated.
        relative_path: &'static str,
    },
}

/// One precompressed body.
#[derive(Debug)]
pub struct EncodedInit {
    /// The quoted strong ETag of these bytes.
    pub etag: &'static str,
    /// The encoded bytes.
    pub body: &'static [u8],
}

/// Builds an asset from the macro's output.
///
/// Plain moves, so rustc's const evaluation of a large table stays cheap: header values
/// are built by the service, not here.
pub const fn asset(init: AssetInit) -> Asset {
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
        url: init.url,
        integrity: init.integrity,
        page: init.page,
        release: init.release,
        deltas: init.deltas,
        dictionary_match: init.dictionary_match,
    }
}

/// What the macro writes for one body compressed against an earlier version.
#[derive(Debug)]
pub struct DeltaInit {
    /// `true` for `dcb`, `false` for `dcz`.
    pub brotli: bool,
    /// The dictionary's SHA-256, `:base64:`.
    pub dictionary: &'static str,
    /// The quoted strong ETag of these bytes.
    pub etag: &'static str,
    /// The bytes, RFC 9842 header included.
    pub body: &'static [u8],
}

/// Builds a [`Delta`] from the macro's output.
pub const fn delta(init: DeltaInit) -> Delta {
    let encoding = match init.brotli {
        true => Encoding::DictionaryBrotli,
        false => Encoding::DictionaryZstd,
    };
    Delta {
        dictionary: init.dictionary,
        variant: stored(encoding, init.etag, init.body),
    }
}

const fn encoded(encoding: Encoding, init: Option<EncodedInit>) -> Option<Variant> {
    match init {
        Some(EncodedInit { etag, body }) => Some(stored(encoding, etag, body)),
        None => None,
    }
}

/// A body stored in the binary.
const fn stored(encoding: Encoding, etag: &'static str, body: &'static [u8]) -> Variant {
    Variant {
        encoding,
        etag,
        len: body.len() as u64,
        body,
        gzip_source: None,
        decoded: OnceLock::new(),
        len_text: OnceLock::new(),
    }
}

/// Wraps the macro's perfect-hash map and file table.
pub const fn assets(
    map: &'static phf::Map<&'static str, u32>,
    files: &'static [Asset],
    root: Option<&'static str>,
    selection: Selection,
    release: Option<&'static str>,
) -> Assets {
    Assets {
        map,
        files,
        root,
        selection,
        release,
    }
}

/// An empty table, which the macro emits next to its compile error so that the user's
/// `static` still type-checks and the error is the only one.
pub const EMPTY: Assets = Assets {
    map: &phf::Map {
        key: 0,
        disps: &[],
        entries: &[],
    },
    files: &[],
    root: None,
    selection: Selection::DEFAULT,
    release: None,
};

/// An entry point of a Vite build, from the folder's `.vite/manifest.json`.
pub const fn entry(
    file: &'static str,
    css: &'static [&'static str],
    imports: &'static [&'static str],
) -> Entry {
    Entry { file, css, imports }
}
