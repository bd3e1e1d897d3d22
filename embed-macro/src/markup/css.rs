//! The links of CSS (`url()`, `@import`, `image-set()`), found with `cssparser`'s
//! tokenizer, and a URL written back as a CSS token.

use std::ops::Range;

use cssparser::{Parser, ParserInput, ToCss, Token};

/// A link in CSS: the byte range of its token and the URL it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CssUrl {
    /// The whole token: `url(x)` for an unquoted URL, `"x"` (quotes included) for a
    /// string.
    pub(crate) range: Range<usize>,
    /// The URL, CSS escapes decoded.
    pub(crate) url: String,
    /// The quote of a string token; `None` for `url(x)`.
    pub(crate) quote: Option<char>,
}

/// The links of a style sheet or declaration list: `url(x)`, `url("x")`,
/// `@import "x"`, and the strings of `image-set()`, at any depth.
pub(crate) fn css_urls(css: &str) -> Vec<CssUrl> {
    let mut input = ParserInput::new(css);
    let mut parser = Parser::new(&mut input);
    let mut found = Vec::new();
    walk_css(&mut parser, Context::Plain, &mut found);
    found
}

/// Which strings of a block are URLs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Plain,
    /// Inside `url(` … `)`: its first string.
    Url,
    /// Inside `image-set(` … `)`: every string.
    ImageSet,
}

fn walk_css(parser: &mut Parser<'_, '_>, context: Context, found: &mut Vec<CssUrl>) {
    let mut after_import = false;
    let mut strings_seen = 0;
    loop {
        let from = parser.position();
        let Ok(token) = parser.next_including_whitespace_and_comments() else {
            return;
        };
        let token = token.clone();
        let (start, end) = (from.byte_index(), parser.position().byte_index());
        let mut was_import = false;
        match &token {
            Token::WhiteSpace(_) | Token::Comment(_) => {
                was_import = after_import;
            }
            Token::UnquotedUrl(url) => found.push(CssUrl {
                range: start..end,
                url: url.to_string(),
                quote: None,
            }),
            Token::QuotedString(value) => {
                let is_url = after_import
                    || context == Context::ImageSet
                    || (context == Context::Url && strings_seen == 0);
                strings_seen += 1;
                if is_url {
                    let quote = parser.slice_from(from).chars().next().unwrap_or('"');
                    found.push(CssUrl {
                        range: start..end,
                        url: value.to_string(),
                        quote: Some(quote),
                    });
                }
            }
            Token::AtKeyword(name) => was_import = name.eq_ignore_ascii_case("import"),
            Token::Function(name) => {
                let inner = if name.eq_ignore_ascii_case("url") {
                    Context::Url
                } else if name.eq_ignore_ascii_case("image-set")
                    || name.eq_ignore_ascii_case("-webkit-image-set")
                {
                    Context::ImageSet
                } else {
                    Context::Plain
                };
                nested(parser, inner, found);
            }
            Token::ParenthesisBlock | Token::SquareBracketBlock | Token::CurlyBracketBlock => {
                nested(parser, Context::Plain, found);
            }
            _ => {}
        }
        after_import = was_import;
    }
}

fn nested(parser: &mut Parser<'_, '_>, context: Context, found: &mut Vec<CssUrl>) {
    let _ = parser.parse_nested_block(|inner| -> Result<(), cssparser::ParseError<'_, ()>> {
        walk_css(inner, context, found);
        Ok(())
    });
}

/// A URL written as a CSS token of the form `like` was: a string with the same quote,
/// or `url(…)`.
pub(crate) fn css_token(url: &str, quote: Option<char>) -> String {
    match quote {
        None => Token::UnquotedUrl(url.into()).to_css_string(),
        Some(quote) => {
            let mut out = String::with_capacity(url.len() + 2);
            out.push(quote);
            for c in url.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\a "),
                    c if c == quote => {
                        out.push('\\');
                        out.push(c);
                    }
                    c => out.push(c),
                }
            }
            out.push(quote);
            out
        }
    }
}
