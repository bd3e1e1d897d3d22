//! Meaning of the macro arguments: validate every key and value, apply defaults and
//! resolve the folder. Keeps going after each problem so all of them are reported at once.

use std::path::PathBuf;

use globset::{Glob, GlobSet, GlobSetBuilder};
use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::ext::IdentExt;
use syn::{Expr, ExprLit, Lit, LitStr};

use crate::args::{Args, KeyValue};
use crate::errors::Errors;

/// Files larger than this are listed as on-disk entries instead of being embedded.
pub(crate) const DEFAULT_MAX_EMBED_SIZE: u64 = 5 * 1024 * 1024;

/// The most one invocation embeds before it is a compile error: past this, rustc's
/// memory and time grow with no benefit over streaming from disk.
pub(crate) const DEFAULT_MAX_TOTAL_SIZE: u64 = 128 * 1024 * 1024;

/// Read before `CARGO_MANIFEST_DIR` to resolve relative folders. Only for tests that
/// expand the macro in a generated crate (trybuild), whose manifest dir is not theirs.
pub(crate) const MANIFEST_DIR_OVERRIDE: &str = "EMBED_ASSETS_MANIFEST_DIR";

const KEYS: &str = "`max_embed_size`, `max_total_size`, `gzip`, `brotli`, `zstd`, `compression`, \
                    `compressed_only`, `fingerprint`, `rewrite_references`, `include`, `exclude`, \
                    `dotfiles`, `follow_symlinks`, `hashed`, `crate`";

/// Which embedded files are also served at a content-hashed URL.
pub(crate) enum Fingerprint {
    /// `fingerprint = true`: every embedded file but HTML pages, whose URLs are what
    /// people type and link to.
    AllButPages,
    /// `fingerprint = "glob"` or a list: the files whose path below the folder matches.
    Matching(GlobSet),
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
            Fingerprint::Matching(set) => set.is_match(relative),
        }
    }
}

/// How hard to compress: the encoders' settings (part of the cache key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compression {
    /// gzip 9, brotli 11: the smallest bodies, seconds per MiB of brotli.
    Best,
    /// gzip 6, brotli 5: nearly as small, tens of milliseconds per MiB, for the
    /// edit-build-refresh loop of unoptimised builds.
    Fast,
}

impl Compression {
    /// `best` when rustc optimises this crate (`-C opt-level` other than 0, as in
    /// `--release`), else `fast`. The proc macro runs inside rustc, so its arguments
    /// are this crate's. Either way the bodies decode to the same bytes and each
    /// carries the ETag of its own bytes.
    pub(crate) fn for_this_build() -> Self {
        Self::for_rustc_args(std::env::args())
    }

    fn for_rustc_args(args: impl IntoIterator<Item = String>) -> Self {
        let mut level = None;
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let codegen = if arg == "-C" {
                args.next()
            } else {
                arg.strip_prefix("-C").map(str::to_owned)
            };
            if let Some(value) = codegen
                .as_deref()
                .and_then(|c| c.strip_prefix("opt-level="))
            {
                level = Some(value.to_owned());
            }
        }
        match level.as_deref() {
            None | Some("0") => Compression::Fast,
            Some(_) => Compression::Best,
        }
    }
}

