"""python -m xport.serve MODEL.pt2 [--name NAME] [--replicas N] [--threads-per-replica T]
[--max-batch B] [--batch-wait-ms W] [--max-request-bytes N] [--host H] [--port P]
[--address RAY_ADDRESS]

Serves the archive with the Open Inference Protocol on Ray Serve until interrupted."""
import argparse
import sys
import time
from collections.abc import Sequence

import ray
from ray import serve

import xport

from .app import run
from .limits import DEFAULT_MAX_REQUEST_BYTES


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m xport.serve",
                                     description="Serve a .pt2 archive with the Open Inference "
                                                 "Protocol on Ray Serve.")
    parser.add_argument("model", help="the .pt2 archive (at this path on every node)")
    parser.add_argument("--name", help="the model's name in the URLs (default: the file's)")
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("--threads-per-replica", type=int, default=1,
                        help="kernel threads per replica, and the Ray CPUs it reserves")
    parser.add_argument("--max-batch", type=int, default=1,
                        help="rows of concurrent requests run at once along the batch dim "
                             "(default 1: no batching; only for programs whose rows are "
                             "independent)")
    parser.add_argument("--batch-wait-ms", type=float, default=5.0,
                        help="how long a batch waits to fill")
    parser.add_argument("--max-request-bytes", type=int, default=DEFAULT_MAX_REQUEST_BYTES,
                        help="a request body over this is refused with 413 (default %(default)s)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="the HTTP proxy's address (0.0.0.0 to serve other machines)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--address", default=None,
                        help="the Ray cluster to join ('auto', HOST:PORT; default: RAY_ADDRESS, "
                             "or a new local cluster)")
    args = parser.parse_args(argv)
    try:
        run(args.model, address=args.address, host=args.host, port=args.port, name=args.name,
            replicas=args.replicas, threads_per_replica=args.threads_per_replica,
            max_batch=args.max_batch, batch_wait_ms=args.batch_wait_ms,
            max_request_bytes=args.max_request_bytes)
        print("xport.serve: %s at http://%s:%d/v2 (OpenAPI page: /docs; Ctrl-C stops)"
              % (args.model, args.host, args.port), flush=True)
        while True:
            time.sleep(3600)
    except (xport.Error, ValueError) as e:  # an archive it cannot serve, a bad option
        sys.exit("xport.serve: %s: %s" % (e.kind, e) if isinstance(e, xport.Error) else str(e))
    except KeyboardInterrupt:  # also while deploying
        if ray.is_initialized():
            serve.shutdown()  # type: ignore[no-untyped-call]  # Ray's, unannotated


if __name__ == "__main__":
    main()
