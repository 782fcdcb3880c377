#!/usr/bin/python3
"""PyTorch's side of bench/linalg_bench.cpp: the same GEMM, bmm and ResNet-50 conv2d cases.

Run as: OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 bench/torch_linalg_bench.py [threads]
(threads defaults to 2, matching OMP_NUM_THREADS=2 for xport_linalg_bench).
"""
import sys
import time

import torch

CONV_CASES = [  # name, in_channels, size, out_channels, kernel, stride, padding
    ("stem_3x224_k7s2", 3, 224, 64, 7, 2, 3),
    ("c64x56_k3", 64, 56, 64, 3, 1, 1),
    ("c256x56_k1", 256, 56, 64, 1, 1, 0),
    ("c128x28_k3", 128, 28, 128, 3, 1, 1),
    ("c256x14_k3", 256, 14, 256, 3, 1, 1),
    ("c512x7_k3", 512, 7, 512, 3, 1, 1),
    ("c1024x14_k1", 1024, 14, 256, 1, 1, 0),
]


def measure(fn, min_time=1.0, min_iters=3):
    """Median seconds per call, after a warm-up call."""
    fn()
    times = []
    start = time.perf_counter()
    while len(times) < min_iters or time.perf_counter() - start < min_time:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def report(name, seconds, flops):
    print("%-28s %10.1f us %8.1f GFLOP/s" % (name, seconds * 1e6, flops / seconds * 1e-9))


def main():
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    print("torch", torch.__version__, "threads", torch.get_num_threads())
    with torch.no_grad():
        for n in (1024, 4096):
            a, b = torch.randn(n, n), torch.randn(n, n)
            report("BM_Gemm/%d" % n, measure(lambda: torch.mm(a, b)), 2.0 * n ** 3)
        for seq in (128, 512):
            q, k = torch.randn(12, seq, 64), torch.randn(12, seq, 64)
            report("BM_Bmm/%d" % seq, measure(lambda: torch.bmm(q, k.transpose(1, 2))),
                   2.0 * 12 * seq * seq * 64)
        for name, c, size, o, kernel, stride, padding in CONV_CASES:
            x = torch.randn(1, c, size, size)
            w = torch.randn(o, c, kernel, kernel)
            out = (size + 2 * padding - kernel) // stride + 1
            fn = lambda: torch.nn.functional.conv2d(x, w, None, stride, padding)
            report("BM_Conv2d/" + name, measure(fn), 2.0 * o * out * out * c * kernel * kernel)


if __name__ == "__main__":
    main()
