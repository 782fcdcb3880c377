#!/usr/bin/env python3
"""Times graph capture of each reference model: xport's export_program beside PyTorch 1.13's
torch.jit.trace and torch.fx.symbolic_trace, and prints a table.

Usage: bench/compare_export.py [BUILD_DIR] [--filter REGEX] [--threads N] [--runs N]
                               [--min-time SECONDS]
xport: one process of BUILD_DIR/bench/xport_export_bench (--runs repetitions, the median).
PyTorch: the models of tests/models/make_parity_data.py in eval mode on the same input shapes,
under torch.no_grad(); each capture is warmed up once, then the median of at least --runs calls
and 0.5 s.
The capture methods differ in what they do, which the table's extra columns put in view:
- export_program traces on fake tensors (shapes only, no arithmetic) and returns ATen-level ops.
- torch.jit.trace runs the model on real data, and by default (check_trace=True) traces it again
  and runs the traced and the original to compare (about four forwards in all); `fwd ms` is one
  eager forward of the model, for scale.
  `jit ops` counts the aten:: nodes of its inlined graph (prim:: constants and attribute reads
  left out). Under no_grad, nn.TransformerEncoderLayer takes its fused inference path, so BERT
  traces to one aten::_transformer_encoder_layer_fwd per layer.
- torch.fx.symbolic_trace runs no arithmetic and keeps torch.nn modules (Linear, Conv2d,
  TransformerEncoderLayer, ...) as single call_module nodes, so `fx nodes` counts modules, not
  ops; it cannot trace code that passes a traced size to a torch function (GPT-2's arange).
xport's dynamic cases have no PyTorch counterpart (neither method takes dynamic dims); their
PyTorch columns capture the same model on the same example input.
"""
import argparse
import json
import os
import subprocess
import sys
import warnings

from bench_common import time_torch  # first: sets up OpenBLAS
import torch
import torch.fx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "models"))
import make_parity_data as ref  # noqa: E402

# case -> (model, batch, image side or sequence length); the names of BM_export/<case>.
CASES = {
    "mlp": ("mlp", 32, None),
    "resnet18": ("resnet18", 1, 224),
    "resnet50": ("resnet50", 1, 224),
    "bert": ("bert", 1, 128),
    "gpt2": ("gpt2", 1, 128),
    "mlp_dynamic": ("mlp", 32, None),
    "resnet50_dynamic": ("resnet50", 2, 224),
    "bert_dynamic": ("bert", 2, 128),
    "gpt2_dynamic": ("gpt2", 2, 128),
}

NA = "n/a (error)"


def run_xport(binary, threads, runs, min_time, name_filter):
    """case -> benchmark JSON record (the median over runs) of every BM_export/<case> matching
    name_filter; a case whose export threw has "error_occurred"."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    cmd = [binary, "--benchmark_filter=^BM_export/(" + name_filter + ")",
           "--benchmark_format=json", "--benchmark_repetitions=%d" % runs,
           "--benchmark_min_time=%g" % min_time]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    results = {}
    for b in json.loads(out)["benchmarks"]:
        case = b["run_name"].split("/")[1]
        if b.get("error_occurred"):
            results[case] = b
        elif b.get("aggregate_name") == "median" or (runs == 1 and "aggregate_name" not in b):
            results[case] = b
    return results


def xport_seconds(record):
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[record["time_unit"]]
    return record["real_time"] * scale


def time_capture(capture, runs):
    """(median seconds, the captured object) of capture() over at least runs calls and 0.5 s, or
    (None, error text)."""
    try:
        with torch.no_grad():
            captured = capture()  # warm-up, and the object whose graph is counted
            return time_torch(capture, min_time=0.5, min_runs=runs, warmup=False), captured
    except Exception as e:  # noqa: BLE001 (any failure to capture is a table cell)
        return None, "%s: %s" % (type(e).__name__, str(e).splitlines()[0])


def time_torch_case(spec, runs):
    """Seconds and graph sizes of the PyTorch captures of one model and input."""
    model_name, batch, size = spec
    model = ref.build_model(model_name)
    x = ref.model_input(model_name, batch, size, seed=0)
    with torch.no_grad():
        fwd = time_torch(lambda: model(x), min_time=0.0, min_runs=runs)
    jit_s, jit = time_capture(lambda: torch.jit.trace(model, x), runs)
    fx_s, fx = time_capture(lambda: torch.fx.symbolic_trace(model), runs)
    errors = []
    if jit_s is None:
        errors.append(("jit.trace", jit))
    if fx_s is None:
        errors.append(("fx.symbolic_trace", fx))
    return {
        "fwd": fwd,
        "jit": jit_s,
        "fx": fx_s,
        "jit_ops": (sum(1 for n in jit.inlined_graph.nodes() if n.kind().startswith("aten::"))
                    if jit_s is not None else None),
        "fx_nodes": len(fx.graph.nodes) if fx_s is not None else None,
        "errors": errors,
    }


def ms(seconds):
    return NA if seconds is None else "%.2f" % (seconds * 1e3)


def count(n):
    return "-" if n is None else str(n)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build", nargs="?", default="build")
    parser.add_argument("--filter", default=".*")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5,
                        help="xport repetitions and PyTorch calls per capture (medians)")
    parser.add_argument("--min-time", type=float, default=0.2,
                        help="seconds each xport repetition runs (at least one export)")
    args = parser.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
    binary = os.path.join(args.build, "bench", "xport_export_bench")
    ours = run_xport(binary, args.threads, args.runs, args.min_time, args.filter)

    row = "%-17s %10s %12s %12s %9s %9s %7s %7s %8s %8s"
    print(row % ("case", "xport ms", "jit.trace ms", "fx ms", "jit/xport", "fwd ms", "nodes",
                 "calls", "jit ops", "fx nodes"))
    notes = []
    theirs_by_spec = {}
    for case, record in ours.items():
        if record.get("error_occurred"):
            print("%-17s %10s" % (case, NA))
            notes.append("%s: xport: %s" % (case, record["error_message"].splitlines()[0]))
            continue
        ours_s = xport_seconds(record)
        spec = CASES.get(case)
        if spec is None:
            print("%-17s %10s (no PyTorch counterpart)" % (case, ms(ours_s)))
            continue
        if spec not in theirs_by_spec:
            theirs_by_spec[spec] = time_torch_case(spec, args.runs)
            notes += ["%s: %s: %s" % (case, what, err)
                      for what, err in theirs_by_spec[spec]["errors"]]
        t = theirs_by_spec[spec]
        ratio = "-" if t["jit"] is None else "%.0f" % (t["jit"] / ours_s)
        print(row % (case, ms(ours_s), ms(t["jit"]), ms(t["fx"]), ratio, ms(t["fwd"]),
                     int(record["nodes"]), int(record["calls"]), count(t["jit_ops"]),
                     count(t["fx_nodes"])))
        sys.stdout.flush()
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
