"""Where the tests of the Python package find their data: the build tree's .pt2 sets (each a
manifest.json of cases: the archive, and runs of input and output leaves as .npy files; the
layout tests/serde/torch_load_cases.py describes)."""
import json
import os

import numpy as np
import pytest

BUILD = os.environ.get("XPORT_BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", "..",
                                                       "build"))
SETS = ("xport_pt2", "torch_pt2", "hf_architectures", "pt2e")


def set_cases(name):
    with open(os.path.join(BUILD, name, "manifest.json")) as f:
        return json.load(f)["cases"]


def leaf(set_name, value):
    """A manifest leaf: an array from its .npy file, or a number."""
    if "npy" in value:
        return np.load(os.path.join(BUILD, set_name, value["npy"]))
    return value["value"]


def read_listed(filename):
    """{SET/CASE: the rest of its line} of a list beside these tests, one `SET/CASE: ...` a line
    (`#` starts a comment)."""
    listed = {}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), filename)) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                name, rest = (part.strip() for part in line.split(":", 1))
                listed[name] = rest
    return listed


def archive(set_name, case):
    return os.path.join(BUILD, set_name, case["pt2"])


@pytest.fixture
def bert():
    """PyTorch's BERT encoder with a dynamic batch and sequence, and its recorded runs."""
    case = next(c for c in set_cases("torch_pt2") if c["name"] == "bert_dynamic")
    return archive("torch_pt2", case), case


def pytest_terminal_summary(terminalreporter):
    """The AOT sweep's counts of its own cases (test_aot.py), when it ran."""
    import sys
    sweep = sys.modules.get("test_aot")
    if sweep is not None and sum(sweep.OUTCOMES.values()):
        terminalreporter.write_line("AOT sweep: %d case(s): %s" % (
            sum(sweep.OUTCOMES.values()),
            "; ".join("%d %s" % (n, what) for what, n in sweep.OUTCOMES.items())))
