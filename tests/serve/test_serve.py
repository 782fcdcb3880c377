"""xport.serve on a two-node Ray cluster (conftest.py): a real Open Inference Protocol client
(tritonclient.http) reads metadata and infers; replicas run on both nodes; concurrent requests
batch and equal unbatched runs; bad requests get 400/404/405 naming what is wrong and no
replica dies; a body over the limit gets 413; the OpenAPI page lists the V2 routes; a load of
2000 requests keeps 0 wrong answers while a replica's process is killed; and `python -m
xport.serve` joins the cluster and serves until interrupted."""
import concurrent.futures
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import protocol_fuzz
import pytest
import ray
import tritonclient.http as triton
from hypothesis import HealthCheck, given, seed, settings
from ray import serve
from ray.util.state import list_actors
from tritonclient.utils import InferenceServerException

import xport
from conftest import BATCH_ROWS, PAIR_MAX_REQUEST_BYTES, WINDOW_MAX_REQUEST_BYTES, get, post
from local_ray_cluster import free_ports

PAIR_REPLICA = "ServeReplica:pair:xport_pair"


def pair_inputs(rows, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((rows, 16), dtype=np.float32),
            rng.standard_normal((rows, 8), dtype=np.float32))


def infer_body(x, y):
    return {"inputs": [{"name": "x", "datatype": "FP32", "shape": list(x.shape),
                        "data": x.reshape(-1).tolist()},
                       {"name": "y", "datatype": "FP32", "shape": list(y.shape),
                        "data": y.reshape(-1).tolist()}]}


def outputs_of(response):
    return {o["name"]: np.asarray(o["data"], np.float32).reshape(o["shape"])
            for o in response["outputs"]}


def assert_equal_unbatched(got, program, x, y, what):
    expected = program.run_flat([x, y])
    for name, want in zip(("add", "sum_1"), expected):
        np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-5, err_msg=what)


def replicas(class_name):
    """The live replicas of a deployment: [(pid, node id)]."""
    actors = list_actors(filters=[("class_name", "=", class_name), ("state", "=", "ALIVE")])
    return sorted((a.pid, a.node_id) for a in actors)


def test_replicas_run_on_both_nodes(server, cluster):
    placed = replicas(PAIR_REPLICA)
    nodes = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    print("\npair's replicas (pid, node): %s" % placed)
    assert len(placed) == 2
    assert {node for _, node in placed} == nodes and len(nodes) == 2


def test_tritonclient_reads_health_and_metadata(server):
    client = triton.InferenceServerClient(server)
    assert client.is_server_live() and client.is_server_ready()
    assert client.is_model_ready("pair") and client.is_model_ready("window")
    meta = client.get_model_metadata("pair")
    assert [(i["name"], i["datatype"], i["shape"]) for i in meta["inputs"]] == [
        ("x", "FP32", [-1, 16]), ("y", "FP32", [-1, 8])]
    assert [(o["name"], o["shape"]) for o in meta["outputs"]] == [("add", [-1, 8]),
                                                                  ("sum_1", [-1])]
    batch = meta["parameters"]["batch_dim"]
    assert meta["parameters"][batch + ".min"] == 1 and meta["parameters"][batch + ".max"] == 64
    assert meta["parameters"]["max_batch_rows"] == BATCH_ROWS
    window = client.get_model_metadata("window")
    assert window["inputs"][0]["shape"] == [3, -1]
    assert "batch_dim" not in window["parameters"]
    width = window["inputs"][0]["parameters"]["shape"].strip("[]").split(", ")[1]
    assert (window["parameters"][width + ".min"], window["parameters"][width + ".max"]) == (2, 32)


@pytest.mark.parametrize("binary", [True, False], ids=["binary", "json"])
def test_tritonclient_infers(server, programs, binary):
    client = triton.InferenceServerClient(server)
    x, y = pair_inputs(3, seed=1)
    inputs = [triton.InferInput("x", list(x.shape), "FP32"),
              triton.InferInput("y", list(y.shape), "FP32")]
    inputs[0].set_data_from_numpy(x, binary_data=binary)
    inputs[1].set_data_from_numpy(y, binary_data=binary)
    outputs = [triton.InferRequestedOutput(n, binary_data=binary) for n in ("add", "sum_1")]
    result = client.infer("pair", inputs, outputs=outputs)
    got = {n: result.as_numpy(n) for n in ("add", "sum_1")}
    assert got["add"].dtype == np.float32 and got["add"].shape == (3, 8)
    assert_equal_unbatched(got, programs["pair"], x, y, "tritonclient binary=%s" % binary)
    # The model without a batch dim, all outputs by default.
    w = np.random.default_rng(2).standard_normal((3, 7), dtype=np.float32)
    window_input = triton.InferInput("x", [3, 7], "FP32")
    window_input.set_data_from_numpy(w, binary_data=binary)
    result = client.infer("window", [window_input])
    np.testing.assert_allclose(result.as_numpy("mul"), programs["window"].run_flat([w])[0],
                               rtol=1e-6, atol=1e-6)


