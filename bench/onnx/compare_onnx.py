#!/usr/bin/env python3
"""ONNX export: `xport onnx` beside PyTorch's exporter (torch.onnx.export, dynamo=True) on the peer
benchmark's programs, and ONNX Runtime's latency on both files, interleaved in one run.

Usage (bench/onnx/run.sh calls this with the test environment's Python):
  compare_onnx.py [--build DIR] [--rows REGEX] [--rounds R] [--exports E] [--tolerance T]
                  [--quick]

Rows: the peer benchmark's (bench/peers/peers.py: the reference MLP, Hugging Face's ResNet-50,
BERT-base and GPT-2 with weights from a fixed seed). peers.prepare() writes, or finds up to date,
what this needs of a row in BUILD/peers/<row>/ and nothing more: the weights, the input
(input.npy) and the row's one program, the model exported by torch.export.export and saved with
torch.export.save (model.torch.pt2).

Export time: both exporters start from that file, each in a cold process timed end to end, from
the process's start to its exit with the file written: PyTorch's is `python -c "...
torch.onnx.export(torch.export.load('model.torch.pt2'), (x,), OUT, dynamo=True,
external_data=False)"` (interpreter start, import of torch, load, export, write; the same call as
peers.py's ONNX Runtime and OpenVINO file), xport's is `xport onnx model.torch.pt2 OUT`
(start, archive load, run_decompositions, lowering, the ONNX checker, write). Both put the
weights in the file. The two alternate, E processes each (the first of each pair rotating), after
one read of the program file so that both find it in the page cache; the figure is the median.
Latency: in each of R rounds, ONNX Runtime runs each file in a fresh process (bench/peers/
torch_peer.py --engine ort: 2 intra-op threads, graph optimizations 'all'), in an order rotated
from round to round; the latency is the median over rounds of the round's median. Numerics: each
file's first output against PyTorch eager's on the row's weights (out.eager.npy, which peers.py
writes; run here when it is missing or older than the program), max|y - y_eager| / max|y_eager|;
the script fails (exit 1, after the table) above --tolerance (1e-3).
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


def timed_process(argv, out):
    """The wall time of one process `argv`, start to exit, writing a new `out` (replacing the
    last file would add the time the kernel takes to free its pages)."""
    if os.path.exists(out):
        os.remove(out)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          env=dict(os.environ, OMP_NUM_THREADS="2"))
    s = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError("%s failed (exit %d):\n%s" % (
            " ".join(argv[:2]), proc.returncode, proc.stderr.decode(errors="replace")[-3000:]))
    return s


# torch.onnx.export of the saved program, as peers.py makes its model.onnx.
TORCH_EXPORT = r"""
import sys, warnings, logging
warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
import numpy as np, torch
torch.set_num_threads(2)
program = torch.export.load(sys.argv[1])
x = torch.from_numpy(np.load(sys.argv[2]))
torch.onnx.export(program, (x,), sys.argv[3], dynamo=True, external_data=False, verbose=False)
"""


def export_seconds(xport, row, files, exports):
    """{exporter: median seconds} of `exports` cold processes each of torch.onnx.export and
    `xport onnx` on the row's saved program, alternating (the first of each pair rotating)."""
    argv = {"torch": [peers.PYTHON, "-c", TORCH_EXPORT, row.torch_program, row.input,
                      files["torch"]],
            "xport": [xport, "onnx", row.torch_program, files["xport"]]}
    with open(row.torch_program, "rb") as f:  # into the page cache, for both
        while f.read(1 << 24):
            pass
    times = {"torch": [], "xport": []}
    for i in range(exports):
        for exporter in (("xport", "torch") if i % 2 == 0 else ("torch", "xport")):
            times[exporter].append(timed_process(argv[exporter], files[exporter]))
    return {e: statistics.median(t) for e, t in times.items()}


def eager_reference(row):
    """Writes PyTorch eager's output on the row's weights and input (out.eager.npy, as peers.py
    does) unless it is there and newer than the program."""
    out = row.output("eager")
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(row.torch_program):
        return
    subprocess.run([peers.PYTHON, os.path.join(ROOT, "bench", "peers", "torch_peer.py"),
                    "--engine", "eager", "--model", row.model, "--weights", row.weights,
                    "--input", row.input, "--runs", "1", "--warmup", "0", "--threads", "2",
                    "--out", out], check=True, stdout=subprocess.DEVNULL,
                   env=dict(os.environ, OMP_NUM_THREADS="2"))


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
    parser.add_argument("--tolerance", type=float, default=1e-3,
                        help="largest max|y - y_eager| / max|y_eager| accepted")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.exports, args.warmup, args.runs, args.min_time = 1, 1, 2, 2, 0.0
    xport = os.path.join(args.build, "xport")
    # peers.prepare() with no engine: the weights, input and program alone.
    peer_args = argparse.Namespace(
        engines=(), xport_bin=os.path.join(args.build, "bench", "xport_peer_bench"),
        xport_cli=xport, baseline_bin=None)
    source_digest = peers.digest([peers.REFERENCE, os.path.join(ROOT, "bench", "peers",
                                                                "torch_peer.py")],
                                 extra="prepare %d" % peers.PREPARE_VERSION)
    rows = [peers.Row(name, os.path.join(args.build, "peers")) for name in peers.ROWS
            if re.search(args.rows, name)]
    if not rows:
        sys.exit("compare_onnx.py: --rows %r matches none of %s" % (args.rows,
                                                                    ", ".join(peers.ROWS)))
    results = {}
    for row in rows:
        peers.prepare(row, peer_args, source_digest)
        eager_reference(row)
        files = {"torch": os.path.join(row.dir, "model.torch_program.onnx"),
                 "xport": os.path.join(row.dir, "model.xport.onnx")}
        r = results[row.name] = {"latency": {"torch": [], "xport": []}, "files": files}
        seconds = export_seconds(xport, row, files, args.exports)
        r["xport_s"], r["torch_s"] = seconds["xport"], seconds["torch"]
        r["xport_mb"] = os.path.getsize(files["xport"]) / 1e6
        r["torch_mb"] = os.path.getsize(files["torch"]) / 1e6
        r["floor_s"] = write_floor_seconds(row.dir, os.path.getsize(files["xport"]),
                                           args.exports)
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
    print("%d round(s) of ONNX Runtime; export of the program torch.export saved "
          "(model.torch.pt2): each exporter's whole cold process, start to exit (median of %d, "
          "alternating)" % (args.rounds, args.exports))
    print()
    line = "%-13s %9s %9s %8s %9s | %8s %8s | %9s %9s %7s | %9s %9s"
    print(line % ("row", "xport", "torch", "speedup", "write", "xport", "torch", "ORT xport",
                  "ORT torch", "ratio", "rel diff", "rel diff"))
    print(line % ("", "export s", "export s", "", "floor s", "MB", "MB", "ms", "ms", "", "xport",
                  "torch"))
    print("-" * 135)
    problems = []
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
        for exporter, d in zip(("xport", "torch"), diffs):
            if d is None or not d <= args.tolerance:
                problems.append("%s: the %s file's output against eager's: %s (limit %.0e)" % (
                    row.name, exporter, peers.fmt(d, "%.2e"), args.tolerance))
    if problems:
        print("FAILED:\n  " + "\n  ".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
