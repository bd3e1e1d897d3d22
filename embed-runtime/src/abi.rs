//! The macro's ABI: what the code `embed_assets!` and `#[embed]` generate calls, reached
//! only through the hidden `embed_assets::__private` module. Plain data in, table out,
//! all `const`, so a table is built by rustc at compile time.
//!
//! Not a stable API: it changes with the macro, which ships in lockstep with this crate
//! (an exact version requirement).

use std::sync::OnceLock;

use crate::asset::{Asset, Gzipped, OnDisk, PageInit, Variant, gunzip};
use crate::coding::Encoding;
use crate::disk::READER;
use crate::entry::Entry;
use crate::report::Release;
use crate::table::{Assets, Selection};

/// What the macro writes for one file.
#[derive(Debug)]
pub struct AssetInit {
    /// The URL path, decoded (`/css/app.css`).
    pub path: &'static str,
    /// The `Content-Type` value, charset included.
    pub content_type: &'static str,
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
    /// The `Use-As-Dictionary` field value of its responses.
    pub dictionary_match: Option<&'static str>,
    /// The table's one list of bodies, of which this file's are `count` from `first`,
    /// in the server's order of preference, identity last.
    pub bodies: &'static [Variant],
    /// Where this file's bodies start in `bodies`.
    pub first: u32,
    /// How many bodies it has.
    pub count: u32,
    /// Over `max_embed_size`: the path below the folder (`/`-separated), read at run
    /// time; `None` when the bytes are in the binary.
    pub disk_path: Option<&'static str>,
}

/// Builds an asset from the macro's output.
///
/// Plain moves, so rustc's const evaluation of a large table stays cheap: header values
/// are built by the service, not here.
pub const fn asset(init: AssetInit) -> Asset {
    Asset {
        path: init.path,
        content_type: init.content_type,
        last_modified: init.last_modified,
        modified: init.modified,
        len: init.len,
        all_bodies: init.bodies,
        first: init.first,
        count: init.count,
        // The reader is linked only through here, by a table with a file on disk.
        disk: match init.disk_path {
            Some(path) => Some(OnDisk {
                path,
                reader: &READER,
            }),
            None => None,
        },
        fingerprinted: init.fingerprinted,
        url: init.url,
        integrity: init.integrity,
        page: init.page,
        release: init.release,
        dictionary_match: init.dictionary_match,
    }
}

/// A body stored in the binary in `encoding`; `dictionary` for a dictionary coding
/// (RFC 9842): the SHA-256 of the dictionary, `:base64:`.
pub const fn body(
    encoding: Encoding,
    dictionary: Option<&'static str>,
    etag: &'static str,
    body: &'static [u8],
) -> Variant {
    Variant {
        encoding,
        dictionary,
        etag,
        len: body.len() as u64,
        body,
        gzip_source: None,
        decoded: OnceLock::new(),
        len_text: OnceLock::new(),
    }
}

/// Where an asset's own bytes come from.
#[derive(Debug)]
pub enum Identity {
    /// In the binary.
    Stored(&'static [u8]),
    /// Decoded on first use from this gzip body (`compressed_only`), the asset's gzip
    /// body too.
    FromGzip(&'static [u8]),
    /// Read from disk at run time (the asset's `disk_path`).
    OnDisk,
}

/// The identity body, last of an asset's bodies: its quoted strong ETag (empty on
/// disk), length and bytes.
pub const fn identity(etag: &'static str, len: u64, source: Identity) -> Variant {
    let (body, gzip_source): (&'static [u8], _) = match source {
        Identity::Stored(bytes) => (bytes, None),
        Identity::FromGzip(gzip) => (
            &[],
            Some(Gzipped {
                gzip,
                decode: gunzip,
            }),
        ),
        Identity::OnDisk => (&[], None),
    };
    Variant {
        encoding: Encoding::Identity,
        dictionary: None,
        etag,
        len,
        body,
        gzip_source,
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
    releases: &'static [Release],
) -> Assets {
    Assets {
        map,
        files,
        root,
        selection,
        release,
        releases,
    }
}

/// A kept release: its id and when it was recorded (seconds since the Unix epoch).
pub const fn release(id: &'static str, recorded: Option<u64>) -> Release {
    Release { id, recorded }
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
    releases: &[],
};

/// An entry point of a Vite build, from the folder's `.vite/manifest.json`.
pub const fn entry(
    file: &'static str,
    css: &'static [&'static str],
    imports: &'static [&'static str],
) -> Entry {
    Entry { file, css, imports }
}
