"""Ahead-of-time compilation of every archive of the build's data sets (xport's ExportDB cases and
reference models; PyTorch's exports of the reference models, ExportDB and the Hugging Face
architectures): `xport compile` makes a library, `xport.load` runs it, and it gives the recorded
outputs, keeps buffers across runs and refuses the recorded bad inputs, as the archive does.

The cases the compiler refuses are listed in aot_refusals.txt, each with the part of the message
it refuses with: such cases are reported as xfail; a refusal not listed fails, and so does a
listed case that compiles (its line must go). Programs of symbolic sizes compile: each case's
recorded runs cover the shapes its contract admits. The summary at the end counts the cases
this run compiled, by outcome.

Each case costs a compiler run (~3 s on 2 cores), so `make test` (XPORT_AOT_SAMPLE=3, set by
ctest) compiles every third case of each data set, in name order; `make test-aot-sweep` (or
XPORT_AOT_SWEEP=all) compiles every case."""
import os
import subprocess
import tempfile

import pytest

import xport
from conftest import BUILD, archive, read_listed
from test_package import CASES, REFUSALS, case_named, check_recorded_runs

XPORT = os.path.join(BUILD, "xport")
# {SET/CASE: the part of the compiler's message it is refused with}
AOT_REFUSALS = read_listed("aot_refusals.txt")
# The sweep's own counts, printed by conftest.py's terminal summary.
OUTCOMES = {"compiled, runs equal the recorded ones": 0, "refused as aot_refusals.txt lists": 0,
            "archive refused by the runtime as refusals.txt lists": 0}


def sampled(cases):
    every = 1 if os.environ.get("XPORT_AOT_SWEEP") == "all" else int(
        os.environ.get("XPORT_AOT_SAMPLE", "1"))
    position = {}
    kept = []
    for set_name, case in cases:
        index = position[set_name] = position.get(set_name, -1) + 1
        if index % every == 0:
            kept.append((set_name, case))
    return kept


SWEEP = sampled(sorted(CASES, key=lambda sc: (sc[0], sc[1]["name"])))


@pytest.mark.parametrize("set_name,case", SWEEP, ids=["%s/%s" % (s, c["name"]) for s, c in SWEEP])
def test_compiled_case_gives_the_recorded_outputs(set_name, case):
    # Each case's library and archive go as soon as it ends (pytest keeps its tmp_paths, and
    # the archives of 240 cases would fill a small disk).
    with tempfile.TemporaryDirectory(prefix="xport-aot-") as directory:
        check_compiled_case(set_name, case, os.path.join(directory, "model.so"))


def check_compiled_case(set_name, case, library):
    name = "%s/%s" % (set_name, case["name"])
    compiled = subprocess.run([XPORT, "compile", archive(set_name, case), library],
                              capture_output=True, text=True)
    if name in REFUSALS:  # archives the runtime refuses to load are refused here too
        assert compiled.returncode != 0, name
        OUTCOMES["archive refused by the runtime as refusals.txt lists"] += 1
        return
    expected = AOT_REFUSALS.get(name)
    if compiled.returncode != 0:
        assert expected, "%s: refused, and aot_refusals.txt does not list it:\n%s" % (
            name, compiled.stderr)
        assert expected in compiled.stderr, "%s: refused, but not for the listed reason %r:\n%s" % (
            name, expected, compiled.stderr)
        OUTCOMES["refused as aot_refusals.txt lists"] += 1
        pytest.xfail("%s: %s" % (name, expected))
    assert not expected, "%s compiles now: remove its line from aot_refusals.txt" % name
    check_recorded_runs(xport.load(library, threads=2), set_name, case)
    OUTCOMES["compiled, runs equal the recorded ones"] += 1


def test_an_embedded_archive_makes_the_library_the_one_file_to_deploy(tmp_path):
    """`xport compile --embed`: no NAME.pt2 beside the library; moved alone, it loads and runs
    PyTorch's GPT-2 export (symbolic batch and sequence) at each recorded shape."""
    set_name, case = "torch_pt2", case_named("torch_pt2", "gpt2_dynamic")
    built = tmp_path / "built"
    built.mkdir()
    compiled = subprocess.run([XPORT, "compile", "--embed", archive(set_name, case),
                               str(built / "gpt2.so")], capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    assert "embedded archive" in compiled.stdout + compiled.stderr
    assert not (built / "gpt2.pt2").exists()
    deployed = tmp_path / "deployed"
    deployed.mkdir()
    os.rename(built / "gpt2.so", deployed / "gpt2.so")
    check_recorded_runs(xport.load(str(deployed / "gpt2.so"), threads=2), set_name, case)
