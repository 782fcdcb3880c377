#!/usr/bin/env python3
"""ONNX export: `xport onnx` beside PyTorch's exporter (torch.onnx.export, dynamo=True) on the peer
benchmark's models, and ONNX Runtime's latency on both files, interleaved in one run.

Usage (bench/onnx/run.sh calls this with the test environment's Python):
  compare_onnx.py [--build DIR] [--rows REGEX] [--rounds R] [--exports E] [--quick]

Rows and weights are the peer benchmark's (bench/peers/peers.py prepares them in BUILD/peers/:
the reference models with fixed weights, PyTorch's model.onnx made by torch.onnx.export with
dynamo=True, and xport's archive model.pt2 of the same model with the same weights).

Export time: both exporters start from one program, the one torch.export made of the model
(saved by torch.export.save as model.torch.pt2), each in a cold process timed end to end: PyTorch's
is `python -c "torch.onnx.export(torch.export.load(...), ..., dynamo=True)"` (start, import, load,
export, write), xport's is `xport onnx model.torch.pt2 OUT.onnx` (start, archive load,
run_decompositions, lowering, checker, write); the median of E processes each.
Latency: in each of R rounds, ONNX Runtime runs each file in a fresh process (bench/peers/
torch_peer.py --engine ort: 2 intra-op threads, graph optimizations 'all'), in an order rotated
from round to round; the latency is the median over rounds of the round's median. Numerics: each
file's output against PyTorch eager's (out.eager.npy), max|y - y_eager| / max|y_eager|.
Write floor: the time to write as many bytes as xport's file holds to a new file in the same
directory, which no exporter that puts the weights in the file can go under.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "peers"))
import peers  # noqa: E402  (the peer benchmark's rows, preparation and engines)


def timed_processes(argv, exports, out):
    """The median wall time of `exports` runs of the process `argv`, each writing a new `out`
    (replacing the last file would add the time the kernel takes to free its pages)."""
    times = []
    for _ in range(exports):
        if os.path.exists(out):
            os.remove(out)
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, OMP_NUM_THREADS="2"))
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def torch_export_seconds(row, out, exports):
    """torch.onnx.export(dynamo=True) of the saved program, a whole process each time."""
    code = r"""
import sys, warnings, logging
warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
import numpy as np, torch
torch.set_num_threads(2)
program = torch.export.load(sys.argv[1])
x = torch.from_numpy(np.load(sys.argv[2]))
with torch.no_grad():
    torch.onnx.export(program, (x,), sys.argv[3], input_names=["x"], output_names=["y"],
                      dynamo=True, external_data=False, verbose=False)
