#!/usr/bin/env python3
"""The runtime against the same archives compiled ahead of time (`xport compile`): per-call
latency of `xport bench FILE.pt2` and `xport bench FILE.so` on the same random inputs,
interleaved, with the compile time and the library's size. Small programs show the per-call
cost of the runtime's plan walk that the generated code removes; large ones, that the kernels
are the same.

Usage (make bench-aot):
  compare_aot.py [--build DIR] [--rows REGEX] [--rounds R] [--runs N] [--threads T]

Rows: the static archives of the build's data sets (xport_pt2, torch_pt2: written by xport and
by torch.export.save) and of the peer benchmark (bench/peers; `make bench-peers` writes them).
Each archive is compiled once into BUILD/aot_bench/<row>.so; then in each of R rounds every row
runs the runtime and the library (`xport bench --runs N`, fresh processes, order alternating
from round to round); a latency is the median over rounds of a round's median.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

ROWS = {
    "static_if (torch)": "torch_pt2/static_if/model.pt2",
    "static_export": "xport_pt2/static_export/model.pt2",
    "mlp_static (torch)": "torch_pt2/mlp_static/model.pt2",
    "bert_static (torch)": "torch_pt2/bert_static/model.pt2",
    "gpt2_static (torch)": "torch_pt2/gpt2_static/model.pt2",
    "resnet50_static": "xport_pt2/resnet50_static/model.pt2",
    "peers mlp_b32": "peers/mlp_b32/model.pt2",
    "peers resnet50_b1": "peers/resnet50_b1/model.pt2",
    "peers bert_b1_t128": "peers/bert_b1_t128/model.pt2",
    "peers gpt2_b1_t128": "peers/gpt2_b1_t128/model.pt2",
}


def median_latency(xport, path, runs, threads):
    out = subprocess.run([xport, "bench", path, "--runs", str(runs), "--threads", str(threads)],
                         capture_output=True, text=True, check=True).stdout
    return float(re.search(r"latency:\s+median ([0-9.]+) (ms|us)", out).group(1)) * (
        1e-3 if re.search(r"latency:\s+median [0-9.]+ us", out) else 1.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rows", default=".")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    xport = os.path.join(args.build, "xport")
    out_dir = os.path.join(args.build, "aot_bench")
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    for name, rel in ROWS.items():
        archive = os.path.join(args.build, rel)
        if not re.search(args.rows, name):
            continue
        if not os.path.exists(archive):
            print("%s: %s is missing (make test / make bench-peers write it)" % (name, archive),
                  file=sys.stderr)
            continue
        library = os.path.join(out_dir, re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") + ".so")
        start = time.perf_counter()
        subprocess.run([xport, "compile", archive, library], check=True,
                       stdout=subprocess.DEVNULL)
        rows.append((name, library.replace(".so", ".pt2"), library,
                     time.perf_counter() - start, os.path.getsize(library)))
    times = {name: {"runtime": [], "aot": []} for name, *_ in rows}
    for rnd in range(args.rounds):
        for name, archive, library, *_ in rows:
            order = [("runtime", archive), ("aot", library)]
            for engine, path in (order if rnd % 2 == 0 else order[::-1]):
                times[name][engine].append(median_latency(xport, path, args.runs, args.threads))
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = re.search(r"^Model name:\s*(.+)$", cpu, re.M)
    print("machine: %s; %d threads; %d rounds of %d runs each, interleaved" % (
        model.group(1).strip() if model else "?", args.threads, args.rounds, args.runs))
    print("%-22s %12s %12s %8s %10s %8s" % ("row", "runtime ms", "aot ms", "aot/rt",
                                            "compile s", ".so MB"))
    for name, _, _, compile_s, size in rows:
        rt = statistics.median(times[name]["runtime"])
        aot = statistics.median(times[name]["aot"])
        print("%-22s %12.4f %12.4f %8.3f %10.2f %8.1f" % (name, rt, aot, aot / rt, compile_s,
                                                          size / 1e6))


if __name__ == "__main__":
    sys.exit(main())
