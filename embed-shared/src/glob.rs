//! Glob patterns: the `include`, `exclude`, `disk` and `fingerprint` options of the
//! macro, dev mode's selection of new files, and the service's `header` rules.
//!
//! The syntax and its meaning are those of the `globset` crate (0.4), which the
//! project used before: `?` is one character, `*` any run of them, `**` as a whole
//! path component any run of components (`**/x`, `x/**`, `a/**/b`), `[a-z]`,
//! `[!a]`/`[^a]` and `[[:alpha:]]` classes, `{a,b}` alternatives (nested too, an empty
//! one dropped), and `\` escaping the next character. The tests check this module
//! against `globset` on generated patterns and paths.
//!
//! Written here rather than taken from `globset`: globset compiles each pattern to a
//! regular expression and so links `regex-automata`, `regex-syntax` and
//! `aho-corasick` (about 620 KB) into every binary that serves files. The paths
//! matched here are short and the patterns few, so a small automaton run once over
//! the path does the same work. It differs from globset only outside ASCII, where
//! `?` and a class match one character (globset: one byte of its UTF-8).

use std::fmt;
use std::path::Path;

/// One compiled pattern.
#[derive(Clone)]
pub struct Glob {
    pattern: String,
    program: Box<[Step]>,
}

/// Why a pattern is no glob.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GlobError {
    /// A `[` with no `]` after it.
    UnclosedClass,
    /// A range of a class that runs backwards (`[z-a]`).
    InvalidRange(char, char),
    /// A `}` with no `{` before it.
    UnopenedAlternates,
    /// A `{` with no `}` after it.
    UnclosedAlternates,
    /// Alternatives nested more than 100 deep.
    TooManyNestedAlternates,
    /// A `\` at the end of the pattern.
    DanglingEscape,
}

impl fmt::Display for GlobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GlobError::UnclosedClass => f.write_str("unclosed character class; missing ']'"),
            GlobError::InvalidRange(start, end) => {
                write!(f, "invalid range; '{start}' > '{end}'")
            }
            GlobError::UnopenedAlternates => {
                f.write_str("unopened alternate group; missing '{' (maybe escape '}' with '[}]'?)")
            }
            GlobError::UnclosedAlternates => {
                f.write_str("unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)")
            }
            GlobError::TooManyNestedAlternates => f.write_str("alternate groups nested too deeply"),
            GlobError::DanglingEscape => f.write_str("dangling '\\'"),
        }
    }
}

impl std::error::Error for GlobError {}

impl Glob {
    /// A pattern whose `*`, `?` and classes match `/` too, so `*.map` names source
    /// maps at any depth.
    ///
    /// # Errors
    /// When `pattern` is no valid glob.
    pub fn new(pattern: &str) -> Result<Glob, GlobError> {
        Glob::build(pattern, false)
    }

    /// A pattern whose `*`, `?` and classes never match `/`: only a `/` of the
    /// pattern or a `**` component crosses one (`/admin/*` is one level below).
    ///
    /// # Errors
    /// When `pattern` is no valid glob.
    pub fn with_literal_separator(pattern: &str) -> Result<Glob, GlobError> {
        Glob::build(pattern, true)
    }

