//! Meaning of the macro arguments: one table row per option (its key, its type, its
//! default and its parser), each value kept with the span of the tokens it came from.
//! Validation keeps going after each problem so all of them are reported at once.

use std::path::{Path, PathBuf};

use embed_assets_shared::glob::GlobSet;
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Ident, Lit, LitStr};

use crate::args::{Args, KeyValue};
use crate::errors::Errors;

/// The most one file may store in the binary: files that do not compress and are larger,
/// and compressible ones whose gzip body is larger, are served from disk.
pub(crate) const DEFAULT_MAX_EMBED_SIZE: u64 = 5 * 1024 * 1024;

/// The most one invocation embeds before it is a compile error: past this, rustc's
/// memory and time grow with no benefit over streaming from disk.
pub(crate) const DEFAULT_MAX_TOTAL_SIZE: u64 = 128 * 1024 * 1024;

/// One option's value and, when the user wrote it, where.
#[derive(Clone)]
pub(crate) struct Setting<T> {
    pub(crate) value: T,
    /// The span of the value the user wrote; `None` while the default applies.
    pub(crate) written: Option<Span>,
}

/// How one row turns the value tokens into its type; `None` after recording an error.
type Parser<T> = fn(&Expr, &mut Errors) -> Option<T>;

impl<T> Setting<T> {
    fn default_to(value: T) -> Self {
        Setting {
            value,
            written: None,
        }
    }

    /// The span of the value the user wrote, else `fallback`.
    pub(crate) fn value_span_or(&self, fallback: Span) -> Span {
        self.written.unwrap_or(fallback)
    }

    /// Applies `key = value`; a second occurrence is an error at its key.
    fn set(&mut self, key: &Ident, value: &Expr, parse: Parser<T>, errors: &mut Errors) {
        if self.written.is_some() {
            errors.at(key, format!("duplicate option `{}`", key.unraw()));
            return;
        }
        self.written = Some(value.span());
        if let Some(parsed) = parse(value, errors) {
            self.value = parsed;
        }
    }
}

