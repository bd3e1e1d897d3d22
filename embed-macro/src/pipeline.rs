//! One folder's pass through the phases, in order: scan, encode, the bundler's hashed
//! files, fingerprint, rewrite, preload, then the `strict_csp` check. This build's folder
//! goes through it once (`Pass::Current`, from `expand.rs`), each kept release's folder
//! once more (`Pass::Earlier`, from `releases.rs`).

use crate::encode::Encoder;
use crate::model::{EncodedAsset, Entry, FileEntry, Pass};
use crate::options::Options;
use crate::{bundler, fingerprint, preload, rewrite, scan, strict_csp};

/// One folder's phases: scan, encode, the bundler's hashed files, fingerprint, rewrite,
/// preload. Also returns the entry points of a Vite manifest and the scanned files.
pub(crate) fn run(
    options: &Options,
    pass: Pass,
) -> syn::Result<(Vec<EncodedAsset>, Vec<Entry>, Vec<FileEntry>)> {
    let files = scan::scan_dir(options, pass)?;
    let encoder = Encoder::new(options);
    let mut assets = encoder.encode_all(&files, options.root_span)?;
    scan::check_embedded_budget(&assets, options)?;
    let entries = bundler::apply(&mut assets, options)?;
    fingerprint::assign(&mut assets, options, pass)?;
    if options.rewrite_references.value {
        rewrite::apply(
            &mut assets,
            &files,
            &encoder,
            rewrite::Rules {
                base: options.base.value.as_deref(),
                integrity: options.integrity.value,
            },
            options.root_span,
        )?;
    }
    fingerprint::check_collisions(&assets, options.root_span)?;
    preload::apply(&mut assets, options.base.value.as_deref());
    if options.strict_csp.value {
        strict_csp::check(&assets, options.strict_csp.value_span_or(options.root_span))?;
    }
    Ok((assets, entries, files))
}
