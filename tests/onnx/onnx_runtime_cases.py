#!/usr/bin/env python3
"""Converts every case of .pt2 data sets to ONNX with `xport onnx`; runs them in ONNX Runtime.

Usage: tests/onnx/onnx_runtime_cases.py XPORT OUT_DIR REFUSALS_FILE SET_DIR...
           [--case-args FILE --ops LIB]

Each SET_DIR holds a manifest.json (the layout tests/serde/torch_load_cases.py describes: per
case the archive, and runs of input and output leaves as .npy files): build/xport_pt2 (archives
xport wrote: ExportDB, the reference models, MiniLM), build/torch_pt2 and build/hf_architectures
(archives torch.export.save wrote). For every case this script runs `XPORT onnx model.pt2
OUT_DIR/SET/CASE.onnx`, checks the model with onnx.checker.check_model(full_check=True), loads it
in ONNX Runtime (CPU) and runs every run of the case: the outputs must equal the recorded ones
(max |ort - expected| <= 1e-4 * max(1, max |expected|); exact for integers and bools), and an
input the program updates in place must equal its recorded value after the call (read from the
model's extra output for it). A run whose inputs are outside the contract is not made here: ONNX
cannot check a contract (docs/ONNX.md), xport's runtime does.

--case-args FILE gives some cases more arguments of `xport onnx`, one `SET/CASE: ARGS` a line:
a custom op's library (`{ops}` stands for --ops LIB) and the ONNX function that lowers it
(`{here}` stands for the directory of FILE).

--torch-checked SET_DIR... checks those sets' cases against PyTorch: each archive loaded with
torch.export.load and run on the same inputs gives the outputs that ONNX Runtime must equal,
and xport's recorded ones must equal them too. Output dtypes must always be equal.

--other-engines REGEX runs the first run of each case whose SET/CASE name matches, a program
with only user outputs, in OpenVINO (CPU plugin, float32 inference precision) and in Apache TVM
(relax's ONNX importer, built for llvm) too, compared as ONNX Runtime's outputs are: xport's files
must run in every consumer that runs torch.onnx's. A dynamic program is written for them with its
dims fixed at that run's sizes (`xport onnx --static NAME=VALUE`), as TVM imports static shapes
only.

REFUSALS_FILE lists the cases that do not convert, one `SET/CASE: reason` a line (`#` starts a
comment); such a case must fail to convert with an error and leave no file. Prints one line per
case and the counts; exits 1 when an unlisted case fails or a listed case converts.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort


def read_refusals(path):
    refusals = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, _, reason = line.partition(":")
            refusals[name.strip()] = reason.strip()
    return refusals


def leaf_value(root, leaf):
    """A leaf as the ONNX model holds it: a complex array as (real, imaginary) pairs."""
    if "npy" in leaf:
        a = np.load(os.path.join(root, leaf["npy"]))
        return np.stack([a.real, a.imag], -1) if np.iscomplexobj(a) else a
    return np.asarray(leaf["value"])


def compare(what, got, expected, tolerance=1e-4):
    got, expected = np.asarray(got), np.asarray(expected)
    if got.shape != expected.shape:
        return "%s: shape %s, expected %s" % (what, got.shape, expected.shape)
    if got.dtype != expected.dtype:
        return "%s: dtype %s, expected %s" % (what, got.dtype, expected.dtype)
    if expected.dtype.kind in "biu" or expected.dtype == np.bool_:
        if not np.array_equal(got, expected):
            return "%s: %d of %d values differ" % (what, int(np.sum(got != expected)), got.size)
        return None
    if expected.size == 0:
        return None
    got = got.astype(np.float64)
    expected = expected.astype(np.float64)
    finite = np.isfinite(expected)
    if not np.array_equal(finite, np.isfinite(got)):
        return "%s: non-finite values differ" % what
    if not finite.any():
        return None
    err = float(np.max(np.abs(got[finite] - expected[finite])))
    scale = max(1.0, float(np.max(np.abs(expected[finite]))))
    if err > tolerance * scale:
        return "%s: max |ort - expected| = %.3g (scale %.3g)" % (what, err, scale)
    return None


def run_openvino(onnx_path, tensors):
    import openvino as ov
    core = ov.Core()
    compiled = core.compile_model(core.read_model(onnx_path), "CPU",
                                  {"INFERENCE_PRECISION_HINT": "f32"})
    results = compiled(tensors)
    return [results[out] for out in compiled.outputs]


def run_tvm(onnx_path, tensors):
    import tvm
    from tvm import relax
    from tvm.relax.frontend.onnx import from_onnx
    module = from_onnx(onnx.load(onnx_path), keep_params_in_input=False)
    module = relax.transform.LegalizeOps()(relax.transform.DecomposeOpsForInference()(module))
    machine = relax.VirtualMachine(tvm.compile(module, target="llvm"), tvm.cpu())
    results = machine["main"](*[tvm.runtime.tensor(t) for t in tensors])
    if isinstance(results, tvm.runtime.Tensor):
        results = [results]
    return [r.numpy() for r in results]


OTHER_ENGINES = {"OpenVINO": run_openvino, "TVM": run_tvm}


def static_dims(model, input_names, tensors):
    """`--static NAME=VALUE` for each dynamic dim the model's inputs name (a Dim's or a symbol's
    name; a derived dim such as 2*d follows its Dim), at the sizes of `tensors`."""
    dims = {}
    inputs = {i.name: i for i in model.graph.input}
    for name, tensor in zip(input_names, tensors):
        for dim, size in zip(inputs[name].type.tensor_type.shape.dim, tensor.shape):
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", dim.dim_param):
                dims[dim.dim_param] = size
    return [arg for name, size in sorted(dims.items()) for arg in ("--static", "%s=%d" % (name, size))]


def run_other_engines(xport, pt2, extra_args, root, case, onnx_path, kinds, expected):
    """The case's first run in each of OTHER_ENGINES; None or what failed. A dynamic model is
    written again with its dims fixed at that run's sizes (`xport onnx --static`): TVM's importer
    takes static shapes only."""
    if any(kind != "user_output" for kind in kinds):
        return "--other-engines takes programs with user outputs only"
    run = case["runs"][0]
    tensors = [leaf_value(root, l) for l in run["inputs"] if "npy" in l]
    model = onnx.load(onnx_path, load_external_data=False)
    initialized = {t.name for t in model.graph.initializer}
    input_names = [i.name for i in model.graph.input if i.name not in initialized]
    fixed = static_dims(model, input_names, tensors)
    if fixed:
        onnx_path = onnx_path[:-len(".onnx")] + "_static.onnx"
        convert = subprocess.run([xport, "onnx", pt2, onnx_path] + extra_args + fixed,
                                 capture_output=True, text=True)
        if convert.returncode != 0:
            return "conversion with %s: %s" % (" ".join(fixed), convert.stderr.strip())
        if any(d.dim_param for i in onnx.load(onnx_path, load_external_data=False).graph.input
               for d in i.type.tensor_type.shape.dim):
            return "%s left a dynamic dim in the model" % " ".join(fixed)
    for engine, run_engine in OTHER_ENGINES.items():
        try:
            outs = run_engine(onnx_path, tensors)
        except Exception as e:  # the engine refused or failed to build the model
            lines = [l for l in str(e).strip().splitlines() if l.strip()]
            return "%s: %s: %s" % (engine, type(e).__name__, " | ".join(lines[-3:])[-400:])
        if len(outs) != len(expected):
            return "%s: %d outputs, expected %d" % (engine, len(outs), len(expected))
        for i, (got, want) in enumerate(zip(outs, expected)):
            problem = compare("%s run 0 output %d" % (engine, i), got, want,
                              case.get("tolerance", 1e-4))
            if problem:
                return problem
    return None


def as_leaf(array):
    """An output as leaf_value gives it: a complex array as (real, imaginary) pairs."""
    return np.stack([array.real, array.imag], -1) if np.iscomplexobj(array) else array


class TorchOracle:
    """PyTorch's outputs for a case's runs: torch.export.load of its archive, run on the same
    inputs. Where a set is checked against PyTorch, these, not the recorded ones (xport's eager),
    are what ONNX Runtime must give; and the recorded ones must equal them too."""

    def __init__(self):
        import torch
        import torch.ao.quantization.fx._decomposed  # noqa: F401 (quantized_decomposed::*)
        self.torch = torch

    def expected(self, root, case):
        """[[expected output leaf]] per run, or the string of what differs from xport."""
        module = self.torch.export.load(os.path.join(root, case["pt2"])).module()
        runs = []
        for k, run in enumerate(case["runs"]):
            inputs = [self.torch.from_numpy(np.load(os.path.join(root, l["npy"])))
                      if "npy" in l else l["value"] for l in run["inputs"]]
            with self.torch.no_grad():
                outs = module(*inputs)
            outs = [outs] if isinstance(outs, self.torch.Tensor) else list(outs)
            outs = [as_leaf(o.numpy()) for o in outs]
            recorded = [leaf_value(root, l) for l in run["outputs"]]
            if len(outs) != len(recorded):
                return "PyTorch: run %d has %d outputs, xport recorded %d" % (k, len(outs),
                                                                             len(recorded))
            for i, (mine, theirs) in enumerate(zip(recorded, outs)):
                problem = compare("run %d output %d, xport against PyTorch" % (k, i), mine,
                                  theirs)
                if problem:
                    return problem
            runs.append(outs)
        return runs


def run_case(xport, root, case, onnx_path, extra_args, other_engines=False, oracle=None):
    """Converts, checks and runs one case; returns None or what failed. With `oracle` (a
    TorchOracle) the outputs are checked against PyTorch's instead of the recorded ones."""
    expected_runs = [[leaf_value(root, l) for l in run["outputs"]] for run in case["runs"]]
    # A quantized program's case states its own bound (tests/quant/pt2e_cases.py): ONNX's
    # QuantizeLinear divides where PyTorch multiplies by the reciprocal.
    tolerance = case.get("tolerance", 1e-4)
    if oracle is not None:
        expected_runs = oracle.expected(root, case)
        if isinstance(expected_runs, str):
            return expected_runs
    if os.path.exists(onnx_path):
        os.remove(onnx_path)
    pt2 = os.path.join(root, case["pt2"])
    convert = subprocess.run([xport, "onnx", pt2, onnx_path] + extra_args, capture_output=True,
                             text=True)
    if convert.returncode != 0:
        if os.path.exists(onnx_path):
            return "conversion failed but left %s behind" % onnx_path
        return "conversion: " + (convert.stderr.strip() or convert.stdout.strip())
    onnx.checker.check_model(onnx_path, full_check=True)
    model = onnx.load(onnx_path, load_external_data=False)
    meta = {p.key: p.value for p in model.metadata_props}
    kinds = [o["kind"] for o in json.loads(meta["xport.outputs"])]
    updates = [o.get("input") for o in json.loads(meta["xport.outputs"])]
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    options.log_severity_level = 3  # errors only
    session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
    initialized = {t.name for t in model.graph.initializer}
    input_names = [i.name for i in model.graph.input if i.name not in initialized]
    state = {}  # updated buffers, fed back as the runtime keeps them across calls
    for k, run in enumerate(case["runs"]):
        tensors = [leaf_value(root, l) for l in run["inputs"] if "npy" in l]
        if len(tensors) != len(input_names):
            return "run %d: %d tensor inputs for the model's %d" % (k, len(tensors),
                                                                      len(input_names))
        feeds = dict(zip(input_names, tensors))
        feeds.update(state)
        outs = session.run(None, feeds)
        for got, kind, name in zip(outs, kinds, updates):
            if kind == "buffer_mutation":
                state[name] = got
        user = [o for o, kind in zip(outs, kinds) if kind == "user_output"]
        expected = expected_runs[k]
        if len(user) != len(expected):
            return "run %d: %d outputs, expected %d" % (k, len(user), len(expected))
        for i, (got, want) in enumerate(zip(user, expected)):
            problem = compare("run %d output %d" % (k, i), got, want, tolerance)
            if problem:
                return problem
        # An input the program updates: its new value is the extra output named by its input.
        after = run.get("inputs_after", [])
        for got, kind, name in zip(outs, kinds, updates):
            if kind != "user_input_mutation":
                continue
            i = input_names.index(name)
            problem = compare("run %d input %s after the call" % (k, name), got,
                              leaf_value(root, after[i]), tolerance)
            if problem:
                return problem
    if not other_engines:
        return None
    return run_other_engines(xport, pt2, extra_args, root, case, onnx_path, kinds,
                             expected_runs[0])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("xport")
    parser.add_argument("out_dir")
    parser.add_argument("refusals")
    parser.add_argument("sets", nargs="+")
    parser.add_argument("--case-args")
    parser.add_argument("--ops", default="")
    parser.add_argument("--other-engines", default=None, metavar="REGEX")
    parser.add_argument("--torch-checked", nargs="*", default=[], metavar="SET_DIR")
    args = parser.parse_args()
    ort.set_default_logger_severity(3)
    refusals = read_refusals(args.refusals)
    case_args = {}
    if args.case_args:
        here = os.path.dirname(os.path.abspath(args.case_args))
        for name, line in read_refusals(args.case_args).items():
            case_args[name] = line.replace("{ops}", args.ops).replace("{here}", here).split()
    seen = set()
    counts = {"equal": 0, "refused": 0, "FAILED": 0, "in every engine": 0}
    started = time.time()
    torch_checked = {os.path.normpath(d) for d in args.torch_checked}
    oracle = TorchOracle() if torch_checked else None
    for root in args.sets:
        set_name = os.path.basename(os.path.normpath(root))
        os.makedirs(os.path.join(args.out_dir, set_name), exist_ok=True)
        with open(os.path.join(root, "manifest.json")) as f:
            cases = json.load(f)["cases"]
        for case in cases:
            name = "%s/%s" % (set_name, case["name"])
            seen.add(name)
            onnx_path = os.path.join(args.out_dir, set_name, case["name"] + ".onnx")
            others = bool(args.other_engines and re.search(args.other_engines, name))
            t0 = time.time()
            try:
                problem = run_case(args.xport, root, case, onnx_path, case_args.get(name, []),
                                   others, oracle if os.path.normpath(root) in torch_checked
                                   else None)
                if others and problem is None:
                    counts["in every engine"] += 1
            except Exception as e:  # the checker or ONNX Runtime refused the model
                problem = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0])
            seconds = time.time() - t0
            if problem is None:
                # Models that passed are removed: all of them together are several GB, more than
                # a CI machine's disk may hold. A failing one stays to be inspected.
                static_path = onnx_path[:-len(".onnx")] + "_static.onnx"
                for leftover in (onnx_path, onnx_path + ".data", static_path,
                                 static_path + ".data"):
                    if os.path.exists(leftover):
                        os.remove(leftover)
            if name in refusals:
                if problem is None:
                    status = "FAILED: converts and runs now; remove it from %s" % args.refusals
                elif not problem.startswith("conversion: "):
                    status = "FAILED: listed as refused, but %s" % problem
                else:
                    status = "refused: " + refusals[name]
            else:
                status = "equal" if problem is None else "FAILED: " + problem
            counts[status.split(":")[0]] += 1
            if others and status == "equal":
                status += " in ONNX Runtime, OpenVINO and TVM"
            print("%-48s %s (%.1f s)" % (name, status, seconds), flush=True)
    for name in sorted(set(refusals) - seen):
        print("%-48s FAILED: listed in %s but no such case" % (name, args.refusals))
        counts["FAILED"] += 1
    print("%d equal, %d refused (listed), %d FAILED in %.0f s; %d of the equal also equal in "
          "OpenVINO and TVM" % (counts["equal"], counts["refused"], counts["FAILED"],
                                 time.time() - started, counts["in every engine"]))
    return 1 if counts["FAILED"] else 0


if __name__ == "__main__":
    sys.exit(main())