def test_tritonclient_sees_the_runtimes_refusal(server, programs):
    client = triton.InferenceServerClient(server)
    w = np.zeros((3, 40), np.float32)  # width 40, past the contract's 32
    window_input = triton.InferInput("x", [3, 40], "FP32")
    window_input.set_data_from_numpy(w)
    with pytest.raises(xport.InvalidInput) as local:
        programs["window"].run_flat([w])
    with pytest.raises(InferenceServerException) as remote:
        client.infer("window", [window_input])
    assert remote.value.message() == str(local.value)
    assert "32" in str(local.value)


def test_concurrent_requests_batch_and_equal_unbatched_runs(server, programs):
    cases = [pair_inputs(1 + k % 4, seed=100 + k) for k in range(48)]
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(lambda c: post(server, "/v2/models/pair/infer", infer_body(*c)),
                                cases))
    sizes = []
    for k, ((status, response), (x, y)) in enumerate(zip(answers, cases)):
        assert status == 200, response
        assert_equal_unbatched(outputs_of(response), programs["pair"], x, y, "request %d" % k)
        sizes.append(response["parameters"]["batch_size"])
    print("\nrequests per run: %s" % sorted(sizes))
    assert max(sizes) > 1, "no two requests ran together"


def bad_requests():
    """(what, path, body, headers, status, what the message must contain)."""
    x = {"name": "x", "datatype": "FP32", "shape": [1, 16], "data": [0.5] * 16}
    y = {"name": "y", "datatype": "FP32", "shape": [1, 8], "data": [0.5] * 8}
    infer = "/v2/models/pair/infer"
    header = json.dumps({"inputs": [{k: v for k, v in x.items() if k != "data"} | {
        "parameters": {"binary_data_size": 64}}, y]}).encode()
    return [
        ("not JSON", infer, b"{inputs:", {}, 400, "request body"),
        ("a JSON list", infer, b"[]", {}, 400, "request body: expected a JSON object"),
        ("no inputs", infer, {"outputs": []}, {}, 400, "inputs:"),
        ("inputs not a list", infer, {"inputs": {"x": 1}}, {}, 400, "inputs:"),
        ("an input not an object", infer, {"inputs": [3]}, {}, 400, "inputs[0]:"),
        ("a nameless input", infer, {"inputs": [dict(x, name=None), y]}, {}, 400,
         "inputs[0].name"),
        ("a negative dim", infer, {"inputs": [dict(x, shape=[-1, 16]), y]}, {}, 400,
         "inputs[0].shape"),
        ("a shape of strings", infer, {"inputs": [x, dict(y, shape="1x8")]}, {}, 400,
         "inputs[1].shape"),
        ("an unknown datatype", infer, {"inputs": [dict(x, datatype="FP8"), y]}, {}, 400,
         "inputs[0].datatype"),
        ("too few values", infer, {"inputs": [dict(x, data=[0.5] * 15), y]}, {}, 400,
         "inputs[0].data: 15 value(s)"),
        ("strings as data", infer, {"inputs": [dict(x, data=["a"] * 16), y]}, {}, 400,
         "inputs[0].data"),
        ("ragged data", infer, {"inputs": [dict(x, data=[[1.0], [1.0, 2.0]]), y]}, {}, 400,
         "inputs[0].data"),
        ("no data", infer, {"inputs": [{k: v for k, v in x.items() if k != "data"}, y]}, {},
         400, "inputs[0].data: missing"),
        ("an INT8 overflow", infer, {"inputs": [dict(x, datatype="INT8", data=[300] * 16), y]},
         {}, 400, "inputs[0].data"),
        ("a missing input", infer, {"inputs": [x]}, {}, 400, "missing input 'y'"),
        ("an unknown input", infer, {"inputs": [x, y, dict(y, name="z")]}, {}, 400,
         "inputs[2].name"),
        ("an input twice", infer, {"inputs": [x, y, y]}, {}, 400, "inputs[2].name"),
        ("an unknown output", infer, {"inputs": [x, y], "outputs": [{"name": "out"}]}, {}, 400,
         "outputs[0].name"),
        ("binary_data_output not a bool", infer,
         {"inputs": [x, y], "parameters": {"binary_data_output": "yes"}}, {}, 400,
         "parameters.binary_data_output"),
        ("a header length past the body", infer, {"inputs": [x, y]},
         {"Inference-Header-Content-Length": "100000"}, 400, "Inference-Header-Content-Length"),
        ("binary data cut short", infer, header + bytes(21),
         {"Inference-Header-Content-Length": str(len(header))}, 400,
         "inputs[0].parameters.binary_data_size"),
        ("a compressed body", infer, {"inputs": [x, y]}, {"Content-Encoding": "gzip"}, 400,
         "Content-Encoding"),
        ("an unknown model", "/v2/models/nope/infer", {"inputs": [x, y]}, {}, 404,
         "unknown model 'nope'"),
        ("an unknown version", "/v2/models/pair/versions/7/infer", {"inputs": [x, y]}, {}, 404,
         "no version"),
        ("an unknown route", "/v2/models/pair/explain", {"inputs": [x, y]}, {}, 404, "no route"),
        ("a POST to metadata", "/v2/models/pair", {"inputs": [x, y]}, {}, 405, "takes GET"),
        ("a POST to a version's ready", "/v2/models/pair/versions/1/ready", {"inputs": [x, y]},
         {}, 405, "takes GET"),
        ("a route outside /v2", "/v1/models/pair/infer", {"inputs": [x, y]}, {}, 404,
         "are under /v2"),
    ]


