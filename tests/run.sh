#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs what the tests drive (strace, nginx,
# headless Chromium) when it is missing, then runs every test of the workspace.
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
set +e
cargo test --workspace --all-features 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
# One closing line for the whole run: cargo's own last line is a crate's doctests,
# which may count zero.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed;?$/) p += $(i-1); if ($(i) ~ /^failed;?$/) f += $(i-1) } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
