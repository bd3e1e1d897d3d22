//! Serving an embedded asset allocates nothing of ours: per request, the service
//! allocates no more than a hand-written handler that answers with the same status, the
//! same header fields and a `Bytes::from_static` body. The probed service has `header`
//! rules matching the stylesheet (and the default `nosniff`): their fields are in the
//! maps built once, so they cost nothing per request. Both pay for the `HeaderMap`, and
//! only for it. So does the service in front of an application
//! (`with_fallback(app)`), whose hits never reach the application. Ranges and 404s
//! allocate a small constant per request.
//!
//! # How allocations are counted
//! The workspace forbids `unsafe` (`[workspace.lints]`, as `forbid`, which a file
//! cannot lift), so a counting `#[global_allocator]` cannot live here. Instead
//! `fixture-server alloc-probe` calls the service (and the hand-written ceiling) in a
//! single-threaded process whose glibc is told to serve every `malloc` with an `mmap`
//! of its own (`glibc.malloc.mmap_threshold=0`, one arena, no thread cache), and
//! `strace` records the `mmap`s and `mremap`s between two marker `statx` calls around
//! each run of [`PER_RUN`] requests. Two control runs prove the counter: one that
//! allocates nothing must count 0, one that allocates [`PER_RUN`] boxes must count
//! exactly that.
//!
//! Every fresh allocation is one `mmap`; a `realloc` shows as an `mremap` only when it
//! outgrows its page, so a reallocation within a page is not seen. A counting global
//! allocator (in a copy of the workspace that allows `unsafe`) saw those equal too: one
//! per response with more than six header fields, ours and the ceiling's alike (the
//! `HeaderMap` growing).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

/// Requests per counted run.
const PER_RUN: usize = 200;

/// Where the probe's marker paths live (as in `src/bin/fixture-server.rs`).
const MARKER_DIR: &str = "/nonexistent/embed-alloc-probe";

/// glibc settings under which every allocation is a syscall.
const EVERY_MALLOC_AN_MMAP: &str = "GLIBC_TUNABLES=glibc.malloc.mmap_threshold=0:\
                                    glibc.malloc.arena_max=1:glibc.malloc.tcache_count=0";

/// The requests the claim is about; the probe answers each with [`SITE`]'s service and
/// with the ceiling.
///
/// [`SITE`]: integration_tests::SITE
const EMBEDDED: [(&str, &str); 5] = [
    ("get", "GET /css/app.css"),
    ("get-br", "GET /css/app.css, Accept-Encoding: br"),
    ("not-modified", "GET /css/app.css, If-None-Match (304)"),
    ("head", "HEAD /css/app.css"),
    ("index", "GET /docs/ (directory index)"),
];

/// Requests that do allocate on their own, a bounded amount.
const BOUNDED: [(&str, &str); 4] = [
    ("range-small", "GET /css/app.css, Range: bytes=0-99"),
    ("range-big", "GET /big.bin, Range: its last KiB"),
    ("not-found", "GET /no/such/file.css (404)"),
    ("not-found-long", "GET /xxx…, a 300-byte path (404)"),
];

/// The most a range or 404 may allocate per request, `HeaderMap` included.
const BOUND: usize = 10;

/// What one run of [`PER_RUN`] requests cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cost {
    /// Fresh allocations (`malloc`, `calloc`, aligned allocations).
    allocations: usize,
    /// Reallocations that outgrew their page.
    reallocations: usize,
}

impl Cost {
    fn total(self) -> usize {
        self.allocations + self.reallocations
    }

    fn per_request(self) -> String {
        let per = |n: usize| n as f64 / PER_RUN as f64;
        format!(
            "{} allocations + {} reallocations",
            per(self.allocations),
            per(self.reallocations)
        )
    }
}

/// The cost of every run of one probe, by run name (`ours/get`, `ceiling/get`, ...).
static COSTS: LazyLock<BTreeMap<String, Cost>> = LazyLock::new(|| {
    let trace = probe(PER_RUN, false);
    let costs = costs(&trace);
    for (run, cost) in &costs {
        eprintln!("{run:>22}: {} per request", cost.per_request());
    }
    costs
});

fn cost(run: &str) -> Cost {
    *COSTS
        .get(run)
        .unwrap_or_else(|| panic!("the probe made no run {run:?}"))
}

#[test]
fn the_allocation_counter_sees_every_allocation_and_nothing_else() {
    if integration_tests::programs::require(&["strace"], &[], "strace").is_none() {
        return;
    }
    assert_eq!(
        cost("empty"),
        Cost {
            allocations: 0,
            reallocations: 0
        },
        "a run that allocates nothing"
    );
    assert_eq!(
        cost("boxes"),
        Cost {
            allocations: PER_RUN,
            reallocations: 0
        },
        "a run of {PER_RUN} boxes: glibc no longer makes every allocation an mmap"
    );
}