def contract_refusals(programs):
    """Inputs the runtime refuses: (what, body, the runtime's own message)."""
    cases = [("too many rows", np.zeros((65, 16), np.float32), np.zeros((65, 8), np.float32)),
             ("unequal batch dims", np.zeros((2, 16), np.float32), np.zeros((3, 8), np.float32)),
             ("a wrong width", np.zeros((2, 15), np.float32), np.zeros((2, 8), np.float32)),
             ("a wrong dtype", np.zeros((2, 16), np.float64), np.zeros((2, 8), np.float32)),
             ("a wrong rank", np.zeros((2, 16, 1), np.float32), np.zeros((2, 8), np.float32))]
    refusals = []
    for what, x, y in cases:
        with pytest.raises(xport.InvalidInput) as caught:
            programs["pair"].run_flat([x, y])
        body = infer_body(x, y)
        body["inputs"][0]["datatype"] = "FP64" if x.dtype == np.float64 else "FP32"
        refusals.append((what, body, str(caught.value)))
    return refusals


def test_bad_requests_are_refused_and_no_replica_dies(server, programs):
    before = replicas(PAIR_REPLICA)
    for what, path, body, headers, status, message in bad_requests():
        got_status, got = post(server, path, body, headers)
        assert got_status == status, "%s: %s %s" % (what, got_status, got)
        assert message in got["error"], "%s: %r" % (what, got["error"])
    for what, body, message in contract_refusals(programs):
        # Concurrently, so that they meet good requests in one batch.
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            good = [pool.submit(post, server, "/v2/models/pair/infer",
                                infer_body(*pair_inputs(2, seed=k))) for k in range(3)]
            got_status, got = post(server, "/v2/models/pair/infer", body)
            assert all(f.result()[0] == 200 for f in good), what
        assert got_status == 400 and got["error"] == message, "%s: %s %s" % (what, got_status,
                                                                             got)
    assert get(server, "/v2/health/ready")[0] == 200
    assert replicas(PAIR_REPLICA) == before, "a replica restarted"


