#!/usr/bin/env bash
# Compile-time benchmark: a leaf crate embedding a generated ~1000-file / ~20 MB folder
# with our `embed_assets!`, with rust-embed (`debug-embed`) and with include_dir.
# Measures clean, warm-cache, no-op and change rebuilds, checks what each binary
# serves after every change, rustc's peak memory and release binary sizes.
# Not part of the test suite. See bench/compile/README.md.
#
#   bash bench/compile/run.sh            # RUNS=3, about 7 minutes on 2 cores
#
# Environment: RUNS (3), FILES (1000), SIZE_MB (20), SEED (1), BUILD_TIMEOUT (900 s per
# cargo command), BENCH_DIR (target/bench-compile), LIVE_SOURCE=1 (depend on the
# working tree's embed-assets instead of a snapshot of it), NO_OVERRIDE_PROBE=1 (also
# time one cold build of ours without `build-override opt-level = 3`).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
RUNS=${RUNS:-3}
FILES=${FILES:-1000}
SIZE_MB=${SIZE_MB:-20}
SEED=${SEED:-1}
BUILD_TIMEOUT=${BUILD_TIMEOUT:-900}
WORK=${BENCH_DIR:-$REPO/target/bench-compile}
LIVE_SOURCE=${LIVE_SOURCE:-0}
NO_OVERRIDE_PROBE=${NO_OVERRIDE_PROBE:-0}
CRATES=(ours rust-embed include-dir)
GNU_TIME=/usr/bin/time
MASTER=$WORK/site-master
LOGS=$WORK/logs
DUMP=$WORK/dump
RESULTS=$WORK/results.tsv
META=$WORK/meta.tsv
# Extra environment for cargo (the no-override probe sets a profile variable).
EXTRA_ENV=()

die() {
    echo "run.sh: $*" >&2
    exit 1
}
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# --- preflight ----------------------------------------------------------------------
[[ -x $GNU_TIME ]] || die "needs GNU time for peak memory: apt-get install -y time"
for tool in cargo python3 timeout awk cmp; do
    command -v "$tool" >/dev/null || die "needs $tool"
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer"
[[ $FILES =~ ^[0-9]+$ && $FILES -ge 10 ]] || die "FILES must be at least 10"
[[ $BUILD_TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "BUILD_TIMEOUT must be seconds"
mkdir -p "$WORK" "$LOGS"
: >"$RESULTS"
: >"$META"

meta() { printf '%s\t%s\n' "$1" "$2" >>"$META"; }
pkg() { echo "leaf-$1"; }

# --- the folder -----------------------------------------------------------------------
stamp="files=$FILES mb=$SIZE_MB seed=$SEED gen=$(cksum <"$HERE/gen_site.py")"
if [[ ! -d $MASTER || $(cat "$MASTER.stamp" 2>/dev/null) != "$stamp" ]]; then
    log "generating the folder ($FILES files, $SIZE_MB MB, seed $SEED)"
    python3 "$HERE/gen_site.py" "$MASTER" --files "$FILES" --mb "$SIZE_MB" --seed "$SEED" >&2
    printf '%s' "$stamp" >"$MASTER.stamp"
fi
FOLDER_FILES=$(find "$MASTER" -type f | wc -l)
FOLDER_BYTES=$(find "$MASTER" -type f -printf '%s\n' | awk '{s += $1} END {print s}')
meta folder "$FOLDER_FILES files, $FOLDER_BYTES bytes"

# A fresh copy of the folder for one crate, with new mtimes, as a frontend build writes
# it. (A copy keeping the old mtimes, like `cp -a` or `tar x`, is invisible to cargo's
# mtime checks, for all three crates: the build would be "fresh".)
reset_site() {
    rm -rf "$WORK/$1/site"
    cp -r "$MASTER" "$WORK/$1/site"
}

# --- our crates: a snapshot, so concurrent edits in the working tree do not rebuild
# embed-assets-macros in the middle of a measurement ------------------------------------------
if [[ $LIVE_SOURCE == 1 ]]; then
    RUNTIME=$REPO/embed-runtime
else
    snap=$WORK/src-snapshot
    stage=$WORK/src-stage
    rm -rf "$stage"
    mkdir -p "$stage"
    cp -a "$REPO/embed-macro" "$REPO/embed-runtime" "$REPO/embed-shared" "$stage/"
    # The workspace root (package fields, lints, dependency versions are inherited),
    # with only these three members.
    python3 - "$REPO/Cargo.toml" "$stage/Cargo.toml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r'(?m)^members\s*=.*$', 'members = ["embed-macro", "embed-runtime", "embed-shared"]', text)
text = re.sub(r'(?m)^default-members\s*=.*\n', '', text)
open(sys.argv[2], "w").write(text)
PY
    cp "$REPO/Cargo.lock" "$stage/Cargo.lock"
    if [[ -d $snap ]] && diff -rq "$snap" "$stage" >/dev/null 2>&1; then
        rm -rf "$stage"
    else
        rm -rf "$snap"
        mv "$stage" "$snap"
    fi
    RUNTIME=$snap/embed-runtime
fi
meta source "$RUNTIME ($(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$REPO" diff --quiet -- embed-macro embed-runtime embed-shared 2>/dev/null || echo ' + uncommitted changes'))"