/// Declares [`Options`] and [`KEYS`] from one list of rows, so that adding an option
/// is adding a row: `"key" => field: Type = default, parser;`.
macro_rules! option_table {
    ($(
        $(#[doc = $doc:literal])*
        $key:literal => $field:ident: $ty:ty = $default:expr, $parse:path;
    )*) => {
        /// Everything the later phases need, validated. Cloned for each kept release's
        /// pass (`releases.rs`), which changes only the folder and what it checks.
        #[derive(Clone)]
        pub(crate) struct Options {
            /// The folder to embed, absolute.
            pub(crate) root: PathBuf,
            /// The folder as the user wrote it, for messages (`public/css/app.css`).
            pub(crate) root_display: String,
            /// The path literal: where I/O errors point.
            pub(crate) root_span: Span,
            $($(#[doc = $doc])* pub(crate) $field: Setting<$ty>,)*
        }

        /// Every option's key, in the order of the documentation's table.
        pub(crate) const KEYS: &[&str] = &[$($key),*];

        impl Options {
            fn with_defaults(root: PathBuf, path: &LitStr) -> Self {
                Options {
                    root,
                    root_display: path.value(),
                    root_span: path.span(),
                    $($field: Setting::default_to($default),)*
                }
            }

            /// Applies the option `name`; `false` when there is no such option.
            fn set(&mut self, name: &str, key: &Ident, value: &Expr, errors: &mut Errors) -> bool {
                match name {
                    $($key => self.$field.set(key, value, $parse, errors),)*
                    _ => return false,
                }
                true
            }
        }
    };
}

option_table! {
    /// The most one file may store in the binary (`DEFAULT_MAX_EMBED_SIZE`).
    "max_embed_size" => max_embed_size: u64 = DEFAULT_MAX_EMBED_SIZE, parse_size;
    /// Files always served from disk, whatever their size.
    "disk" => disk: Option<Globs> = None, parse_optional_globs;
    /// What the build says about files left on disk by `max_embed_size`.
    "on_disk" => on_disk: OnDisk = OnDisk::Warn, parse_on_disk;
    /// The most all embedded files may add up to.
    "max_total_size" => max_total_size: u64 = DEFAULT_MAX_TOTAL_SIZE, parse_size;
    "gzip" => gzip: bool = true, parse_bool;
    "brotli" => brotli: bool = true, parse_bool;
    /// Only ever `true` with the `zstd` feature.
    "zstd" => zstd: bool = cfg!(feature = "zstd"), parse_zstd;
    "compression" => compression: Compression = Compression::for_this_build(), parse_compression;
    /// Leave out the identity bytes of files that have a gzip body (the default; off
    /// by itself with `gzip = false`).
    "compressed_only" => compressed_only: bool = true, parse_bool;
    "fingerprint" => fingerprint: Option<Fingerprint> = None, parse_fingerprint;
    /// Files a bundler already content-hashed, besides those of a Vite manifest.
    "hashed" => hashed: Option<Globs> = None, parse_optional_globs;
    /// The folder of kept releases (`embed_assets_build::Releases`): their hashed files
    /// are served too.
    "releases" => releases: Option<PathBuf> = None, parse_releases;
    /// Point links in HTML and CSS at fingerprinted URLs.
    "rewrite_references" => rewrite_references: bool = false, parse_bool;
    /// The URL path the site is served under (`/static`): rewritten absolute links
    /// carry it.
    "base" => base: Option<String> = None, parse_base;
    /// Write `integrity` on the scripts, stylesheets and module preloads of HTML pages.
    "integrity" => integrity: bool = false, parse_bool;
    /// Refuse pages with inline code a policy of hashes cannot allow.
    "strict_csp" => strict_csp: bool = false, parse_bool;
    /// Add the inline script that reloads a page once when a file it loads is a
    /// version the server no longer has (`reload_guard.rs`).
    "reload_on_stale" => reload_on_stale: bool = false, parse_bool;
    "include" => include: Option<Globs> = None, parse_optional_globs;
    "exclude" => exclude: Option<Globs> = None, parse_optional_globs;
    "dotfiles" => dotfiles: bool = false, parse_bool;
    "follow_symlinks" => follow_symlinks: bool = false, parse_bool;
    /// Build an empty table when the folder has nothing to embed (an error otherwise).
    "allow_empty" => allow_empty: bool = false, parse_bool;
    /// Path of the runtime crate in the generated code.
    "crate" => runtime_path: TokenStream = quote!(::embed_assets), parse_crate_path;
}

/// Which embedded files are also served at a content-hashed URL.
#[derive(Clone)]
pub(crate) enum Fingerprint {
    /// `fingerprint = true`: every embedded file but HTML pages, whose URLs are what
    /// people type and link to.
    AllButPages,
    /// `fingerprint = "glob"` or a list: the files whose path below the folder matches.
    Matching(Globs),
}

impl Fingerprint {
    /// Whether the file at `relative` (below the folder, `/`-separated) is fingerprinted.
    pub(crate) fn covers(&self, relative: &str) -> bool {
        match self {
            Fingerprint::AllButPages => {
                let name = relative.rsplit('/').next().unwrap_or(relative);
                let lower = name.to_ascii_lowercase();
                !(lower.ends_with(".html") || lower.ends_with(".htm"))
            }
            Fingerprint::Matching(globs) => globs.set.is_match(relative),
        }
    }
}

/// The globs of `include`, `exclude` or `fingerprint`, each kept with its literal so
/// that a pattern that matches nothing can be pointed at.
#[derive(Clone)]
pub(crate) struct Globs {
    pub(crate) set: GlobSet,
    /// Glob `i` of `set`, as written, and the span of its literal.
    pub(crate) patterns: Vec<(String, Span)>,
}

impl Globs {
    /// Whether any pattern matches `relative` (the path below the folder).
    pub(crate) fn is_match(&self, relative: impl AsRef<Path>) -> bool {
        self.set.is_match(relative)
    }

    /// Sets `hits[i]` for every pattern `i` that matches `relative`.
    pub(crate) fn mark(&self, relative: impl AsRef<Path>, hits: &mut [bool]) {
        for i in self.set.matches(relative) {
            if let Some(hit) = hits.get_mut(i) {
                *hit = true;
            }
        }
    }
}

/// How hard to compress: the encoders' settings (part of the cache key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compression {
    /// gzip 9 and brotli 11 for every file: the smallest bodies, about two seconds of
    /// brotli per MiB.
    Max,
    /// `Max` up to 256 KiB; above it gzip 6 and brotli 9, whose bodies are 5-12%
    /// larger but made 10-20 times faster, so a 7 MB bundle takes a second, not twenty.
    Best,
    /// gzip 6, brotli 5: nearly as small, tens of milliseconds per MiB, for the
    /// edit-build-refresh loop of unoptimised builds.
    Fast,
}

/// What the build says about files that `max_embed_size` leaves on disk (the binary then
/// needs the folder at run time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnDisk {
    /// A warning at the macro call naming each file, its size and why.
    Warn,
    /// The same as a compile error: the binary must carry every file.
    Deny,
    /// Nothing: serving large media from disk is the plan.
    Allow,
}

impl Compression {
    /// `best` when rustc optimises this crate (as in `--release`), else `fast`. Either
    /// way the bodies decode to the same bytes and each carries the ETag of its own bytes.
    fn for_this_build() -> Self {
        if crate::opt_level::this_build_is_optimised() {
            Compression::Best
        } else {
            Compression::Fast
        }
    }

    /// The words of `compression = "..."`, for [`parse_word`].
    const WORDS: Words<Self> = &[
        ("max", Self::Max),
        ("best", Self::Best),
        ("fast", Self::Fast),
    ];
    /// The message at any other value.
    const EXPECTED: &'static str = "expected `\"max\"` (gzip 9, brotli 11), `\"best\"` (as `max` up to 256 KiB, gzip 6 and brotli 9 above) or `\"fast\"` (gzip 6, brotli 5)";
}

impl OnDisk {
    /// The words of `on_disk = "..."`, for [`parse_word`].
    const WORDS: Words<Self> = &[
        ("warn", Self::Warn),
        ("deny", Self::Deny),
        ("allow", Self::Allow),
    ];
    /// The message at any other value.
    const EXPECTED: &'static str = "expected `\"warn\"` (a warning naming each file left on disk), `\"deny\"` (an error) or `\"allow\"`";
}

/// The words an option may be (`compression = "fast"`), each with what it means.
type Words<T> = &'static [(&'static str, T)];

