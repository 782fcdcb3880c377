#!/usr/bin/env python3
"""Times PT2 archives of ResNet-50 (static 1x3x224x224) and GPT-2 (dynamic sequence, run on 16
tokens): save, load beside `cat FILE > /dev/null` of the same bytes, the first run after loading,
and the peak memory of a fresh process that loads and runs, and prints a table.

Usage: bench/compare_archive.py [BUILD_DIR] [--filter REGEX] [--threads N] [--runs N]
                                [--min-time SECONDS]
The archives are written to BUILD_DIR/bench-archive/<model>.pt2 (and left there).
- save ms, load ms, load+touch ms: one process of BUILD_DIR/bench/xport_archive_bench (--runs
  repetitions, the median), which exports each model once. Loading maps the file and validates
  every field, but reads a weight's bytes only when something uses it; `load+touch` also reads one
  byte of every 4 KiB page of every stored tensor, which is what `cat` is comparable with.
  Page cache warm throughout.
- cat ms: `cat FILE > /dev/null` run as a subprocess, once to warm the cache, then the median of
  --runs (includes starting cat, about 1 ms).
- first run ms, peak RSS: the median over --runs fresh processes of
  `xport_archive_bench --load-and-run FILE MODEL`, each loading the archive and running it once.
  `first run` includes faulting the mapped weights in. Peak RSS is getrusage's ru_maxrss after
  that first run; `base MB` is the same process's peak before loading (the executable, its
  libraries, the op registry and the input), and `activ MB` = peak - weights - constants - base:
  activations, workspace and everything else the first run allocated (a little under that where
  the run leaves some weight pages untouched, e.g. the rows of GPT-2's position embedding past
  the 16 tokens).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

MODELS = ["resnet50", "gpt2"]


def run_benchmarks(binary, archive_dir, threads, runs, min_time, name_filter):
    """(kind, model) -> seconds (the median over runs) of every BM_<kind>/<model> matching
    name_filter; a failed case maps to its error message."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    cmd = [binary, "--archive-dir=" + archive_dir,
           "--benchmark_filter=^BM_(save|load|load_touch)/(" + name_filter + ")/",
           "--benchmark_format=json", "--benchmark_repetitions=%d" % runs,
           "--benchmark_min_time=%g" % min_time]
    if runs > 1:
        cmd.append("--benchmark_report_aggregates_only=true")
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    results = {}
    for b in json.loads(out)["benchmarks"]:
        kind, model = b["run_name"].split("/")[:2]
        key = (kind[len("BM_"):], model)
        if b.get("error_occurred"):
            results[key] = b["error_message"].splitlines()[0]
        elif runs == 1 or b.get("aggregate_name") == "median":
            scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
            results[key] = b["real_time"] * scale
    return results


def time_cat(path, runs):
    """Median seconds of `cat path > /dev/null` over runs, after one run to warm the cache."""
    def once():
        t0 = time.perf_counter()
        subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)
        return time.perf_counter() - t0
    once()
    return statistics.median(once() for _ in range(runs))


def load_and_run(binary, path, model, threads, runs):
    """Field -> median over runs fresh processes of `binary --load-and-run path model`."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    records = []
    for _ in range(runs):
        out = subprocess.run([binary, "--load-and-run", path, model], env=env, check=True,
                             capture_output=True, text=True).stdout
        records.append(json.loads(out))
    return {k: statistics.median(r[k] for r in records)
            for k, v in records[0].items() if isinstance(v, (int, float))}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build", nargs="?", default="build")
    parser.add_argument("--filter", default="|".join(MODELS))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5,
                        help="repetitions, cat runs and fresh processes per model (medians)")
    parser.add_argument("--min-time", type=float, default=0.2,
                        help="seconds each benchmark repetition runs (at least one iteration)")
    args = parser.parse_args()
    os.environ.setdefault("OPENBLAS_CORETYPE", "SkylakeX")
    binary = os.path.join(args.build, "bench", "xport_archive_bench")
    archive_dir = os.path.join(args.build, "bench-archive")
    os.makedirs(archive_dir, exist_ok=True)
    ours = run_benchmarks(binary, archive_dir, args.threads, args.runs, args.min_time,
                          args.filter)

    mb = 1e-6
    row = "%-9s %8s %8s %7s %8s %8s %11s %12s %12s %8s %8s %8s"
    print(row % ("model", "file MB", "save ms", "cat ms", "load ms", "load/cat", "load+touch ms",
                 "first run ms", "peak RSS MB", "weights MB", "base MB", "activ MB"))
    notes = []
    for model in MODELS:
        if not re.search(args.filter, model):
            continue
        errors = [v for k, v in ours.items() if k[1] == model and isinstance(v, str)]
        if errors:
            print("%-9s %8s" % (model, "n/a (error)"))
            notes.append("%s: %s" % (model, errors[0]))
            continue
        path = os.path.join(archive_dir, model + ".pt2")
        cat_s = time_cat(path, args.runs)
        fresh = load_and_run(binary, path, model, args.threads, args.runs)
        weights = fresh["weight_bytes"]
        activations = (fresh["peak_rss_bytes"] - weights - fresh["constant_bytes"] -
                       fresh["baseline_rss_bytes"])
        print(row % (model, "%.1f" % (os.path.getsize(path) * mb),
                     "%.1f" % (ours[("save", model)] * 1e3), "%.1f" % (cat_s * 1e3),
                     "%.1f" % (ours[("load", model)] * 1e3),
                     "%.2f" % (ours[("load", model)] / cat_s),
                     "%.1f" % (ours[("load_touch", model)] * 1e3),
                     "%.1f" % fresh["first_run_ms"], "%.1f" % (fresh["peak_rss_bytes"] * mb),
                     "%.1f" % (weights * mb), "%.1f" % (fresh["baseline_rss_bytes"] * mb),
                     "%.1f" % (activations * mb)))
        notes.append("%s: fresh process: load %.1f ms, first run %.1f ms, second run %.1f ms; "
                     "load+touch/cat %.2f" % (model, fresh["load_ms"], fresh["first_run_ms"],
                                              fresh["second_run_ms"],
                                              ours[("load_touch", model)] / cat_s))
        sys.stdout.flush()
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