/// Everything the later phases need, validated.
pub(crate) struct Options {
    /// The folder to embed, absolute.
    pub(crate) root: PathBuf,
    /// The folder as the user wrote it, for messages (`public/css/app.css`).
    pub(crate) root_display: String,
    /// The path literal: where I/O errors point.
    pub(crate) root_span: Span,
    pub(crate) max_embed_size: u64,
    pub(crate) max_total_size: u64,
    /// The `max_total_size` value, when given: where a budget error points.
    pub(crate) max_total_span: Option<Span>,
    pub(crate) gzip: bool,
    pub(crate) brotli: bool,
    /// Only ever `true` with the `zstd` feature.
    pub(crate) zstd: bool,
    pub(crate) compression: Compression,
    pub(crate) include: Option<GlobSet>,
    pub(crate) exclude: Option<GlobSet>,
    /// The `include` and `exclude` globs as written, for dev mode's files added since
    /// the build (the runtime compiles them as `parse_globs` does).
    pub(crate) include_patterns: Vec<String>,
    pub(crate) exclude_patterns: Vec<String>,
    pub(crate) dotfiles: bool,
    pub(crate) follow_symlinks: bool,
    pub(crate) fingerprint: Option<Fingerprint>,
    /// Files a bundler already content-hashed, besides those of a Vite manifest.
    pub(crate) hashed: Option<GlobSet>,
    /// Leave out the identity bytes of files that have a gzip body.
    pub(crate) compressed_only: bool,
    /// Point links in HTML and CSS at fingerprinted URLs.
    pub(crate) rewrite_references: bool,
    /// The `rewrite_references` key, where its error points.
    rewrite_span: Option<Span>,
    /// Path of the runtime crate in the generated code.
    pub(crate) runtime_path: TokenStream,
    /// `pub static NAME =`: the item form (a static and a `paths` module).
    pub(crate) item: Option<crate::args::ItemHeader>,
}

/// Validates `args`, reporting every problem in one error.
pub(crate) fn validate(args: Args) -> syn::Result<Options> {
    let mut errors = Errors::default();
    let root = resolve_root(&args.path, &mut errors);
    let mut options = Options {
        root: root.unwrap_or_default(),
        root_display: args.path.value(),
        root_span: args.path.span(),
        max_embed_size: DEFAULT_MAX_EMBED_SIZE,
        max_total_size: DEFAULT_MAX_TOTAL_SIZE,
        max_total_span: None,
        gzip: true,
        brotli: true,
        zstd: cfg!(feature = "zstd"),
        compression: Compression::for_this_build(),
        include: None,
        exclude: None,
        dotfiles: false,
        follow_symlinks: false,
        include_patterns: Vec::new(),
        exclude_patterns: Vec::new(),
        fingerprint: None,
        hashed: None,
        compressed_only: false,
        rewrite_references: false,
        rewrite_span: None,
        runtime_path: args.runtime_path.unwrap_or_else(|| quote!(::embed_runtime)),
        item: args.item,
    };
    let mut seen: Vec<String> = Vec::new();
    for KeyValue { key, value } in args.options {
        let name = key.unraw().to_string();
        if seen.contains(&name) {
            errors.at(&key, format!("duplicate option `{name}`"));
            continue;
        }
        seen.push(name.clone());
        match name.as_str() {
            "max_total_size" => {
                if let Some(size) = parse_size(&value, &mut errors) {
                    options.max_total_size = size;
                    options.max_total_span = Some(syn::spanned::Spanned::span(&value));
                }
            }
            "max_embed_size" => {
                if let Some(size) = parse_size(&value, &mut errors) {
                    options.max_embed_size = size;
                }
            }
            "gzip" => set_bool(&mut options.gzip, &value, &mut errors),
            "brotli" => set_bool(&mut options.brotli, &value, &mut errors),
            "zstd" => {
                set_bool(&mut options.zstd, &value, &mut errors);
                if options.zstd && !cfg!(feature = "zstd") {
                    options.zstd = false;
                    errors.at(
                        &value,
                        "zstd bodies need the `zstd` feature: `embed-runtime = { version = \"..\", features = [\"zstd\"] }`",
                    );
                }
            }
            "compression" => match &value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(lit), ..
                }) if lit.value() == "best" => options.compression = Compression::Best,
                Expr::Lit(ExprLit {
                    lit: Lit::Str(lit), ..
                }) if lit.value() == "fast" => options.compression = Compression::Fast,
                other => errors.at(
                    other,
                    "expected `\"best\"` (gzip 9, brotli 11) or `\"fast\"` (gzip 6, brotli 5)",
                ),
            },
            "dotfiles" => set_bool(&mut options.dotfiles, &value, &mut errors),
            "follow_symlinks" => set_bool(&mut options.follow_symlinks, &value, &mut errors),
            "fingerprint" => {
                options.fingerprint = match &value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Bool(b), ..
                    }) => b.value.then_some(Fingerprint::AllButPages),
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(_), ..
                    })
                    | Expr::Array(_) => parse_globs(&value, &mut errors).map(Fingerprint::Matching),
                    other => {
                        errors.at(
                            other,
                            "expected `true` (every file but HTML pages) or globs of the files to fingerprint, like `[\"css/**\", \"js/**\"]`",
                        );
                        None
                    }
                }
            }
            "compressed_only" => set_bool(&mut options.compressed_only, &value, &mut errors),
            "rewrite_references" => {
                set_bool(&mut options.rewrite_references, &value, &mut errors);
                options.rewrite_span = Some(syn::spanned::Spanned::span(&key));
            }
            "include" => {
                options.include = parse_globs(&value, &mut errors);
                options.include_patterns = glob_strings(&value);
            }
            "hashed" => options.hashed = parse_globs(&value, &mut errors),
            "exclude" => {
                options.exclude = parse_globs(&value, &mut errors);
                options.exclude_patterns = glob_strings(&value);
            }
            "crate" => match &value {
                Expr::Path(path) if path.qself.is_none() => {
                    options.runtime_path = path.path.to_token_stream();
                }
                other => errors.at(
                    other,
                    "expected a path to the runtime crate, like `::embed_runtime`",
                ),
            },
            _ => errors.at(
                &key,
                format!("unknown option `{name}`; expected one of {KEYS}"),
            ),
        }
    }
    if let (true, None, Some(span)) = (
        options.rewrite_references,
        &options.fingerprint,
        options.rewrite_span,
    ) {
        errors.at_span(
            span,
            "`rewrite_references = true` points links at fingerprinted URLs: it needs `fingerprint`",
        );
    }
    if options.compressed_only && !options.gzip {
        errors.at_span(
            options.root_span,
            "`compressed_only = true` decodes the files' own bytes from their gzip bodies: it needs `gzip = true`",
        );
    }
    errors.finish().map(|()| options)
}

