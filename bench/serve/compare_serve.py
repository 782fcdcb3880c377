#!/usr/bin/env python3
"""xport.serve beside the same Ray Serve application running torch.export.load(...).module():
throughput, p50/p99 latency and memory per replica at 1, 2 and 4 replicas, for all-MiniLM-L6-v2
sentence embeddings and ResNet-50. One interleaved run.

Usage (make bench-serve; the test environment's Python, with the package installed):
  compare_serve.py [--build DIR] [--models minilm,resnet50] [--replicas 1,2,4]
                   [--engines xport,torch] [--seconds S] [--concurrency C] [--max-batch B]
                   [--address RAY_ADDRESS]

Both engines are the same server (xport.serve.application; the torch one through its `loader`,
bench/serve/torch_program.py): the same protocol, dynamic batching (up to B rows, 5 ms wait),
one kernel thread and one Ray CPU per replica. A client in this process keeps C requests in
flight (HTTP keep-alive, binary tensor data both ways), one sentence ([1, 64] token ids and
mask) or one 224x224 image per request; after a warm-up whose answers are checked against
xport.load in this process, it counts the answers of S seconds (default 15) and their
latencies. Memory per replica: the replica processes' RSS and anonymous RSS (RssAnon: what the
process owns; mapped archive pages are page cache, shared by every process mapping the file),
read by each replica itself, after the run.

Without --address it starts a one-node Ray cluster on loopback with 4 CPUs for Ray's
scheduler, whatever the machine has: on a 2-core machine, 4 replicas oversubscribe the cores
(and the client, the proxy and the replicas share them). With --address it joins a running
cluster (the archives, written into BUILD/serve_bench, must then exist at that path on every
node) and Serve's proxy runs on every node; this process's node takes the requests.
"""
import argparse
import concurrent.futures
import http.client
import json
import logging
import os
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "serve"))
import bench_models  # noqa: E402
import torch_program  # noqa: E402
from local_ray_cluster import AUTH_ENV, LocalRayCluster, free_ports  # noqa: E402

APP = "bench"


def log(message):
    print(message, file=sys.stderr, flush=True)


def binary_request(tensors):
    """The body and headers of an infer request with binary inputs and outputs."""
    header = json.dumps({"inputs": [{"name": name, "datatype": datatype, "shape": list(a.shape),
                                     "parameters": {"binary_data_size": a.nbytes}}
                                    for name, datatype, a in tensors],
                         "parameters": {"binary_data_output": True}}).encode()
    body = header + b"".join(np.ascontiguousarray(a).tobytes() for _, _, a in tensors)
    return body, {"Inference-Header-Content-Length": str(len(header)),
                  "Content-Type": "application/octet-stream"}


def first_output(data, headers):
    n = int(headers["inference-header-content-length"])
    output = json.loads(data[:n])["outputs"][0]
    dtype = {"FP32": np.float32}[output["datatype"]]
    return np.frombuffer(data[n:n + output["parameters"]["binary_data_size"]],
                         dtype).reshape(output["shape"])


class Client:
    """`concurrency` threads, each with its own connection, sending requests in turn."""

    def __init__(self, server, path, requests, concurrency):
        self.server, self.path, self.requests = server, path, requests
        self.concurrency = concurrency
        self.local = threading.local()

    def call(self, k):
        connection = getattr(self.local, "connection", None)
        if connection is None:
            connection = self.local.connection = http.client.HTTPConnection(self.server,
                                                                            timeout=300)
        body, headers = self.requests[k % len(self.requests)]
        start = time.perf_counter()
        connection.request("POST", self.path, body, headers)
        response = connection.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError("request %d: %d %s" % (k, response.status, data[:300]))
        return time.perf_counter() - start, data, {k.lower(): v for k, v in
                                                   response.getheaders()}

    def run_for(self, seconds):
        """Latencies of the requests answered within `seconds`, and the time taken."""
        latencies, lock = [], threading.Lock()
        stop = time.perf_counter() + seconds

        def worker(w):
            k = w
            while time.perf_counter() < stop:
                latency, _, _ = self.call(k)
                with lock:
                    latencies.append(latency)
                k += self.concurrency

        start = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(self.concurrency) as pool:
            list(pool.map(worker, range(self.concurrency)))
        return latencies, time.perf_counter() - start


