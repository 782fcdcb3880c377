#!/usr/bin/env python3
"""Runs the op-table cases through PyTorch 2.13 (the numerical oracle).

Reads DIR/cases.json written by the op-table test, calls torch.ops.aten.<name>.<overload> on each
case's arguments, and writes DIR/results.json plus one .npy per output. bfloat16 has no NumPy
dtype, so such tensors travel as float32 with their real dtype named beside them.
"""
import json
import operator
import os
import sys

import numpy as np
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401 (defines quantized_decomposed::*)

from torch_fused_ops import define_fused_ops

torch.set_num_threads(1)
FUSED_OPS = define_fused_ops()  # xport::fused_*: kept alive while the cases run

DTYPES = {
    "bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16,
    "int32": torch.int32, "int64": torch.int64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64,
    "complex64": torch.complex64, "complex128": torch.complex128,
}
NAMES = {v: k for k, v in DTYPES.items()}


def decode(arg, folder):
    if arg is None:
        return None
    (kind, value), = arg.items()
    if kind == "t":
        t = torch.from_numpy(np.load(os.path.join(folder, value["file"])))
        t = t.to(DTYPES[value["dtype"]])
        return t.permute(value["permute"]) if "permute" in value else t
    if kind == "tl":
        return [decode(a, folder) for a in value]
    if kind == "f":
        return float(value) if not isinstance(value, str) else float(value)
    if kind in ("i", "b", "s", "il", "fl", "bl"):
        return value
    if kind == "dtype":
        return DTYPES[value]
    raise ValueError("unknown argument kind " + kind)


def encode_output(t, folder, name):
    if t is None:  # a backward op's gradient its output_mask did not ask for
        return {"none": True}
    dtype = NAMES[t.dtype]
    array = (t.float() if t.dtype == torch.bfloat16 else t).contiguous().numpy()
    np.save(os.path.join(folder, name), array)
    return {"file": name, "dtype": dtype, "shape": list(t.shape)}


def resolve(op):
    namespace, rest = op.split("::")
    if namespace == "_operator":  # Python's operators, as torch.export records them on SymFloats
        return getattr(operator, rest)
    name, _, overload = rest.partition(".")
    return getattr(getattr(getattr(torch.ops, namespace), name), overload or "default")


def expand_fixed_lists(fn, args, kwargs):
    """An int passed for an `int[N]` argument means N copies of it, as ATen's C++ API (and xport)
    take it; torch.ops' Python binding wants the list."""
    if not hasattr(fn, "_schema"):  # a Python operator
        return args, kwargs
    params = fn._schema.arguments

    def expand(param, value):
        return [value] * param.N if param.N and isinstance(value, int) else value

    args = [expand(p, a) for p, a in zip(params, args)]
    by_name = {p.name: p for p in params}
    return args, {k: expand(by_name[k], v) for k, v in kwargs.items()}


def main():
    folder = sys.argv[1]
    with open(os.path.join(folder, "cases.json")) as f:
        cases = json.load(f)["cases"]
    results = {}
    for case in cases:
        try:
            fn = resolve(case["op"])
            args = [decode(a, folder) for a in case["args"]]
            kwargs = {k: decode(v, folder) for k, v in case["kwargs"].items()}
            args, kwargs = expand_fixed_lists(fn, args, kwargs)
            out = fn(*args, **kwargs)
        except Exception as e:  # the case expects (or will be judged on) the refusal
            results[str(case["id"])] = {"ok": False, "error": str(e).split("\n")[0]}
            continue
        if out is None:  # aten::_assert_scalar returns nothing
            outs = []
        elif isinstance(out, (bool, int, float)):
            # A Scalar return: xport gives a 0-dim tensor of the input's dtype (aten::item), or
            # a float64 one (_operator's arithmetic on Python numbers).
            # PyTorch's sym_* size queries give an int: an int64 one here.
            dtype = args[0].dtype if isinstance(args[0], torch.Tensor) else torch.float64
            if case["op"].startswith("aten::sym_"):
                dtype = torch.int64
            outs = [torch.tensor(out, dtype=dtype)]
        else:
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
        results[str(case["id"])] = {
            "ok": True,
            "outputs": [encode_output(t, folder, "c%d_o%d.npy" % (case["id"], i))
                        for i, t in enumerate(outs)],
        }
    with open(os.path.join(folder, "results.json"), "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