"""
    return timed_processes([peers.PYTHON, "-c", code, row.torch_program, row.input, out],
                           exports, out)


def xport_export_seconds(xport, row, out, exports):
    """`xport onnx` of the same saved program, a whole process each time."""
    return timed_processes([xport, "onnx", row.torch_program, out], exports, out)


def write_floor_seconds(directory, nbytes, exports):
    """The time to write nbytes of zeros to a new file in `directory` (1 MiB writes, the faster
    of `exports`): what any exporter that writes its weights into the file pays at least."""
    chunk = bytes(1 << 20)
    path = os.path.join(directory, "write_floor.bin")
    best = None
    for _ in range(exports):
        t0 = time.perf_counter()
        with open(path, "wb", buffering=0) as f:
            left = nbytes
            while left > 0:
                left -= f.write(chunk[:min(left, len(chunk))])
        s = time.perf_counter() - t0
        os.remove(path)
        best = s if best is None else min(best, s)
    return best


def ort_latency(onnx_path, row, args, out):
    cmd = [peers.PYTHON, os.path.join(ROOT, "bench", "peers", "torch_peer.py"), "--engine", "ort",
           "--onnx", onnx_path, "--input", row.input, "--runs", str(args.runs), "--warmup",
           str(args.warmup), "--min-time", str(args.min_time), "--threads", "2"]
    if out:
        cmd += ["--out", out]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True,
                          env=dict(os.environ, OMP_NUM_THREADS="2"))
    return statistics.median(json.loads(proc.stdout.strip().splitlines()[-1])["times_ms"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rows", default=".")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--exports", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--min-time", type=float, default=1.0)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.exports, args.warmup, args.runs, args.min_time = 1, 1, 2, 2, 0.0
    xport = os.path.join(args.build, "xport")
    # peers.prepare() wants the peer benchmark's own options.
    peer_args = argparse.Namespace(
        xport_bin=os.path.join(args.build, "bench", "xport_peer_bench"), xport_cli=xport,
        baseline_bin=None)
    source_digest = peers.digest([peers.REFERENCE, os.path.join(ROOT, "bench", "peers",
                                                                "torch_peer.py")],
                                 extra="prepare %d" % peers.PREPARE_VERSION)
    rows = [peers.Row(name, os.path.join(args.build, "peers")) for name in peers.ROWS
            if re.search(args.rows, name)]
    results = {}
    for row in rows:
        peers.prepare(row, peer_args, source_digest)
        ours = os.path.join(row.dir, "model.xport.onnx")
        theirs = os.path.join(row.dir, "model.torch_program.onnx")
        r = results[row.name] = {"latency": {"torch": [], "xport": []}}
        r["xport_s"] = xport_export_seconds(xport, row, ours, args.exports)
        r["torch_s"] = torch_export_seconds(row, theirs, args.exports)
        r["xport_mb"] = os.path.getsize(ours) / 1e6
        r["torch_mb"] = os.path.getsize(theirs) / 1e6
        r["files"] = {"torch": theirs, "xport": ours}
        r["floor_s"] = write_floor_seconds(row.dir, os.path.getsize(ours), args.exports)
        peers.log("  %s: export %.2f s (xport) vs %.2f s (torch.onnx)" %
                  (row.name, r["xport_s"], r["torch_s"]))
    for k in range(args.rounds):
        for row in rows:
            r = results[row.name]
            order = ["torch", "xport"] if (k + len(row.name)) % 2 == 0 else ["xport", "torch"]
            for engine in order:
                out = os.path.join(row.dir, "out.onnx_%s.npy" % engine) if k == 0 else None
                r["latency"][engine].append(ort_latency(r["files"][engine], row, args, out))
    eager = {row.name: np.load(row.output("eager")) for row in rows
             if os.path.exists(row.output("eager"))}
    print("machine: %s, %d cores; ONNX Runtime 2 intra-op threads" % (peers.machine(),
                                                                     os.cpu_count()))
    print("%d round(s) of ONNX Runtime; export of torch.export's saved program: each exporter's "
          "whole cold process (median of %d)" % (args.rounds, args.exports))
    print()
    line = "%-13s %9s %9s %8s %9s | %8s %8s | %9s %9s %7s | %9s %9s"
    print(line % ("row", "xport", "torch", "speedup", "write", "xport", "torch", "ORT xport",
                  "ORT torch", "ratio", "rel diff", "rel diff"))
    print(line % ("", "export s", "export s", "", "floor s", "MB", "MB", "ms", "ms", "", "xport",
                  "torch"))
    print("-" * 135)
    for row in rows:
        r = results[row.name]
        ours = statistics.median(r["latency"]["xport"])
        theirs = statistics.median(r["latency"]["torch"])
        diffs = []
        for engine in ("xport", "torch"):
            path = os.path.join(row.dir, "out.onnx_%s.npy" % engine)
            diffs.append(peers.rel_diff(np.load(path), eager[row.name])
                         if row.name in eager and os.path.exists(path) else None)
        print(line % (row.name, "%.3f" % r["xport_s"], "%.2f" % r["torch_s"],
                      "%.0fx" % (r["torch_s"] / r["xport_s"]), "%.3f" % r["floor_s"],
                      "%.1f" % r["xport_mb"],
                      "%.1f" % r["torch_mb"], "%.2f" % ours, "%.2f" % theirs,
                      "%.2f" % (ours / theirs), peers.fmt(diffs[0], "%.1e"),
                      peers.fmt(diffs[1], "%.1e")))


if __name__ == "__main__":
    main()
