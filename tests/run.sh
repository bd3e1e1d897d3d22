#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs what the tests drive (strace, nginx,
# headless Chromium) when it is missing, then runs every test of the workspace with every
# feature, the HTTP tests once per framework and over HTTP/2, and each feature of the
# library on its own.
# `.ci/run` calls this same script after its format and lint checks.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests use as real peers: strace (zero-I/O proof), nginx (caching
# proxy in front of the server), Chromium and its driver (browser end to end).
need=()
command -v strace >/dev/null || need+=(strace)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v chromium >/dev/null || need+=(chromium)
command -v chromedriver >/dev/null || need+=(chromium-driver)
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

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# Runs one cargo command, keeping its output for the closing count.
run() {
  echo "== $*"
  set +e
  "$@" 2>&1 | tee -a "$log"
  local code=${PIPESTATUS[0]}
  set -e
  [ "$code" = 0 ] || status=$code
}

# Everything, every feature on: the frameworks' servers of the harness included.
run cargo test --workspace --all-features

# The HTTP tests once more in every other framework (`--workspace`: the same features,
# so the binaries built above are reused):
# each behaviour is written once, in tests/tests, and checked in each framework.
http_tests=(conditional range negotiation methods paths disk routing hostile fingerprint
  dev compressed_only faults rewrite)
targets=()
for t in "${http_tests[@]}"; do targets+=(--test "$t"); done
for framework in hyper actix-web rocket poem salvo warp; do
  EMBED_TEST_FRAMEWORK=$framework run cargo test --workspace --all-features "${targets[@]}"
done
# axum and plain hyper over HTTP/2 (h2c, prior knowledge). `hostile` stays HTTP/1.1: it
# probes the HTTP/1 parser, and HTTP/2 caps header lists itself.
h2_targets=()
for t in "${http_tests[@]}"; do [ "$t" = hostile ] || h2_targets+=(--test "$t"); done
for framework in axum hyper; do
  EMBED_TEST_HTTP2=1 EMBED_TEST_FRAMEWORK=$framework \
    run cargo test --workspace --all-features "${h2_targets[@]}"
done

# Every feature of the library on its own (unit tests and doctests), none, and the
# defaults; the whole workspace builds with its defaults too (its tests ran above, with
# every feature).
run cargo test -p embed-runtime --no-default-features
for feature in tower axum actix-web rocket poem salvo warp zstd; do
  run cargo test -p embed-runtime --no-default-features --features "$feature"
done
run cargo test -p embed-runtime
run cargo build --workspace --all-targets

# One closing line for the whole run: cargo's own last line is a crate's doctests,
# which may count zero.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed;?$/) p += $(i-1); if ($(i) ~ /^failed;?$/) f += $(i-1) } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
