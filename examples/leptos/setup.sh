#!/usr/bin/env bash
# Installs what building this example needs on Debian 12, when it is missing (running
# it again does nothing):
# - Debian's Rust 1.96 (`rustc-web`, `cargo-web`), the sources of its standard library
#   (`rust-web-src`, for `-Z build-std`) and the wasm linker (`rust-lld`, from
#   `rust-web-llvm`, a link to `lld-22`; `rustc-web` only recommends it): the wasm is
#   built with them, std included, for `wasm32-unknown-unknown`;
# - `wasm-opt` (`binaryen`), which cargo-leptos runs on a release wasm;
# - `wasm-bindgen` 0.2.130, the version `Cargo.toml` pins the crate to;
# - cargo-leptos 0.3.11, built without its downloads of sass, tailwind and wasm-opt
#   (`no_downloads`), by Debian's Rust (its dependencies need 1.96).
# Root installs the Debian packages; otherwise it names them and stops.
set -euo pipefail

need=()
[ -x /usr/bin/rustc ] || need+=(rustc-web)
[ -x /usr/bin/cargo ] || need+=(cargo-web)
[ -d /usr/lib/rustlib/src/rust/library ] || need+=(rust-web-src)
[ -x /usr/bin/lld-22 ] || need+=(lld-22)
[ -e /usr/bin/rust-lld ] || need+=(rust-web-llvm)
command -v wasm-opt >/dev/null || need+=(binaryen)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "== installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "missing ${need[*]}: install them (Debian: sudo apt-get install ${need[*]}) and run again" >&2
    exit 1
  fi
fi

# Both programs install into cargo's bin folder (~/.cargo/bin). They are built as the
# tools they are, not through what a caller set for its own build: CI lints its
# workspace through clippy's driver (`RUSTC_WORKSPACE_WRAPPER`, which cargo would also
# apply to the package it installs), and cargo-leptos is built by Debian's Rust.
unset RUSTC_WORKSPACE_WRAPPER RUSTC_WRAPPER CLIPPY_ARGS RUSTC RUSTFLAGS \
  CARGO_ENCODED_RUSTFLAGS CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR
if ! wasm-bindgen --version 2>/dev/null | grep -qx 'wasm-bindgen 0.2.130'; then
  echo "== installing wasm-bindgen-cli 0.2.130"
  # Not optimised: it turns this example's wasm into JS and wasm in under a second
  # either way, and builds in 100 s of CPU time instead of 250.
  CARGO_PROFILE_RELEASE_OPT_LEVEL=0 cargo install wasm-bindgen-cli --version 0.2.130
fi
if ! cargo-leptos --version 2>/dev/null | grep -q ' 0.3.11$'; then
  echo "== installing cargo-leptos 0.3.11"
  # Its release profile asks for fat LTO in one codegen unit: twenty minutes on two
  # cores. A build tool spends its time in the compressors (`--precompress`): those
  # crates are optimised, the rest not, and no LTO: 740 s of CPU time on two cores
  # (16 minutes of it with every crate optimised, without LTO), and the example's
  # precompression takes 7 s.
  optimised=()
  for crate in brotli brotli-decompressor alloc-no-stdlib alloc-stdlib flate2 miniz_oxide \
    libflate libflate_lz77 crc32fast adler32 adler2 simd-adler32 md-5 seahash; do
    optimised+=(--config "profile.release.package.$crate.opt-level=3")
  done
  PATH="/usr/bin:$PATH" CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    CARGO_PROFILE_RELEASE_OPT_LEVEL=0 \
    cargo install "${optimised[@]}" cargo-leptos --version 0.3.11 --locked --features no_downloads
fi
