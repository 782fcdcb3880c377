#!/usr/bin/env python3
"""Times graph capture of each reference model: xport's export_program beside PyTorch 2.13's
torch.export.export on the same models and input shapes, static and with the same dynamic dims,
and prints a table.

Usage: bench/compare_export.py [BUILD_DIR] [--filter REGEX] [--threads N] [--runs N]
                               [--min-time SECONDS]
xport: one process of BUILD_DIR/bench/xport_export_bench (--runs repetitions, the median).
PyTorch: the models of tests/models/reference_models.py in eval mode on the same input shapes;
each torch.export.export call is warmed up once, then the median of at least --runs calls and
0.5 s. A dynamic case marks the same dims dynamic as xport's (batch; batch and sequence; the
sequence of GPT-2 up to 1023, as its causal-mask slice asks). Both capture on fake tensors and
return ATen-level graphs; `nodes` counts xport's call nodes and `torch nodes` torch.export's
call_function nodes (torch.export keeps some composite ops that xport decomposes, and the
reverse).
"""
import argparse
import json
import os
import re
import subprocess
import sys

from bench_common import list_benchmarks, time_torch  # first: sets up the environment
import torch
from torch.export import Dim

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "models"))
import make_parity_data as ref  # noqa: E402  (build_model, model_input)

# case -> (model, batch, image side or sequence length, dynamic dims: index -> Dim); the names
# of BM_export/<case>.
CASES = {
    "mlp": ("mlp", 32, None, None),
    "resnet18": ("resnet18", 1, 224, None),
    "resnet50": ("resnet50", 1, 224, None),
    "bert": ("bert", 1, 128, None),
    "gpt2": ("gpt2", 1, 128, None),
    "mlp_dynamic": ("mlp", 32, None, lambda: {0: Dim("batch")}),
    "resnet50_dynamic": ("resnet50", 2, 224, lambda: {0: Dim("batch")}),
    "bert_dynamic": ("bert", 2, 128, lambda: {0: Dim("batch"), 1: Dim("seq")}),
    "gpt2_dynamic": ("gpt2", 2, 128,
                     lambda: {0: Dim("batch"), 1: Dim("seq", min=2, max=1023)}),
}

NA = "n/a (error)"


def run_xport(binary, threads, runs, min_time, name_filter):
    """case -> benchmark JSON record (the median over runs) of every BM_export/<case> whose case
    name name_filter finds (re.search, as the other scripts' filters); a case whose export threw
    has "error_occurred"."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    cases = [n.split("/")[1] for n in list_benchmarks(binary) if n.startswith("BM_export/")]
    chosen = [c for c in cases if re.search(name_filter, c)]
    if not chosen:
        sys.exit("compare_export.py: --filter %r matches none of %s" % (name_filter,
                                                                      ", ".join(cases)))
    cmd = [binary, "--benchmark_filter=^BM_export/(" + "|".join(map(re.escape, chosen)) + ")/",
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
    """Seconds and graph size of torch.export.export of one model and input."""
    model_name, batch, size, dims = spec
    model = ref.build_model(model_name)
    x = ref.model_input(model_name, batch, size, seed=0)
    dynamic_shapes = (dims(),) if dims else None
    export_s, program = time_capture(
        lambda: torch.export.export(model, (x,), dynamic_shapes=dynamic_shapes), runs)
    errors = [] if export_s is not None else [("torch.export.export", program)]
    nodes = (sum(1 for n in program.graph.nodes if n.op == "call_function")
             if export_s is not None else None)
    return {"export": export_s, "nodes": nodes, "errors": errors}


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
    binary = os.path.join(args.build, "bench", "xport_export_bench")
    ours = run_xport(binary, args.threads, args.runs, args.min_time, args.filter)

    row = "%-17s %10s %16s %13s %7s %7s %11s"
    print(row % ("case", "xport ms", "torch.export ms", "torch/xport", "nodes", "calls",
                 "torch nodes"))
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
        ratio = "-" if t["export"] is None else "%.1f" % (t["export"] / ours_s)
        print(row % (case, ms(ours_s), ms(t["export"]), ratio, int(record["nodes"]),
                     int(record["calls"]), count(t["nodes"])))
        sys.stdout.flush()
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
