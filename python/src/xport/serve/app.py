"""The Ray Serve application of one archive, and running it on a Ray cluster."""
import os
from typing import Any, cast

import ray
from ray import serve
from ray.serve.handle import DeploymentHandle

import xport

from .limits import DEFAULT_MAX_REQUEST_BYTES
from .model import ServedModel
from .replica import Loader, XportReplica


def application(path: str, *, name: str | None = None, replicas: int = 1,
                threads_per_replica: int = 1, max_batch: int = 1, batch_wait_ms: float = 5.0,
                cpus_per_replica: float | None = None, max_replicas_per_node: int | None = None,
                health_check_period_s: float = 2.0, loader: Loader | None = None,
                max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES) -> serve.Application:
    """A Ray Serve application whose `replicas` each load the archive at `path` with
    xport.load(threads=threads_per_replica) and answer the Open Inference Protocol for the
    model `name` (default: the file's name without .pt2).

    max_batch: up to this many rows of concurrent requests run at once along the program's
      batch dim (dim 0 of every input and output), waiting at most batch_wait_ms for them;
      1 (the default) runs each request alone. Batching assumes the program treats rows
      independently, which the server cannot check.
    cpus_per_replica: the Ray CPUs each replica reserves (default threads_per_replica).
    max_replicas_per_node: spread replicas over nodes (Ray Serve's option of that name).
    max_request_bytes: a request body over this is refused with 413.
    loader: a function (path, threads) -> a program with xport.Program's inputs, outputs,
      contract and run_flat, that the replicas serve instead of xport.load's: another engine
      behind the same server, for comparisons (bench/serve).
    The archive must exist at `path` on every node that runs a replica. It is loaded here
    first, so that an archive the server cannot serve fails now, not in the replicas.
    """
    path = os.path.abspath(path)
    name = name or os.path.splitext(os.path.basename(path))[0]
    if min(max_batch, threads_per_replica, replicas, max_request_bytes) < 1:
        raise ValueError("xport.serve: replicas, threads_per_replica, max_batch and "
                         "max_request_bytes must be at least 1")
    model = ServedModel(xport.load(path, threads=1), name, max_batch)
    options: dict[str, Any] = {
        "name": "xport_" + name,
        "num_replicas": replicas,
        "ray_actor_options": {"num_cpus": threads_per_replica if cpus_per_replica is None
                              else cpus_per_replica},
        # Enough requests in a replica to fill a batch while the previous one runs.
        "max_ongoing_requests": max(8, 2 * model.max_batch),
        "health_check_period_s": health_check_period_s,
    }
    if max_replicas_per_node is not None:
        options["max_replicas_per_node"] = max_replicas_per_node
    # XportReplica is a serve.Deployment; mypy keeps a decorated class's own type.
    deployment = cast(serve.Deployment, XportReplica).options(**options)
    return deployment.bind(path, name, threads_per_replica, max_batch, batch_wait_ms, loader,
                           max_request_bytes)


def run(path: str, *, host: str = "127.0.0.1", port: int = 8000, route_prefix: str = "/",
        app_name: str | None = None, proxy_location: str = "EveryNode",
        address: str | None = None, **options: Any) -> DeploymentHandle[Any]:
    """Deploys application(path, **options) with Serve's HTTP proxy on host:port (on every
    node, or proxy_location="HeadOnly"); returns the application's handle. The routes are the
    protocol's paths from the server's root (/v2/...): route_prefix says which of them reach
    this application, "/" (all) or "/v2/models/NAME" (that model's, to serve several models
    behind one proxy, one application each). The archive is checked before Ray is touched; a
    process not connected to Ray yet joins the cluster at `address` (default: RAY_ADDRESS, or
    a new local cluster)."""
    app = application(path, **options)
    if not ray.is_initialized():
        ray.init(address=address)
    serve.start(http_options={"host": host, "port": port}, proxy_location=proxy_location)
    name = app_name or options.get("name") or os.path.splitext(os.path.basename(path))[0]
    return serve.run(app, name=name, route_prefix=route_prefix)
