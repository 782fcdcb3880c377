#!/usr/bin/env python3
"""PyTorch's eager as the soundness fuzzer's oracle: one long-lived process, so that torch is
imported once and each program costs only its own runs.

The fuzzer (`xport_soundness_fuzzer --torch-oracle PYTHON`) writes a request per program into a
folder: program.py (the program as a torch.nn.Module, tests/soundness/torch_program.cpp) and its
input sets as set{K}_in{I}.npy; then sends one line of JSON on this process's stdin:
    {"dir": FOLDER, "sets": K, "inputs": I}
This process runs the sets in order on one instance of the module (its buffer goes on from run
to run, as xport's eager does), writes each run's outputs as set{K}_out{J}.npy and the inputs as
the run left them as set{K}_after{I}.npy, and answers one line:
    {"runs": [{"outputs": J} or {"error": "TypeName: first line"}, ...]}
With "onnx": FILE in the request (the program as `xport::onnx::save` wrote it), the sets also
run in ONNX Runtime, in order, its updated buffers fed back as the runtime keeps them; its user
outputs go to set{K}_onnx_out{J}.npy, the inputs as the file's input updates leave them to
set{K}_onnx_after{I}.npy, and the answer gains "onnx_runs" of the same form.
An empty line or end of input ends it.
"""
import importlib.util
import json
import os
import sys
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import torch


def load_program(path, name):
    """The program's module, registered in sys.modules (torch.cond reads its branches' globals
    through it) until the caller removes it."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def first_line(error):
    """The error's type and message, its first three lines joined."""
    text = [line.strip() for line in str(error).strip().splitlines()[:3]]
    return "%s: %s" % (type(error).__name__, " ".join(text)[:400])


def run_request(request, count):
    name = "fuzz_program_%d" % count
    try:
        return run_sets(request, load_program(os.path.join(request["dir"], "program.py"), name))
    finally:
        sys.modules.pop(name, None)


def run_onnx(request):
    """The sets in ONNX Runtime, as tests/onnx/onnx_runtime_cases.py runs a model."""
    folder = request["dir"]
    path = os.path.join(folder, request["onnx"])
    model = onnx.load(path, load_external_data=False)
    meta = {p.key: p.value for p in model.metadata_props}
    kinds = [(o["kind"], o.get("input")) for o in json.loads(meta["xport.outputs"])]
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 4  # fatal only: a failed run's error is in the answer
    try:
        session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001 -- ONNX Runtime refuses the model: a finding
        return [{"error": first_line(e)}] * request["sets"]
    initialized = {t.name for t in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initialized]
    state, runs = {}, []
    for k in range(request["sets"]):
        feeds = {name: np.load(os.path.join(folder, "set%d_in%d.npy" % (k, i)))
                 for i, name in enumerate(names[:request["inputs"]])}
        feeds.update(state)
        try:
            outs = session.run(None, feeds)
        except Exception as e:  # noqa: BLE001 -- compared with what xport's eager did
            runs.append({"error": first_line(e)})
            continue
        after = dict(feeds)
        for out, (kind, name) in zip(outs, kinds):
            if kind == "buffer_mutation":
                state[name] = out
            elif kind == "user_input_mutation":
                after[name] = out
        user = [o for o, (kind, _) in zip(outs, kinds) if kind == "user_output"]
        for j, out in enumerate(user):
            np.save(os.path.join(folder, "set%d_onnx_out%d.npy" % (k, j)), out)
        for i, name in enumerate(names[:request["inputs"]]):
            np.save(os.path.join(folder, "set%d_onnx_after%d.npy" % (k, i)), after[name])
        runs.append({"outputs": len(user)})
    return runs


def run_sets(request, program):
    folder = request["dir"]
    model = program.Program()
    runs = []
    for k in range(request["sets"]):
        inputs = [torch.from_numpy(np.load(os.path.join(folder, "set%d_in%d.npy" % (k, i))))
                  for i in range(request["inputs"])]
        try:
            with torch.no_grad():
                outputs = model(*inputs)
        except Exception as e:  # noqa: BLE001 -- eager's own refusal is what is compared
            runs.append({"error": first_line(e)})
            continue
        if isinstance(outputs, torch.Tensor):
            outputs = [outputs]
        for j, out in enumerate(outputs):
            np.save(os.path.join(folder, "set%d_out%d.npy" % (k, j)), out.detach().numpy())
        for i, x in enumerate(inputs):
            np.save(os.path.join(folder, "set%d_after%d.npy" % (k, i)), x.numpy())
        runs.append({"outputs": len(outputs)})
    reply = {"runs": runs}
    if request.get("onnx"):
        reply["onnx_runs"] = run_onnx(request)
    return reply


def main():
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    ort.set_default_logger_severity(4)  # fatal only: its errors come back in the answers
    count = 0
    for line in sys.stdin:
        if not line.strip():
            break
        count += 1
        try:
            reply = run_request(json.loads(line), count)
        except Exception as e:  # noqa: BLE001 -- a program PyTorch cannot even build
            reply = {"failed": first_line(e)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
