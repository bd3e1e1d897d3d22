#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs what the tests drive (strace, nginx,
# headless Chromium, setpriv, Node.js and npm) when it is missing, then runs every test
# of the workspace with every feature, the HTTP tests once per framework and over
# HTTP/2, and the library with no features, each feature on its own, its defaults and
# all of them. Each step prints how long it took.
# A test that would skip itself (a program missing, root where a file permission must
# hold) fails instead: EMBED_TEST_REQUIRE_ALL=1, see tests/src/programs.rs.
# `.ci/run` calls this same script after its format and lint checks.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests use as real peers (the Leptos example's toolchain is
# examples/leptos/setup.sh's, called below): strace (zero-I/O proof), nginx and Varnish
# (caching proxies in front of the server), Chromium and its driver (browser end to end),
# Firefox ESR (a browser without compression dictionaries, driven over Marionette); setpriv
# (util-linux) runs the mode-000 tests as root without its file-permission override;
# iproute2's `ip` makes the network namespace a `sendfile` test puts its client in;
# Node.js and npm build the npm examples (`examples/vite`, `examples/swagger-ui`,
# `examples/wasm`; Node 18 or later), from their committed lockfiles; curl, openssl
# (`s_client`, and the test certificates) and testssl.sh are the TLS tests' clients, and
# libnss3-tools' `certutil` puts a test authority in Chromium's NSS database; pebble
# (with pebble-challtestsrv as its DNS) is the ACME server `Tls::acme` is tested against.
need=()
command -v strace >/dev/null || need+=(strace)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v varnishd >/dev/null || [ -x /usr/sbin/varnishd ] || need+=(varnish)
command -v chromium >/dev/null || need+=(chromium)
command -v chromedriver >/dev/null || need+=(chromium-driver)
command -v firefox-esr >/dev/null || command -v firefox >/dev/null || need+=(firefox-esr)
command -v setpriv >/dev/null || need+=(util-linux)
command -v ip >/dev/null || [ -x /usr/sbin/ip ] || [ -x /sbin/ip ] || need+=(iproute2)
command -v curl >/dev/null || need+=(curl)
command -v openssl >/dev/null || need+=(openssl)
command -v testssl >/dev/null || need+=(testssl.sh)
command -v certutil >/dev/null || need+=(libnss3-tools)
command -v pebble >/dev/null || need+=(pebble)
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
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

# No test may pass by skipping what it checks; the tests that build crates of their
# own, which a plain `cargo test` skips, run.
export EMBED_TEST_REQUIRE_ALL=1
export EMBED_TEST_SLOW=1

# Disk: the suite builds the workspace in many feature sets, plus the crates trybuild and
# the scratch tests make (which do not read the workspace's profiles). No debug info and no
# incremental caches keep its target folder to a few GB; set either variable to override.
export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-false}"
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

log=$(mktemp)
leptos_log=$(mktemp)
leptos=
# A failed run stops what it left in the background (its own process group, below).
trap '[ -z "$leptos" ] || kill -- "-$leptos" 2>/dev/null; rm -f "$log" "$leptos_log"' EXIT
status=0
# Runs one cargo command, keeping its output for the closing count.
run() {
  echo "== $*"
  local began=$SECONDS
  set +e
  "$@" 2>&1 | tee -a "$log"
  local code=${PIPESTATUS[0]}
  set -e
  echo "== $((SECONDS - began)) s: $*"
  [ "$code" = 0 ] || status=$code
}

# Everything, every feature on: the frameworks' servers of the harness included. Built
# first, so that the Leptos build below starts beside the tests, not beside this build.
run cargo test --workspace --all-features --no-run

# The Leptos example's release build (tests/tests/leptos.rs; its toolchain first,
# examples/leptos/setup.sh, idempotent) runs in the background from here on, at the
# lowest priority: it takes only the CPU the tests leave (they wait on servers,
# browsers and timeouts), and so they see the machine as they do alone. It builds with
# Debian's Rust in a target folder of its own, so it never waits on this one's lock.
# Its test proper, in Chromium, runs at the end, on the built example. `setsid`: one
# process group, for the trap above.
setsid bash -c '
  began=$SECONDS
  code=0
  nice -n 19 bash examples/leptos/setup.sh &&
    nice -n 19 cargo test --workspace --all-features --test leptos -- --ignored \
      --exact the_example_builds_as_its_readme_says || code=$?
  echo "== $((SECONDS - began)) s: the Leptos example'"'"'s toolchain and build (in the background)"
  exit $code
' >"$leptos_log" 2>&1 &
leptos=$!

run cargo test --workspace --all-features

# The HTTP tests once more in every other framework (`--workspace`: the same features,
# so the binaries built above are reused):
# each behaviour is written once, in tests/tests, and checked in each framework.
http_tests=(conditional range negotiation methods paths disk routing hostile fingerprint
  dev compressed_only faults rewrite headers csp preload escaped_links releases dictionary
  size_limit folder)
targets=()
for t in "${http_tests[@]}"; do targets+=(--test "$t"); done
# The frameworks are the rows of tests/frameworks.txt, the registry the harness and the
# benchmarks read too; axum ran above.
frameworks=$(awk '!/^#/ && NF { print $1 }' tests/frameworks.txt)
h2_frameworks=$(awk '!/^#/ && NF && $3 == "yes" { print $1 }' tests/frameworks.txt)
for framework in $frameworks; do
  [ "$framework" = axum ] && continue
  EMBED_TEST_FRAMEWORK=$framework run cargo test --workspace --all-features "${targets[@]}"
