#!/usr/bin/env bash
# Release binary size per macro option, for the example site and the compile
# benchmark's generated 1000-file / 20 MB folder. Not part of the test suite.
#
#   bash bench/size/run.sh        # a few minutes the first time (release builds,
#                                 # brotli 11 for every file), then seconds
#
# Each configuration is a tiny leaf crate (its own package, one shared target folder)
# whose binary embeds the folder with the given options and prints the report; the
# table shows the stripped binary size and what the assets add over an empty folder.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
WORK=${BENCH_DIR:-$REPO/target/bench-size}
export CARGO_TARGET_DIR=$WORK/target
mkdir -p "$WORK"

BIG=$REPO/target/bench-compile/site-master
if [[ ! -d $BIG ]]; then
    python3 "$REPO/bench/compile/gen_site.py" "$BIG" --files 1000 --mb 20 --seed 1 >&2
fi
EMPTY=$WORK/empty-folder
mkdir -p "$EMPTY"

# name | features | options
CONFIGS=(
    "identity only||gzip = false, brotli = false"
    "identity + gzip||brotli = false, compressed_only = false"
    "identity + gzip + br||compressed_only = false"
    "identity + gzip + br + zstd|zstd|compressed_only = false"
    "default (gzip + br, compressed only)||"
    "gzip + br + zstd, compressed only|zstd|"
    "gzip, compressed only||brotli = false"
)

leaf() { # dir folder features options
    local dir=$1 folder=$2 features=$3 options=$4
    mkdir -p "$dir/src"
    local feature_list=""
    [[ -n $features ]] && feature_list=", features = [\"$features\"]"
    cat >"$dir/Cargo.toml" <<TOML
[package]
name = "size-leaf"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
embed-assets = { path = "$REPO/embed-runtime", default-features = false$feature_list }

[profile.release]
strip = true
[profile.release.build-override]
opt-level = 3
TOML
    local comma=""
    [[ -n $options ]] && comma=", "
    cat >"$dir/src/main.rs" <<RS
use embed_assets::{embed_assets, Assets};
static ASSETS: Assets = embed_assets!("$folder", max_embed_size = "64 MiB", max_total_size = "1 GiB"$comma$options);
fn main() {
    // Every body reachable, as a server's responses make them (else the linker may
    // drop bytes nothing reads).
    for asset in ASSETS.iter() {
        for variant in asset.variants() {
            std::hint::black_box(variant.body());
        }
    }
    println!("{}", ASSETS.report());
}
RS
}

measure() { # folder label
    local folder=$1 label=$2
    local base_dir=$WORK/empty
    leaf "$base_dir" "$EMPTY" "" "allow_empty = true"
    cargo build --release --quiet --manifest-path "$base_dir/Cargo.toml"
    local base
    base=$(stat -c %s "$CARGO_TARGET_DIR/release/size-leaf")
    printf '\n== %s (%s)\n' "$label" "$folder"
    printf '%-30s %14s %14s  %s\n' "options" "binary" "assets add" "report (Assets::report)"
    local i=0
    for config in "${CONFIGS[@]}"; do
        IFS='|' read -r name features options <<<"$config"
        local dir=$WORK/leaf-$i
        leaf "$dir" "$folder" "$features" "$options"
        cargo build --release --quiet --manifest-path "$dir/Cargo.toml"
        local size report
        size=$(stat -c %s "$CARGO_TARGET_DIR/release/size-leaf")
        report=$("$CARGO_TARGET_DIR/release/size-leaf")
        printf '%-30s %10.0f KiB %10.0f KiB  %s\n' "$name" \
            "$(echo "$size / 1024" | bc -l)" "$(echo "($size - $base) / 1024" | bc -l)" "$report"
        i=$((i + 1))
    done
}

measure "$REPO/examples/public" "the example site"
measure "$BIG" "1000 files, 20 MB (bench/compile/gen_site.py)"
