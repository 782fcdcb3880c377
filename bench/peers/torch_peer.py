#!/usr/bin/env python3
"""PyTorch's side of the peer benchmark (bench/peers/run.sh): eager and TorchScript.

Usage: torch_peer.py --engine eager --model MODEL --weights W.safetensors --input IN.npy [opts]
       torch_peer.py --engine torchscript --script FILE.pt --input IN.npy [opts]
opts: [--runs K] [--warmup W] [--min-time S] [--threads N] [--out OUT.npy]

eager builds the reference model (tests/models/make_parity_data.py) and loads the weights file
(strict); torchscript loads the file peers.py saved (torch.jit.trace + torch.jit.freeze) and runs
torch.jit.optimize_for_inference on it (counted in load_ms).
Both run under torch.inference_mode() with N threads (default 2): W untimed runs, then timed
runs until there are at least K and S seconds have passed. Prints {"times_ms": [...],
"load_ms": ..., "version": ...} and writes the first run's output to OUT.npy. Only the forward
calls are timed.

peers.py imports this module for load_model (the same weights into the PyTorch model).
"""
import argparse
import json
import os
import sys
import time

os.environ.setdefault("OPENBLAS_CORETYPE", "SkylakeX")  # else OpenBLAS misdetects this CPU
import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "models"))
import make_parity_data as ref  # noqa: E402

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
    if name == "mlp":
        return ref.MLP()
    if name == "resnet50":
        import torchvision
        return torchvision.models.resnet50(weights=None)
    if name == "bert":
        return ref.BertEncoder()
    if name == "gpt2":
        return ref.GPT2LMHeadModel()
    raise ValueError("unknown model %r; expected mlp, resnet50, bert or gpt2" % name)


def load_model(name, weights):
    """The reference model `name` in eval mode with the weights of a safetensors file (GPT-2's in
    the Hub's layout, as make_parity_data writes it), loaded strictly."""
    model = architecture(name)
    state = read_safetensors(weights)
    if name == "gpt2":
        state = {"transformer." + k: v for k, v in state.items()}
    model.load_state_dict(state, strict=True)
    return model.eval()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", choices=("eager", "torchscript"), required=True)
    parser.add_argument("--model")
    parser.add_argument("--weights")
    parser.add_argument("--script")
    parser.add_argument("--input", required=True)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--min-time", type=float, default=0.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    x = torch.from_numpy(np.load(args.input))
    start = time.perf_counter()
    if args.engine == "eager":
        if not (args.model and args.weights):
            parser.error("--engine eager needs --model and --weights")
        model = load_model(args.model, args.weights)
    else:
        if not args.script:
            parser.error("--engine torchscript needs --script")
        # The saved module is traced and frozen; optimize_for_inference's MKLDNN constants
        # cannot be saved, so it runs here.
        model = torch.jit.optimize_for_inference(torch.jit.load(args.script).eval())
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
        np.save(args.out, first.contiguous().numpy())
    print(json.dumps({"times_ms": times, "load_ms": load_ms, "version": torch.__version__}))


if __name__ == "__main__":
    main()