    fn build(pattern: &str, literal_separator: bool) -> Result<Glob, GlobError> {
        let tokens = Parser::parse(pattern)?;
        let mut program = Vec::new();
        if tokens == [Token::RecursivePrefix] {
            // `**` alone matches every path.
            star(&mut program, true);
        } else {
            compile(&tokens, literal_separator, &mut program);
        }
        program.push(Step::Match);
        Ok(Glob {
            pattern: pattern.to_owned(),
            program: program.into(),
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// Whether the whole of `path` matches (`/`-separated, below the folder).
    pub fn is_match(&self, path: impl AsRef<Path>) -> bool {
        self.matches_bytes(path.as_ref().as_os_str().as_encoded_bytes())
    }

    /// Runs the automaton over the characters of `subject` (a byte that is no UTF-8
    /// is one character, which only `?`, `*` and negated classes match).
    fn matches_bytes(&self, subject: &[u8]) -> bool {
        let mut run = Run::new(self.program.len());
        let mut current = Vec::new();
        let mut next = Vec::new();
        run.add(&self.program, 0, &mut current);
        for chunk in subject.utf8_chunks() {
            let invalid = chunk.invalid().iter().map(|_| None);
            for c in chunk.valid().chars().map(Some).chain(invalid) {
                run.generation += 1;
                for &at in &current {
                    if self.program[at].accepts(c) {
                        run.add(&self.program, at + 1, &mut next);
                    }
                }
                if next.is_empty() {
                    return false;
                }
                std::mem::swap(&mut current, &mut next);
                next.clear();
            }
        }
        current
            .iter()
            .any(|&at| matches!(self.program[at], Step::Match))
    }
}

impl fmt::Debug for Glob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Glob").field(&self.pattern).finish()
    }
}

/// Several patterns, matched at once.
#[derive(Debug, Clone, Default)]
pub struct GlobSet {
    globs: Vec<Glob>,
}

impl GlobSet {
    /// The set of `globs`, in their order.
    pub fn new(globs: Vec<Glob>) -> GlobSet {
        GlobSet { globs }
    }

    /// Whether any pattern matches `path`.
    pub fn is_match(&self, path: impl AsRef<Path>) -> bool {
        let subject = path.as_ref().as_os_str().as_encoded_bytes();
        self.globs.iter().any(|glob| glob.matches_bytes(subject))
    }

    /// The indices of the patterns that match `path`, in order.
    pub fn matches(&self, path: impl AsRef<Path>) -> Vec<usize> {
        let subject = path.as_ref().as_os_str().as_encoded_bytes();
        (0..self.globs.len())
            .filter(|&i| self.globs[i].matches_bytes(subject))
            .collect()
    }
}

/// A parsed piece of a pattern, as globset's parser reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Literal(char),
    Any,
    ZeroOrMore,
    /// `**/` at the start: nothing, a `/`, or any run ending in `/`.
    RecursivePrefix,
    /// `/**` at the end: a `/` then anything.
    RecursiveSuffix,
    /// `/**/` inside: a `/`, or a `/`, anything, a `/`.
    RecursiveZeroOrMore,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    Alternates(Vec<Vec<Token>>),
}

/// A step of the automaton: a test of one character, or a jump.
#[derive(Debug, Clone)]
enum Step {
    Char(char),
    /// Any character; `/` only when `slash`.
    Any {
        slash: bool,
    },
    Class {
        negated: bool,
        slash: bool,
        ranges: Box<[(char, char)]>,
    },
    /// Goes on at both steps.
    Split(usize, usize),
    Jump(usize),
    Match,
}

impl Step {
    /// Whether this step takes `c` (`None`: a byte that is no UTF-8).
    fn accepts(&self, c: Option<char>) -> bool {
        match (self, c) {
            (Step::Char(want), Some(c)) => *want == c,
            (Step::Char(_), None) => false,
            (Step::Any { slash }, c) => *slash || c != Some('/'),
            (
                Step::Class {
                    negated,
                    slash,
                    ranges,
                },
                c,
            ) => {
                let listed =
                    c.is_some_and(|c| ranges.iter().any(|&(start, end)| start <= c && c <= end));
                (listed != *negated) && (*slash || c != Some('/'))
            }
            (Step::Split(..) | Step::Jump(_) | Step::Match, _) => false,
        }
    }
}

/// The set of steps reached so far, with the mark that keeps each step once per
/// character.
struct Run {
    generation: usize,
    seen: Vec<usize>,
    stack: Vec<usize>,
}

impl Run {
    fn new(steps: usize) -> Run {
        Run {
            generation: 1,
            seen: vec![0; steps],
            stack: Vec::new(),
        }
    }

    /// Adds `at` and every step its jumps reach to `into`.
    fn add(&mut self, program: &[Step], at: usize, into: &mut Vec<usize>) {
        self.stack.push(at);
        while let Some(at) = self.stack.pop() {
            if self.seen[at] == self.generation {
                continue;
            }
            self.seen[at] = self.generation;
            match program[at] {
                Step::Split(first, second) => {
                    self.stack.push(second);
                    self.stack.push(first);
                }
                Step::Jump(to) => self.stack.push(to),
                _ => into.push(at),
            }
        }
    }
}