/// The folder, with `$VAR`/`${VAR}` expanded and made absolute against the crate root.
fn resolve_root(lit: &LitStr, errors: &mut Errors) -> Option<PathBuf> {
    let written = lit.value();
    if written.is_empty() {
        errors.at(lit, "the folder path is empty; expected a folder relative to the crate root, like `\"public\"`");
        return None;
    }
    let expanded = match expand_env(&written) {
        Ok(expanded) => expanded,
        Err(msg) => {
            errors.at(lit, msg);
            return None;
        }
    };
    let path = PathBuf::from(expanded);
    let relative = !path.is_absolute();
    let root = if relative {
        base_dir(lit, errors)?.join(&path)
    } else {
        path
    };
    // Checked here, with the option errors, so that one round reports everything.
    match std::fs::metadata(&root) {
        Ok(meta) if meta.is_dir() => Some(root),
        Ok(_) => {
            errors.at(lit, format!("`{written}` is not a folder"));
            None
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            let hint = if relative {
                " (paths are relative to the crate root)"
            } else {
                ""
            };
            errors.at(lit, format!("folder `{written}` not found{hint}"));
            None
        }
        Err(err) => {
            errors.at(
                lit,
                format!(
                    "cannot read folder `{written}`: {}",
                    crate::scan::io_cause(&err)
                ),
            );
            None
        }
    }
}

/// The crate root relative folders are resolved against.
fn base_dir(lit: &LitStr, errors: &mut Errors) -> Option<PathBuf> {
    // NOTE: never the process's working directory: rustc runs from the workspace root,
    // so a relative path would silently mean something else in a workspace member.
    let base =
        std::env::var_os(MANIFEST_DIR_OVERRIDE).or_else(|| std::env::var_os("CARGO_MANIFEST_DIR"));
    match base {
        Some(base) => Some(PathBuf::from(base)),
        None => {
            errors.at(
                lit,
                "`CARGO_MANIFEST_DIR` is not set; build with cargo or give an absolute path",
            );
            None
        }
    }
}