/// Each option's value from `args`, keeping the options even when some are wrong (each
/// wrong one at its default) so the caller can still look for mistakes that need the
/// folder. `runtime` is the path the `embed_assets!` wrapper passes (`$crate`); the
/// `crate` option overrides it. How options relate to each other is `check.rs`'s.
pub(crate) fn validate_collecting(args: &Args, runtime: Option<TokenStream>) -> (Options, Errors) {
    let mut errors = Errors::default();
    let root = crate::folder::resolve(&args.path, &mut errors);
    let mut options = Options::with_defaults(root.unwrap_or_default(), &args.path);
    if let Some(runtime) = runtime {
        options.runtime_path.value = runtime;
    }
    for KeyValue { key, value } in &args.options {
        let name = key.unraw().to_string();
        if !options.set(&name, key, value, &mut errors) {
            errors.at(key, unknown_option(&name));
        }
    }
    if options.compressed_only.value
        && !options.gzip.value
        && options.compressed_only.written.is_none()
    {
        // The default follows `gzip = false`: the identity bytes are decoded from gzip.
        options.compressed_only.value = false;
    }
    (options, errors)
}

/// The message for a key no row has, with the nearest one when it is a likely typo.
fn unknown_option(name: &str) -> String {
    let all = KEYS
        .iter()
        .map(|key| format!("`{key}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match nearest_key(name) {
        Some(key) => {
            format!("unknown option `{name}`; did you mean `{key}`? expected one of {all}")
        }
        None => format!("unknown option `{name}`; expected one of {all}"),
    }
}

/// The key within a third of `name`'s length in edits (at least one), if any.
fn nearest_key(name: &str) -> Option<&'static str> {
    crate::suggest::nearest(&name.to_ascii_lowercase(), KEYS.iter().copied())
}