/// Emits `any*` (any character, `/` only when `slash`).
fn star(program: &mut Vec<Step>, slash: bool) {
    let split = program.len();
    program.push(Step::Split(split + 1, split + 3));
    program.push(Step::Any { slash });
    program.push(Step::Jump(split));
}

/// Whether `tokens` compile to nothing (only alternatives whose branches all do).
fn compiles_empty(tokens: &[Token]) -> bool {
    tokens.iter().all(|token| match token {
        Token::Alternates(branches) => branches.iter().all(|branch| compiles_empty(branch)),
        _ => false,
    })
}

/// Emits the steps of `tokens`, as globset's regular expression reads them.
fn compile(tokens: &[Token], literal_separator: bool, program: &mut Vec<Step>) {
    let any = !literal_separator;
    for token in tokens {
        match token {
            Token::Literal(c) => program.push(Step::Char(*c)),
            Token::Any => program.push(Step::Any { slash: any }),
            Token::ZeroOrMore => star(program, any),
            Token::RecursivePrefix => {
                // (?:/?|.*/)
                let split = program.len();
                program.push(Step::Split(split + 1, split + 4));
                program.push(Step::Split(split + 2, 0));
                program.push(Step::Char('/'));
                program.push(Step::Jump(0));
                star(program, true);
                program.push(Step::Char('/'));
                let end = program.len();
                program[split + 1] = Step::Split(split + 2, end);
                program[split + 3] = Step::Jump(end);
            }
            Token::RecursiveSuffix => {
                // /.*
                program.push(Step::Char('/'));
                star(program, true);
            }
            Token::RecursiveZeroOrMore => {
                // (?:/|/.*/)
                program.push(Step::Char('/'));
                let split = program.len();
                program.push(Step::Split(0, split + 1));
                star(program, true);
                program.push(Step::Char('/'));
                let end = program.len();
                program[split] = Step::Split(end, split + 1);
            }
            Token::Class { negated, ranges } => program.push(Step::Class {
                negated: *negated,
                slash: any,
                ranges: ranges.clone().into(),
            }),
            Token::Alternates(branches) => {
                let parts: Vec<&Vec<Token>> = branches
                    .iter()
                    .filter(|branch| !compiles_empty(branch))
                    .collect();
                let mut exits = Vec::new();
                for (i, part) in parts.iter().enumerate() {
                    let last = i + 1 == parts.len();
                    let split = program.len();
                    if !last {
                        program.push(Step::Split(split + 1, 0));
                    }
                    compile(part, literal_separator, program);
                    if !last {
                        exits.push(program.len());
                        program.push(Step::Jump(0));
                        let next = program.len();
                        program[split] = Step::Split(split + 1, next);
                    }
                }
                let end = program.len();
                for exit in exits {
                    program[exit] = Step::Jump(end);
                }
            }
        }
    }
}

/// globset's parser, step for step, so every pattern reads as it did.
struct Parser<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    /// Where each open `{` starts in `branches`.
    alternates: Vec<usize>,
    /// The branches being read; tokens go to the last one.
    branches: Vec<Vec<Token>>,
    prev: Option<char>,
    cur: Option<char>,
}

/// How deep `{` may nest.
const MAX_ALTERNATES_DEPTH: usize = 100;

