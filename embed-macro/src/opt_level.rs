//! Whether rustc optimises the crate being compiled, read from its own arguments: the
//! proc macro runs inside rustc, so `std::env::args` are that crate's.

/// `true` when this rustc run optimises (`-C opt-level` other than 0, as in
/// `--release`).
pub(crate) fn this_build_is_optimised() -> bool {
    is_optimised(std::env::args())
}

/// The last `-C opt-level=` of `args` (rustc lets the last one win), other than 0.
fn is_optimised(args: impl IntoIterator<Item = String>) -> bool {
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
    !matches!(level.as_deref(), None | Some("0"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_opt_level_other_than_zero_means_optimised() {
        let optimised = |args: &[&str]| is_optimised(args.iter().map(|a| (*a).to_owned()));
        assert!(!optimised(&["rustc", "--crate-name", "app"]));
        assert!(!optimised(&["rustc", "-C", "opt-level=0"]));
        assert!(optimised(&["rustc", "-C", "opt-level=3"]));
        assert!(optimised(&["rustc", "-Copt-level=s"]));
        assert!(optimised(&[
            "rustc",
            "-C",
            "debuginfo=2",
            "-C",
            "opt-level=1"
        ]));
        assert!(
            !optimised(&["rustc", "-C", "opt-level=3", "-C", "opt-level=0"]),
            "the last one wins, as in rustc"
        );
    }
}
