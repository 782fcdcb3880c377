#!/usr/bin/env python3
"""The gradients of the op-table cases by torch.autograd (PyTorch 2.13, the oracle).

Reads DIR/grad_cases.json written by the op table's gradient test: each case's op and arguments
(as torch_oracle.py reads them), the gradient of each floating output (or null) and the
arguments to differentiate ("wrt": schema position, name, and whether it is keyword-only).
Writes DIR/grad_results.json: per case, per wanted argument, its gradient as .npy files (a list
for a Tensor[] argument; none where autograd gives none, which means zeros), and the arguments
PyTorch does not differentiate ("skipped").
"""
import json
import os
import re
import sys

import torch

from torch_oracle import decode, encode_output, expand_fixed_lists, resolve

torch.set_num_threads(1)


NOT_DIFFERENTIABLE = re.compile(r"not differentiable with respect to argument '(\w+)'")


def leaf(t):
    """A floating tensor autograd differentiates: the same values and strides, requiring grad;
    anything else as it is."""
    if t is None or not t.is_floating_point():
        return t
    return t.detach().requires_grad_(True)


def run_case(case, folder, skipped):
    """The gradients of case's wanted arguments but those named in `skipped`."""
    fn = resolve(case["op"])
    args = [decode(a, folder) for a in case["args"]]
    kwargs = {k: decode(v, folder) for k, v in case["kwargs"].items()}
    leaves = []  # per wanted argument: its leaf tensor(s)
    for want in case["wrt"]:
        holder, key = (kwargs, want["name"]) if want["kw"] else (args, want["pos"])
        value = holder[key]
        if want["name"] in skipped:
            leaves.append([])
            continue
        if isinstance(value, list):
            value = [leaf(t) for t in value]
            leaves.append(value)
        else:
            value = leaf(value)
            leaves.append([value])
        holder[key] = value
    args, kwargs = expand_fixed_lists(fn, args, kwargs)
    out = fn(*args, **kwargs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    outputs, grads = [], []
    for t, g in zip(outs, case["grad_outputs"]):
        if g is None or t is None or not t.requires_grad:
            continue
        outputs.append(t)
        grads.append(decode(g, folder).to(t.dtype))
    flat = [t for group in leaves for t in group if t is not None and t.requires_grad]
    found = torch.autograd.grad(outputs, flat, grads, allow_unused=True) if outputs else []
    found = iter(found if outputs else [None] * len(flat))
    result = []
    for w, group in enumerate(leaves):
        files = []
        for k, t in enumerate(group):
            g = next(found) if t is not None and t.requires_grad else None
            files.append(encode_output(g, folder, "g%d_w%d_%d.npy" % (case["id"], w, k)))
        result.append(files)
    return result


def main():
    folder = sys.argv[1]
    with open(os.path.join(folder, "grad_cases.json")) as f:
        cases = json.load(f)["cases"]
    results = {}
    for case in cases:
        # Arguments PyTorch does not differentiate (batch norm's running statistics) are left
        # out one by one and named: xport's rule must give them no gradient either.
        skipped = []
        while True:
            try:
                grads = run_case(case, folder, skipped)
                results[str(case["id"])] = {"ok": True, "grads": grads, "skipped": skipped}
                break
            except Exception as e:  # reported by the test, case by case
                found = NOT_DIFFERENTIABLE.search(str(e))
                if found and found.group(1) not in skipped:
                    skipped.append(found.group(1))
                    continue
                results[str(case["id"])] = {"ok": False, "error": str(e).split("\n")[0]}
                break
    with open(os.path.join(folder, "grad_results.json"), "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
