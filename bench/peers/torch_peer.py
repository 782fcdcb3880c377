#!/usr/bin/env python3
"""The Python engines of the peer benchmark (bench/peers/run.sh): PyTorch eager, torch.compile,
AOTInductor and ONNX Runtime.

Usage: torch_peer.py --engine eager|compile --model MODEL --weights W.safetensors --input IN.npy
       torch_peer.py --engine aoti --package FILE.pt2 --input IN.npy
       torch_peer.py --engine ort --onnx FILE.onnx --input IN.npy
       [--runs K] [--warmup W] [--min-time S] [--threads N] [--out OUT.npy]

eager builds the reference model (tests/models/reference_models.py) and loads the weights file
(strict); compile is the same model through torch.compile (inductor, CPU; compiled during the
warm-up runs, so compile time is not in the timed runs); aoti loads the package peers.py made
with torch._inductor.aoti_compile_and_package (aoti_load_package); ort runs the ONNX file
peers.py exported, in ONNX Runtime with N intra-op threads, one inter-op thread and every graph
optimisation. All run with N threads (default 2), the torch engines under torch.inference_mode():
W untimed runs, then timed runs until there are at least K and S seconds have passed. Prints
{"times_ms": [...], "load_ms": ..., "version": ...} and writes the first run's output to OUT.npy.
Only the forward calls are timed.

peers.py imports this module for load_model (the same weights into the PyTorch model).
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "models"))
import make_parity_data as ref  # noqa: E402
import reference_models  # noqa: E402

_NUMPY_DTYPES = {"F32": np.float32, "F64": np.float64, "I64": np.int64, "I32": np.int32,
                 "U8": np.uint8, "BOOL": np.bool_}


def read_safetensors(path):
    """{name: tensor} of a safetensors file (the dtypes make_parity_data.save_safetensors writes,
    bfloat16 and float16 aside)."""
    with open(path, "rb") as f:
        raw = f.read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    base = 8 + n
    out = {}
    for name, e in header.items():
        if e["dtype"] not in _NUMPY_DTYPES:
            raise TypeError("read_safetensors: %s: dtype %s is not handled" % (name, e["dtype"]))
        begin, end = e["data_offsets"]
        dtype = np.dtype(_NUMPY_DTYPES[e["dtype"]]).newbyteorder("<")
        arr = np.frombuffer(raw, dtype=dtype, count=(end - begin) // dtype.itemsize,
                            offset=base + begin)
        out[name] = torch.from_numpy(arr.reshape(e["shape"]).astype(dtype.newbyteorder("=")))
    return out


def architecture(name):
    """The reference model `name` with untrained weights (load_model fills them in)."""
    architectures = {"mlp": reference_models.MLP, "resnet50": reference_models.resnet50,
                     "bert": reference_models.BertEncoder,
                     "gpt2": reference_models.GPT2LMHeadModel}
    if name not in architectures:
        raise ValueError("unknown model %r; expected one of %s" % (name, ", ".join(architectures)))
    return architectures[name]()


def load_model(name, weights):
    """The reference model `name` in eval mode with the weights of a safetensors file (GPT-2's in
    the Hub's layout, as make_parity_data writes it), loaded strictly."""
    model = architecture(name)
    state = read_safetensors(weights)
    if name == "gpt2":
        state = {"transformer." + k: v for k, v in state.items()}
    model.load_state_dict(state, strict=True)
    return model.eval()


def ort_session(path, threads):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    return (lambda x: session.run(None, {name: x})[0]), ort.__version__


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", choices=("eager", "compile", "aoti", "ort"), required=True)
    parser.add_argument("--model")
    parser.add_argument("--weights")
    parser.add_argument("--package")
    parser.add_argument("--onnx")
    parser.add_argument("--input", required=True)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--min-time", type=float, default=0.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    x_np = np.load(args.input)
    x = torch.from_numpy(x_np)
    version = torch.__version__
    start = time.perf_counter()
    if args.engine in ("eager", "compile"):
        if not (args.model and args.weights):
            parser.error("--engine %s needs --model and --weights" % args.engine)
        model = load_model(args.model, args.weights)
        if args.engine == "compile":
            model = torch.compile(model)
    elif args.engine == "aoti":
        if not args.package:
            parser.error("--engine aoti needs --package")
        model = torch._inductor.aoti_load_package(args.package)
    else:
        if not args.onnx:
            parser.error("--engine ort needs --onnx")
        model, version = ort_session(args.onnx, args.threads)
        x = x_np
    load_ms = (time.perf_counter() - start) * 1e3
    first, times = None, []
    with torch.inference_mode():
        for _ in range(args.warmup):
            y = model(x)
            first = y if first is None else first
        timing_start = time.perf_counter()
        while len(times) < args.runs or time.perf_counter() - timing_start < args.min_time:
            t0 = time.perf_counter()
            y = model(x)
            times.append((time.perf_counter() - t0) * 1e3)
            first = y if first is None else first
    if args.out:
        first = first[0] if isinstance(first, (list, tuple)) else first
        np.save(args.out, first if isinstance(first, np.ndarray) else first.contiguous().numpy())
    print(json.dumps({"times_ms": times, "load_ms": load_ms, "version": version}))


if __name__ == "__main__":
    main()