/// Expands `$NAME` and `${NAME}` from the environment; `$$` is a literal `$`.
pub(crate) fn expand_env(input: &str) -> Result<String, String> {
    let mut out = String::with_capacity(input.len());
    let mut rest = input;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        rest = &rest[at + 1..];
        if let Some(after) = rest.strip_prefix('$') {
            out.push('$');
            rest = after;
            continue;
        }
        let (name, after) = if let Some(braced) = rest.strip_prefix('{') {
            let Some(end) = braced.find('}') else {
                return Err("unclosed `${` in the folder path; expected `${NAME}`".into());
            };
            (&braced[..end], &braced[end + 1..])
        } else {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            (&rest[..end], &rest[end..])
        };
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            return Err("expected an environment variable name after `$`, like `$OUT_DIR`; write `$$` for a literal `$`".into());
        }
        match std::env::var(name) {
            Ok(value) => out.push_str(&value),
            Err(_) if name == "OUT_DIR" => {
                return Err("environment variable `OUT_DIR` is not set; cargo sets it only for crates with a build script (`build.rs`)".into())
            }
            Err(_) => return Err(format!("environment variable `{name}` is not set (or not UTF-8)")),
        }
        rest = after;
    }
    out.push_str(rest);
    Ok(out)
}

fn set_bool(slot: &mut bool, value: &Expr, errors: &mut Errors) {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        }) => *slot = b.value,
        other => errors.at(other, "expected `true` or `false`"),
    }
}

/// An integer number of bytes, or a string with a unit: `"512 KiB"`, `"5 MiB"`, `"1 GB"`.
fn parse_size(value: &Expr, errors: &mut Errors) -> Option<u64> {
    const EXPECTED: &str = "expected a size: a number of bytes or a string like `\"5 MiB\"` \
                            (units: B, KB, KiB, MB, MiB, GB, GiB)";
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

/// A glob or a list of globs, matched against the path below the folder (`css/app.css`).
/// The string literals of a glob option (`parse_globs` reports what else is there).
fn glob_strings(value: &Expr) -> Vec<String> {
    let string = |expr: &Expr| match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s.value()),
        _ => None,
    };
    match value {
        Expr::Array(array) => array.elems.iter().filter_map(string).collect(),
        other => string(other).into_iter().collect(),
    }
}

