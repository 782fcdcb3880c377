#!/usr/bin/env python3
"""Loads the .pt2 archives xport writes in PyTorch 2.13 and checks that they run as in xport.

Usage: tests/serde/torch_load_cases.py DIR REFUSALS_FILE [--verbose]

DIR holds what tests/serde/write_xport_archives.cpp writes: manifest.json and, per case, the
archive (xport::save), its inputs and xport's eager outputs as .npy files. For every case this
script calls torch.export.load, rebuilds the inputs (unflattened with the program's in_spec), runs
ep.module() on each input set and compares the flattened outputs with xport's
(max |torch - xport| <= 1e-4 * max |xport|, exact for integers and bools), checks that
ep.range_constraints holds the manifest's ranges (as a multiset of [lo, hi]: PyTorch may name the
symbols differently) and that ep.module() raises on every input set the manifest lists as
outside the program's contract (sizes out of range, other static sizes or dtypes).

REFUSALS_FILE lists the cases PyTorch cannot load or run yet, one `name: reason` a line (a line
starting with `#` is a comment). Prints one line per case (`equal`, `refused: reason` or `FAILED: what`) and the
counts; exits 1 when an unlisted case fails or a listed case now works.

manifest.json (the layout of torch_export_cases.py's, the other direction):
{"cases": [{"name", "group": "exportdb" | "reference" | "pretrained", "pt2": "<case>/model.pt2",
            "runs": [{"inputs": [leaf, ...], "outputs": [leaf, ...],
                      "inputs_after": [leaf, ...]}, ...],  # inputs_after: optional
            "refused_inputs": [[leaf, ...], ...],
            "range_constraints": {"s0": [lo, hi or null]}}]}
A leaf is {"npy": path relative to DIR, "dtype", "shape"} (bfloat16 is stored as float32, "dtype"
names the real one) or {"value": v}. Input leaves are the pytree leaves of the positional user
inputs (a list of tensors is as many leaves).
"""
import argparse
import json
import logging
import os
import sys
import time
import traceback
import warnings

import numpy as np
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401 (quantized_decomposed::*)
import torch.utils._pytree as pytree
from torch.utils._sympy.numbers import int_oo

from custom_ops import define_custom_ops

RTOL = 1e-4


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dir")
    parser.add_argument("refusals")
    parser.add_argument("--verbose", action="store_true",
                        help="print why each refused input set was refused, and tracebacks")
    return parser.parse_args()


def read_refusals(path):
    """{case name: reason} from `name: reason` lines; a line starting with `#` is a comment (the
    format of tests/listed_reasons.h)."""
    refusals = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            name, sep, reason = line.partition(": ")
            if not sep or not name.strip() or not reason.strip():
                raise ValueError("%s:%d: expected `name: reason`, got %r" % (path, number, line))
            if name in refusals:
                raise ValueError("%s:%d: %s is listed twice" % (path, number, name))
            refusals[name] = reason.strip()
    return refusals


def first_line(error):
    lines = [line for line in str(error).splitlines() if line.strip()]
    return "%s: %s" % (type(error).__name__, lines[0].strip()[:300] if lines else "")


class CaseFailure(Exception):
    """Why one case does not load, run or give xport's results."""


