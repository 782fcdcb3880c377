#!/usr/bin/env python3
"""The runtime against the same archives compiled ahead of time (`xport compile`): per-call
latency of runtime::Program on NAME.so (through the library's C++ entrance, and through its C
ABI) and on the archive beside it, NAME.pt2, the same program (`xport_peer_bench time`, the
same inputs), interleaved, with the compile time and the library's size. Small programs of
many small ops show the per-call cost of the runtime's plan walk that the generated code
removes, and of the C ABI's marshalling; large ones, that the kernels are the same.

Usage (make bench-aot):
  compare_aot.py [--build DIR] [--rows REGEX] [--rounds R] [--min-time S] [--threads T]

Rows: tiny models exported by torch.export here (an MLP at batch 1, a 2-layer transformer
encoder of width 64 over 16 tokens), archives of the build's data sets (written by xport and by
torch.export.save: static ones, dynamic ones at their first recorded shape, and control flow)
and the peer benchmark's (bench/peers; `make bench-peers` writes them).
Each archive is compiled once into BUILD/aot_bench/; then in each of R rounds every row runs the
runtime and the library (both ways) in fresh processes, in an order rotating from round to
round, each timing runs for S seconds after warm-up; a latency is the median over rounds of a
round's median.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

# row -> (archive, inputs) relative to the build tree; "tiny ..." rows are made here.
ROWS = {
    "tiny mlp b1 (torch)": ("aot_bench/tiny_mlp.pt2", ["aot_bench/tiny_mlp_in0.npy"]),
    "tiny encoder (torch)": ("aot_bench/tiny_encoder.pt2", ["aot_bench/tiny_encoder_in0.npy"]),
    "static_if (torch)": ("torch_pt2/static_if/model.pt2", ["torch_pt2/static_if/run0_in0.npy"]),
    "mlp_static (torch)": ("torch_pt2/mlp_static/model.pt2",
                           ["torch_pt2/mlp_static/run0_in0.npy"]),
    "bert_static (torch)": ("torch_pt2/bert_static/model.pt2",
                            ["torch_pt2/bert_static/run0_in0.npy"]),
    "gpt2_static (torch)": ("torch_pt2/gpt2_static/model.pt2",
                            ["torch_pt2/gpt2_static/run0_in0.npy"]),
    "bert_dynamic (torch)": ("torch_pt2/bert_dynamic/model.pt2",
                             ["torch_pt2/bert_dynamic/run0_in0.npy"]),
    "gpt2_dynamic (torch)": ("torch_pt2/gpt2_dynamic/model.pt2",
                             ["torch_pt2/gpt2_dynamic/run0_in0.npy"]),
    "cond nested (xport)": ("xport_pt2/cond_branch_nested_function/model.pt2",
                            ["xport_pt2/cond_branch_nested_function/run0_in0.npy"]),
    "peers mlp_b32": ("peers/mlp_b32/model.pt2", ["peers/mlp_b32/input.npy"]),
    "peers resnet50_b1": ("peers/resnet50_b1/model.pt2", ["peers/resnet50_b1/input.npy"]),
    "peers bert_b1_t128": ("peers/bert_b1_t128/model.pt2", ["peers/bert_b1_t128/input.npy"]),
    "peers gpt2_b1_t128": ("peers/gpt2_b1_t128/model.pt2", ["peers/gpt2_b1_t128/input.npy"]),
}


def make_tiny_models(out_dir):
    """The tiny rows' archives and inputs, written once by torch.export.save."""
    if all(os.path.exists(os.path.join(out_dir, f)) for f in (
            "tiny_mlp.pt2", "tiny_mlp_in0.npy", "tiny_encoder.pt2", "tiny_encoder_in0.npy")):
        return
    import numpy as np
    import torch
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64),
                              torch.nn.GELU(), torch.nn.Linear(64, 16)).eval()
    layer = torch.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)
    encoder = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    for name, model, x in (("tiny_mlp", mlp, torch.randn(1, 64)),
                           ("tiny_encoder", encoder, torch.randn(1, 16, 64))):
        with torch.no_grad():
            program = torch.export.export(model, (x,))
        torch.export.save(program, os.path.join(out_dir, name + ".pt2"))
        np.save(os.path.join(out_dir, name + "_in0.npy"), x.numpy())


def latency_ms(bench, path, inputs, args, env=None):
    command = [bench, "time", path, "--warmup", "20", "--runs", "20", "--min-time",
               str(args.min_time), "--threads", str(args.threads)]
    for i in inputs:
        command += ["--input", i]
    out = subprocess.run(command, capture_output=True, text=True, check=True,
                         env=env).stdout
    return statistics.median(json.loads(out.strip().splitlines()[-1])["times_ms"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rows", default=".")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--min-time", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    xport = os.path.join(args.build, "xport")
    bench = os.path.join(args.build, "bench", "xport_peer_bench")
    out_dir = os.path.join(args.build, "aot_bench")
    os.makedirs(out_dir, exist_ok=True)
    make_tiny_models(out_dir)
    rows = []
    for name, (rel, inputs) in ROWS.items():
        archive = os.path.join(args.build, rel)
        inputs = [os.path.join(args.build, i) for i in inputs]
        if not re.search(args.rows, name):
            continue
        if not all(map(os.path.exists, [archive] + inputs)):
            print("%s: %s is missing (make test / make bench-peers write it)" % (name, archive),
                  file=sys.stderr)
            continue
        stem = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")
        library = os.path.join(out_dir, stem + ".so")
        start = time.perf_counter()
        subprocess.run([xport, "compile", archive, library], check=True,
                       stdout=subprocess.DEVNULL)
        # The runtime runs the archive beside the library: the same program (PyTorch's
        # composite ops are decomposed there).
        rows.append((name, library[:-3] + ".pt2", library, inputs, time.perf_counter() - start,
                     os.path.getsize(library)))
    # The library as this build's runtime::Program calls it (its C++ entrance), and as a host
    # of another build would (its C ABI, XPORT_MODEL_C_ABI=1).
    c_abi = dict(os.environ, XPORT_MODEL_C_ABI="1")
    times = {row[0]: {"runtime": [], "aot": [], "aot C ABI": []} for row in rows}
    for rnd in range(args.rounds):
        for name, archive, library, inputs, *_ in rows:
            order = [("runtime", archive, None), ("aot", library, None),
                     ("aot C ABI", library, c_abi)]
            order = order[rnd % 3:] + order[:rnd % 3]
            for engine, path, env in (order if rnd % 2 == 0 else order[::-1]):
                times[name][engine].append(latency_ms(bench, path, inputs, args, env))
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = re.search(r"^Model name:\s*(.+)$", cpu, re.M)
    print("machine: %s; %d threads; %d rounds, >= %g s per engine and round, interleaved" % (
        model.group(1).strip() if model else "?", args.threads, args.rounds, args.min_time))
    print("%-22s %12s %12s %12s %8s %10s %8s" % ("row", "runtime ms", "aot ms", "C ABI ms",
                                                 "aot/rt", "compile s", ".so MB"))
    for name, _, _, _, compile_s, size in rows:
        rt = statistics.median(times[name]["runtime"])
        aot = statistics.median(times[name]["aot"])
        through_c = statistics.median(times[name]["aot C ABI"])
        print("%-22s %12.4g %12.4g %12.4g %8.3f %10.2f %8.1f" % (
            name, rt, aot, through_c, aot / rt, compile_s, size / 1e6))


if __name__ == "__main__":
    sys.exit(main())
