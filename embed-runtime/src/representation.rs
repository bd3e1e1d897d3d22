//! [`Representation`]: what a response is about, whatever its bytes come from (the
//! binary or a file read at run time): the fields that state it and the validators a
//! request's preconditions are compared with.

use std::time::{Duration, SystemTime};

use http::HeaderValue;

use crate::asset::{Asset, Variant};
use crate::coding::Encoding;
use crate::disk::FileMeta;
use crate::precondition::Validators;

/// The representation a response is about: what its headers state and its
/// validators are compared with.
#[derive(Debug)]
pub(crate) struct Representation<'a> {
    /// Its `Content-Type`, repeated in each part of a multipart response.
    pub(crate) content_type: &'a str,
    pub(crate) encoding: Encoding,
    pub(crate) validators: Validators<'a>,
    pub(crate) len: u64,
    pub(crate) values: HeaderValues,
    /// What else the choice of it depended on, which `Vary` says: for stored variants,
    /// and for a folder's file that has precompressed siblings.
    pub(crate) negotiated: Negotiated,
    /// The `Use-As-Dictionary` field value (`Asset::dictionary_match`).
    pub(crate) dictionary_match: Option<&'static str>,
}

/// What the choice among an asset's stored bodies depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Negotiated {
    /// One body: nothing.
    No,
    /// `Accept-Encoding`.
    Encoding,
    /// `Accept-Encoding` and `Available-Dictionary` (RFC 9842 §6.2).
    EncodingAndDictionary,
}

impl Negotiated {
    /// From the asset's fields: how many bodies it has, and whether the first (a
    /// dictionary body, if any, comes first) names a dictionary.
    fn of(asset: &Asset) -> Self {
        let first = asset.all_bodies.get(asset.first as usize);
        match (asset.count, first) {
            (0 | 1, _) => Negotiated::No,
            (_, Some(first)) if first.dictionary.is_some() => Negotiated::EncodingAndDictionary,
            _ => Negotiated::Encoding,
        }
    }
}

/// The header values stating a representation, ready to clone into responses.
#[derive(Debug, Clone)]
pub(crate) struct HeaderValues {
    /// `None` for a file read at run time whose content tag is not known yet.
    pub(crate) etag: Option<HeaderValue>,
    /// `None` where the validators have no date (a file that just changed).
    pub(crate) last_modified: Option<HeaderValue>,
    pub(crate) content_type: HeaderValue,
    /// `Content-Length` of the whole representation.
    pub(crate) content_length: HeaderValue,
}

impl<'a> Representation<'a> {
    /// The identity representation of a file of type `content_type` as read from disk
    /// (`meta`): `Last-Modified` from the file's time, no other encodings. `None` only
    /// if a value cannot be a header, which our formats rule out.
    ///
    /// A file that changed less than a second ago has no date: `Last-Modified` is
    /// whole seconds, so a client given this second's date could not be told from it
    /// that the file changed again within the same second (an overwrite that puts the
    /// old mtime back changes only the ctime, within the second), and would be sent a
    /// 304 for other bytes. A date is given only once a second has passed, so every
    /// later change falls in a later second. (Git calls the same case "racily clean".)
    pub(crate) fn on_disk(meta: &'a FileMeta, content_type: &'a str) -> Option<Self> {
        let version = meta.version;
        let dated = Self::is_dated(meta);
        let values = HeaderValues {
            etag: match &meta.etag {
                Some(etag) => Some(HeaderValue::try_from(&**etag).ok()?),
                None => None,
            },
            last_modified: if dated {
                Some(HeaderValue::try_from(httpdate::fmt_http_date(version.stated)).ok()?)
            } else {
                None
            },
            content_type: HeaderValue::try_from(content_type).ok()?,
            content_length: HeaderValue::from(version.len),
        };
        let mut rep = Self::on_disk_with(meta, content_type, values);
        if !dated {
            rep.validators.modified = None;
        }
        Some(rep)
    }

    /// Whether a file read at run time has a date to state: it last changed a second
    /// ago or more (see [`on_disk`](Self::on_disk)).
    fn is_dated(meta: &FileMeta) -> bool {
        SystemTime::now()
            .duration_since(meta.version.stated)
            .is_ok_and(|age| age >= Duration::from_secs(1))
    }

    /// [`on_disk`](Self::on_disk) of a file that [`is_dated`](Self::is_dated), with
    /// `values` (built before for this version of it, or by `on_disk`).
    pub(crate) fn on_disk_with(
        meta: &'a FileMeta,
        content_type: &'a str,
        values: HeaderValues,
    ) -> Self {
        let version = meta.version;
        Representation {
            content_type,
            encoding: Encoding::Identity,
            validators: Validators {
                etag: meta.etag.as_deref(),
                modified: Some(version.modified_secs()),
            },
            len: version.len,
            values,
            negotiated: Negotiated::No,
            dictionary_match: None,
        }
    }

    /// The same bytes as a precompressed sibling of a file in the coding `encoding`,
    /// the choice of which depends on `Accept-Encoding` when `negotiated`.
    pub(crate) fn coded(mut self, encoding: Encoding, negotiated: bool) -> Self {
        self.encoding = encoding;
        if negotiated {
            self.negotiated = Negotiated::Encoding;
        }
        self
    }

    /// The stored variant of an embedded asset, its header values built from the
    /// table's strings. The service does this once per variant (`PrebuiltHeaders`);
    /// requests clone the result.
    pub(crate) fn embedded(asset: &'a Asset, variant: &'static Variant) -> Self {
        Self::with_values(
            asset,
            variant,
            HeaderValues {
                // The macro writes only values that are valid headers: a quoted hex
                // ETag, an HTTP date and a MIME type (`embed-macro/src/codegen.rs`).
                etag: Some(HeaderValue::from_static(variant.etag())),
                last_modified: Some(HeaderValue::from_static(asset.last_modified())),
                content_type: HeaderValue::from_static(asset.content_type()),
                content_length: variant.content_length(),
            },
        )
    }

    pub(crate) fn with_values(
        asset: &'a Asset,
        variant: &'a Variant,
        values: HeaderValues,
    ) -> Self {
        // The asset's and the variant's fields, read here as the table holds them.
        Representation {
            content_type: asset.content_type,
            encoding: variant.encoding,
            validators: Validators {
                etag: Some(variant.etag),
                modified: Some(asset.modified),
            },
            len: variant.len,
            values,
            negotiated: Negotiated::of(asset),
            dictionary_match: asset.dictionary_match,
        }
    }
}