# --- the leaf crates ------------------------------------------------------------------
# Writes stdin to $1 only when it differs, so an unchanged crate stays fresh.
write_file() {
    local tmp
    tmp=$(mktemp)
    cat >"$tmp"
    if [[ -f $1 ]] && cmp -s "$tmp" "$1"; then
        rm -f "$tmp"
    else
        mkdir -p "$(dirname "$1")"
        mv "$tmp" "$1"
    fi
}

PROFILES='
# As in our workspace: proc macros and their dependencies optimised in every profile
# (the same for all three crates).
[profile.dev.build-override]
opt-level = 3
[profile.release.build-override]
opt-level = 3
'

# FNV-1a of the bytes, printed for report.py to compare with the file on disk.
FNV='
fn fnv(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    hash
}
'

write_crates() {
    local d
    d=$WORK/ours
    write_file "$d/Cargo.toml" <<EOF
[package]
name = "leaf-ours"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
embed-assets = { path = "$RUNTIME", default-features = false }
$PROFILES
EOF
    write_file "$d/build.rs" <<'EOF'
fn main() {
    println!("cargo:rerun-if-changed=site");
}
EOF
    write_file "$d/src/main.rs" <<EOF
use embed_assets::{embed_assets, Assets, Encoding};

static SITE: Assets = embed_assets!("site");
$FNV
fn main() {
    let report = SITE.report();
    println!("count {}", SITE.len());
    println!("identity_bytes {}", report.identity_bytes);
    println!("stored_bytes {}", report.stored_bytes());
    let dump = std::env::var_os("DUMP_DIR").map(std::path::PathBuf::from);
    for path in std::env::args().skip(1) {
        let Some(asset) = SITE.get(&format!("/{path}")) else {
            println!("file {path} MISSING");
            continue;
        };
        let identity = asset.body(Encoding::Identity).unwrap_or_default();
        print!("file {path} len {} fnv {:016x} etag {}", identity.len(), fnv(identity), asset.etag());
        for encoding in [Encoding::Gzip, Encoding::Brotli] {
            if let Some(variant) = asset.variant(encoding) {
                let name = encoding.as_str();
                print!(" {name}_etag {} {name}_len {}", variant.etag(), variant.len());
                if let Some(dir) = &dump {
                    let file = dir.join(format!("{}.{name}", path.replace('/', "__")));
                    std::fs::write(file, variant.body()).expect("DUMP_DIR is writable");
                }
            }
        }
        println!();
    }
}
EOF
    if [[ ! -f $d/Cargo.lock ]]; then
        # Start from our workspace's versions (cargo drops what the leaf does not use).
        cp "$REPO/Cargo.lock" "$d/Cargo.lock"
    fi

    d=$WORK/rust-embed
    write_file "$d/Cargo.toml" <<EOF
[package]
name = "leaf-rust-embed"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
# debug-embed: embed in debug builds too (without it, debug builds read the disk).
rust-embed = { version = "8", features = ["debug-embed"] }
$PROFILES
EOF
    write_file "$d/src/main.rs" <<EOF
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "site/"]
struct Site;
$FNV
fn main() {
    let (mut count, mut bytes) = (0usize, 0u64);
    for name in Site::iter() {
        count += 1;
        bytes += Site::get(&name).map_or(0, |file| file.data.len() as u64);
    }
    println!("count {count}");
    println!("identity_bytes {bytes}");
    for path in std::env::args().skip(1) {
        match Site::get(&path) {
            Some(file) => println!("file {path} len {} fnv {:016x}", file.data.len(), fnv(&file.data)),
            None => println!("file {path} MISSING"),
        }
    }
}
EOF

    d=$WORK/include-dir
    write_file "$d/Cargo.toml" <<EOF
