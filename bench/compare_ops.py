#!/usr/bin/env python3
"""Runs each op microbenchmark in xport and in PyTorch 1.13, interleaved, and prints one table.

Usage: bench/compare_ops.py [BUILD_DIR] [--filter REGEX] [--threads N]
Both sides use the same number of threads (default 2). Medians of repeated runs are compared;
the machine is noisy, so only numbers from one run of this script are comparable.
"""
import argparse
import os
import re
import sys

from bench_common import list_benchmarks, time_torch, time_xport  # first: sets up OpenBLAS
import torch
import torch.nn.functional as F

N16M = 16 * 1024 * 1024


def conv_case(n, c, h, w, k, kernel, stride, pad):
    x = torch.randn(n, c, h, w)
    wt = torch.randn(k, c, kernel, kernel)
    ho = (h + 2 * pad - kernel) // stride + 1
    wo = (w + 2 * pad - kernel) // stride + 1
    flops = 2.0 * n * k * ho * wo * c * kernel * kernel
    return (lambda: F.conv2d(x, wt, None, stride, pad)), {"GFLOP/s": flops}


def gemm_case(m, n, k):
    a, b = torch.randn(m, k), torch.randn(k, n)
    return (lambda: torch.mm(a, b)), {"GFLOP/s": 2.0 * m * n * k}


def bmm_case(heads, seq, d):
    q, k = torch.randn(heads, seq, d), torch.randn(heads, seq, d)
    return (lambda: torch.bmm(q, k.transpose(1, 2))), {"GFLOP/s": 2.0 * heads * seq * seq * d}


def torch_cases():
    """xport benchmark name -> (PyTorch callable, work per call)."""
    a, b = torch.randn(N16M), torch.randn(N16M)
    x3 = torch.randn(64, 128, 768)
    ln_w, ln_b = torch.randn(768), torch.randn(768)
    s1, s2 = torch.randn(16), torch.randn(16)
    cases = {
        "BM_AddSmall": (lambda: s1 + s2, {"GB/s": 3 * 16 * 4}),
        "BM_Add16M": (lambda: a + b, {"GB/s": 3 * N16M * 4}),
        "BM_Gelu16M": (lambda: F.gelu(a), {"GB/s": 2 * N16M * 4}),
        "BM_Softmax": (lambda: torch.softmax(x3, -1), {"GB/s": 2 * x3.numel() * 4}),
        "BM_LayerNorm": (lambda: F.layer_norm(x3, (768,), ln_w, ln_b), {"GB/s": 2 * x3.numel() * 4}),
        "BM_Gemm/1024": gemm_case(1024, 1024, 1024),
        "BM_Gemm/4096": gemm_case(4096, 4096, 4096),
        "BM_Bmm/128": bmm_case(12, 128, 64),
        "BM_Bmm/512": bmm_case(12, 512, 64),
    }
    for name, shape in CONV_SHAPES.items():
        cases["BM_Conv2d/" + name] = conv_case(*shape)
    return cases


# name -> (N, C, H, W, K, kernel, stride, padding): ResNet-50 layers at batch 1.
CONV_SHAPES = {
    "stem_3x224_k7s2": (1, 3, 224, 224, 64, 7, 2, 3),
    "c64x56_k3": (1, 64, 56, 56, 64, 3, 1, 1),
    "c256x56_k1": (1, 256, 56, 56, 64, 1, 1, 0),
    "c128x28_k3": (1, 128, 28, 28, 128, 3, 1, 1),
    "c256x14_k3": (1, 256, 14, 14, 256, 3, 1, 1),
    "c1024x14_k1": (1, 1024, 14, 14, 256, 1, 1, 0),
    "c512x7_k3": (1, 512, 7, 7, 512, 3, 1, 1),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build", nargs="?", default="build")
    parser.add_argument("--filter", default=".")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    binary = os.path.join(args.build, "bench", "xport_ops_bench")
    listed = list_benchmarks(binary)
    cases = torch_cases()
    print("%-28s %12s %12s %8s %14s %14s" % ("case", "xport ms", "torch ms", "ratio",
                                              "xport rate", "torch rate"))
    worst = 0.0
    for name in listed:
        if not re.search(args.filter, name):
            continue
        key = name.replace("/real_time", "")  # Google Benchmark's suffix for UseRealTime()
        if key not in cases:
            print("%-28s (no PyTorch counterpart)" % name)
            continue
        fn, work = cases[key]
        ours = time_xport(binary, name, args.threads)
        theirs = time_torch(fn)
        (unit, amount), = work.items()
        scale = 1e-9
        ratio = ours / theirs
        worst = max(worst, ratio)
        print("%-28s %12.4f %12.4f %8.2f %9.1f %-4s %9.1f %-4s" % (
            key, ours * 1e3, theirs * 1e3, ratio, amount * scale / ours, unit,
            amount * scale / theirs, unit))
        sys.stdout.flush()
    print("worst ratio (xport / PyTorch): %.2f" % worst)


if __name__ == "__main__":
    main()
