#!/usr/bin/env python3
"""Export time of the control-flow ExportDB cases: xport's export_program (BM_export/<case> of
build/bench/xport_control_flow_bench) beside PyTorch 2.13's torch.export.export of PyTorch's own
ExportDB case of the same name (torch._export.db.examples), with its example inputs and dynamic
shapes; xport-only cases show "-". PyTorch's cond_branch_*, cond_predicate and
cond_branch_nonlocal_variables examples have static shapes, so torch.export specialises their
predicate to one branch, while xport's cases declare a dynamic dim and keep both. Then the runtime cost of a cond and of one while_loop
iteration beside their branches' own kernels (BM_cond / BM_branch, BM_while / BM_body).

Usage: bench/compare_control_flow.py [BUILD_DIR] [--min-time SECONDS]
One thread for both (OMP_NUM_THREADS=1, torch.set_num_threads(1)); xport cases run interleaved
with PyTorch's, each the median of 5 repetitions.
"""
import argparse
import os
import sys
import warnings

from bench_common import list_benchmarks, time_torch, time_xport  # first: sets up the environment
import torch


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    parser.add_argument("build", nargs="?", default=os.path.join(root, "build"))
    parser.add_argument("--min-time", type=float, default=0.3)
    args = parser.parse_args()
    binary = os.path.join(args.build, "bench", "xport_control_flow_bench")
    torch.set_num_threads(1)
    # PyTorch warns that a static example's predicate specialises; the table says so instead.
    warnings.filterwarnings("ignore", message="Pred is a Python constant")
    torch.manual_seed(0)
    from torch._export.db.examples import all_examples
    examples = all_examples()

    names = [b.split("/", 1)[1] for b in list_benchmarks(binary) if b.startswith("BM_export/")]
    print("%-32s %12s %18s %14s" % ("case", "xport (us)", "torch.export (us)", "torch / xport"))
    for name in names:
        ours = time_xport(binary, "BM_export/" + name, 1, min_time=args.min_time) * 1e6
        theirs = None
        example = examples.get(name)
        if example is not None:
            def export(example=example):
                torch.export.export(example.model, example.example_args, example.example_kwargs,
                                    dynamic_shapes=example.dynamic_shapes)
            theirs = time_torch(export, min_time=args.min_time, min_runs=3) * 1e6
        print("%-32s %12.1f %18s %14s" % (
            name, ours, "-" if theirs is None else "%.0f" % theirs,
            "-" if theirs is None else "%.0fx" % (theirs / ours)))

    print()
    print("%-20s %14s" % ("runtime", "us per call"))
    for b in ("BM_cond/16", "BM_branch/16", "BM_cond/4096", "BM_branch/4096"):
        print("%-20s %14.2f" % (b, time_xport(binary, b, 1, min_time=args.min_time) * 1e6))
    for b in ("BM_while/100", "BM_body/100"):
        per_iteration = time_xport(binary, b, 1, min_time=args.min_time) * 1e6 / 100
        print("%-20s %14.2f  (per iteration)" % (b, per_iteration))
    return 0


if __name__ == "__main__":
    sys.exit(main())