def raw_post(server, path, head, chunks, chunked):
    """(status, error message) of a POST whose body goes out in `chunks` (chunked transfer
    encoding, or as they are after `head` headers that give its length), stopping early
    where the server has answered and closed."""
    host, port = server.split(":")
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        sock.sendall(("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                      "%s\r\n" % (path, server, head)).encode())
        try:
            for chunk in chunks:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
            if chunked:
                sock.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # answered before the body was sent: the answer is read below
        response = http.client.HTTPResponse(sock)
        response.begin()
        return response.status, json.loads(response.read())["error"]


def test_an_oversized_request_is_refused_with_413_naming_the_limit(server):
    limit, infer = PAIR_MAX_REQUEST_BYTES, "/v2/models/pair/infer"
    # Its Content-Length over the limit: refused before the replica reads the body.
    status, error = raw_post(server, infer, "Content-Length: %d\r\n" % (64 << 20),
                             [b"{" + bytes(64 << 10)], chunked=False)
    assert status == 413 and "limit of %d bytes" % limit in error, (status, error)
    assert "%d bytes" % (64 << 20) in error
    # The same on the route with the model's version.
    status, error = raw_post(server, "/v2/models/pair/versions/1/infer",
                             "Content-Length: %d\r\n" % (limit + 1), [b"{"], chunked=False)
    assert status == 413 and "%d bytes, over" % (limit + 1) in error, (status, error)
    # Chunked, no length: refused once it passes the limit.
    status, error = raw_post(server, infer, "Transfer-Encoding: chunked\r\n",
                             [b" " * (64 << 10)] * (limit // (64 << 10) + 2), chunked=True)
    assert status == 413 and "limit of %d bytes" % limit in error, (status, error)
    # window's smaller limit, by length and in chunks.
    body = json.dumps({"inputs": [{"name": "x", "datatype": "FP32", "shape": [3, 8],
                                   "data": [0.5] * 24}]}).encode()
    padded = body + b" " * WINDOW_MAX_REQUEST_BYTES
    status, got = post(server, "/v2/models/window/infer", padded)
    assert status == 413 and "limit of %d bytes" % WINDOW_MAX_REQUEST_BYTES in got["error"]
    status, error = raw_post(server, "/v2/models/window/infer", "Transfer-Encoding: chunked\r\n",
                             [padded[:len(body)], padded[len(body):]], chunked=True)
    assert status == 413 and "limit of %d bytes" % WINDOW_MAX_REQUEST_BYTES in error
    assert post(server, "/v2/models/window/infer", body)[0] == 200  # the same body, unpadded
    assert get(server, "/v2/health/ready")[0] == 200


def test_the_openapi_page_lists_the_v2_routes(server):
    """FastAPI's description of the routes (/openapi.json) and its page (/docs), through Serve's
    proxy: every V2 route, the infer body as JSON or binary, and its 413."""
    status, spec = get(server, "/openapi.json")
    assert status == 200
    routes = {(method.upper(), path) for path, operations in spec["paths"].items()
              for method in operations}
    model = "/v2/models/{model_name}"
    version = model + "/versions/{model_version}"
    assert routes == {("GET", "/v2"), ("GET", "/v2/health/live"), ("GET", "/v2/health/ready"),
                      ("GET", model), ("GET", version), ("GET", model + "/ready"),
                      ("GET", version + "/ready"), ("POST", model + "/infer"),
                      ("POST", version + "/infer")}, sorted(routes)
    infer = spec["paths"][model + "/infer"]["post"]
    assert set(infer["requestBody"]["content"]) == {"application/json",
                                                    "application/octet-stream"}
    assert {"400", "404", "413"} <= set(infer["responses"])
    assert "inference-header-content-length" in [p["name"] for p in infer["parameters"]]
    connection = http.client.HTTPConnection(server, timeout=60)
    try:
        connection.request("GET", "/docs")
        response = connection.getresponse()
        page = response.read()
    finally:
        connection.close()
    assert response.status == 200 and b"/openapi.json" in page and b"swagger" in page.lower()


def test_malformed_requests_get_a_4xx_naming_the_field_from_a_live_server(server):
    """The protocol fuzzer (protocol_fuzz.py) against the server: never a 5xx, every refusal
    names its field, no replica restarts. XPORT_SERVE_FUZZ_EXAMPLES sets how many requests
    (make fuzz-serve runs 10,000)."""
    before = replicas(PAIR_REPLICA)
    statuses = {}

    @seed(int(os.environ.get("XPORT_FUZZ_SEED", "47")))
    @settings(max_examples=int(os.environ.get("XPORT_SERVE_FUZZ_EXAMPLES", "300")),
              deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(protocol_fuzz.requests())
    def check(request):
        body, length = request
        status, got = post(server, "/v2/models/pair/infer", body,
                           {} if length is None else {"Inference-Header-Content-Length": length})
        statuses[status] = statuses.get(status, 0) + 1
        assert status < 500, (status, got, body[:300])
        if status != 200:
            assert protocol_fuzz.FIELD.match(got["error"]), (status, got["error"])

    check()
    print("\nprotocol fuzzer: %d requests, by status %s" % (sum(statuses.values()),
                                                           dict(sorted(statuses.items()))))
    assert replicas(PAIR_REPLICA) == before, "a replica restarted"
    assert get(server, "/v2/health/ready")[0] == 200


class LoadClient:
    """Requests from `concurrency` threads, each with its own keep-alive connection; every
    failed attempt (a 5xx, a dropped connection) is recorded with its time, and the request is
    sent again, up to `attempts` times."""

    def __init__(self, server, concurrency, attempts=50):
        self.server = server
        self.concurrency = concurrency
        self.attempts = attempts
        self.retried = 0
        self.failures = []  # (time.monotonic(), status or None, the answer's start)
        self.done = 0
        self.in_flight = 0
        self.lock = threading.Lock()
        self.local = threading.local()

    def send(self, body):
        with self.lock:
            self.in_flight += 1
        try:
            return self._send(body)
        finally:
            with self.lock:
                self.in_flight -= 1

    def _send(self, body):
        for attempt in range(self.attempts):
            try:
                status, data = self._post(body)
            except (OSError, http.client.HTTPException) as e:
                status, data = None, repr(e)
                self.local.connection = None
            if status == 200:
                with self.lock:
                    self.done += 1
                    self.retried += attempt > 0
                return json.loads(data)
            with self.lock:
                self.failures.append((time.monotonic(), status, data[:200]))
            if status is not None and status < 500:
                break  # a refusal is an answer: not retried
            time.sleep(0.1)
        raise AssertionError("request lost after %d attempt(s): %s" % (attempt + 1, data[:300]))

    def _post(self, body):
        connection = getattr(self.local, "connection", None)
        if connection is None:
            connection = self.local.connection = http.client.HTTPConnection(self.server,
                                                                            timeout=60)
        connection.request("POST", "/v2/models/pair/infer", body,
                           {"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, response.read()


def rss_mb(pids):
    """The resident memory of these processes together, MB (all on this machine's nodes)."""
    total = 0
    for pid in pids:
        with open("/proc/%d/status" % pid) as status:
            total += next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return total / 1024


def test_soak_keeps_the_servers_memory_flat(server, programs):
    """Requests with 64 in flight over both nodes' replicas: every answer right, no failed
    attempt, and the replicas' and the proxy's memory together grows at most 5% from the end of
    the warm-up (the first fifth) to the end. XPORT_SERVE_SOAK_REQUESTS sets how many (make
    soak-serve runs 10,000)."""
    total = int(os.environ.get("XPORT_SERVE_SOAK_REQUESTS", "2000"))
    warm_up = total // 5
    rng = random.Random(64)
    cases = [pair_inputs(rng.randint(1, 8), seed=50_000 + k) for k in range(total)]
    bodies = [json.dumps(infer_body(x, y)).encode() for x, y in cases]
    pids = [pid for pid, _ in replicas(PAIR_REPLICA)] + [pid for pid, _ in
                                                         replicas("ProxyActor")]
    client = LoadClient(server, concurrency=64)
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(64) as pool:
        answers = list(pool.map(client.send, bodies[:warm_up]))
        after_warm_up = rss_mb(pids)
        answers += list(pool.map(client.send, bodies[warm_up:]))
    elapsed = time.monotonic() - start
    at_end = rss_mb(pids)
    wrong = sum(not all(np.allclose(outputs_of(a)[n], e, rtol=1e-5, atol=1e-5)
                        for n, e in zip(("add", "sum_1"), programs["pair"].run_flat([x, y])))
                for (x, y), a in zip(cases, answers))
    print("\nsoak: %d requests, 64 in flight, in %.1f s (%.0f/s); %d failed attempt(s), %d wrong; "
          "replicas' and proxy's RSS %.1f MB after %d warm-up requests, %.1f MB at the end "
          "(%+.1f%%)" % (total, elapsed, total / elapsed, len(client.failures), wrong,
                         after_warm_up, warm_up, at_end, 100 * (at_end / after_warm_up - 1)))
    assert not client.failures and wrong == 0
    assert at_end <= 1.05 * after_warm_up


def test_load_with_a_replica_killed(server, programs):
    total, concurrency, kill_after = 2000, 8, 500
    rng = random.Random(32)
    cases = [pair_inputs(rng.randint(1, 4), seed=10_000 + k) for k in range(total)]
    bodies = [json.dumps(infer_body(x, y)).encode() for x, y in cases]
    client = LoadClient(server, concurrency)
    before = replicas(PAIR_REPLICA)
    victim_pid, victim_node = before[0]
    killed = {}

    def killer():
        while client.done < kill_after:
            time.sleep(0.01)
        with client.lock:  # an upper bound of the requests in flight on the victim
            killed["in_flight"] = client.in_flight
            os.kill(victim_pid, signal.SIGKILL)
            killed["at"] = time.monotonic()

    kill_thread = threading.Thread(target=killer)
    kill_thread.start()
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        answers = list(pool.map(client.send, bodies))
    elapsed = time.monotonic() - start
    kill_thread.join()

    # Recovery: a new replica on the victim's node, and the deployment healthy again.
    deadline, recovered = killed["at"] + 120, None
    while time.monotonic() < deadline:
        now = replicas(PAIR_REPLICA)
        status = serve.status().applications["pair"].deployments["xport_pair"].status
        if len(now) == 2 and victim_pid not in {p for p, _ in now} and status == "HEALTHY":
            recovered = time.monotonic() - killed["at"]
            break
        time.sleep(0.1)

    # The kill window: from the kill until the replacement serves (bounded by the wait above).
    window_end = killed["at"] + (recovered if recovered is not None else 120)
    inside = [f for f in client.failures if killed["at"] <= f[0] <= window_end]
    outside = [f for f in client.failures if not killed["at"] <= f[0] <= window_end]
    wrong = 0
    for (x, y), answer in zip(cases, answers):
        expected = programs["pair"].run_flat([x, y])
        got = outputs_of(answer)
        wrong += not all(np.allclose(got[n], e, rtol=1e-5, atol=1e-5)
                         for n, e in zip(("add", "sum_1"), expected))
    print("\nload: %d requests at concurrency %d in %.1f s (%.0f/s); replica pid %d on node %s "
          "killed after %d with %d request(s) in flight; %d request(s) retried; failed attempts "
          "%d inside the kill window, %d outside; %d wrong; recovered (new replica running, "
          "deployment healthy) %s after the kill; replicas now %s"
          % (total, concurrency, elapsed, total / elapsed, victim_pid, victim_node[:8],
             kill_after, killed["in_flight"], client.retried, len(inside), len(outside), wrong,
             "%.1f s" % recovered if recovered else "NOT", replicas(PAIR_REPLICA)))
    for at, status, data in client.failures:
        print("  failed attempt at %+.3f s from the kill: %s %r" % (at - killed["at"], status,
                                                                   data[:120]))
    assert len(answers) == total and client.done == total
    assert not outside, "failed attempts outside the kill window"
    assert len(inside) <= killed["in_flight"], "more failed attempts than requests in flight"
    assert wrong == 0
    assert recovered is not None, "the killed replica was not replaced within 120 s"
    assert {node for _, node in replicas(PAIR_REPLICA)} == {node for _, node in before}


def test_the_command_line_serves_on_the_cluster(server, cluster, archives, programs):
    """python -m xport.serve joins the cluster and serves until interrupted (last: it takes
    Serve over, after the applications above are shut down)."""
    serve.shutdown()
    (port,) = free_ports(1)
    command = [sys.executable, "-m", "xport.serve", archives["window"], "--name", "cli",
               "--address", cluster.address, "--port", str(port), "--replicas", "2"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    ready = "xport.serve: %s at http://127.0.0.1:%d/v2" % (archives["window"], port)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(process.stdout))
    reader.start()
    try:
        deadline = time.monotonic() + 120
        while not any(ready in line for line in lines) and time.monotonic() < deadline:
            assert process.poll() is None, "".join(lines)
            time.sleep(0.2)
        assert any(ready in line for line in lines), "".join(lines)
        client = triton.InferenceServerClient("127.0.0.1:%d" % port)
        assert client.is_server_ready() and client.is_model_ready("cli")
        w = np.random.default_rng(5).standard_normal((3, 9), dtype=np.float32)
        window_input = triton.InferInput("x", [3, 9], "FP32")
        window_input.set_data_from_numpy(w)
        got = client.infer("cli", [window_input]).as_numpy("mul")
        np.testing.assert_allclose(got, programs["window"].run_flat([w])[0], rtol=1e-6,
                                   atol=1e-6)
        assert len(replicas("ServeReplica:cli:xport_cli")) == 2
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 0, "".join(lines)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        reader.join()