fn parse_bool(value: &Expr, errors: &mut Errors) -> Option<bool> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        }) => Some(b.value),
        other => {
            errors.at(other, "expected `true` or `false`");
            None
        }
    }
}

fn parse_zstd(value: &Expr, errors: &mut Errors) -> Option<bool> {
    let on = parse_bool(value, errors)?;
    if on && !cfg!(feature = "zstd") {
        errors.at(
            value,
            "zstd bodies need the `zstd` feature: `embed-assets = { version = \"..\", features = [\"zstd\"] }`",
        );
        return None;
    }
    Some(on)
}

fn parse_compression(value: &Expr, errors: &mut Errors) -> Option<Compression> {
    parse_word(value, Compression::WORDS, Compression::EXPECTED, errors)
}

fn parse_on_disk(value: &Expr, errors: &mut Errors) -> Option<OnDisk> {
    parse_word(value, OnDisk::WORDS, OnDisk::EXPECTED, errors)
}

/// A string literal that is one of `words`, as its meaning; anything else (another
/// word, or no string at all) is the error `expected` at the value.
fn parse_word<T: Copy>(
    value: &Expr,
    words: Words<T>,
    expected: &str,
    errors: &mut Errors,
) -> Option<T> {
    let word = match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => lit.value(),
        _ => String::new(),
    };
    let found = words
        .iter()
        .find(|(known, _)| *known == word)
        .map(|&(_, meaning)| meaning);
    if found.is_none() {
        errors.at(value, expected);
    }
    found
}

fn parse_fingerprint(value: &Expr, errors: &mut Errors) -> Option<Option<Fingerprint>> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        }) => Some(b.value.then_some(Fingerprint::AllButPages)),
        Expr::Lit(ExprLit {
            lit: Lit::Str(_), ..
        })
        | Expr::Array(_) => {
            parse_globs(value, errors).map(|globs| Some(Fingerprint::Matching(globs)))
        }
        other => {
            errors.at(
                other,
                "expected `true` (every file but HTML pages) or globs of the files to fingerprint, like `[\"css/**\", \"js/**\"]`",
            );
            None
        }
    }
}

/// `base = "/static"`: an absolute URL path of ASCII characters a path may hold as they
/// are (escapes included), without a query, a fragment or a trailing slash. `"/"` is
/// no prefix at all.
fn parse_base(value: &Expr, errors: &mut Errors) -> Option<Option<String>> {
    const EXPECTED: &str = "expected the URL path the site is mounted at, like `\"/static\"`";
    let Expr::Lit(ExprLit {
        lit: Lit::Str(lit), ..
    }) = value
    else {
        errors.at(value, EXPECTED);
        return None;
    };
    let base = lit.value();
    let problem = if !base.starts_with('/') {
        Some("it must start with `/`".to_owned())
    } else if base.starts_with("//") {
        Some("`//` would start a host name".to_owned())
    } else if let Some(c) = base.chars().find(|&c| {
        !c.is_ascii_graphic() || matches!(c, '"' | '<' | '>' | '`' | '{' | '}' | '\\' | '^' | '|')
    }) {
        Some(format!(
            "{c:?} is not written as it is in a URL path; percent-encode it"
        ))
    } else if base.contains(['?', '#']) {
        Some("a query or fragment is no path prefix".to_owned())
    } else if base.split('/').any(|segment| matches!(segment, "." | "..")) {
        Some("`.` and `..` segments are resolved by the browser, not kept".to_owned())
    } else if base.len() > 1 && base.ends_with('/') {
        Some(format!(
            "drop the trailing slash: `{}`",
            base.trim_end_matches('/')
        ))
    } else {
        None
    };
    match problem {
        Some(problem) => {
            errors.at(value, format!("{EXPECTED}: {problem}"));
            None
        }
        None => Some((base != "/").then_some(base)),
    }
}

