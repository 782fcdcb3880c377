#!/usr/bin/env python3
"""What torch.export accepts beside what xport accepts, for the soundness fuzzer's programs.

Usage: tests/soundness/torch_acceptance.py DIR KNOWN_FILE [--verbose]

DIR holds what `xport_soundness_fuzzer --torch-accept DIR` writes: manifest.json and, per program,
program.py (the program's steps as a torch.nn.Module, with its Dims as torch.export.Dim), its
example inputs, xport's eager outputs on them, and whether xport's export accepted it. For every
program this script
  1. runs the PyTorch program eagerly on the example and compares with xport's eager outputs
     (a difference is a finding: the two eager semantics of one program disagree);
  2. exports it with torch.export.export and the same dynamic_shapes;
  3. compares the verdicts. Where xport refuses and torch.export accepts, it runs torch's export
     against torch's eager at every Dim's min and max: if they agree, PyTorch accepted the
     contract soundly and xport's refusal is a finding (a contract narrower than PyTorch's),
     unless xport's suggested spec leaves out only sizes where eager itself raises, or the
     program's own C++ `if` on a size splits a Dim's range (the generator says so).
     Where torch.export accepts unsoundly, or xport accepts what torch.export refuses, the
     program is counted and shown, not failed: xport's own oracle checks its soundness.

KNOWN_FILE lists findings accepted for now, one `name: reason` a line (`#` starts a comment).
Prints the table of verdicts; exits 1 when an unlisted finding appears or a listed one is gone.
"""
import argparse
import collections
import importlib.util
import itertools
import json
import logging
import os
import re
import sys
import warnings

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serde"))
from torch_load_cases import compare, first_line, read_refusals  # noqa: E402


def load_program(path):
    name = os.path.basename(os.path.dirname(path))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dynamo reads the globals of cond's branches through it
    spec.loader.exec_module(module)
    return module


def read_leaves(root, leaves):
    return [torch.from_numpy(np.load(os.path.join(root, leaf["npy"]))) for leaf in leaves]


def clones(ts):
    return [t.clone() for t in ts]


def first_difference(actual, expected, what):
    if len(actual) != len(expected):
        return "%s: %d outputs, xport's eager gives %d" % (what, len(actual), len(expected))
    for i, (a, e) in enumerate(zip(actual, expected)):
        diff = compare("%s output %d" % (what, i), a, e)
        if diff:
            return diff
    return None


def inputs_at(case, values, seed):
    """Random inputs with each Dim at values[name]."""
    gen = torch.Generator().manual_seed(seed)
    out = []
    for sizes in case["shapes"]:
        shape = [s if isinstance(s, int) else s[0] * values[s[1]] for s in sizes]
        out.append(torch.randn(shape, generator=gen))
    return out


def eager_refuses(program, inputs):
    try:
        return program.Program()(*clones(inputs)), None
    except Exception as e:  # noqa: BLE001 -- eager's own refusal (an empty amax, map of 0 rows)
        return None, e


def torch_sound(case, program, ep):
    """None when torch's export agrees with torch's eager at every combination of the Dims' ends
    (equal results, or both raise), else what differs."""
    names = sorted(case["dims"])
    ends = [sorted(set(case["dims"][n])) for n in names]
    for k, combo in enumerate(itertools.product(*ends)):
        inputs = inputs_at(case, dict(zip(names, combo)), 1000 + k)
        where = ", ".join("%s = %d" % p for p in zip(names, combo))
        want, eager_error = eager_refuses(program, inputs)
        try:
            got = ep.module()(*clones(inputs))
        except Exception as e:  # noqa: BLE001 -- any refusal inside the declared range counts
            if eager_error is not None:
                continue
            return "torch's export refuses %s inside its Dims: %s" % (where, first_line(e))
        if eager_error is not None:
            return "torch's export runs %s, where eager raises %s" % (where,
                                                                     first_line(eager_error))
        diff = first_difference(list(got), list(want), "at " + where)
        if diff:
            return diff
    return None


SUGGESTED_DIM = re.compile(r'Dim (\w+)\("\w+", (\d+), (\d+)\);')