def replica_memory():
    """[(RSS MB, RssAnon MB)] of the bench application's replicas, read by each itself."""
    import ray
    from ray.util.state import list_actors

    def read_status(_):
        fields = {}
        with open("/proc/self/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "RssAnon"):
                    fields[key] = int(value.split()[0]) / 1024
        return fields["VmRSS"], fields["RssAnon"]

    actors = list_actors(filters=[("state", "=", "ALIVE")])
    handles = [ray.get_actor(a.name, namespace="serve") for a in actors
               if a.class_name.startswith("ServeReplica:%s:" % APP)]
    return ray.get([h.__ray_call__.remote(read_status) for h in handles])


def model_requests(model, count):
    """(archive path, [(name, datatype, array)] per request, the reference program)."""
    if model == "minilm":
        ids, mask = bench_models.sentence_inputs(count)
        return [[("input_ids", "INT64", ids[k:k + 1]), ("attention_mask", "INT64",
                                                         mask[k:k + 1])] for k in range(count)]
    images = bench_models.image_inputs(count, seed=1)
    return [[("x", "FP32", images[k:k + 1])] for k in range(count)]


def measure(args, server, path, model, engine, replicas, inputs, reference):
    import xport.serve
    from ray import serve
    loader = torch_program.loader(reference) if engine == "torch" else None
    app = xport.serve.application(path, name=model, replicas=replicas, threads_per_replica=1,
                                  max_batch=args.max_batch, batch_wait_ms=5, loader=loader)
    serve.run(app, name=APP, route_prefix="/")
    requests = [binary_request(tensors) for tensors in inputs]
    client = Client(server, "/v2/models/%s/infer" % model, requests, args.concurrency)
    # Warm-up: every distinct request once per replica or so, each answer checked.
    with concurrent.futures.ThreadPoolExecutor(args.concurrency) as pool:
        answers = list(pool.map(client.call, range(len(requests) * max(1, replicas))))
    for k, (_, data, headers) in enumerate(answers):
        want = reference.run_flat([a for _, _, a in inputs[k % len(inputs)]])[0]
        got = first_output(data, headers)
        if not np.allclose(got, want, rtol=1e-3, atol=1e-3):
            sys.exit("compare_serve: %s %s answered request %d wrongly (max |diff| %.3g)"
                     % (engine, model, k, float(np.max(np.abs(got - want)))))
    latencies, elapsed = client.run_for(args.seconds)
    memory = replica_memory()
    serve.delete(APP)
    latencies.sort()
    return {"rate": len(latencies) / elapsed, "count": len(latencies),
            "p50": 1e3 * latencies[len(latencies) // 2],
            "p99": 1e3 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
            "rss": statistics.mean(m[0] for m in memory),
            "anon": statistics.mean(m[1] for m in memory)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--models", default="minilm,resnet50")
    parser.add_argument("--replicas", default="1,2,4")
    parser.add_argument("--engines", default="xport,torch")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--max-batch", type=int, default=8)
    parser.add_argument("--address", help="a running Ray cluster to use")
    args = parser.parse_args()
    import ray
    from ray import serve

    import xport
    logging.getLogger("ray.serve").setLevel(logging.WARNING)  # Serve's per-deploy lines
    cache = os.path.abspath(os.path.join(args.build, "serve_bench"))
    os.makedirs(cache, exist_ok=True)
    archives = {"minilm": bench_models.minilm_archive, "resnet50": bench_models.resnet50_archive}
    models = args.models.split(",")
    paths = {m: archives[m](cache) for m in models}
    # Pickled by value: the replicas cannot import bench/serve.
    ray.cloudpickle.register_pickle_by_value(torch_program)
    cluster = None
    try:
        if args.address:
            ray.init(address=args.address, logging_level="WARNING", log_to_driver=False)
            (port,) = free_ports(1)
            serve.start(http_options={"host": "0.0.0.0", "port": port})
        else:
            cluster = LocalRayCluster(nodes=1, cpus_per_node=4).start()
            os.environ.update(AUTH_ENV)  # the cluster's authentication mode, for this driver too
            ray.init(address=cluster.address, logging_level="WARNING", log_to_driver=False)
            (port,) = free_ports(1)
            serve.start(http_options={"host": "127.0.0.1", "port": port},
                        proxy_location="HeadOnly")
        server = "127.0.0.1:%d" % port
        results = {}
        for model in models:
            inputs = model_requests(model, 16)
            reference = xport.load(paths[model], threads=1)
            for replicas in [int(r) for r in args.replicas.split(",")]:
                engines = args.engines.split(",")
                if replicas % 2:
                    engines.reverse()  # which engine goes first alternates
                for engine in engines:
                    r = measure(args, server, paths[model], model, engine, replicas, inputs,
                                reference)
                    results[model, engine, replicas] = r
                    log("%s %s x%d: %.1f req/s, p50 %.0f ms, p99 %.0f ms, RSS %.0f MB "
                        "(anon %.0f MB) per replica" % (model, engine, replicas, r["rate"],
                                                          r["p50"], r["p99"], r["rss"],
                                                          r["anon"]))
        report(args, results)
    finally:
        if ray.is_initialized():
            serve.shutdown()
            ray.shutdown()
        if cluster is not None:
            cluster.stop()


def report(args, results):
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model_name = next((line.split(":", 1)[1].strip() for line in cpu.splitlines()
                       if line.startswith("Model name")), "unknown CPU")
    print("xport.serve vs torch.export.load(...).module() on Ray Serve: %s, %d cores; "
          "%d requests in flight, batches of up to %d, 1 thread per replica, %.0f s per row"
          % (model_name, os.cpu_count(), args.concurrency, args.max_batch, args.seconds))
    print("%-9s %-6s %8s %9s %13s %8s %8s %9s %10s" % (
        "model", "engine", "replicas", "req/s", "req/s/replica", "p50 ms", "p99 ms",
        "RSS MB", "anon MB"))
    for (model, engine, replicas), r in results.items():
        print("%-9s %-6s %8d %9.1f %13.1f %8.0f %8.0f %9.0f %10.0f" % (
            model, engine, replicas, r["rate"], r["rate"] / replicas, r["p50"], r["p99"],
            r["rss"], r["anon"]))


if __name__ == "__main__":
    main()
