#!/usr/bin/env python3
"""Training-step time: xport's exported step against PyTorch eager and torch.compile.

  compare_training.py --build BUILD [--rows REGEX] [--rounds R] [--runs K] [--min-time S]
                      [--threads N] [--quick]

Each row (bench/train/train_bench.cpp: an MLP with SGD, a 64-channel CNN with batch norm in
training mode and SGD, a 2-layer GPT-2 with AdamW) is one loss program with fixed weights and one
batch. xport runs train::export_training_step's program in the runtime (`xport_peer_bench time`:
each run is one whole step, the update included); PyTorch runs the same loss program
(torch.export.load(...).module(); the CNN as an nn.Module with the program's weights, since
torch.compile cannot differentiate the exported module's in-place update of batch norm's running
statistics) with autograd and torch.optim, eager or under torch.compile
(default mode; compiled in the warm-up steps, the compile time reported apart). Every engine: N
threads, a fresh process per round, rounds interleaved; latency is the median over rounds of the
round's median step; peak RSS is the largest ru_maxrss of the engine's process (os.wait4).
--quick: one round, one warm-up, two steps (a smoke run: its figures mean nothing).
"""
import argparse
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "peers"))
from peers import cpu_line, run_measured  # noqa: E402 (the peer benchmark's measuring)

ROWS = ("mlp", "cnn", "gpt2")
ENGINES = ("xport", "eager", "compile")


def command(engine, build, row_dir, args):
    inputs = [os.path.join(row_dir, "in0.npy"), os.path.join(row_dir, "in1.npy")]
    timing = ["--runs", str(args.runs), "--warmup", str(args.warmup), "--min-time",
              str(args.min_time), "--threads", str(args.threads)]
    if engine == "xport":
        argv = [os.path.join(build, "bench", "xport_peer_bench"), "time",
                os.path.join(row_dir, "step.pt2")]
        for f in inputs:
            argv += ["--input", f]
        return argv + timing
    cnn = ["--cnn"] if os.path.basename(row_dir) == "cnn" else []
    return [sys.executable, os.path.join(HERE, "torch_train_peer.py"), engine,
            os.path.join(row_dir, "forward.pt2"), os.path.join(row_dir, "optimizer.json")] + \
        inputs + timing + cnn


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(HERE, "..", "..", "build"))
    p.add_argument("--rows", default=".")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--min-time", type=float, default=2.0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    if args.quick:
        args.rounds, args.runs, args.warmup, args.min_time = 1, 2, 1, 0.0
    build = os.path.abspath(args.build)
    rows = [r for r in ROWS if re.search(args.rows, r)]
    if not rows:
        p.error("no row matches %r (rows: %s)" % (args.rows, ", ".join(ROWS)))
    work = os.path.join(build, "train_bench")
    code, out, err, _ = run_measured([os.path.join(build, "bench", "xport_train_bench"),
                                      "prepare", work] + rows)
    if code != 0:
        sys.exit("xport_train_bench prepare failed:\n" + err[-3000:])

    medians = {(r, e): [] for r in rows for e in ENGINES}
    rss = {}
    compile_s = {}
    for rnd in range(args.rounds):
        for i, row in enumerate(rows):
            order = ENGINES[(rnd + i) % 3:] + ENGINES[:(rnd + i) % 3]
            line = []
            for engine in order:
                code, out, err, peak = run_measured(
                    command(engine, build, os.path.join(work, row), args))
                if code != 0:
                    sys.exit("%s on %s failed:\n%s" % (engine, row, err[-3000:]))
                result = json.loads(out.strip().splitlines()[-1])
                medians[(row, engine)].append(statistics.median(result["times_ms"]))
                rss[(row, engine)] = max(rss.get((row, engine), 0), peak)
                if "compile_s" in result and engine == "compile":
                    compile_s[row] = result["compile_s"]
                line.append("%s %.2f" % (engine, medians[(row, engine)][-1]))
            print("round %d/%d %-5s %s" % (rnd + 1, args.rounds, row, "  ".join(line)),
                  flush=True)

    print(cpu_line())
    print("threads per engine: %d; %d round(s); latency = median over rounds of the round's "
          "median step (ms)" % (args.threads, args.rounds))
    print("%-6s %9s %9s %9s %11s %12s" % ("row", "xport", "eager", "compile", "xport/best",
                                         "compile s"))
    for row in rows:
        m = {e: statistics.median(medians[(row, e)]) for e in ENGINES}
        best = min(m["eager"], m["compile"])
        print("%-6s %9.2f %9.2f %9.2f %11.2f %12.1f" % (
            row, m["xport"], m["eager"], m["compile"], m["xport"] / best, compile_s.get(row, 0)))
    print("peak RSS (MB): the largest ru_maxrss of each engine's process")
    print("%-6s %9s %9s %9s" % (("row",) + ENGINES))
    for row in rows:
        print("%-6s %9.0f %9.0f %9.0f" % ((row,) + tuple(rss[(row, e)] for e in ENGINES)))


if __name__ == "__main__":
    main()
