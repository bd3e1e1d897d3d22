//! How the options relate to each other: an option that only means something with
//! another, and folders that must not hold one another. Each option's own value is
//! `options.rs`'s; these run once every option has its value (the wrong ones at their
//! defaults), so their errors come after those of single options, all in one round.

use crate::errors::Errors;
use crate::options::Options;

/// Records in `errors` every option that does not fit with the others, at the value the
/// user wrote (else at the folder literal).
pub(crate) fn cross_options(options: &Options, errors: &mut Errors) {
    let rewrite = options.rewrite_references.value;
    let nested = options.releases.value.as_ref().is_some_and(|releases| {
        !options.root.as_os_str().is_empty()
            && (releases.starts_with(&options.root) || options.root.starts_with(releases))
    });
    // Each relation in the order its error is reported: whether it is broken, where the
    // user wrote the option it is about, and what it says.
    let relations = [
        (
            rewrite && options.fingerprint.value.is_none(),
            options.rewrite_references.written,
            "`rewrite_references = true` points links at fingerprinted URLs: it needs `fingerprint`",
        ),
        (
            options.base.value.is_some() && !rewrite,
            options.base.written,
            "`base` is the prefix of the absolute links `rewrite_references` writes: it needs `rewrite_references = true`",
        ),
        (
            options.integrity.value && !rewrite,
            options.integrity.written,
            "`integrity = true` is written by the HTML rewrite of `rewrite_references`: it needs `rewrite_references = true`",
        ),
        (
            nested,
            options.releases.written,
            "the releases folder and the embedded folder must not be inside one another: keep `releases` beside the folder, not in it",
        ),
        (
            options.compressed_only.value && !options.gzip.value,
            options.compressed_only.written,
            "`compressed_only = true` decodes the files' own bytes from their gzip bodies: it needs `gzip = true`",
        ),
    ];
    for (broken, written, message) in relations {
        if broken {
            errors.at_span(written.unwrap_or(options.root_span), message);
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use crate::expand::call_messages as messages;

    #[test]
    fn rewriting_references_needs_fingerprints() {
        assert!(messages(quote!("src", fingerprint = true, rewrite_references = true)).is_empty());
        let found = messages(quote!("src", rewrite_references = true));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("it needs `fingerprint`"), "{}", found[0]);
    }

    #[test]
    fn compressed_only_needs_gzip() {
        assert!(messages(quote!("src", compressed_only = true)).is_empty());
        let found = messages(quote!("src", compressed_only = true, gzip = false));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("it needs `gzip = true`"), "{}", found[0]);
    }
}
