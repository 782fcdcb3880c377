#!/usr/bin/env bash
# make fuzz: the loader fuzzers side by side for SECONDS each, from the corpus kept in
# fuzz/corpus/ (plus the archive seeds the release build writes). The kept corpus and the inputs
# found are minimised together into fuzz/corpus/NAME (libFuzzer's -merge=1 into an empty folder
# keeps the fewest inputs with the same coverage), and
# each fuzzer's run count is appended to fuzz/runs.tsv, the cumulative ledger. Any crash,
# sanitizer report, leak or timeout fails it; the reproducer is left in BUILD/fuzz/.
# Usage: fuzz/run_fuzzers.sh FUZZ_BUILD SECONDS
set -euo pipefail
build=$(cd "$1" && pwd)/fuzz
seconds=$2
repo=$(cd "$(dirname "$0")/.." && pwd)
export OMP_NUM_THREADS=1
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# The archive seeds of this version of the format (ctest's fixture writes them).
(cd "$build/.." && ctest -R '^fuzz_seed_corpus$' > /dev/null)

declare -A extra=(
  [archive_fuzzer]="-max_len=32768 -dict=$repo/fuzz/archive.dict"
  [tensor_file_fuzzer]="-max_len=16384 -dict=$repo/fuzz/tensor_file.dict"
)
declare -A corpus=([archive_fuzzer]=archive [tensor_file_fuzzer]=tensor_files)
pids=()
for fuzzer in archive_fuzzer tensor_file_fuzzer; do
  work=$build/work_${corpus[$fuzzer]}
  rm -rf "$work" && mkdir -p "$work"
  seeds=()
  [ "$fuzzer" = archive_fuzzer ] && seeds=("$build/corpus")
  # shellcheck disable=SC2086 -- the extra flags are words
  "$build/$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -print_funcs=0 ${extra[$fuzzer]} -artifact_prefix="$build/" \
    "$work" "$repo/fuzz/corpus/${corpus[$fuzzer]}" "${seeds[@]}" > "$build/$fuzzer.log" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done

commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
ledger=$repo/fuzz/runs.tsv
for fuzzer in archive_fuzzer tensor_file_fuzzer; do
  log=$build/$fuzzer.log
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if ! grep -q '^Done [0-9]* runs' "$log"; then
    echo "$fuzzer FAILED; its log ($log) ends:"; tail -40 "$log"; status=1; continue
  fi
  # The kept corpus and what this session found, minimised together into a fresh folder (the
  # smallest set libFuzzer finds with the same coverage), which then replaces the kept one.
  kept=$repo/fuzz/corpus/${corpus[$fuzzer]}
  before=$(ls "$kept" | wc -l)
  merged=$build/merged_${corpus[$fuzzer]}
  rm -rf "$merged" && mkdir -p "$merged"
  # shellcheck disable=SC2086
  "$build/$fuzzer" -merge=1 ${extra[$fuzzer]} "$merged" "$kept" "$build/work_${corpus[$fuzzer]}" \
    > "$build/$fuzzer.merge.log" 2>&1
  find "$kept" -type f -delete
  cp "$merged"/* "$kept"/
  after=$(ls "$kept" | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\t0\n' "$(date -u +%Y-%m-%d)" "$commit" "$fuzzer" "$runs" \
    "$seconds" >> "$ledger"
  echo "$fuzzer: $runs runs in $seconds s ($rate/s), 0 crashes; corpus ${corpus[$fuzzer]}:" \
    "$before -> $after inputs"
done
awk -F'\t' '!/^#/ && NF >= 6 { runs[$3] += $4; all += $4 }
  END { for (f in runs) printf "cumulative in fuzz/runs.tsv: %s %d runs\n", f, runs[f];
        printf "cumulative in fuzz/runs.tsv: all %d runs\n", all }' "$ledger"
exit $status