fn parse_crate_path(value: &Expr, errors: &mut Errors) -> Option<TokenStream> {
    match value {
        Expr::Path(path) if path.qself.is_none() => Some(path.path.to_token_stream()),
        other => {
            errors.at(
                other,
                "expected a path to the runtime crate, like `::embed_assets`",
            );
            None
        }
    }
}

/// An integer number of bytes, or a string with a unit: `"512 KiB"`, `"5 MiB"`, `"1 GB"`.
fn parse_size(value: &Expr, errors: &mut Errors) -> Option<u64> {
    const EXPECTED: &str = "expected a size: a number of bytes or a string like `\"5 MiB\"` \
                            (KiB, MiB, GiB are 1024, 1024², 1024³ bytes; KB, MB, GB are \
                            1000, 10⁶, 10⁹ bytes)";
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) if !int.suffix().is_empty() => {
            errors.at(
                int,
                format!("{EXPECTED}; write the number without a type suffix"),
            );
            None
        }
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => match int.base10_parse::<u64>() {
            Ok(n) => Some(n),
            Err(_) => {
                errors.at(
                    int,
                    "size too large; the largest is 18446744073709551615 bytes",
                );
                None
            }
        },
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => match size_from_str(&s.value()) {
            Some(n) => Some(n),
            None if is_size_syntax(&s.value()) => {
                errors.at(s, format!("size `{}` is too large", s.value()));
                None
            }
            None => {
                errors.at(s, format!("invalid size `{}`; {EXPECTED}", s.value()));
                None
            }
        },
        other => {
            errors.at(other, EXPECTED);
            None
        }
    }
}

/// Parses `"<digits> <unit>"`; `None` on anything else or on overflow.
pub(crate) fn size_from_str(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let number: u64 = digits.parse().ok()?;
    let multiplier: u64 = match unit.trim() {
        "" | "B" => 1,
        "KB" | "kB" => 1000,
        "KiB" => 1 << 10,
        "MB" => 1000 * 1000,
        "MiB" => 1 << 20,
        "GB" => 1000 * 1000 * 1000,
        "GiB" => 1 << 30,
        _ => return None,
    };
    number.checked_mul(multiplier)
}

/// Whether `text` has the shape of a size (digits and a known unit), whatever its value.
fn is_size_syntax(text: &str) -> bool {
    let digits_as_one: String = text
        .trim()
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .into();
    text.trim().starts_with(|c: char| c.is_ascii_digit())
        && size_from_str(&format!("1{digits_as_one}")).is_some()
}

fn parse_releases(value: &Expr, errors: &mut Errors) -> Option<Option<PathBuf>> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => crate::folder::resolve_releases(lit, errors).map(Some),
        other => {
            errors.at(
                other,
                "expected the folder `embed_assets_build::Releases` records into, like `\"releases\"`",
            );
            None
        }
    }
}

fn parse_optional_globs(value: &Expr, errors: &mut Errors) -> Option<Option<Globs>> {
    parse_globs(value, errors).map(Some)
}

