"""The serving tests' cluster and server, started once for the module: two archives written by
torch.export.save, a Ray cluster of two nodes on loopback (one CPU each), and Serve's HTTP proxy
with two applications: `pair` (two replicas, one per node, dynamic batching) and `window` (one
replica, no batch dim). The cluster is stopped at the end, pass or fail."""
import http.client
import json
import os
import sys

import pytest
import ray
from ray import serve

import xport
import xport.serve

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from local_ray_cluster import AUTH_ENV, LocalRayCluster, free_ports  # noqa: E402
from serve_models import write_pair, write_window  # noqa: E402

BATCH_ROWS = 16
# Request size limits (each replica's): window's smaller than pair's.
PAIR_MAX_REQUEST_BYTES = 1 << 20
WINDOW_MAX_REQUEST_BYTES = 64 << 10


@pytest.fixture(scope="module")
def archives(tmp_path_factory):
    folder = tmp_path_factory.mktemp("archives")
    paths = {"pair": str(folder / "pair.pt2"), "window": str(folder / "window.pt2")}
    write_pair(paths["pair"])
    write_window(paths["window"])
    return paths


@pytest.fixture(scope="module")
def cluster():
    # Serve's proxy sends requests to replicas on its own node first, which leaves the other
    # node's replica idle here, where one proxy serves the whole cluster.
    cluster = LocalRayCluster(nodes=2, cpus_per_node=1,
                              env={"RAY_SERVE_PROXY_PREFER_LOCAL_NODE_ROUTING": "0"})
    with pytest.MonkeyPatch.context() as patch:
        for name, value in AUTH_ENV.items():  # this process's and the command line's ray.init
            patch.setenv(name, value)
        try:
            yield cluster.start()
        finally:
            if ray.is_initialized():
                ray.shutdown()
            cluster.stop()


@pytest.fixture(scope="module")
def server(cluster, archives):
    """host:port of Serve's proxy, the two applications running."""
    (port,) = free_ports(1)
    ray.init(address=cluster.address, logging_level="WARNING", log_to_driver=False)
    # Half a CPU each: `pair`'s two replicas (at most one per node) leave room for `window`'s.
    xport.serve.run(archives["pair"], port=port, proxy_location="HeadOnly", replicas=2,
                    cpus_per_replica=0.5, max_replicas_per_node=1, max_batch=BATCH_ROWS,
                    batch_wait_ms=10, health_check_period_s=1.0,
                    max_request_bytes=PAIR_MAX_REQUEST_BYTES)
    serve.run(xport.serve.application(archives["window"], cpus_per_replica=0.5,
                                      max_request_bytes=WINDOW_MAX_REQUEST_BYTES),
              name="window", route_prefix="/v2/models/window")
    yield "127.0.0.1:%d" % port
    serve.shutdown()


@pytest.fixture(scope="module")
def programs(archives):
    """The same archives loaded in this process: the unbatched answers."""
    return {name: xport.load(path, threads=1) for name, path in archives.items()}


def post(server, path, body, headers=None):
    """(status, parsed JSON or raw bytes) of a POST to the server."""
    connection = http.client.HTTPConnection(server, timeout=60)
    try:
        if not isinstance(body, bytes):
            body = json.dumps(body).encode()
        connection.request("POST", path, body, headers or {})
        response = connection.getresponse()
        data = response.read()
    finally:
        connection.close()
    try:
        return response.status, json.loads(data)
    except ValueError:
        return response.status, data


def get(server, path):
    connection = http.client.HTTPConnection(server, timeout=60)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        data = response.read()
    finally:
        connection.close()
    return response.status, (json.loads(data) if data else None)