impl Parser<'_> {
    fn parse(pattern: &str) -> Result<Vec<Token>, GlobError> {
        let mut parser = Parser {
            chars: pattern.chars().peekable(),
            alternates: Vec::new(),
            branches: vec![Vec::new()],
            prev: None,
            cur: None,
        };
        while let Some(c) = parser.bump() {
            match c {
                '?' => parser.push(Token::Any),
                '*' => parser.star()?,
                '[' => parser.class()?,
                '{' => {
                    if parser.alternates.len() >= MAX_ALTERNATES_DEPTH {
                        return Err(GlobError::TooManyNestedAlternates);
                    }
                    parser.alternates.push(parser.branches.len());
                    parser.branches.push(Vec::new());
                }
                '}' => {
                    let start = parser
                        .alternates
                        .pop()
                        .ok_or(GlobError::UnopenedAlternates)?;
                    let branches = parser.branches.split_off(start);
                    parser.push(Token::Alternates(branches));
                }
                ',' if !parser.alternates.is_empty() => parser.branches.push(Vec::new()),
                '\\' => {
                    let escaped = parser.bump().ok_or(GlobError::DanglingEscape)?;
                    parser.push(Token::Literal(escaped));
                }
                c => parser.push(Token::Literal(c)),
            }
        }
        if parser.branches.len() > 1 {
            return Err(GlobError::UnclosedAlternates);
        }
        Ok(parser.branches.pop().unwrap_or_default())
    }

    fn bump(&mut self) -> Option<char> {
        self.prev = self.cur;
        self.cur = self.chars.next();
        self.cur
    }

    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    /// Adds `token` to the branch being read, the last (there is always one: `}`
    /// only closes a `{`, whose branches come after the outer one).
    fn push(&mut self, token: Token) {
        if let Some(branch) = self.branches.last_mut() {
            branch.push(token);
        }
    }

    /// After a `*`: one star, two, or one of the `**` component forms.
    fn star(&mut self) -> Result<(), GlobError> {
        let prev = self.prev;
        if self.peek() != Some('*') {
            self.push(Token::ZeroOrMore);
            return Ok(());
        }
        self.bump();
        let twice = |parser: &mut Self| {
            parser.push(Token::ZeroOrMore);
            parser.push(Token::ZeroOrMore);
        };
        if self.branches.last().is_none_or(Vec::is_empty) {
            if self.peek().is_none_or(|c| c == '/') {
                self.push(Token::RecursivePrefix);
                self.bump();
            } else {
                twice(self);
            }
            return Ok(());
        }
        if prev != Some('/')
            && (self.branches.len() <= 1 || (prev != Some(',') && prev != Some('{')))
        {
            twice(self);
            return Ok(());
        }
        let suffix = match self.peek() {
            None => true,
            Some(',' | '}') if self.branches.len() >= 2 => true,
            Some('/') => {
                self.bump();
                false
            }
            Some(_) => {
                twice(self);
                return Ok(());
            }
        };
        let token = match self.branches.last_mut().and_then(Vec::pop) {
            Some(Token::RecursivePrefix) => Token::RecursivePrefix,
            Some(Token::RecursiveSuffix) => Token::RecursiveSuffix,
            _ if suffix => Token::RecursiveSuffix,
            _ => Token::RecursiveZeroOrMore,
        };
        self.push(token);
        Ok(())
    }

    /// After a `[`: the class up to its `]`.
    fn class(&mut self) -> Result<(), GlobError> {
        fn extend(range: &mut (char, char), end: char) -> Result<(), GlobError> {
            range.1 = end;
            if range.1 < range.0 {
                Err(GlobError::InvalidRange(range.0, range.1))
            } else {
                Ok(())
            }
        }
        let negated = matches!(self.peek(), Some('!' | '^'));
        if negated {
            self.bump();
        }
        let mut ranges: Vec<(char, char)> = Vec::new();
        let mut first = true;
        let mut in_range = false;
        loop {
            let c = self.bump().ok_or(GlobError::UnclosedClass)?;
            match c {
                ']' if first => ranges.push((']', ']')),
                ']' => break,
                '-' if first => ranges.push(('-', '-')),
                '-' if in_range => {
                    if let Some(range) = ranges.last_mut() {
                        extend(range, '-')?;
                    }
                    in_range = false;
                }
                '-' => in_range = true,
                '[' if !in_range && self.peek() == Some(':') => {
                    match self.posix_class() {
                        Some(class) => ranges.extend_from_slice(class),
                        None => ranges.push(('[', '[')),
                    }
                    in_range = false;
                }
                c => {
                    match ranges.last_mut() {
                        Some(range) if in_range => extend(range, c)?,
                        _ => ranges.push((c, c)),
                    }
                    in_range = false;
                }
            }
            first = false;
        }
        if in_range {
            ranges.push(('-', '-'));
        }
        self.push(Token::Class { negated, ranges });
        Ok(())
    }

    /// `[:name:]` inside a class, just after its `[`. `None` when it is none: with
    /// nothing read when it is not of that form, read to its `:]` when the name is
    /// unknown (as globset does: `[[:x:]]` is a class of `[` then a `]`).
    fn posix_class(&mut self) -> Option<&'static [(char, char)]> {
        let saved = (self.chars.clone(), self.prev, self.cur);
        self.bump();
        let mut name = String::new();
        loop {
            match self.bump() {
                Some(':') if self.peek() == Some(']') => {
                    self.bump();
                    return posix_ranges(&name);
                }
                Some(c) if c.is_ascii_lowercase() && name.len() < 8 => name.push(c),
                _ => {
                    (self.chars, self.prev, self.cur) = saved;
                    return None;
                }
            }
        }
    }
}

