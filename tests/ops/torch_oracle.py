#!/usr/bin/python3
"""Runs the op-table cases through PyTorch (the numerical oracle).

Reads DIR/cases.json written by the op-table test, calls torch.ops.aten.<name>.<overload> on each
case's arguments, and writes DIR/results.json plus one .npy per output. bfloat16 has no NumPy
dtype, so such tensors travel as float32 with their real dtype named beside them.
"""
import json
import math
import os
import sys

import numpy as np
import torch

torch.set_num_threads(1)

DTYPES = {
    "bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16,
    "int32": torch.int32, "int64": torch.int64, "float16": torch.float16,
    "bfloat16": torch.bfloat16, "float32": torch.float32, "float64": torch.float64,
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
    if kind in ("i", "b", "s", "il", "fl"):
        return value
    if kind == "dtype":
        return DTYPES[value]
    raise ValueError("unknown argument kind " + kind)


def encode_output(t, folder, name):
    dtype = NAMES[t.dtype]
    array = (t.float() if t.dtype == torch.bfloat16 else t).contiguous().numpy()
    np.save(os.path.join(folder, name), array)
    return {"file": name, "dtype": dtype, "shape": list(t.shape)}


def squeeze_dims(self, dims):
    for d in sorted((d % max(self.dim(), 1) for d in dims), reverse=True):
        self = torch.squeeze(self, d)
    return self


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None):
    """PyTorch 2.x's math path: softmax(q @ k^T * scale + mask) @ v, with its input checks."""
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("Expected query, key, and value to all be at least 2 dimensional")
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError("Expected query, key, and value to have the same dtype")
    if dropout_p != 0.0:
        raise RuntimeError("the reference implements dropout_p=0 only")
    L, S = query.size(-2), key.size(-2)
    scale = 1.0 / math.sqrt(query.size(-1)) if scale is None else scale
    attn = torch.matmul(query, key.transpose(-2, -1)) * scale
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("Explicit attn_mask should not be set when is_causal=True")
        attn_mask = torch.ones(L, S, dtype=torch.bool).tril()
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            attn = torch.where(attn_mask, attn, torch.tensor(float("-inf"), dtype=attn.dtype))
        elif attn_mask.dtype == query.dtype:
            attn = attn + attn_mask
        else:
            raise RuntimeError("Expected attn_mask dtype to be bool or to match query dtype")
    return torch.matmul(torch.softmax(attn, dim=-1), value)


def native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var,
                                        momentum, eps):
    return torch.ops.aten.native_batch_norm(input, weight, bias, running_mean, running_var,
                                            False, momentum, eps)


# Ops PyTorch 1.13 lacks (they came in later releases), written with 1.13's ops.
REFERENCES = {
    "aten::squeeze.dims": squeeze_dims,
    "aten::scaled_dot_product_attention": scaled_dot_product_attention,
    "aten::_native_batch_norm_legit_no_training": native_batch_norm_legit_no_training,
}


def resolve(op):
    if op in REFERENCES:
        return REFERENCES[op]
    namespace, rest = op.split("::")
    name, _, overload = rest.partition(".")
    return getattr(getattr(getattr(torch.ops, namespace), name), overload or "default")


def upcast_half(value):
    """PyTorch 1.13 has no CPU float16 kernel for many ops; such cases run in float32."""
    if isinstance(value, torch.Tensor) and value.dtype == torch.float16:
        return value.float()
    if isinstance(value, list):
        return [upcast_half(v) for v in value]
    return value


def call(fn, args, kwargs):
    try:
        return fn(*args, **kwargs)
    except RuntimeError as e:
        if "not implemented for 'Half'" not in str(e):
            raise
        out = fn(*[upcast_half(a) for a in args], **{k: upcast_half(v) for k, v in kwargs.items()})
        downcast = lambda t: t.half() if t.dtype == torch.float32 else t
        return [downcast(t) for t in out] if isinstance(out, (tuple, list)) else downcast(out)


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
            out = call(fn, args, kwargs)
        except Exception as e:  # the case expects (or will be judged on) the refusal
            results[str(case["id"])] = {"ok": False, "error": str(e).split("\n")[0]}
            continue
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
