"""Timing helpers shared by bench/compare_ops.py and bench/compare_models.py.

Importing this module sets OPENBLAS_CORETYPE before torch is imported (else OpenBLAS misdetects
this CPU), so import it before torch.
"""
import json
import os
import re
import statistics
import subprocess
import time

os.environ.setdefault("OPENBLAS_CORETYPE", "SkylakeX")


def time_torch(fn, min_time=0.5, min_runs=5, warmup=True):
    """Median seconds per call of fn() over at least min_time seconds and min_runs calls."""
    if warmup:
        fn()
    times = []
    start = time.perf_counter()
    while time.perf_counter() - start < min_time or len(times) < min_runs:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def list_benchmarks(binary):
    """The benchmark names a Google Benchmark binary registers."""
    return subprocess.run([binary, "--benchmark_list_tests=true"], check=True,
                          capture_output=True, text=True).stdout.split()


def time_xport(binary, name, threads, repetitions=5, min_time=None):
    """Seconds per iteration (real time) of benchmark `name`: the median over repetitions, run in
    one process with OMP_NUM_THREADS=threads."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    cmd = [binary, "--benchmark_filter=^" + re.escape(name) + "$", "--benchmark_format=json",
           "--benchmark_repetitions=%d" % repetitions]
    if repetitions > 1:
        cmd.append("--benchmark_report_aggregates_only=true")
    if min_time is not None:
        cmd.append("--benchmark_min_time=%g" % min_time)
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    for b in json.loads(out)["benchmarks"]:
        if repetitions == 1 or b.get("aggregate_name") == "median":
            scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
            return b["real_time"] * scale
    raise RuntimeError("no median for " + name)
