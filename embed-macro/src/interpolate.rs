//! `$NAME` and `${NAME}` in the folder path, replaced from the environment rustc runs
//! in, so a frontend built into `$OUT_DIR/site` by a build script can be embedded.

/// Expands `$NAME` and `${NAME}` from the environment; `$$` is a literal `$`.
pub(crate) fn expand_env(input: &str) -> Result<String, String> {
    expand_with(input, |name| std::env::var(name).ok())
}

/// [`expand_env`] with the variables `lookup` gives.
fn expand_with(input: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, String> {
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
        match lookup(name) {
            Some(value) => out.push_str(&value),
            None if name == "OUT_DIR" => {
                return Err("environment variable `OUT_DIR` is not set; cargo sets it only for crates with a build script (`build.rs`)".into())
            }
            None => return Err(format!("environment variable `{name}` is not set (or not UTF-8)")),
        }
        rest = after;
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_interpolation_expands_known_variables_and_names_unknown_ones() {
        let env = |name: &str| (name == "EMBED_TEST_DIR_A").then(|| "/built".to_owned());
        let expand = |input: &str| expand_with(input, env);
        assert_eq!(expand("$EMBED_TEST_DIR_A/site").unwrap(), "/built/site");
        assert_eq!(expand("${EMBED_TEST_DIR_A}site").unwrap(), "/builtsite");
        assert_eq!(expand("a$$b").unwrap(), "a$b");
        let err = expand("$EMBED_TEST_DIR_MISSING/x").unwrap_err();
        assert!(err.contains("`EMBED_TEST_DIR_MISSING` is not set"), "{err}");
        let err = expand("$OUT_DIR/site").unwrap_err();
        assert!(err.contains("only for crates with a build script"), "{err}");
        assert!(expand("${OOPS").is_err());
        assert!(expand("$/x").is_err());
        // The real environment: a variable every process has.
        assert!(expand_env("$PATH").is_ok_and(|path| !path.is_empty()));
    }
}