/// The ASCII ranges of a POSIX class name.
fn posix_ranges(name: &str) -> Option<&'static [(char, char)]> {
    Some(match name {
        "alnum" => &[('0', '9'), ('A', 'Z'), ('a', 'z')],
        "alpha" => &[('A', 'Z'), ('a', 'z')],
        "blank" => &[('\t', '\t'), (' ', ' ')],
        "cntrl" => &[('\x00', '\x1f'), ('\x7f', '\x7f')],
        "digit" => &[('0', '9')],
        "graph" => &[('!', '~')],
        "lower" => &[('a', 'z')],
        "print" => &[(' ', '~')],
        "punct" => &[('!', '/'), (':', '@'), ('[', '`'), ('{', '~')],
        "space" => &[('\t', '\r'), (' ', ' ')],
        "upper" => &[('A', 'Z')],
        "xdigit" => &[('0', '9'), ('A', 'F'), ('a', 'f')],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reference(pattern: &str, literal_separator: bool) -> Result<globset::GlobMatcher, String> {
        globset::GlobBuilder::new(pattern)
            .literal_separator(literal_separator)
            .build()
            .map(|glob| glob.compile_matcher())
            .map_err(|err| err.kind().to_string())
    }

    fn ours(pattern: &str, literal_separator: bool) -> Result<Glob, GlobError> {
        if literal_separator {
            Glob::with_literal_separator(pattern)
        } else {
            Glob::new(pattern)
        }
    }

    /// Pieces patterns are made of: every special form, and the characters around
    /// them that change how they read.
    const PIECES: &[&str] = &[
        "a",
        "b",
        ".",
        "/",
        "*",
        "**",
        "?",
        "[",
        "]",
        "!",
        "^",
        "-",
        "{",
        "}",
        ",",
        "\\",
        "[ab]",
        "[!a]",
        "[^/]",
        "[a-c]",
        "[/]",
        "[.-0]",
        "[]a]",
        "[-a]",
        "[a-]",
        "[[:alpha:]]",
        "[[:x:]]",
        "{a,b}",
        "{,a}",
        "{a/**,b}",
        "**/",
        "/**",
        "/**/",
        "\\*",
        "\\/",
        "é",
    ];
    const PATH_PIECES: &[&str] = &["a", "b", "c", ".", "/", "-", "]", "[", ",", "*", "{", "é"];

    fn joined(pieces: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(pieces), 0..max).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

        /// The same patterns are errors, with the same message, and the others match
        /// the same paths, with `*` crossing `/` and without.
        #[test]
        fn reads_and_matches_as_globset_does(
            pattern in joined(PIECES, 8),
            paths in prop::collection::vec(joined(PATH_PIECES, 10), 12),
            literal_separator in any::<bool>(),
        ) {
            let theirs = reference(&pattern, literal_separator);
            let mine = ours(&pattern, literal_separator);
            match (&theirs, &mine) {
                (Err(theirs), Err(mine)) => prop_assert_eq!(theirs, &mine.to_string()),
                (Ok(theirs), Ok(mine)) => {
                    // Paths near the pattern, which match it more often than random ones.
                    let near = [
                        pattern.replace(['*', '?', '[', ']', '{', '}', '\\', ','], ""),
                        pattern.replace("**", "a/b").replace('*', "a.b").replace('?', "/"),
                        pattern.replace("**", "").replace('*', "").replace('?', "a"),
                    ];
                    for path in paths.iter().chain(&near) {
                        // Outside ASCII globset matches bytes, this module characters.
                        if !path.is_ascii() || !pattern.is_ascii() {
                            continue;
                        }
                        prop_assert_eq!(theirs.is_match(path), mine.is_match(path), "{:?} on {:?}", pattern, path);
                    }
                }
                _ => prop_assert!(false, "{:?}: globset {:?}, ours {:?}", pattern, theirs.map(|_| ()), mine.map(|_| ())),
            }
        }
    }

    #[test]
    fn component_forms_and_stars() {
        for (pattern, literal_separator, path, expected) in [
            ("**", true, "a/b/c", true),
            ("**", false, "", true),
            ("**/x", true, "x", true),
            ("**/x", true, "a/b/x", true),
            ("**/x", true, "ax", false),
            ("a/**", true, "a/b/c", true),
            ("a/**", true, "a", false),
            ("a/**/b", true, "a/b", true),
            ("a/**/b", true, "a/x/y/b", true),
            ("a/**/b", true, "a/xb", false),
            ("*.map", false, "js/app.js.map", true),
            ("*.map", true, "js/app.js.map", false),
            ("/admin/*", true, "/admin/x", true),
            ("/admin/*", true, "/admin/x/y", false),
            ("?", true, "/", false),
            ("?", false, "/", true),
            ("[!a]", true, "/", false),
            ("[/]", true, "/", false),
            ("{a,{b,c}d}", true, "cd", true),
            ("{a,{b,c}d}", true, "c", false),
            ("{,a}", true, "", false),
            ("{,a}", true, "a", true),
            ("a**b", true, "a/b", false),
            ("a**b", false, "a/b", true),
            ("\\*", true, "*", true),
            ("\\*", true, "x", false),
            ("[[:digit:]]x", true, "7x", true),
            ("caf?.css", true, "café.css", true),
            ("[é-ë]", true, "ê", true),
        ] {
            let glob = ours(pattern, literal_separator).unwrap();
            assert_eq!(glob.is_match(path), expected, "{pattern} on {path:?}");
        }
    }

    #[test]
    fn errors_name_what_is_wrong() {
        for (pattern, error) in [
            ("css/[a-", GlobError::UnclosedClass),
            ("[z-a]", GlobError::InvalidRange('z', 'a')),
            ("a}", GlobError::UnopenedAlternates),
            ("{a,b", GlobError::UnclosedAlternates),
            ("a\\", GlobError::DanglingEscape),
            (&"{".repeat(101), GlobError::TooManyNestedAlternates),
        ] {
            assert_eq!(Glob::new(pattern).unwrap_err(), error, "{pattern}");
        }
        assert_eq!(
            GlobError::UnclosedClass.to_string(),
            "unclosed character class; missing ']'"
        );
    }

    // Only unix paths can hold bytes that are not UTF-8.
    #[cfg(unix)]
    #[test]
    fn a_byte_that_is_no_utf8_is_one_character() {
        use std::os::unix::ffi::OsStrExt;
        let path = Path::new(std::ffi::OsStr::from_bytes(b"a\xffb"));
        assert!(Glob::new("a?b").unwrap().is_match(path));
        assert!(Glob::new("a[!x]b").unwrap().is_match(path));
        assert!(!Glob::new("a[x]b").unwrap().is_match(path));
        assert!(!Glob::new("ab").unwrap().is_match(path));
    }

    #[test]
    fn sets_report_each_pattern_that_matches() {
        let set = GlobSet::new(vec![
            Glob::new("*.css").unwrap(),
            Glob::new("js/**").unwrap(),
            Glob::new("**/app.*").unwrap(),
        ]);
        assert_eq!(set.matches("js/app.css"), vec![0, 1, 2]);
        assert_eq!(set.matches("index.html"), Vec::<usize>::new());
        assert!(set.is_match("a/b.css"));
        assert!(!GlobSet::default().is_match("a"));
    }
}