[package]
name = "leaf-include-dir"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
include_dir = "0.7"
$PROFILES
EOF
    write_file "$d/src/main.rs" <<EOF
use include_dir::{include_dir, Dir, DirEntry};

static SITE: Dir<'_> = include_dir!("\$CARGO_MANIFEST_DIR/site");
$FNV
fn walk(dir: &Dir<'_>, count: &mut usize, bytes: &mut u64) {
    for entry in dir.entries() {
        match entry {
            DirEntry::Dir(dir) => walk(dir, count, bytes),
            DirEntry::File(file) => {
                *count += 1;
                *bytes += file.contents().len() as u64;
            }
        }
    }
}

fn main() {
    let (mut count, mut bytes) = (0usize, 0u64);
    walk(&SITE, &mut count, &mut bytes);
    println!("count {count}");
    println!("identity_bytes {bytes}");
    for path in std::env::args().skip(1) {
        match SITE.get_file(&path) {
            Some(file) => {
                let data = file.contents();
                println!("file {path} len {} fnv {:016x}", data.len(), fnv(data));
            }
            None => println!("file {path} MISSING"),
        }
    }
}
EOF
}

# --- measuring ------------------------------------------------------------------------
# measure CRATE TAG CARGO-ARGS...: runs cargo in the crate under GNU time and a timeout.
# Sets M_SECS (wall, from date), M_RSS (kB: max RSS of the largest single process in the
# tree, i.e. rustc when the leaf is compiled), M_UNITS (what cargo compiled), M_RC.
measure() {
    local crate=$1 tag=$2
    shift 2
    local dir=$WORK/$crate
    local out=$LOGS/$crate.$tag.log tf=$LOGS/$crate.$tag.time t0 t1
    M_RC=0
    t0=$(date +%s.%N)
    (cd "$dir" && env CARGO_TARGET_DIR="$dir/target" "${EXTRA_ENV[@]}" \
        timeout "$BUILD_TIMEOUT" "$GNU_TIME" -v -o "$tf" cargo "$@") >"$out" 2>&1 || M_RC=$?
    t1=$(date +%s.%N)
    M_SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    M_RSS=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tf" 2>/dev/null || true)
    M_RSS=${M_RSS:-0}
    M_UNITS=$(awk '$1 == "Compiling" || $1 == "Checking" { print $2 }' "$out" | paste -sd, -)
    if [[ $M_RC -ne 0 ]]; then
        log "cargo $* in $crate failed ($M_RC, 124 = timeout); last lines of $out:"
        tail -n 15 "$out" >&2
    fi
}