class LoadErrors(logging.Handler):
    """Keeps the exceptions torch.export.load logs: it logs the real reason for a failed load as a
    warning and raises only "Please check the warnings above"."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.errors = []

    def emit(self, record):
        if record.exc_info and record.exc_info[1] is not None:
            self.errors.append(record.exc_info[1])


LOAD_ERRORS = LoadErrors()


def load(path):
    del LOAD_ERRORS.errors[:]
    try:
        return torch.export.load(path)
    except Exception as e:
        cause = LOAD_ERRORS.errors[-1] if LOAD_ERRORS.errors else e
        while cause.__cause__ is not None:  # SerializeError wraps the node's original exception
            cause = cause.__cause__
        raise CaseFailure("torch.export.load: " + first_line(cause)) from cause


def leaf_value(root, leaf):
    if "value" in leaf:
        return leaf["value"]
    array = np.load(os.path.join(root, leaf["npy"]))
    t = torch.from_numpy(array).to(getattr(torch, leaf["dtype"]))
    if list(t.shape) != leaf["shape"]:
        raise ValueError("%s has shape %s, the manifest says %s"
                         % (leaf["npy"], list(t.shape), leaf["shape"]))
    return t


def call_args(ep, leaves, refused=False):
    """(args, kwargs) for ep.module(): the leaves unflattened with the program's in_spec; the
    leaves themselves as positional arguments when the archive has no in_spec.

    An input set meant to be refused may have another number of leaves (a list of another
    length): the one list argument then takes the difference, or, failing that, the leaves are
    passed as they are, which PyTorch must refuse too."""
    spec = ep.call_spec.in_spec
    if spec is None:
        return tuple(leaves), {}
    if spec.num_leaves != len(leaves):
        if not refused:
            raise CaseFailure("the in_spec has %d leaves, the manifest %d"
                              % (spec.num_leaves, len(leaves)))
        return refused_args(spec, leaves)
    args, kwargs = pytree.tree_unflatten(leaves, spec)
    return args, kwargs


def refused_args(spec, leaves):
    args_spec = spec.children_specs[0]
    lists = [i for i, c in enumerate(args_spec.children_specs) if c.type is list]
    extra = len(leaves) - spec.num_leaves
    if len(lists) != 1 or args_spec.children_specs[lists[0]].num_leaves + extra < 0:
        return tuple(leaves), {}
    args, rest = [], list(leaves)
    for i, child in enumerate(args_spec.children_specs):
        n = child.num_leaves + (extra if i == lists[0] else 0)
        if i == lists[0]:
            args.append(rest[:n])
        else:
            args.append(pytree.tree_unflatten(rest[:n], child))
        rest = rest[n:]
    return tuple(args), {}


def compare(what, actual, expected, rtol=RTOL):
    """None when actual equals expected within the tolerance, else what differs."""
    if not isinstance(expected, torch.Tensor):
        if isinstance(actual, torch.Tensor) and actual.dim() == 0:
            actual = actual.item()
        return None if actual == expected else "%s is %r, xport gives %r" % (what, actual, expected)
    if not isinstance(actual, torch.Tensor):
        return "%s is a %s, xport gives a tensor" % (what, type(actual).__name__)
    if actual.dtype != expected.dtype:
        return "%s has dtype %s, xport's %s" % (what, actual.dtype, expected.dtype)
    if actual.shape != expected.shape:
        return "%s has shape %s, xport's %s" % (what, list(actual.shape), list(expected.shape))
    if actual.numel() == 0:
        return None
    if not expected.is_floating_point():
        return None if torch.equal(actual, expected) else "%s differs from xport's" % what
    a, e = actual.double(), expected.double()
    if not torch.equal(a.isnan(), e.isnan()):
        return "%s has NaNs where xport's has none, or none where xport's has" % what
    finite = ~e.isnan()
    diff = (a[finite] - e[finite]).abs().max().item() if finite.any() else 0.0
    scale = e[finite].abs().max().item() if finite.any() else 0.0
    if not diff <= rtol * scale:
        return "%s: max |torch - xport| = %.3g > %g * max |xport| = %.3g" % (
            what, diff, rtol, rtol * scale)
    return None


def bound(v):
    return None if v in (int_oo, -int_oo) else int(v)


def check_ranges(ep, expected):
    actual = sorted(([bound(r.lower), bound(r.upper)] for r in ep.range_constraints.values()),
                    key=str)
    want = sorted((list(r) for r in expected.values()), key=str)
    if actual != want:
        raise CaseFailure("range_constraints are %s, xport's %s" % (actual, want))


def run_case(root, case, progress, notes):
    """Loads and checks one case, adding "loaded" and "ran" to `progress` as it gets there and
    to `notes` why PyTorch refused each input set meant to be refused. Raises CaseFailure."""
    ep = load(os.path.join(root, case["pt2"]))
    progress.add("loaded")
    module = ep.module()
    outputs = []
    for k, run in enumerate(case["runs"]):
        inputs = [leaf_value(root, leaf) for leaf in run["inputs"]]
        args, kwargs = call_args(ep, inputs)
        try:
            # Copies: an output may be a buffer itself (a program that returns the new value
            # of its state), which the next run updates.
            outputs.append([leaf.clone() if isinstance(leaf, torch.Tensor) else leaf
                            for leaf in pytree.tree_leaves(module(*args, **kwargs))])
        except Exception as e:
            raise CaseFailure("run %d: ep.module(): %s" % (k, first_line(e))) from e
        # Inputs the program updates in place must hold what xport's eager call left in them.
        for i, (a, leaf) in enumerate(zip(pytree.tree_leaves((args, kwargs)),
                                          run.get("inputs_after", []))):
            problem = compare("run %d input %d after the call" % (k, i), a, leaf_value(root, leaf))
            if problem:
                raise CaseFailure(problem)
    progress.add("ran")
    for k, (run, actual) in enumerate(zip(case["runs"], outputs)):
        expected = [leaf_value(root, leaf) for leaf in run["outputs"]]
        if len(actual) != len(expected):
            raise CaseFailure("run %d: %d outputs, xport gives %d"
                              % (k, len(actual), len(expected)))
        for i, (a, e) in enumerate(zip(actual, expected)):
            # Quantized programs: a float sum a rounding apart may quantize one step apart.
            problem = compare("run %d output %d" % (k, i), a, e, case.get("tolerance", RTOL))
            if problem:
                raise CaseFailure(problem)
    check_ranges(ep, case["range_constraints"])
    for k, leaves in enumerate(case["refused_inputs"]):
        args, kwargs = call_args(ep, [leaf_value(root, leaf) for leaf in leaves], refused=True)
        try:
            module(*args, **kwargs)
        except Exception as e:  # PyTorch's input check or a runtime assertion; types vary
            notes.append("refused input set %d: %s" % (k, first_line(e)))
            continue
        raise CaseFailure("refused input set %d: ep.module() accepted it" % k)


def main(args):
    torch.set_num_threads(2)
    libraries = define_custom_ops()  # noqa: F841 (kept alive for the loads below)
    warnings.simplefilter("ignore")  # torch.export warns about things the cases do on purpose
    # The reason goes on the case's line, not as a traceback on stderr.
    logging.getLogger("torch.export").handlers = [LOAD_ERRORS]
    start = time.perf_counter()
    refusals = read_refusals(args.refusals)
    with open(os.path.join(args.dir, "manifest.json")) as f:
        cases = json.load(f)["cases"]
    unknown = sorted(set(refusals) - {c["name"] for c in cases})
    loaded = ran = equal = refused = 0
    problems = []
    for case in cases:
        name = case["name"]
        progress, notes, message = set(), [], None
        try:
            run_case(args.dir, case, progress, notes)
        except CaseFailure as e:
            message = str(e)
            if args.verbose:
                traceback.print_exception(e.__cause__ or e)
        except Exception as e:  # a broken manifest or .npy file, not PyTorch's doing
            message = "harness: " + first_line(e)
        loaded += "loaded" in progress
        ran += "ran" in progress
        equal += message is None
        if message is None:
            line = "equal"
            if name in refusals:
                problems.append("%s is listed as refused but works: remove it from %s"
                                % (name, args.refusals))
                line += " (listed as refused: remove it)"
        elif name in refusals:
            refused += 1
            line = "refused: " + refusals[name]
            if args.verbose:
                notes.insert(0, message)
        else:
            line = "FAILED: " + message
            problems.append("%s: %s" % (name, message))
        print("  %-40s %s" % (name, line))
        if args.verbose:
            for note in notes:
                print("      " + note)
        sys.stdout.flush()
    for name in unknown:
        problems.append("%s is listed in %s but is no case" % (name, args.refusals))
    print("%d xport archives: %d loaded by torch.export.load, %d ran, %d equal, "
          "%d refused with a listed reason (%.1f s)"
          % (len(cases), loaded, ran, equal, refused, time.perf_counter() - start))
    for p in problems:
        print("torch_load_cases: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main(parse_args()))
    except Exception as e:  # a clear one-line reason, and a non-zero exit for the caller
        print("torch_load_cases: failed: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        raise