#[test]
fn embedded_responses_allocate_no_more_than_a_hand_written_handler() {
    if integration_tests::programs::require(&["strace"], &[], "strace").is_none() {
        return;
    }
    let mut report = Vec::new();
    let mut worse = Vec::new();
    for (name, what) in EMBEDDED {
        let (ours, front, ceiling) = (
            cost(&format!("ours/{name}")),
            cost(&format!("front/{name}")),
            cost(&format!("ceiling/{name}")),
        );
        report.push(format!(
            "{what}: ours {}, in front of an app {}, ceiling {}",
            ours.per_request(),
            front.per_request(),
            ceiling.per_request()
        ));
        assert!(
            ceiling.allocations >= PER_RUN,
            "{what}: the ceiling must at least allocate its HeaderMap"
        );
        for (run, cost) in [("ours", ours), ("front", front)] {
            if cost.total() > ceiling.total() {
                worse.push((run, name, what, cost, ceiling));
            }
        }
    }
    eprintln!("{}", report.join("\n"));
    if let Some(&(run, name, what, ours, ceiling)) = worse.first() {
        panic!(
            "{run}: {what} allocates more than the hand-written handler: {} against {} per \
             request.\nWhere (strace -k of one request; frames of code built without \
             frame pointers may be missing):\n{}",
            ours.per_request(),
            ceiling.per_request(),
            backtraces(&format!("{run}/{name}"))
        );
    }
}

#[test]
fn range_and_not_found_responses_allocate_a_small_constant() {
    if integration_tests::programs::require(&["strace"], &[], "strace").is_none() {
        return;
    }
    for (name, what) in BOUNDED {
        let ours = cost(&format!("ours/{name}"));
        eprintln!("{what}: {} per request", ours.per_request());
        assert_eq!(
            ours.total() % PER_RUN,
            0,
            "{what}: not the same number of allocations for every request"
        );
        assert!(
            ours.total() <= BOUND * PER_RUN,
            "{what}: {} per request, more than {BOUND}.\nWhere:\n{}",
            ours.per_request(),
            backtraces(&format!("ours/{name}"))
        );
    }
    assert_eq!(
        cost("ours/not-found"),
        cost("ours/not-found-long"),
        "a 404 costs the same whatever the path's length"
    );
}

/// Runs `fixture-server alloc-probe n` under strace with every allocation an `mmap`,
/// and returns the trace (with stack traces if `stacks`).
///
/// # Panics
/// If strace is missing, the probe fails, or it takes more than 60 seconds.
fn probe(n: usize, stacks: bool) -> String {
    let output = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "alloc-probe-{}-{n}-{stacks}.strace",
        std::process::id()
    ));
    let mut strace = Command::new("strace");
    strace.args([
        "-qq",
        "-e",
        "trace=mmap,mremap,statx",
        "-E",
        EVERY_MALLOC_AN_MMAP,
    ]);
    if stacks {
        strace.arg("-k");
    }
    let mut child = strace
        .arg("-o")
        .arg(&output)
        .arg(env!("CARGO_BIN_EXE_fixture-server"))
        .args(["alloc-probe", &n.to_string()])
        .stdin(Stdio::null())
        .spawn()
        .unwrap_or_else(|err| {
            panic!(
                "cannot run strace ({err}): this test needs it, `apt-get install strace` \
                 (tests/run.sh installs it)"
            )
        });
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for strace") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the alloc probe took more than 60 seconds");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "the alloc probe failed: {status}");
    let trace = std::fs::read_to_string(&output)
        .unwrap_or_else(|err| panic!("cannot read {}: {err}", output.display()));
    let _ = std::fs::remove_file(&output);
    trace
}

/// The cost of every run in `trace`, by the name in its markers.
fn costs(trace: &str) -> BTreeMap<String, Cost> {
    let begin = format!("\"{MARKER_DIR}/begin/");
    let end = format!("\"{MARKER_DIR}/end/");
    let mut costs = BTreeMap::new();
    let mut open: Option<(String, Cost)> = None;
    for line in trace.lines() {
        if let Some(run) = marker(line, &begin) {
            assert!(open.is_none(), "run {run} begins inside another");
            let zero = Cost {
                allocations: 0,
                reallocations: 0,
            };
            open = Some((run.to_owned(), zero));
        } else if let Some(run) = marker(line, &end) {
            let (name, cost) = open.take().expect("a run ends that never began");
            assert_eq!(name, run, "runs interleave");
            costs.insert(name, cost);
        } else if let Some((_, cost)) = open.as_mut() {
            if line.starts_with("mmap(") && line.contains("MAP_ANONYMOUS") {
                cost.allocations += 1;
            } else if line.starts_with("mremap(") {
                cost.reallocations += 1;
            }
        }
    }
    assert!(open.is_none(), "the last run never ended");
    costs
}

/// The run name of a marker line (`statx(AT_FDCWD, "<dir>/begin/ours/get", ...`).
fn marker<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    let (_, rest) = line.split_once(prefix)?;
    rest.split_once('"').map(|(run, _)| run)
}

/// The syscalls and stack traces of run `run` for one request.
fn backtraces(run: &str) -> String {
    let trace = probe(1, true);
    let begin = format!("\"{MARKER_DIR}/begin/{run}\"");
    let end = format!("\"{MARKER_DIR}/end/{run}\"");
    trace
        .lines()
        .skip_while(|line| !line.contains(&begin))
        .take_while(|line| !line.contains(&end))
        .collect::<Vec<_>>()
        .join("\n")
}