# serve CRATE PROFILE OUT PATH...: what the leaf binary prints for these paths.
serve() {
    local crate=$1 profile=$2 out=$3
    shift 3
    rm -rf "$DUMP"
    mkdir -p "$DUMP"
    (cd / && DUMP_DIR=$DUMP timeout 60 "$WORK/$crate/target/$profile/$(pkg "$crate")" "$@") \
        >"$out" 2>&1 || true
}

# verify CRATE PROFILE [--present P...] [--missing P...]: runs the binary; prints ok or
# the problems; status 0 when ok.
verify() {
    local crate=$1 profile=$2
    shift 2
    local paths=() arg
    for arg in "$@"; do
        [[ $arg == --* ]] || paths+=("$arg")
    done
    local out=$LOGS/$crate.serve.txt
    serve "$crate" "$profile" "$out" "${paths[@]}"
    python3 "$HERE/report.py" verify "$WORK/$crate/site" "$out" --dump "$DUMP" "$@"
}

# record CRATE PHASE RUN STATUS [NOTE]: one row of results.tsv from the last measure.
record() {
    local crate=$1 phase=$2 run=$3 status=$4 note=${5:-}
    local others
    # Anything but the leaf itself compiled means the dependencies were not ready.
    others=$(tr ',' '\n' <<<"$M_UNITS" | grep -v -x -e "$(pkg "$crate")" -e '' | paste -sd, - || true)
    if [[ -n $others ]]; then
        status=dirty-deps
        note="also compiled: $others $note"
    fi
    [[ $M_RC -eq 0 ]] || status="cargo-failed-$M_RC"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$crate" "$phase" "$run" "$M_SECS" "$M_RSS" "$status" "$note" >>"$RESULTS"
    log "$(printf 'run %s %-11s %-10s %8.2f s %6d MiB  %s %s' "$run" "$crate" "$phase" "$M_SECS" $((M_RSS / 1024)) "$status" "$note")"
}

# build_and_check CRATE PHASE RUN VERIFY-ARGS...: timed `cargo build`, then what is served.
build_and_check() {
    local crate=$1 phase=$2 run=$3 verdict status
    shift 3
    measure "$crate" "$phase.$run" build --offline
    if verdict=$(verify "$crate" debug "$@"); then status=ok; else status=stale; fi
    if [[ $phase == add* && $status == stale ]]; then
        status=not-served
    fi
    record "$crate" "$phase" "$run" "$status" "$([[ $verdict == ok ]] || echo "$verdict")"
}

# Removes the leaf's incremental state and touches its source: the next cargo command
# compiles the leaf crate from scratch (dependencies, build script and our compression
# cache stay).
from_scratch() {
    rm -rf "$WORK/$1/target/debug/incremental/$(pkg "$1" | tr - _)-"*
    touch "$WORK/$1/src/main.rs"
}

# edit_text FILE TAG MASTER: new content (a unique first line, then MASTER), so the
# content hash is new and the file still compresses.
edit_text() {
    local file=$1 tag=$2 master=$3
    { printf '%s %s %s\n' "$tag" "$(date +%s%N)" "$RANDOM"; cat "$master"; } >"$file.tmp"
    mv "$file.tmp" "$file"
}