done
# The same HTTP tests over a folder read at run time (`ServeAssets::folder` over a copy
# of the fixture site, with the table's compressed bodies as siblings), in every
# framework: the folder must answer as the embedded table does. `faults` (8 s of
# faults under load) over the folder in axum and `serve`: a folder's large files
# stream through the same disk body as the table's on-disk files, whose faults run in
# every framework above; those two are the body's two ways out (a framework's body,
# `serve`'s `sendfile`).
folder_targets=()
for t in conditional range negotiation methods paths hostile headers; do
  folder_targets+=(--test "$t")
done
for framework in $frameworks; do
  faults=()
  case $framework in axum | serve) faults=(--test faults) ;; esac
  EMBED_TEST_SOURCE=folder EMBED_TEST_FRAMEWORK=$framework \
    run cargo test --workspace --all-features "${folder_targets[@]}" "${faults[@]}"
done
# Those the harness serves over HTTP/2 too (h2c, prior knowledge). `hostile` stays
# HTTP/1.1: it probes the HTTP/1 parser, and HTTP/2 caps header lists itself.
h2_targets=()
for t in "${http_tests[@]}"; do [ "$t" = hostile ] || h2_targets+=(--test "$t"); done
for framework in $h2_frameworks; do
  EMBED_TEST_HTTP2=1 EMBED_TEST_FRAMEWORK=$framework \
    run cargo test --workspace --all-features "${h2_targets[@]}"
done

# The HTTP tests once more over TLS, in `serve`, the harness server that terminates it
# (`Server::tls`, a test certificate made with openssl): HTTP/1.1, then h2 chosen by
# ALPN (`hostile` stays HTTP/1.1, as above).
tls_targets=()
for t in conditional range negotiation methods paths headers; do tls_targets+=(--test "$t"); done
EMBED_TEST_TLS=1 EMBED_TEST_FRAMEWORK=serve \
  run cargo test --workspace --all-features "${tls_targets[@]}" --test hostile
EMBED_TEST_TLS=1 EMBED_TEST_HTTP2=1 EMBED_TEST_FRAMEWORK=serve \
  run cargo test --workspace --all-features "${tls_targets[@]}"

# The memory and descriptor tests of big on-disk downloads (slow, stalled and aborted
# clients) against the library's own server too: its `disk-server` follows the variable.
EMBED_TEST_FRAMEWORK=serve run cargo test --workspace --all-features --test slow_clients

# Not here, to keep the suite's time: the root's plain `cargo test` (the default
# members with their default features: the library's defaults are in the feature sets
# below, and every test runs above with every feature) and the benchmarks' own tests
# (`cargo test --manifest-path bench/Cargo.toml`; .ci/run lints them). Both are
# commands of their own in CONTRIBUTING.md.

# The library as published (without the fuzz entry the repository's config turns on):
# no features and each feature on its own, checked (and, under CI's clippy driver,
# linted) as a user's crate builds it; all features, checked with its unit tests; with
# no features and with the defaults, its unit tests and doctests run too (every one of
# them ran above with every feature). `host-features` keeps the macro's host
# dependencies as the workspace build has them, so the macro is built once.
export EMBED_ASSETS_UNSTABLE_FUZZ=0
# Each set as a user's crate builds it: the library alone (`--lib`), so no
# dev-dependency adds features to a dependency the set leaves out (Poem 3.1 needs
# tokio's `net` and did not ask for it; the tests' tokio has it). Its unit tests are
# compiled with every feature, with none and with the defaults (where they run), not
# per feature: a user never builds them, and what they test ran above.
# The library's features: tower, one per framework of the registry (those with a
# feature, and axum and serve, which are default features of the library), tls, acme,
# zstd.
features="macros tower axum serve http2 tls acme $(awk '!/^#/ && NF && $2 != "-" { print $2 }' tests/frameworks.txt) zstd"
for feature in "" $features; do
  run cargo check -p embed-assets -p host-features --lib --no-default-features \
    ${feature:+--features "embed-assets/$feature"}
done
run cargo check -p embed-assets -p host-features --lib --tests --all-features
# With no features but the macro, which its unit tests and doctests embed folders with.
run cargo test -p embed-assets -p host-features --no-default-features --features embed-assets/macros
run cargo test -p embed-assets -p host-features
unset EMBED_ASSETS_UNSTABLE_FUZZ

# The Leptos example end to end: its build, started in the background after the first
# build above (a cold machine spends most of its half hour there, installing
# cargo-leptos and building both sides), then its test, which builds the example as
# its README says (little is left to do) and drives the binary in Chromium. Both are
# `#[ignore]`d in the runs above, so a plain `cargo test` does not build a Leptos app.
echo "== waiting for the Leptos example's build"
began=$SECONDS
leptos_status=0
wait "$leptos" || leptos_status=$?
leptos=
tee -a "$log" <"$leptos_log"
echo "== $((SECONDS - began)) s: waited for the Leptos example's build"
if [ "$leptos_status" = 0 ]; then
  # `--workspace`, as the runs above: the same features, so nothing is built again;
  # EMBED_TEST_LEPTOS_BUILT: the browser test takes the example the build test just
  # built, rather than run cargo-leptos's steps again.
  EMBED_TEST_LEPTOS_BUILT=1 run cargo test --workspace --all-features --test leptos -- --ignored
else
  status=$leptos_status
fi

# One closing line for the whole run: cargo's own last line is a crate's doctests,
# which may count zero.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed;?$/) p += $(i-1); if ($(i) ~ /^failed;?$/) f += $(i-1) } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
