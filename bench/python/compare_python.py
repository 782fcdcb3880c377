#!/usr/bin/env python3
"""The Python package beside PyTorch on the same .pt2 archives (written by torch.export.save):
`xport.load(path)(x)` against `torch.export.load(path).module()(x)`, and the C++ runtime
(`xport bench`) for the per-call cost of the binding. One interleaved run.

Usage (make bench-python; the test environment's Python, with the package installed by
tests/python/build_package.sh):
  compare_python.py [--build DIR] [--rows REGEX] [--rounds R] [--calls N] [--threads T]

Each measurement is a fresh process: import (of `xport`, NumPy included, or of `torch`), load,
the first call, then N calls (the median); its peak RSS (ru_maxrss) and, after the calls, its
anonymous RSS (RssAnon: memory the process owns, where mapped archive pages are page cache that
the kernel can drop and that every process mapping the file shares). In each of R rounds every
row runs xport, torch and the C++ runtime in an order rotated from round to round; a figure is
the median over rounds. All use T threads (default 2). The wheel sizes are the package's (built
in BUILD/python/wheel) and torch's CPU wheel.
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

# Archives of tests/serde/torch_export_cases.py (full-size weights; small inputs, so that the
# fixed costs show), and a tiny ExportDB program where the per-call overhead is all there is.
ROWS = ["torch_pt2/static_if", "torch_pt2/mlp_static", "torch_pt2/resnet50_static",
        "torch_pt2/bert_static", "torch_pt2/gpt2_static"]

WORKER = r"""
import json, os, resource, sys, time
t0 = time.perf_counter()
engine, path, calls, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
inputs = sys.argv[5:]
if engine == "xport":
    import xport
    t1 = time.perf_counter()
    import numpy as np
    xs = [np.load(f) for f in inputs]
    t2 = time.perf_counter()
    program = xport.load(path, threads=threads)
    call = lambda: program(*xs)
else:
    import torch
    t1 = time.perf_counter()
    import numpy as np
    torch.set_num_threads(threads)
    xs = [torch.from_numpy(np.load(f)) for f in inputs]
    t2 = time.perf_counter()
    module = torch.export.load(path).module()
    torch.set_grad_enabled(False)
    call = lambda: module(*xs)
t3 = time.perf_counter()
call()
t4 = time.perf_counter()
times = []
for _ in range(calls):
    s = time.perf_counter()
    call()
    times.append(time.perf_counter() - s)
times.sort()
anon_kb = 0
with open("/proc/self/status") as f:
    for line in f:
        if line.startswith("RssAnon:"):
            anon_kb = int(line.split()[1])
print(json.dumps({"anon_mb": anon_kb / 1024, "import_s": t1 - t0, "load_s": t3 - t2, "first_s": t4 - t3,
                  "call_ms": 1e3 * times[len(times) // 2],
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_python(engine, row, args):
    case_dir = os.path.join(args.build, row)
    inputs = sorted(glob.glob(os.path.join(case_dir, "run0_in*.npy")))
    out = subprocess.run([sys.executable, "-c", WORKER, engine, os.path.join(case_dir, "model.pt2"),
                          str(args.calls), str(args.threads)] + inputs,
                         capture_output=True, text=True, check=True,
                         env=dict(os.environ, OMP_NUM_THREADS=str(args.threads)))
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_cpp(row, args):
    """The C++ runtime's median call on the same archive (`xport bench`: the rows' inputs are
    static, so it runs the contract's shapes, on random values)."""
    cmd = [os.path.join(args.build, "xport"), "bench", os.path.join(args.build, row, "model.pt2"),
           "--threads", str(args.threads), "--runs", str(args.calls)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                         env=dict(os.environ, OMP_NUM_THREADS=str(args.threads)))
    m = re.search(r"latency:\s+median ([0-9.]+) (ms|us)", out.stdout)
    if not m:
        raise RuntimeError("xport bench printed no latency:\n" + out.stdout)
    return float(m.group(1)) / (1000.0 if m.group(2) == "us" else 1.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rows", default=".")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    rows = [r for r in ROWS if re.search(args.rows, r)]
    results = {r: {"xport": [], "torch": [], "cpp": []} for r in rows}
    for k in range(args.rounds):
        for row in rows:
            order = ["xport", "torch", "cpp"]
            order = order[k % 3:] + order[:k % 3]
            for engine in order:
                if engine == "cpp":
                    results[row]["cpp"].append(run_cpp(row, args))
                else:
                    results[row][engine].append(run_python(engine, row, args))
        print("round %d of %d done" % (k + 1, args.rounds), file=sys.stderr, flush=True)

    def med(row, engine, key):
        return statistics.median(r[key] for r in results[row][engine])

    cpu = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    print("machine: %s, %d cores; %d threads; %d round(s), median of %d calls each"
          % (cpu, os.cpu_count(), args.threads, args.rounds, args.calls))
    print()
    line = ("%-28s %8s %8s | %8s %8s | %9s %9s %7s | %9s %9s %9s | %7s %7s %5s"
            " | %7s %7s %5s")
    print(line % ("archive (torch.export.save)", "import", "", "load", "", "start", "", "",
                  "call", "", "", "peak RSS", "", "", "anonymous RSS", "", ""))
    print(line % ("", "xport s", "torch s", "xport s", "torch s", "xport s", "torch s", "ratio",
                  "xport ms", "C++ ms", "torch ms", "xport", "torch", "ratio", "xport", "torch",
                  "ratio"))
    print("-" * 170)
    for row in rows:
        start = {e: med(row, e, "import_s") + med(row, e, "load_s") + med(row, e, "first_s")
                 for e in ("xport", "torch")}
        print(line % (row.split("/")[1], "%.3f" % med(row, "xport", "import_s"),
                      "%.3f" % med(row, "torch", "import_s"),
                      "%.3f" % med(row, "xport", "load_s"), "%.3f" % med(row, "torch", "load_s"),
                      "%.3f" % start["xport"], "%.3f" % start["torch"],
                      "%.0fx" % (start["torch"] / start["xport"]),
                      "%.3f" % med(row, "xport", "call_ms"),
                      "%.3f" % statistics.median(results[row]["cpp"]),
                      "%.3f" % med(row, "torch", "call_ms"),
                      "%.0f MB" % med(row, "xport", "rss_mb"),
                      "%.0f MB" % med(row, "torch", "rss_mb"),
                      "%.2f" % (med(row, "xport", "rss_mb") / med(row, "torch", "rss_mb")),
                      "%.0f MB" % med(row, "xport", "anon_mb"),
                      "%.0f MB" % med(row, "torch", "anon_mb"),
                      "%.2f" % (med(row, "xport", "anon_mb") / med(row, "torch", "anon_mb"))))
    print()
    print("start = import + load + first call. peak RSS: the process's peak (ru_maxrss), mapped")
    print("archive pages included. anonymous RSS: RssAnon after the calls, what each process adds")
    print("beyond the page cache that processes mapping the same archive share.")
    wheels = glob.glob(os.path.join(args.build, "python", "wheel", "xport-*.whl"))
    torch_wheels = glob.glob("/opt/wheels/torch-2.13.0*.whl")
    if wheels:
        print("wheel: xport %.1f MB" % (os.path.getsize(wheels[0]) / 1e6), end="")
        if torch_wheels:
            print(", torch 2.13 (CPU) %.1f MB" % (os.path.getsize(torch_wheels[0]) / 1e6), end="")
        print()


if __name__ == "__main__":
    main()