one_run() {
    local crate=$1 run=$2
    local dir=$WORK/$crate site=$WORK/$crate/site
    reset_site "$crate"
    measure "$crate" "clean-prep.$run" clean -p "$(pkg "$crate")"
    build_and_check "$crate" clean "$run" --present probe.txt index.html js/big-edit.js
    if [[ $run == 1 ]]; then
        local out=$LOGS/$crate.serve.txt
        meta "$crate.identity_bytes" "$(awk '$1 == "identity_bytes" { print $2 }' "$out")"
        [[ $crate != ours ]] || meta "$crate.stored_bytes" "$(awk '$1 == "stored_bytes" { print $2 }' "$out")"
        if [[ $crate == ours ]]; then
            local cache
            cache=$(find "$dir/target/debug/build" -type d -name embed-assets-cache | head -n 1)
            meta ours.cache "$(find "$cache" -type f | wc -l) files, $(du -sb "$cache" | cut -f1) bytes in ${cache#"$WORK"/}"
        fi
    fi

    # Twice: the first no-op follows a build that filled our compression cache.
    measure "$crate" "noop1.$run" build --offline
    record "$crate" noop1 "$run" "$([[ -z $M_UNITS ]] && echo ok || echo rebuilt)"
    measure "$crate" "noop.$run" build --offline
    record "$crate" noop "$run" "$([[ -z $M_UNITS ]] && echo ok || echo rebuilt)"

    from_scratch "$crate"
    measure "$crate" "check.$run" check --offline
    record "$crate" check "$run" ok

    from_scratch "$crate"
    build_and_check "$crate" leaf "$run" --present probe.txt

    edit_text "$site/probe.txt" "edited probe, run $run" "$MASTER/probe.txt"
    build_and_check "$crate" edit "$run" --present probe.txt
    measure "$crate" "noop_edit.$run" build --offline
    record "$crate" noop_edit "$run" "$([[ -z $M_UNITS ]] && echo ok || echo rebuilt)"

    edit_text "$site/js/big-edit.js" "// edited bundle, run $run" "$MASTER/js/big-edit.js"
    build_and_check "$crate" edit_large "$run" --present js/big-edit.js

    local added=docs/added-$run.txt
    edit_text "$site/$added" "added file, run $run" "$MASTER/probe.txt"
    build_and_check "$crate" add "$run" --present "$added"
    if [[ $(tail -n 1 "$RESULTS" | cut -f6) == not-served ]]; then
        touch "$dir/src/main.rs"
        build_and_check "$crate" add_touch "$run" --present "$added"
    fi

    rm "$site/remove-me.txt"
    build_and_check "$crate" remove "$run" --missing remove-me.txt --present probe.txt

    mv "$site/rename-me.txt" "$site/renamed-$run.txt"
    build_and_check "$crate" rename "$run" --missing rename-me.txt --present "renamed-$run.txt"
}

# --- go -------------------------------------------------------------------------------
write_crates
for crate in "${CRATES[@]}"; do
    log "$crate: building the dependencies (not measured; may download from crates.io)"
    # First with a one-file folder: the dependencies, then rustc's memory and time for
    # the leaf with (almost) nothing embedded, the baseline of the memory figures.
    rm -rf "$WORK/$crate/site"
    mkdir -p "$WORK/$crate/site"
    cp "$MASTER/probe.txt" "$WORK/$crate/site/"
    measure "$crate" warmup-deps build
    [[ $M_RC -eq 0 ]] || die "$crate does not build; see $LOGS/$crate.warmup-deps.log"
    from_scratch "$crate"
    measure "$crate" base build --offline
    record "$crate" base 0 ok
    reset_site "$crate"
    measure "$crate" warmup-clean clean -p "$(pkg "$crate")"
    measure "$crate" warmup build --offline
    [[ $M_RC -eq 0 ]] || die "$crate does not build; see $LOGS/$crate.warmup.log"
    # `cargo check` needs its own (metadata-only) builds of the library dependencies.
    measure "$crate" warmup-check check --offline
    [[ $M_RC -eq 0 ]] || die "$crate does not check; see $LOGS/$crate.warmup-check.log"
    verdict=$(verify "$crate" debug --present probe.txt) || die "$crate warm-up serves wrong data: $verdict"
    # Served from the binary, not the disk: hide the folder and ask again.
    mv "$WORK/$crate/site" "$WORK/$crate/site.hidden"
    serve "$crate" debug "$LOGS/$crate.hidden.txt" probe.txt
    mv "$WORK/$crate/site.hidden" "$WORK/$crate/site"
    if ! grep -q "^count $FOLDER_FILES\$" "$LOGS/$crate.hidden.txt" ||
        ! grep -q '^file probe.txt len' "$LOGS/$crate.hidden.txt"; then
        die "$crate does not embed in debug builds: $(head -c 300 "$LOGS/$crate.hidden.txt")"
    fi
