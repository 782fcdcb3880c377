"""xport.serve's parts that need no cluster: the Open Inference Protocol codec (JSON and binary
tensors both ways), dynamic batching's plan, join and split against unbatched runs, and the
command line refusing an archive it cannot serve before it touches Ray."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, seed, settings

import xport
from xport.serve import ServedModel, batching, protocol
from xport.serve.model import CLIENT_ERRORS
from xport.serve.protocol import RequestError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import protocol_fuzz  # noqa: E402
from serve_models import write_pair, write_window  # noqa: E402


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("pair") / "pair.pt2")
    write_pair(path)
    return ServedModel(xport.load(path, threads=1), "pair", max_batch=16)


def binary_body(tensors):
    """A request with every input as binary data: (body, header length)."""
    header = json.dumps({"inputs": [{"name": n, "datatype": protocol.datatype_of(a),
                                     "shape": list(a.shape),
                                     "parameters": {"binary_data_size": a.nbytes}}
                                    for n, a in tensors.items()],
                         "outputs": [{"name": "add", "parameters": {"binary_data": True}},
                                     {"name": "sum_1"}]}).encode()
    return header + b"".join(a.tobytes() for a in tensors.values()), len(header)


def test_binary_inputs_and_outputs_round_trip(pair):
    x = np.arange(32, dtype=np.float32).reshape(2, 16)
    y = np.ones((2, 8), np.float32)
    body, length = binary_body({"x": x, "y": y})
    request = protocol.decode_request(body, str(length))
    np.testing.assert_array_equal(request.inputs["x"], x)
    pair.check(request)
    outputs = pair.run(request.inputs)
    body, headers = protocol.encode_response("pair", "1", request, outputs)
    n = int(headers[protocol.HEADER_LENGTH])
    response = json.loads(body[:n])
    add, total = response["outputs"]
    assert add["parameters"]["binary_data_size"] == 2 * 8 * 4 and "data" not in add
    got = np.frombuffer(body[n:], np.float32).reshape(add["shape"])
    np.testing.assert_array_equal(got, outputs["add"])
    np.testing.assert_array_equal(np.asarray(total["data"], np.float32), outputs["sum_1"])


@pytest.mark.parametrize("datatype,data,expected", [
    ("BOOL", [True, False], np.array([True, False])),
    ("INT64", [[1, -2], [3, 4]], np.array([[1, -2], [3, 4]], np.int64)),
    ("UINT8", [0, 255], np.array([0, 255], np.uint8)),
    ("FP16", [0.5, 1], np.array([0.5, 1.0], np.float16)),
])
def test_json_data_flat_or_nested(datatype, data, expected):
    shape = list(expected.shape)
    body = json.dumps({"inputs": [{"name": "a", "datatype": datatype, "shape": shape,
                                   "data": data}]}).encode()
    got = protocol.decode_request(body).inputs["a"]
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_a_binary_bool_byte_other_than_one_is_true():
    header = json.dumps({"inputs": [{"name": "a", "datatype": "BOOL", "shape": [3],
                                     "parameters": {"binary_data_size": 3}}]}).encode()
    got = protocol.decode_request(header + bytes([0, 1, 7]), str(len(header))).inputs["a"]
    np.testing.assert_array_equal(got.view(np.uint8), [0, 1, 1])


@pytest.mark.parametrize("datatype,data,field", [
    ("BOOL", [1, 0], "values of BOOL must be true or false"),
    ("INT32", [1.5, 2], "values of INT32 must be integers"),
    ("UINT8", [-1, 2], "out of UINT8's range"),
    ("INT64", [2 ** 70, 1], "inputs[0].data"),
    ("FP32", [1e300, 1], "out of FP32's range"),
])
def test_json_data_of_the_wrong_kind_is_refused(datatype, data, field):
    body = json.dumps({"inputs": [{"name": "a", "datatype": datatype, "shape": [2],
                                   "data": data}]}).encode()
    with pytest.raises(RequestError, match=field.replace("[", r"\[").replace("]", r"\]")):
        protocol.decode_request(body)


def test_deeply_nested_json_is_a_400_not_a_crash():
    with pytest.raises(RequestError, match="request body"):
        protocol.decode_request(b"[" * 100000)


@seed(int(os.environ.get("XPORT_FUZZ_SEED", "47")))
@settings(max_examples=int(os.environ.get("XPORT_PROTOCOL_FUZZ_EXAMPLES", "2000")),
          deadline=None, database=None)
@given(protocol_fuzz.requests())
def test_a_malformed_request_is_refused_naming_its_field(pair, request):
    """What the replica does with a body, in process: decode, check against the model, run.
    Every request either runs or is refused with a 4xx whose message names the field (or the
    input the contract refused); any other exception fails."""
    body, length = request
    try:
        decoded = protocol.decode_request(body, length)
        pair.check(decoded)
        outputs = pair.run(decoded.inputs)
        protocol.encode_response("pair", "1", decoded, outputs)
    except RequestError as e:
        assert 400 <= e.status < 500, "%d %s" % (e.status, e)
        assert protocol_fuzz.FIELD.match(str(e)), str(e)
    except CLIENT_ERRORS as e:
        assert protocol_fuzz.FIELD.match(str(e)), str(e)


def request_of(x, y):
    body = json.dumps({"inputs": [
        {"name": "x", "datatype": protocol.datatype_of(x), "shape": list(x.shape),
         "data": x.reshape(-1).tolist()},
        {"name": "y", "datatype": "FP32", "shape": list(y.shape),
         "data": y.reshape(-1).tolist()}]}).encode()
    return protocol.decode_request(body)


def test_batches_join_what_fits_and_split_back_to_unbatched_results(pair):
    rng = np.random.default_rng(0)
    rows = [1, 3, 16, 5, 2, 9, 4]
    requests = [request_of(rng.standard_normal((r, 16), dtype=np.float32),
                           rng.standard_normal((r, 8), dtype=np.float32)) for r in rows]
    requests.append(request_of(np.zeros((2, 16), np.float64), np.zeros((2, 8), np.float32)))
    requests.append(request_of(np.zeros((17, 16), np.float32), np.zeros((17, 8), np.float32)))
    runs = batching.plan_runs(pair, requests)
    # 16 rows at most per run; another dtype and a request over 16 rows run apart.
    assert runs == [[0, 1], [2], [3, 4, 5], [6], [7], [8]]
    for run in runs:
        if len(run) == 1:
            continue
        group = [requests[i] for i in run]
        joined = pair.run(batching.join(pair, group))
        parts = batching.split(joined, [r.inputs["x"].shape[0] for r in group])
        for request, part in zip(group, parts):
            alone = pair.run(request.inputs)
            for name in pair.output_names:
                np.testing.assert_allclose(part[name], alone[name], rtol=1e-5, atol=1e-6)


def test_a_model_without_a_batch_dim_does_not_batch(tmp_path):
    path = str(tmp_path / "window.pt2")
    write_window(path)
    model = ServedModel(xport.load(path), "window", max_batch=16)
    assert model.batch_dim is None and not model.batching


def test_the_command_line_refuses_an_archive_before_starting_ray(tmp_path):
    bad = tmp_path / "bad.pt2"
    bad.write_bytes(b"not an archive")
    out = subprocess.run([sys.executable, "-m", "xport.serve", str(bad)], capture_output=True,
                         text=True, timeout=120, env=dict(os.environ, RAY_ADDRESS=""))
    assert out.returncode != 0
    assert "InvalidArchive" in out.stderr
    assert "Started a local Ray instance" not in out.stderr + out.stdout
