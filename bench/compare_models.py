#!/usr/bin/env python3
"""Times the eager forward of each reference model in xport and in PyTorch 1.13 and prints a table.

Usage: bench/compare_models.py [BUILD_DIR] [--filter REGEX] [--threads N] [--runs N]
                               [--min-time SECONDS]
For each case the two sides alternate for --runs rounds (so drift in machine load hits both); a
round is one process of BUILD_DIR/bench/xport_models_bench for the case, then PyTorch timing the
same model for the same minimum time. The table shows the median over rounds. PyTorch runs its
best eager mode: eval, torch.no_grad(), the same thread count, inference fast paths allowed.
The models are those of tests/models/make_parity_data.py (random weights; speed does not depend
on them).
"""
import argparse
import os
import re
import statistics
import sys

from bench_common import list_benchmarks, time_torch, time_xport  # first: sets up OpenBLAS
import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "models"))
import make_parity_data as ref  # noqa: E402

# case -> (model, batch, image side or sequence length); the names of BM_model/<case>.
CASES = {
    "mlp_b32": ("mlp", 32, None),
    "resnet18_b1": ("resnet18", 1, 224),
    "resnet50_b1": ("resnet50", 1, 224),
    "resnet50_b8": ("resnet50", 8, 224),
    "bert_b1_t128": ("bert", 1, 128),
    "bert_b8_t128": ("bert", 8, 128),
    "gpt2_b1_t128": ("gpt2", 1, 128),
}


def conv_linear_flops(model, x):
    """2 * the multiply-adds of every Conv2d and Linear module in one forward of model(x)."""
    macs = []

    def hook(m, inputs, out):
        if isinstance(m, nn.Conv2d):
            kh, kw = m.kernel_size
            macs.append(out.numel() * (m.in_channels // m.groups) * kh * kw)
        else:
            macs.append(out.numel() * m.in_features)

    handles = [m.register_forward_hook(hook) for m in model.modules()
               if isinstance(m, (nn.Conv2d, nn.Linear))]
    with torch.no_grad():
        model(x)
    for h in handles:
        h.remove()
    return 2.0 * sum(macs)


def model_flops(name, model, x):
    """FLOPs of one forward, counted as 2 * multiply-adds of the matrix products (Linear/Conv1D,
    convolutions, attention's QK^T and PV, GPT-2's logits); norms, activations, softmax, pooling
    and additions are left out (a few percent at most)."""
    if name in ("mlp", "resnet18", "resnet50"):
        return conv_linear_flops(model, x)
    n, t = x.shape[0], x.shape[1]
    if name == "bert":
        layer = model.layers[0]
        e, f = layer.linear1.in_features, layer.linear1.out_features
        layers, extra = len(model.layers), 0.0
    else:
        tr = model.transformer
        e, f = tr.wte.weight.shape[1], 4 * tr.wte.weight.shape[1]
        layers, extra = len(tr.h), n * t * e * tr.wte.weight.shape[0]  # the logits
    # Per layer and token: q, k, v and output projections (4 E^2), the feed-forward (2 E F), and
    # attention over t keys (2 t E: scores and the weighted sum; masked scores are still computed).
    per_layer = n * t * (4 * e * e + 2 * e * f + 2 * t * e)
    return 2.0 * (layers * per_layer + extra)


def time_case(binary, bench_name, spec, args):
    """(FLOPs per forward, median xport seconds, median PyTorch seconds) of one case."""
    model_name, batch, size = spec
    model = ref.build_model(model_name)
    x = ref.model_input(model_name, batch, size, seed=0)
    flops = model_flops(model_name, model, x)
    ours, theirs = [], []
    with torch.no_grad():
        model(x)  # warm-up (allocator, oneDNN primitives)
        for _ in range(args.runs):
            ours.append(time_xport(binary, bench_name, args.threads, repetitions=1,
                                   min_time=args.min_time))
            theirs.append(time_torch(lambda: model(x), min_time=args.min_time, min_runs=1,
                                     warmup=False))
    return flops, statistics.median(ours), statistics.median(theirs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build", nargs="?", default="build")
    parser.add_argument("--filter", default=".")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5, help="rounds per case and side")
    parser.add_argument("--min-time", type=float, default=0.5,
                        help="seconds each side runs a case per round (at least one call)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    binary = os.path.join(args.build, "bench", "xport_models_bench")
    listed = list_benchmarks(binary)
    print("%-16s %10s %10s %7s %14s %14s" % ("case", "xport ms", "torch ms", "ratio",
                                          "xport GFLOP/s", "torch GFLOP/s"))
    worst = 0.0
    for bench_name in listed:
        case = bench_name.split("/")[1]  # BM_model/<case>[/real_time]
        if not re.search(args.filter, case):
            continue
        if case not in CASES:
            print("%-16s (no PyTorch counterpart)" % case)
            continue
        flops, ours, theirs = time_case(binary, bench_name, CASES[case], args)
        worst = max(worst, ours / theirs)
        print("%-16s %10.2f %10.2f %7.2f %14.1f %14.1f" % (
            case, ours * 1e3, theirs * 1e3, ours / theirs, flops * 1e-9 / ours,
            flops * 1e-9 / theirs))
        sys.stdout.flush()
    print("worst ratio (xport / PyTorch): %.2f" % worst)


if __name__ == "__main__":
    main()