def only_where_eager_refuses(case, program, message):
    """True when xport's refusal suggests ranges that leave out only sizes at which eager itself
    raises: each Dim's suggested range inside its declared one, and eager raising at every
    declared end the suggestion drops (the other Dims at their suggested minimum)."""
    suggested = {m.group(1): (int(m.group(2)), int(m.group(3)))
                 for m in SUGGESTED_DIM.finditer(message)}
    if not suggested:
        return False
    dropped = []
    for name, (lo, hi) in case["dims"].items():
        s_lo, s_hi = suggested.get(name, (lo, hi))
        if s_lo < lo or s_hi > hi:
            return False
        dropped += [(name, v) for v, kept in ((lo, s_lo == lo), (hi, s_hi == hi)) if not kept]
    base = {name: suggested.get(name, r)[0] for name, r in case["dims"].items()}
    for k, (name, value) in enumerate(dropped):
        _, error = eager_refuses(program, inputs_at(case, dict(base, **{name: value}), 2000 + k))
        if error is None:
            return False
    return bool(dropped)


def check_case(root, case):
    """(verdict, finding or None, detail)."""
    program = load_program(os.path.join(root, case["program"]))
    example = read_leaves(root, case["inputs"])
    xport_eager = read_leaves(root, case["outputs"])
    eager, eager_error = eager_refuses(program, example)
    if eager_error is not None:
        return "torch's eager refuses the example, xport's runs it", None, first_line(eager_error)
    diff = first_difference(list(eager), xport_eager, "torch's eager")
    if diff:
        return "eager differs", "torch's eager differs from xport's eager", diff
    try:
        ep = torch.export.export(program.Program(), tuple(clones(example)),
                                 dynamic_shapes=program.dynamic_shapes)
        torch_error = None
    except Exception as e:  # noqa: BLE001 -- every refusal is a verdict
        ep, torch_error = None, e
    xport = case["xport"]
    if xport["exported"] and ep is not None:
        return "both export", None, ""
    if not xport["exported"] and ep is None:
        return "both refuse", None, "xport %s, torch %s" % (xport["kind"], type(torch_error).__name__)
    if xport["exported"]:
        return ("xport exports, torch.export refuses", None,
                first_line(torch_error))
    if xport["kind"] == "ConstraintViolation" and case["splits_range"]:
        # A C++ `if` whose condition differs inside a Dim's range: refusing is the sound answer;
        # torch.export decides such a size comparison as if every size were at least 2.
        return ("the program's own if splits a Dim's range: xport refuses, torch.export accepts",
                None, xport["message"].splitlines()[1].strip())
    unsound = torch_sound(case, program, ep)
    if unsound:
        return "torch.export accepts unsoundly, xport refuses", None, unsound
    if only_where_eager_refuses(case, program, xport["message"]):
        return ("xport leaves out only sizes where eager refuses; torch.export accepts", None,
                xport["message"].splitlines()[1].strip())
    return ("xport refuses, torch.export accepts soundly",
            "xport refuses a contract torch.export accepts soundly",
            "xport %s: %s" % (xport["kind"], xport["message"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dir")
    parser.add_argument("known")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)  # torch.export logs each guard, refusal and graph
    warnings.simplefilter("ignore")
    known = read_refusals(args.known)
    with open(os.path.join(args.dir, "manifest.json")) as f:
        cases = json.load(f)["cases"]
    verdicts = collections.Counter()
    examples = {}
    failed = []
    for case in cases:
        name = case["name"]
        try:
            verdict, finding, detail = check_case(args.dir, case)
        except Exception as e:  # noqa: BLE001 -- a crash of the script's own steps is a finding
            verdict, finding, detail = "crashed", "the comparison crashed", first_line(e)
        verdicts[verdict] += 1
        examples.setdefault(verdict, "%s: %s" % (name, detail))
        if args.verbose:
            print("%s: %s %s" % (name, verdict, detail))
        if finding and name not in known:
            failed.append("%s: %s: %s" % (name, finding, detail))
        elif not finding and name in known:
            failed.append("%s: listed in %s (%s) but no longer a finding"
                          % (name, args.known, known[name]))
    print("%d programs" % len(cases))
    for verdict, count in verdicts.most_common():
        print("  %-70s %5d   e.g. %s" % (verdict, count, examples[verdict][:200]))
    for line in failed:
        print("FAILED " + line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
