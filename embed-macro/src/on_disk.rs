//! What the build says about files served from disk: a binary with such files needs
//! the folder at run time, so none is left there without a word (`on_disk`).

use proc_macro2::Span;

use crate::errors::display_path;
use crate::model::{Body, DiskReason, EncodedAsset};
use crate::options::{OnDisk, Options};
use crate::scan::human;

/// How many files the message names; the rest are counted.
const NAMED: usize = 20;

/// The warning to give (its text and where it points) for this build's files that
/// `max_embed_size` leaves on disk, or with `on_disk = "deny"` the same as an error.
/// Files a `disk` glob lists are the user's own choice and never reported.
pub(crate) fn notice(
    assets: &[EncodedAsset],
    options: &Options,
) -> syn::Result<Option<(String, Span)>> {
    if options.on_disk.value == OnDisk::Allow {
        return Ok(None);
    }
    let left: Vec<(&EncodedAsset, &str, DiskReason)> = assets
        .iter()
        .filter(|asset| asset.release.is_none())
        .filter_map(|asset| match &asset.body {
            Body::OnDisk { relative, reason } if *reason != DiskReason::Listed => {
                Some((asset, relative.as_str(), *reason))
            }
            _ => None,
        })
        .collect();
    if left.is_empty() {
        return Ok(None);
    }
    let limit = human(options.max_embed_size.value);
    let mut named: Vec<String> = left
        .iter()
        .take(NAMED)
        .map(|(asset, relative, reason)| {
            let why = match reason {
                DiskReason::Incompressible => "does not compress".to_owned(),
                DiskReason::NoGzip => "`gzip = false`".to_owned(),
                DiskReason::CompressedTooLarge(gzip) => format!("gzip body {}", human(*gzip)),
                DiskReason::Listed => String::new(),
            };
            format!(
                "`{}` ({}, {why})",
                display_path(&options.root_display, relative),
                human(asset.len)
            )
        })
        .collect();
    if left.len() > NAMED {
        named.push(format!("and {} more", left.len() - NAMED));
    }
    let files = if left.len() == 1 { "file" } else { "files" };
    let deny = options.on_disk.value == OnDisk::Deny;
    let (will, other) = if deny {
        ("would", "`on_disk = \"warn\"` or `\"allow\"`")
    } else {
        ("will", "`on_disk = \"allow\"`")
    };
    let message = format!(
        "{} {files} over `max_embed_size` ({limit}) {will} be read from disk at run time, so the binary needs `{}` beside it: {}; raise `max_embed_size` to embed them, list them in `disk = [..]` to say so, or write {other}",
        left.len(),
        options.root_display,
        named.join(", ")
    );
    let span = options
        .on_disk
        .written
        .or(options.max_embed_size.written)
        .unwrap_or(options.root_span);
    if deny {
        return Err(syn::Error::new(span, message));
    }
    Ok(Some((message, span)))
}
