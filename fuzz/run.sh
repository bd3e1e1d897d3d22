#!/usr/bin/env bash
# Runs each fuzz target for SECONDS (default 60) with cargo-fuzz and libFuzzer, then
# prints executions, coverage and corpus size per target.
#
#   bash fuzz/run.sh [seconds] [target...]      # every target when none is named
#   RUNS=10000000 bash fuzz/run.sh 3600         # stop at ten million executions
#
# Seeds are read from fuzz/corpus/<target> and never written; what libFuzzer finds
# goes to fuzz/generated/<target> (kept between runs, not committed), crashes to
# fuzz/artifacts/<target>. Works on stable Rust: cargo-fuzz's -Z flags are allowed
# with RUSTC_BOOTSTRAP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

seconds=${1:-60}
shift || true
runs=()
if [ -n "${RUNS:-}" ]; then runs=(-runs="$RUNS"); fi

if ! command -v cargo-fuzz >/dev/null; then
  echo "== installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi
if ! rustc --version | grep -q nightly; then
  export RUSTC_BOOTSTRAP=1
fi

if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo fuzz list)
fi

# AddressSanitizer when the toolchain ships its runtime; plain libFuzzer otherwise
# (safe Rust gains little from ASan, the invariant checks are the point).
sanitizer=address
if ! cargo fuzz build --sanitizer address "${targets[0]}" >/dev/null 2>&1; then
  echo "== AddressSanitizer unavailable, building without a sanitizer"
  sanitizer=none
fi
cargo fuzz build --sanitizer "$sanitizer"

summary=()
status=0
for target in "${targets[@]}"; do
  mkdir -p "fuzz/generated/$target" "fuzz/artifacts/$target"
  log="fuzz/artifacts/$target/last-run.log"
  echo "== $target for ${seconds}s"
  set +e
  cargo fuzz run --sanitizer "$sanitizer" "$target" \
    "$root/fuzz/generated/$target" "$root/fuzz/corpus/$target" -- \
    -max_total_time="$seconds" "${runs[@]}" -max_len=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$root/fuzz/artifacts/$target/" >"$log" 2>&1
  rc=$?
  set -e
  # A crashed run has no final stats: tolerate the missing lines.
  runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1)
  final=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$final")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<<"$final")
  seeds=$(find "fuzz/corpus/$target" -type f | wc -l)
  generated=$(find "fuzz/generated/$target" -type f | wc -l)
  if [ "$rc" -ne 0 ]; then
    status=1
    grep -v '^#' "$log" | grep -m1 -A3 'panicked at' || tail -40 "$log"
    summary+=("$target: FAILED (exit $rc), see $log and fuzz/artifacts/$target/")
  else
    summary+=("$target: ${runs:-?} executions, cov ${cov:-?}, corpus ${corp:-?} (seeds $seeds, generated $generated)")
  fi
done

echo "== summary (${seconds}s per target, sanitizer $sanitizer)"
printf '%s\n' "${summary[@]}"
exit "$status"
