#!/usr/bin/env python3
"""The runtime of two builds on the small programs where its per-call cost shows: `xport bench`
of this build's xport tool beside another build's, interleaved, on the same archives. Before and
after a change to the runtime's plan or executor, on one machine in one run.

Usage (make bench-builds BEFORE=OTHER_BUILD):
  compare_builds.py --before OTHER_BUILD [--build DIR] [--rounds R] [--threads T] [--rows REGEX]

Rows (archives written once into BUILD/builds_bench/):
  tiny mlp b1      a 64-wide MLP at batch 1 (torch.export, then `xport decompose`);
  tiny encoder     a 2-layer transformer encoder of width 64 over 16 tokens (the same);
  mlp b1           the peer benchmark's MLP (1024-4096-4096-1024, its weights) at batch 1,
                   exported by xport_peer_bench;
  gpt2 decode      `xport demo --gpt2`'s archive (GPT-2 124M with a KV cache of 256), one new
                   token.
In each of R rounds every row runs `xport bench` of both builds in fresh processes (the order
alternating from round to round); a row's figure is the median over rounds of each run's median.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "aot"))
from compare_aot import make_tiny_models  # noqa: E402

ROWS = {
    "tiny mlp b1": ("tiny_mlp_core.pt2", ["--runs", "50000", "--warmup", "1000"]),
    "tiny encoder": ("tiny_encoder_core.pt2", ["--runs", "20000", "--warmup", "200"]),
    "mlp b1": ("mlp_b1.pt2", ["--runs", "1000", "--warmup", "50"]),
    "gpt2 decode": ("gpt2_decode.pt2", ["--shape", "ids=1x1", "--shape", "positions=1",
                                        "--runs", "100", "--warmup", "5"]),
}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def prepare(build, out, rows):
    """Writes the archive of each row in `rows` once."""
    os.makedirs(out, exist_ok=True)
    xport = os.path.join(build, "xport")
    make_tiny_models(out)
    for name in ("tiny_mlp", "tiny_encoder"):
        core = os.path.join(out, name + "_core.pt2")
        if not os.path.exists(core):  # the runtime plans core ops; training IR it interprets
            subprocess.run([xport, "decompose", os.path.join(out, name + ".pt2"), core],
                           check=True, stdout=subprocess.DEVNULL)
    mlp = os.path.join(out, "mlp_b1.pt2")
    if "mlp b1" in rows and not os.path.exists(mlp):
        import numpy as np
        weights = os.path.join(build, "peers", "weights", "mlp.safetensors")
        if not os.path.exists(weights):
            sys.exit("compare_builds.py: %s is missing; run make bench-peers once" % weights)
        x = os.path.join(out, "mlp_b1_in.npy")
        np.save(x, np.random.default_rng(0).standard_normal((1, 1024), dtype=np.float32))
        subprocess.run([os.path.join(build, "bench", "xport_peer_bench"), "export", "mlp",
                        weights, mlp, "--input", x], check=True, stdout=subprocess.DEVNULL)
    gpt2 = os.path.join(out, "gpt2_decode.pt2")
    if "gpt2 decode" in rows and not os.path.exists(gpt2):
        subprocess.run([xport, "demo", "--gpt2", "--steps", "0", "--archive", gpt2], check=True,
                       stdout=subprocess.DEVNULL)


def median_us(xport, archive, extra, threads):
    out = subprocess.run([xport, "bench", archive, "--threads", str(threads)] + extra,
                         capture_output=True, text=True, check=True).stdout
    value, unit = re.search(r"latency: +median ([0-9.]+) (us|ms|s)", out).groups()
    return float(value) * {"us": 1, "ms": 1e3, "s": 1e6}[unit]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--before", required=True, help="the other build (its xport tool)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rows", default=".")
    args = parser.parse_args()
    builds = {"before": os.path.join(os.path.abspath(args.before), "xport"),
              "after": os.path.join(os.path.abspath(args.build), "xport")}
    for path in builds.values():
        if not os.access(path, os.X_OK):
            parser.error("%s is missing; build it first" % path)
    out = os.path.join(args.build, "builds_bench")
    rows = {k: v for k, v in ROWS.items() if re.search(args.rows, k)}
    prepare(args.build, out, rows)
    times = {(row, b): [] for row in rows for b in builds}
    for r in range(args.rounds):
        order = list(builds) if r % 2 == 0 else list(reversed(list(builds)))
        for row, (archive, extra) in rows.items():
            for b in order:
                times[(row, b)].append(
                    median_us(builds[b], os.path.join(out, archive), extra, args.threads))
        log("round %d/%d done" % (r + 1, args.rounds))
    print("before: %s\nafter:  %s\n%d rounds, %d thread(s); median over rounds of `xport bench`'s "
          "median" % (builds["before"], builds["after"], args.rounds, args.threads))
    print("%-14s %12s %12s %8s" % ("row", "before us", "after us", "after/"))
    for row in rows:
        before = statistics.median(times[(row, "before")])
        after = statistics.median(times[(row, "after")])
        print("%-14s %12.2f %12.2f %8.3f" % (row, before, after, after / before))


if __name__ == "__main__":
    main()