fn parse_globs(value: &Expr, errors: &mut Errors) -> Option<GlobSet> {
    const EXPECTED: &str =
        "expected a glob string or a list of them, like `[\"*.css\", \"js/**\"]`";
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
    let mut builder = GlobSetBuilder::new();
    for lit in literals {
        match Glob::new(&lit.value()) {
            Ok(glob) => {
                builder.add(glob);
            }
            Err(err) => errors.at(
                lit,
                format!("invalid glob `{}`: {}", lit.value(), err.kind()),
            ),
        }
    }
    match builder.build() {
        Ok(set) => Some(set),
        Err(err) => {
            errors.at(value, format!("invalid globs: {err}"));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn zstd_is_on_with_the_feature_and_an_error_at_the_value_without_it() {
        let args: Args = syn::parse2(quote!("src")).unwrap();
        let default = validate(args).map(|o| o.zstd);
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

    #[test]
    fn compression_follows_rustc_opt_level() {
        let level =
            |args: &[&str]| Compression::for_rustc_args(args.iter().map(|a| (*a).to_owned()));
        assert_eq!(level(&["rustc", "--crate-name", "app"]), Compression::Fast);
        assert_eq!(level(&["rustc", "-C", "opt-level=0"]), Compression::Fast);
        assert_eq!(level(&["rustc", "-C", "opt-level=3"]), Compression::Best);
        assert_eq!(level(&["rustc", "-Copt-level=s"]), Compression::Best);
        assert_eq!(
            level(&["rustc", "-C", "debuginfo=2", "-C", "opt-level=1"]),
            Compression::Best
        );
        assert_eq!(
            level(&["rustc", "-C", "opt-level=3", "-C", "opt-level=0"]),
            Compression::Fast,
            "the last one wins, as in rustc"
        );
    }

    fn messages(tokens: TokenStream) -> Vec<String> {
        let args: Args = syn::parse2(tokens).unwrap();
        match validate(args) {
            Ok(_) => Vec::new(),
            Err(err) => err.into_iter().map(|e| e.to_string()).collect(),
        }
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
            compression = "max",
        ));
        assert_eq!(found.len(), 6, "{found:#?}");
        assert!(found[0].starts_with("unknown option `max_size`; expected one of"));
        assert_eq!(found[1], "expected `true` or `false`");
        assert!(found[2].starts_with("invalid size `lots`"));
        assert!(found[3].starts_with("expected a glob string"));
        assert_eq!(found[4], "duplicate option `max_embed_size`");
        assert!(found[5].starts_with("expected `\"best\"`"), "{}", found[5]);
    }

    #[test]
    fn valid_options_are_applied() {
        let args: Args = syn::parse2(quote!(
            "src",
            max_embed_size = "1 MiB",
            gzip = false,
            dotfiles = true,
            compression = "fast",
            include = ["*.css", "js/**"],
            exclude = "*.map",
            crate = ::my::rt,
        ))
        .unwrap();
        let options = validate(args).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(options.max_embed_size, 1 << 20);
        assert!(!options.gzip && options.brotli && options.dotfiles);
        assert_eq!(options.compression, Compression::Fast);
        let include = options.include.unwrap();
        assert!(include.is_match("css/app.css") && include.is_match("js/a/b.js"));
        assert!(!include.is_match("index.html"));
        assert!(options.exclude.unwrap().is_match("js/app.js.map"));
        assert_eq!(
            options.runtime_path.to_string(),
            quote!(::my::rt).to_string()
        );
    }

    #[test]
    fn folder_problems_are_reported_with_option_problems() {
        let found = messages(quote!("no-such-folder", gzip = "yes"));
        assert_eq!(found.len(), 2, "{found:#?}");
        assert_eq!(
            found[0],
            "folder `no-such-folder` not found (paths are relative to the crate root)"
        );
        let found = messages(quote!("/no/such/absolute/folder"));
        assert_eq!(found, ["folder `/no/such/absolute/folder` not found"]);
        let found = messages(quote!("Cargo.toml"));
        assert_eq!(found, ["`Cargo.toml` is not a folder"]);
    }

    #[test]
    fn raw_keys_and_suffixed_sizes() {
        assert!(messages(quote!("src", r#gzip = false)).is_empty());
        let found = messages(quote!("src", max_embed_size = 5u8));
        assert!(found[0].ends_with("without a type suffix"), "{found:?}");
        let found = messages(quote!("src", max_embed_size = "17179869184 GiB"));
        assert_eq!(found, ["size `17179869184 GiB` is too large"]);
    }

    #[test]
    fn env_interpolation_expands_known_variables_and_names_unknown_ones() {
        std::env::set_var("EMBED_TEST_DIR_A", "/built");
        assert_eq!(expand_env("$EMBED_TEST_DIR_A/site").unwrap(), "/built/site");
        assert_eq!(expand_env("${EMBED_TEST_DIR_A}site").unwrap(), "/builtsite");
        assert_eq!(expand_env("a$$b").unwrap(), "a$b");
        let err = expand_env("$EMBED_TEST_DIR_MISSING/x").unwrap_err();
        assert!(err.contains("`EMBED_TEST_DIR_MISSING` is not set"), "{err}");
        assert!(expand_env("${OOPS").is_err());
        assert!(expand_env("$/x").is_err());
    }
}