/// A glob or a list of globs, matched against the path below the folder (`css/app.css`).
fn parse_globs(value: &Expr, errors: &mut Errors) -> Option<Globs> {
    const EXPECTED: &str =
        "expected a glob string or a list of them, like `[\"*.css\", \"js/**\"]`";
    let before = errors.len();
    let literals: Vec<&LitStr> = match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => vec![s],
        Expr::Array(array) => {
            let mut literals = Vec::new();
            for element in &array.elems {
                match element {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }) => literals.push(s),
                    other => errors.at(other, EXPECTED),
                }
            }
            literals
        }
        other => {
            errors.at(other, EXPECTED);
            return None;
        }
    };
    let mut globs = Vec::with_capacity(literals.len());
    let mut patterns = Vec::with_capacity(literals.len());
    for lit in literals {
        match embed_assets_shared::select::glob(&lit.value()) {
            Ok(glob) => {
                globs.push(glob);
                patterns.push((lit.value(), lit.span()));
            }
            Err(err) => errors.at(lit, format!("invalid glob `{}`: {err}", lit.value())),
        }
    }
    if errors.len() > before {
        // A list with a wrong element stays at the option's default, so a check that
        // needs the folder does not report what the part left would select.
        return None;
    }
    Some(Globs {
        set: GlobSet::new(globs),
        patterns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    use crate::expand::{call_messages as messages, parse_call as parse};

    #[test]
    fn zstd_is_on_with_the_feature_and_an_error_at_the_value_without_it() {
        let default = parse(quote!("src")).map(|o| o.zstd.value);
        assert!(matches!(default, Ok(on) if on == cfg!(feature = "zstd")));
        let found = messages(quote!("src", zstd = true));
        if cfg!(feature = "zstd") {
            assert!(found.is_empty(), "{found:?}");
        } else {
            assert_eq!(found.len(), 1, "{found:?}");
            assert!(found[0].starts_with("zstd bodies need the `zstd` feature"));
        }
        assert!(messages(quote!("src", zstd = false)).is_empty());
    }

    #[test]
    fn sizes_accept_bytes_and_binary_and_decimal_units() {
        for (text, expected) in [
            ("0", Some(0)),
            ("1024", Some(1024)),
            ("5 MiB", Some(5 << 20)),
            ("5MiB", Some(5 << 20)),
            ("512 KiB", Some(512 << 10)),
            ("2 KB", Some(2000)),
            ("1 GiB", Some(1 << 30)),
            ("1 GB", Some(1_000_000_000)),
            ("", None),
            ("5 mib", None),
            ("five MiB", None),
            ("1.5 MiB", None),
            ("-1", None),
            ("99999999999999999999 GiB", None),
            ("17179869184 GiB", None),
        ] {
            assert_eq!(size_from_str(text), expected, "size {text:?}");
        }
        assert!(is_size_syntax("17179869184 GiB") && is_size_syntax("99999999999999999999"));
        assert!(!is_size_syntax("lots") && !is_size_syntax("5 mib"));
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let found = messages(quote!(
            "src",
            max_size = 1,
            gzip = "yes",
            max_embed_size = "lots",
            include = [1],
            max_embed_size = 3,
            compression = "most",
        ));
        assert_eq!(found.len(), 6, "{found:#?}");
        assert!(found[0].starts_with("unknown option `max_size`; expected one of"));
        assert_eq!(found[1], "expected `true` or `false`");
        assert!(found[2].starts_with("invalid size `lots`"));
        assert!(found[3].starts_with("expected a glob string"));
        assert_eq!(found[4], "duplicate option `max_embed_size`");
        assert!(found[5].starts_with("expected `\"max\"`"), "{}", found[5]);
    }

    #[test]
    fn a_mistyped_key_gets_the_nearest_one_suggested() {
        for (typed, meant) in [
            ("max_embed_sise", Some("max_embed_size")),
            ("max_emebd_size", Some("max_embed_size")),
            ("gzp", Some("gzip")),
            ("Brotli", Some("brotli")),
            ("fingerprints", Some("fingerprint")),
            ("follow_symlink", Some("follow_symlinks")),
            ("max_size", None),
            ("colour", None),
        ] {
            assert_eq!(nearest_key(typed), meant, "{typed}");
        }
        let found = messages(quote!("src", max_embed_sise = "1 MiB"));
        assert!(
            found[0].starts_with("unknown option `max_embed_sise`; did you mean `max_embed_size`?"),
            "{found:?}"
        );
        assert!(
            found[0].contains("`follow_symlinks`, `allow_empty`, `crate`"),
            "{found:?}"
        );
    }

    #[test]
    fn compressed_only_is_the_default_and_follows_gzip_false() {
        let options = parse(quote!("src")).unwrap();
        assert!(options.compressed_only.value);
        let options = parse(quote!("src", gzip = false)).unwrap();
        assert!(
            !options.compressed_only.value,
            "nothing to decode the bytes from"
        );
        assert_eq!(options.on_disk.value, OnDisk::Warn);
    }

    #[test]
    fn on_disk_and_compression_take_their_words() {
        let found = messages(quote!("src", on_disk = "quiet", compression = 3));
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(found[0].starts_with("expected `\"warn\"`"), "{}", found[0]);
        assert!(found[1].starts_with("expected `\"max\"`"), "{}", found[1]);
        let options = parse(quote!("src", on_disk = "deny", compression = "max")).unwrap();
        assert_eq!(options.on_disk.value, OnDisk::Deny);
        assert_eq!(options.compression.value, Compression::Max);
    }

    #[test]
    fn the_table_lists_every_key_once() {
        assert_eq!(KEYS.len(), 23);
        let mut sorted = KEYS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), KEYS.len());
    }

    #[test]
    fn base_is_a_clean_absolute_path_and_needs_rewriting() {
        let with = |base: &str| {
            let base = syn::LitStr::new(base, proc_macro2::Span::call_site());
            messages(quote!("src", fingerprint = true, rewrite_references = true, base = #base))
        };
        for fine in ["/static", "/a/b-c_d.e~f", "/caf%C3%A9", "/"] {
            assert!(with(fine).is_empty(), "{fine}: {:?}", with(fine));
        }
        for (bad, says) in [
            ("static", "start with `/`"),
            ("//cdn", "host name"),
            ("/st atic", "percent-encode"),
            ("/café", "percent-encode"),
            ("/a?b", "query"),
            ("/a/../b", "`..`"),
            ("/static/", "drop the trailing slash: `/static`"),
        ] {
            let found = with(bad);
            assert!(
                found.len() == 1 && found[0].contains(says),
                "{bad}: {found:?}"
            );
        }
        let found = messages(quote!("src", fingerprint = true, base = "/static"));
        assert!(
            found[0].contains("needs `rewrite_references = true`"),
            "{found:?}"
        );
        let options = parse(quote!(
            "src",
            fingerprint = true,
            rewrite_references = true,
            base = "/"
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(options.base.value, None, "`/` is no prefix");
    }

    #[test]
    fn values_keep_the_span_of_what_was_written() {
        let options = parse(quote!("src", gzip = false)).unwrap_or_else(|e| panic!("{e}"));
        assert!(options.gzip.written.is_some());
        assert!(options.brotli.written.is_none());
    }

    #[test]
    fn valid_options_are_applied() {
        let options = parse(quote!(
            "src",
            max_embed_size = "1 MiB",
            gzip = false,
            dotfiles = true,
            compression = "fast",
            include = ["*.css", "js/**"],
            exclude = "*.map",
            crate = ::my::rt,
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(options.max_embed_size.value, 1 << 20);
        assert!(!options.gzip.value && options.brotli.value && options.dotfiles.value);
        assert_eq!(options.compression.value, Compression::Fast);
        let include = options.include.value.unwrap();
        assert!(include.is_match("css/app.css") && include.is_match("js/a/b.js"));
        assert!(!include.is_match("index.html"));
        assert_eq!(include.patterns.len(), 2);
        assert!(options.exclude.value.unwrap().is_match("js/app.js.map"));
        assert_eq!(
            options.runtime_path.value.to_string(),
            quote!(::my::rt).to_string()
        );
    }

    #[test]
    fn the_wrapper_path_is_the_default_and_crate_overrides_it() {
        let options = parse(quote!([::web] "src")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            options.runtime_path.value.to_string(),
            quote!(::web).to_string()
        );
        let options =
            parse(quote!([::web] "src", crate = ::other)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            options.runtime_path.value.to_string(),
            quote!(::other).to_string()
        );
    }

    #[test]
    fn folder_problems_are_reported_with_option_problems() {
        let found = messages(quote!("no-such-folder", gzip = "yes"));
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(
            found[0].starts_with("folder `no-such-folder` not found"),
            "{found:?}"
        );
        assert_eq!(found[1], "expected `true` or `false`");
    }

    #[test]
    fn raw_keys_and_suffixed_sizes() {
        assert!(messages(quote!("src", r#gzip = false)).is_empty());
        let found = messages(quote!("src", max_embed_size = 5u8));
        assert!(found[0].ends_with("without a type suffix"), "{found:?}");
        let found = messages(quote!("src", max_embed_size = "17179869184 GiB"));
        assert_eq!(found, ["size `17179869184 GiB` is too large"]);
    }
}