done
for lib in rust-embed rust-embed-impl include_dir include_dir_macros; do
    for crate in rust-embed include-dir; do
        v=$(awk -v n="$lib" '$1 == "name" && $3 == "\"" n "\"" { getline; gsub(/"/, "", $3); print $3 }' \
            "$WORK/$crate/Cargo.lock")
        [[ -z $v ]] || meta "version.$lib" "$v"
    done
done
for crate in "${CRATES[@]}"; do
    meta "$crate.packages" "$(cd "$WORK/$crate" && cargo tree --offline --prefix none -e normal,build 2>/dev/null | sort -u | wc -l)"
done
meta rustc "$(rustc --version)"
meta load_before "$(cut -d' ' -f1-3 /proc/loadavg)"

for ((run = 1; run <= RUNS; run++)); do
    for crate in "${CRATES[@]}"; do
        one_run "$crate" "$run"
    done
done

if [[ $NO_OVERRIDE_PROBE == 1 ]]; then
    # What a user gets who does not copy `build-override opt-level = 3`: the macro and
    # brotli/flate2/sha2 unoptimised. Dependencies first, with a one-file folder.
    log "ours without build-override opt-level: building the unoptimised macro"
    EXTRA_ENV=(CARGO_PROFILE_DEV_BUILD_OVERRIDE_OPT_LEVEL=0)
    rm -rf "$WORK/ours/site"
    mkdir -p "$WORK/ours/site"
    cp "$MASTER/probe.txt" "$WORK/ours/site/"
    measure ours noopt-warmup build --offline
    reset_site ours
    measure ours noopt-clean-prep clean -p leaf-ours
    measure ours noopt-clean build --offline
    meta extra.ours_cold_without_build_override "$M_SECS s wall, max RSS $((M_RSS / 1024)) MiB (exit $M_RC), dev profile, 1 run"
    log "ours without build-override: $M_SECS s"
    EXTRA_ENV=()
fi

for crate in "${CRATES[@]}"; do
    reset_site "$crate"
    log "$crate: release build for the binary size (not timed)"
    measure "$crate" release-clean clean --release -p "$(pkg "$crate")"
    measure "$crate" release build --release
    if [[ $M_RC -eq 0 ]]; then
        meta "$crate.release_size" "$(stat -c %s "$WORK/$crate/target/release/$(pkg "$crate")")"
        verdict=$(verify "$crate" release --present probe.txt) || log "$crate release serves wrong data: $verdict"
    fi
done

{
    echo "== Compile-time benchmark: $(awk -F'\t' '$1 == "folder" { print $2 }' "$META") ($FOLDER_FILES files),"
    echo "   $RUNS run(s), $(nproc) cores, $(awk -F'\t' '$1 == "rustc" { print $2 }' "$META")"
    echo "   load average (1/5/15 min) before the runs: $(awk -F'\t' '$1 == "load_before" { print $2 }' "$META"), at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
    awk -F'\t' '$1 ~ /^version\./ { sub(/^version\./, "", $1); printf "   %s %s\n", $1, $2 }' "$META" | sort -u
    echo "   ours: $(awk -F'\t' '$1 == "source" { print $2 }' "$META")"
    echo "   all three: dev profile, [profile.*.build-override] opt-level = 3, incremental on;"
    echo "   rust-embed with feature debug-embed (so debug builds embed); ours with default-features = false"
    python3 "$HERE/report.py" summary "$RESULTS" "$META"
    echo
    echo "raw numbers: $RESULTS; cargo logs: $LOGS"
} | tee "$WORK/summary.txt"
