"""The xport Python package (python/): every archive of the build's data sets (xport's ExportDB
cases, reference models and MiniLM; PyTorch's exports of the reference models, ExportDB and the
Hugging Face architectures) gives the recorded outputs and refuses the recorded bad inputs;
calls by structure and by name; errors as exceptions of their kinds; threads; DLPack inputs
taken without a copy; a process that never imports torch."""
import dataclasses
import os
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest

import xport
from conftest import BUILD, SETS, archive, leaf, read_listed, set_cases

# {SET/CASE: the ErrorKind it is refused with}
REFUSALS = {name: rest.split(":", 1)[0].strip()
            for name, rest in read_listed("refusals.txt").items()}
CASES = [(s, c) for s in SETS for c in set_cases(s)]


def assert_close(got, expected, what, tolerance=1e-4):
    """Integers exactly; floats within `tolerance` of the largest |expected| (at least 1)."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape, "%s: shape %s, expected %s" % (what, got.shape,
                                                                      expected.shape)
    if expected.dtype.kind in "biu":
        assert got.dtype == expected.dtype, "%s: dtype %s, expected %s" % (what, got.dtype,
                                                                          expected.dtype)
        assert np.array_equal(got, expected), what
        return
    if expected.size == 0:
        return
    scale = max(1.0, float(np.max(np.abs(expected[np.isfinite(expected)]), initial=0)))
    np.testing.assert_allclose(got, expected, rtol=0, atol=tolerance * scale, err_msg=what)


@pytest.mark.parametrize("set_name,case", CASES, ids=["%s/%s" % (s, c["name"]) for s, c in CASES])
def test_case_gives_the_recorded_outputs(set_name, case):
    name = "%s/%s" % (set_name, case["name"])
    if name in REFUSALS:
        with pytest.raises(getattr(xport, REFUSALS[name])):
            xport.load(archive(set_name, case))
        return
    check_recorded_runs(xport.load(archive(set_name, case), threads=2), set_name, case)


def check_recorded_runs(program, set_name, case):
    """The case's runs in order (a program that updates buffers carries them from one run to
    the next) give the recorded outputs and update the inputs it updates; its refused input
    sets are refused."""
    name = "%s/%s" % (set_name, case["name"])
    tolerance = case.get("tolerance", 1e-4)  # a quantized program's (tests/quant/pt2e_cases.py)
    for k, run in enumerate(case["runs"]):
        inputs = [leaf(set_name, value) for value in run["inputs"]]
        outputs = program.run_flat(grouped(program, inputs))
        assert len(outputs) == len(run["outputs"]), "run %d: output count" % k
        for i, (got, expected) in enumerate(zip(outputs, run["outputs"])):
            assert_close(got, leaf(set_name, expected), "%s run %d output %d" % (name, k, i),
                         tolerance)
        # An input the program updates in place is updated in the caller's array.
        for i, after in enumerate(run.get("inputs_after", [])):
            if "npy" in after:
                assert_close(inputs[i], leaf(set_name, after),
                             "%s run %d input %d after the call" % (name, k, i), tolerance)
    refused_sets = case.get("refused_inputs", [])
    if refused_sets and isinstance(refused_sets[0], dict):
        refused_sets = [refused_sets]  # PyTorch's sets record one
    for refused in refused_sets:
        if not refused:
            continue  # an input set the manifest could not write (a wrong count)
        with pytest.raises(xport.InvalidInput):
            program.run_flat(grouped(program, [leaf(set_name, value) for value in refused]))


def grouped(program, leaves):
    """The manifest's flat leaves as the program's inputs: a tensor list's elements in a list
    (the data sets have at most one list input; it takes the leaves the others leave over,
    which is how a refused set gives a list of the wrong length)."""
    out, rest = [], iter(leaves)
    others = sum(spec.kind != "tensor_list" for spec in program.inputs)
    for spec in program.inputs:
        if spec.kind == "tensor_list":
            out.append([next(rest) for _ in range(len(leaves) - others)])
        else:
            out.append(next(rest))
    return out


def test_a_refusal_says_what_the_cpp_runtime_says(bert, tmp_path):
    path, case = bert
    bad = np.zeros((2, 200, 768), np.float32)  # 200 tokens, past the contract's 128
    with pytest.raises(xport.InvalidInput) as caught:
        xport.load(path).run_flat([bad])
    np.save(tmp_path / "x.npy", bad)
    cli = subprocess.run([os.path.join(BUILD, "xport"), "run", path, "--input",
                          "x=%s" % (tmp_path / "x.npy")], capture_output=True, text=True)
    assert cli.returncode != 0
    assert str(caught.value) in cli.stderr
    assert "x.size(1)" in str(caught.value) and "128" in str(caught.value)
    assert isinstance(caught.value, xport.Error) and isinstance(caught.value, ValueError)


def case_named(set_name, name):
    return next(c for c in set_cases(set_name) if c["name"] == name)


def test_calls_by_the_programs_own_structure():
    # fn_with_kwargs(pos0, tuple0, *myargs, mykw0, **mykwargs): nested, varargs and keywords.
    case = case_named("torch_pt2", "fn_with_kwargs")
    program = xport.load(archive("torch_pt2", case))
    run = case["runs"][0]
    a = [leaf("torch_pt2", v) for v in run["inputs"]]
    got = program(a[0], (a[1], a[2]), a[3], a[4], mykw0=a[5], input0=a[6], input1=a[7])
    assert_close(got, leaf("torch_pt2", run["outputs"][0]), "fn_with_kwargs")
    with pytest.raises(TypeError, match="expected a sequence of 2"):
        program(a[0], a[1], a[3], a[4], mykw0=a[5], input0=a[6], input1=a[7])
    with pytest.raises(TypeError, match="missing input 'mykw0'"):
        program(a[0], (a[1], a[2]), a[3], a[4], input0=a[6], input1=a[7])
    # A dict result comes back as a dict.
    case = case_named("torch_pt2", "dictionary")
    program = xport.load(archive("torch_pt2", case))
    run = case["runs"][0]
    x, y = (leaf("torch_pt2", v) for v in run["inputs"])
    got = program(x, y=y)
    assert list(got) == ["y"]
    assert_close(got["y"], leaf("torch_pt2", run["outputs"][0]), "dictionary")
    # A list argument, and a dict with int keys inside a tuple.
    case = case_named("torch_pt2", "list_unpack")
    run = case["runs"][0]
    args = [leaf("torch_pt2", v) for v in run["inputs"]]
    got = xport.load(archive("torch_pt2", case))(args)
    assert_close(got, leaf("torch_pt2", run["outputs"][0]), "list_unpack")
    case = case_named("torch_pt2", "pytree_flatten")
    run = case["runs"][0]
    v1, v2 = (leaf("torch_pt2", v) for v in run["inputs"])
    got = xport.load(archive("torch_pt2", case))(({1: v1, 2: v2},))
    assert_close(got, leaf("torch_pt2", run["outputs"][0]), "pytree_flatten")


def test_xport_archives_describe_their_contract_by_the_users_names():
    case = next(c for c in set_cases("xport_pt2") if c["name"] == "mlp_dynamic")
    program = xport.load(archive("xport_pt2", case))
    x = program.inputs[0]
    assert (x.kind, x.dtype, x.shape) == ("tensor", "float32", ("batch", 1024))
    assert [d.name for d in program.contract.dims] == ["batch"]
    batch = program.contract.dims[0]
    assert batch.symbol == "s0" and batch.source == "x.size(0)" and not batch.unbacked
    assert batch.min is not None and batch.min >= 1 and batch.max is not None
    assert program.contract.inputs == {"x": ("batch", 1024)}
    assert "batch in [" in program.contract.text and str(program.contract) == program.contract.text
    # Frozen, so hashable: the same archive loaded twice gives equal contracts of equal hashes.
    again = xport.load(archive("xport_pt2", case)).contract
    assert again == program.contract and hash(again) == hash(program.contract)
    assert len({again, program.contract}) == 1
    assert program.outputs[0].shape is not None and program.outputs[0].shape[0] == "batch"
    assert "graph" in str(program) and "range" in str(program)
    # A program run on inputs of other shapes.
    for rows in (3, 2):
        out = program.run_flat({x.name: np.ones((rows, 1024), np.float32)})
        assert out[0].shape[0] == rows
    # The C++ forward returns one tensor, so the call gives one array; ExportDB's cases are
    # traced as functions returning a vector, so they give a tuple, of one array too.
    alone = program(np.ones((3, 1024), np.float32))
    assert isinstance(alone, np.ndarray) and alone.shape == (3, 1024)
    case = next(c for c in set_cases("xport_pt2") if c["group"] == "exportdb"
                and len(c["runs"][0]["inputs"]) == 1 and len(c["runs"][0]["outputs"]) == 1)
    got = xport.load(archive("xport_pt2", case))(leaf("xport_pt2", case["runs"][0]["inputs"][0]))
    assert isinstance(got, tuple) and len(got) == 1, case["name"]


def test_equalities_between_inputs():
    case = next(c for c in set_cases("torch_pt2") if c["name"] == "bert_dynamic")
    contract = xport.load(archive("torch_pt2", case)).contract
    assert contract.equalities == ()
    case = next(c for c in set_cases("hf_architectures") if c["name"] == "bert_dynamic")
    contract = xport.load(archive("hf_architectures", case)).contract
    # input_ids and attention_mask share their batch and sequence dims.
    assert any(len(group) >= 2 for group in contract.equalities), contract.text


def test_errors_are_exceptions_of_their_kinds(tmp_path):
    with pytest.raises(xport.InvalidInput, match="cannot open the file"):
        xport.load(tmp_path / "missing.pt2")
    junk = tmp_path / "junk.pt2"
    junk.write_bytes(b"not a zip file at all")
    with pytest.raises(xport.InvalidArchive):
        xport.load(junk)
    with pytest.raises(xport.InvalidInput, match="threads"):
        xport.load(junk, threads=0)
    assert issubclass(xport.UnsupportedOp, xport.Error)


def test_bad_arguments_are_type_errors(bert):
    program = xport.load(bert[0])
    x = leaf("torch_pt2", bert[1]["runs"][0]["inputs"][0])
    with pytest.raises(TypeError, match="takes 1 positional input"):
        program(x, x)
    with pytest.raises(TypeError, match="no input named 'y'"):
        program(x=x, y=x)
    with pytest.raises(TypeError, match="expected a NumPy array"):
        program.run_flat([object()])
    # A float64 array for a float32 input: refused with NumPy's spelling of the conversion.
    with pytest.raises(xport.InvalidInput, match=r"input x: expected dtype float32, got "
                       r"float64; convert it with x\.astype\(numpy\.float32\)$"):
        program(x.astype(np.float64))


def test_outputs_are_views_of_the_runtimes_memory(bert):
    program = xport.load(bert[0])
    out = program.run_flat([leaf("torch_pt2", bert[1]["runs"][0]["inputs"][0])])[0]
    assert not out.flags.owndata and out.base is not None
    assert out.flags.writeable  # its own memory: nothing else reads it
    del program
    assert np.isfinite(out).all()  # the array keeps the memory alive


def test_threads_run_one_program_at_once(bert):
    path, case = bert
    program = xport.load(path, threads=1)
    inputs = [leaf("torch_pt2", run["inputs"][0]) for run in case["runs"]]
    expected = [program.run_flat([x])[0].copy() for x in inputs]
    failures = []

    def work(seed):
        for k in range(10):
            i = (seed + k) % len(inputs)
            got = program.run_flat([inputs[i]])[0]
            if not np.array_equal(got, expected[i]):
                failures.append((seed, k))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_the_gil_is_released_while_a_program_runs(bert):
    import time
    path, case = bert
    program = xport.load(path, threads=1)
    x = np.zeros((4, 64, 768), np.float32)
    start = time.perf_counter()
    program.run_flat([x])
    call = time.perf_counter() - start
    worker = threading.Thread(target=lambda: [program.run_flat([x]) for _ in range(3)])
    longest, last = 0.0, time.perf_counter()
    worker.start()
    while worker.is_alive():  # Python runs here while the worker's program does
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    # Holding the GIL through a call would stop this loop for the whole call.
    assert longest < call / 2, "the loop stopped for %.3f s; a call takes %.3f s" % (longest, call)


def test_dlpack_inputs_are_taken_without_a_copy():
    torch = pytest.importorskip("torch")  # the test environment has it; the package does not
    case = case_named("torch_pt2", "user_input_mutation")
    run = case["runs"][0]
    x = torch.from_numpy(leaf("torch_pt2", run["inputs"][0]).copy())
    out = xport.load(archive("torch_pt2", case))(x)
    assert_close(out, leaf("torch_pt2", run["outputs"][0]), "user_input_mutation")
    # The program updates its input in place: the torch tensor itself changed.
    assert_close(x.numpy(), leaf("torch_pt2", run["inputs_after"][0]), "the input after")


SCRIPT = r"""
import sys, numpy as np, xport
program = xport.load(sys.argv[1])
out = program.run_flat([np.load(sys.argv[2])])[0]
np.testing.assert_allclose(out, np.load(sys.argv[3]), rtol=0, atol=1e-4)
assert "torch" not in sys.modules, sorted(m for m in sys.modules if "torch" in m)
print("ok")
"""


def test_a_process_that_runs_a_program_never_imports_torch(bert):
    path, case = bert
    run = case["runs"][0]
    result = subprocess.run([sys.executable, "-c", SCRIPT, path,
                             os.path.join(BUILD, "torch_pt2", run["inputs"][0]["npy"]),
                             os.path.join(BUILD, "torch_pt2", run["outputs"][0]["npy"])],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_the_package_ships_its_types():
    # PEP 561: a type checker reads the package's annotations only where py.typed is; the
    # compiled extension's types are in its stub.
    package = os.path.dirname(xport.__file__)
    assert os.path.isfile(os.path.join(package, "py.typed")), package
    assert os.path.isfile(os.path.join(package, "_xport.pyi")), package


def test_descriptions_are_frozen_dataclasses():
    fields = {cls: [f.name for f in dataclasses.fields(cls)]
              for cls in (xport.InputSpec, xport.OutputSpec, xport.Dim, xport.Contract)}
    assert fields == {
        xport.InputSpec: ["name", "kind", "dtype", "shape", "elements", "value"],
        xport.OutputSpec: ["name", "dtype", "shape", "value"],
        xport.Dim: ["name", "symbol", "source", "min", "max", "unbacked"],
        xport.Contract: ["dims", "inputs", "equalities", "text"]}
    program = xport.load(archive("xport_pt2", case_named("xport_pt2", "list_inputs")))
    with pytest.raises(dataclasses.FrozenInstanceError):
        program.inputs[0].name = "y"  # type: ignore[misc]
    xs = next(i for i in program.inputs if i.kind == "tensor_list")
    assert xs.dtype is None and xs.shape is None and len(xs.elements) == 2
    assert all(e.kind == "tensor" and e.shape is not None for e in xs.elements)
    program = xport.load(archive("xport_pt2", case_named("xport_pt2", "float_and_bool_arguments")))
    numbers = {i.kind: i.value for i in program.inputs if i.kind != "tensor"}
    assert set(numbers) == {"float", "bool"} and isinstance(numbers["bool"], bool)
    unbacked = xport.load(archive("torch_pt2", case_named("torch_pt2", "float_item"))).contract
    assert [(d.min, d.max, d.unbacked) for d in unbacked.dims] == [(None, None, True)]


@pytest.mark.parametrize("set_name,name", [
    ("xport_pt2", "mlp_dynamic"), ("xport_pt2", "list_inputs"), ("xport_pt2", "int_argument"),
    ("xport_pt2", "float_and_bool_arguments"), ("xport_pt2", "data_dependent_masked_select"),
    ("hf_architectures", "bert_dynamic")])
def test_the_dict_spelling_of_0_1_still_reads_the_same(set_name, name):
    # 0.1's program.inputs, .outputs and .contract were the extension's dicts: each key gives
    # the same value (lists and dicts), with a DeprecationWarning; a key 0.1 had not is a
    # KeyError.
    path = archive(set_name, case_named(set_name, name))
    program, raw = xport.load(path), xport._xport.load(path, 1, True)
    with pytest.deprecated_call():
        assert program.inputs[0]["name"] == raw.inputs[0]["name"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert [dict(i) for i in program.inputs] == raw.inputs
        assert [dict(o) for o in program.outputs] == raw.outputs
        assert dict(program.contract) == raw.contract
        for key, value in raw.contract.items():
            assert program.contract[key] == value and type(program.contract[key]) is type(value)
        for dim, symbol in zip(program.contract["symbols"], raw.contract["symbols"]):
            assert dim == symbol
        assert program.outputs[0].get("kind") is None and "kind" not in program.outputs[0]
        with pytest.raises(KeyError):
            program.outputs[0]["kind"]
