//! The content codings ([`Encoding`]) as data: one row of [`CODINGS`] each, which
//! negotiation, the report, the table and a folder's precompressed siblings read.
//! Adding a coding is a variant here and its row (and its encoder in the macro's
//! `codec.rs`, and for a coding with a file extension its decoder in
//! `disk/siblings.rs`); nothing else names codings one by one.

use std::fmt;

/// A content coding the server can store a body in (RFC 9110 §8.4.1).
///
/// The declaration order is the server's preference among codings a client accepts
/// with equal q-values: a dictionary coding (when the client has the dictionary), then
/// brotli, zstd, gzip, identity. An asset lists its bodies in this order
/// ([`Asset::variants`](crate::Asset::variants)).
///
/// ```
/// # use embed_assets::{embed_assets, Assets, Encoding};
/// static ASSETS: Assets = embed_assets!("../examples/public");
///
/// let js = ASSETS.get("/js/app.js").unwrap();
/// let stored: Vec<&str> = Encoding::ALL
///     .into_iter()
///     .filter(|&encoding| js.body(encoding).is_some())
///     .map(Encoding::as_str)
///     .collect();
/// assert!(stored.contains(&"br") && stored.contains(&"identity"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Encoding {
    /// `dcb` (RFC 9842): brotli with an earlier version of the file as the dictionary,
    /// for a client that has that version (see [`Asset::deltas`](crate::Asset::deltas)).
    DictionaryBrotli,
    /// `dcz` (RFC 9842): Zstandard with an earlier version of the file as the
    /// dictionary.
    DictionaryZstd,
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

/// What the server knows of one coding.
#[derive(Debug)]
pub(crate) struct Coding {
    pub(crate) encoding: Encoding,
    /// The token of `Content-Encoding` and `Accept-Encoding`.
    pub(crate) token: &'static str,
    /// Other tokens a client may name it by (RFC 9110 §8.4.1.3: `x-gzip` is `gzip`).
    pub(crate) aliases: &'static [&'static str],
    /// Its bodies are compressed against a dictionary the client must name in
    /// `Available-Dictionary` (RFC 9842 §2.2): sent only when the client lists the
    /// coding by name (never through `*`) and names that dictionary.
    pub(crate) needs_dictionary: bool,
    /// The extension of a file precompressed in this coding (`app.js.br`), by which a
    /// folder's siblings are found; `None` for codings no tool writes beside a file.
    pub(crate) file_extension: Option<&'static str>,
}

/// Every coding, one row each, in the order of [`Encoding`]'s variants (a row's index is
/// its variant's discriminant: a unit test checks), which is the server's order of
/// preference.
pub(crate) const CODINGS: [Coding; 6] = [
    Coding {
        encoding: Encoding::DictionaryBrotli,
        token: "dcb",
        aliases: &[],
        needs_dictionary: true,
        file_extension: None,
    },
    Coding {
        encoding: Encoding::DictionaryZstd,
        token: "dcz",
        aliases: &[],
        needs_dictionary: true,
        file_extension: None,
    },
    Coding {
        encoding: Encoding::Brotli,
        token: "br",
        aliases: &[],
        needs_dictionary: false,
        file_extension: Some("br"),
    },
    Coding {
        encoding: Encoding::Zstd,
        token: "zstd",
        aliases: &[],
        needs_dictionary: false,
        file_extension: Some("zst"),
    },
    Coding {
        encoding: Encoding::Gzip,
        token: "gzip",
        aliases: &["x-gzip"],
        needs_dictionary: false,
        file_extension: Some("gz"),
    },
    Coding {
        encoding: Encoding::Identity,
        token: "identity",
        aliases: &[],
        needs_dictionary: false,
        file_extension: None,
    },
];

impl Encoding {
    /// Every coding, in the server's order of preference (identity last): what
    /// [`Asset::variant`](crate::Asset::variant) and
    /// [`Asset::body`](crate::Asset::body) take. The dictionary codings are among them;
    /// an asset's bodies in those are one per dictionary
    /// ([`Asset::deltas`](crate::Asset::deltas)), so `variant` gives `None` for them.
    pub const ALL: [Encoding; CODINGS.len()] = {
        let mut all = [Encoding::Identity; CODINGS.len()];
        let mut i = 0;
        while i < all.len() {
            all[i] = CODINGS[i].encoding;
            i += 1;
        }
        all
    };

    /// The token used in `Content-Encoding` and `Accept-Encoding`.
    pub const fn as_str(self) -> &'static str {
        self.coding().token
    }

    /// Whether its bodies are compressed against a dictionary the client names
    /// (RFC 9842): `dcb` and `dcz`.
    pub const fn needs_dictionary(self) -> bool {
        self.coding().needs_dictionary
    }

    /// Its row of [`CODINGS`].
    pub(crate) const fn coding(self) -> &'static Coding {
        &CODINGS[self.index()]
    }

    /// Its place in [`CODINGS`] and [`Encoding::ALL`].
    pub(crate) const fn index(self) -> usize {
        self as usize
    }

    /// The coding a client names by `token` (case-insensitive), if the server knows it.
    pub(crate) fn from_token(token: &[u8]) -> Option<Encoding> {
        CODINGS
            .iter()
            .find(|coding| {
                token.eq_ignore_ascii_case(coding.token.as_bytes())
                    || coding
                        .aliases
                        .iter()
                        .any(|alias| token.eq_ignore_ascii_case(alias.as_bytes()))
            })
            .map(|coding| coding.encoding)
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_row_sits_at_its_variants_index_with_identity_last() {
        for (index, coding) in CODINGS.iter().enumerate() {
            assert_eq!(coding.encoding.index(), index, "{}", coding.token);
            assert_eq!(Encoding::ALL[index], coding.encoding);
        }
        assert_eq!(Encoding::ALL.last(), Some(&Encoding::Identity));
        // The order of preference is the order of declaration (`Ord`).
        assert!(Encoding::ALL.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn tokens_are_case_insensitive_and_aliases_name_their_coding() {
        assert_eq!(Encoding::from_token(b"BR"), Some(Encoding::Brotli));
        assert_eq!(Encoding::from_token(b"x-Gzip"), Some(Encoding::Gzip));
        assert_eq!(Encoding::from_token(b"Identity"), Some(Encoding::Identity));
        assert_eq!(Encoding::from_token(b"dcz"), Some(Encoding::DictionaryZstd));
        assert_eq!(Encoding::from_token(b"x-unknown"), None);
        assert_eq!(Encoding::from_token(b"*"), None);
        assert_eq!(Encoding::from_token(b"gzip2"), None);
        for encoding in Encoding::ALL {
            assert_eq!(
                Encoding::from_token(encoding.as_str().as_bytes()),
                Some(encoding)
            );
        }
    }
}
