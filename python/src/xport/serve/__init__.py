"""Serving an archive on Ray Serve with the Open Inference Protocol (KServe's V2 REST protocol,
which Triton's and KServe's clients speak):

    python -m xport.serve model.pt2 --replicas 2 --max-batch 16 --port 8000

or from Python:

    import ray, xport.serve
    ray.init()                                     # or ray.init(address="auto")
    xport.serve.run("model.pt2", replicas=2, max_batch=16, port=8000)

Routes: GET /v2, /v2/health/live, /v2/health/ready, /v2/models/NAME (metadata: inputs and
outputs, dynamic dims as -1, the contract's ranges in "parameters"), /v2/models/NAME/ready, and
POST /v2/models/NAME/infer (JSON tensors, or the binary tensor data extension; a body over
max_request_bytes, 32 MiB by default, is refused with 413); the model's routes also under
/v2/models/NAME/versions/1. They are a FastAPI app (Serve's ingress), described at /openapi.json
and /docs. Needs `ray[serve]`; `import xport` alone does not.
"""
from .app import application, run
from .model import ServedModel
from .protocol import RequestError

__all__ = ["application", "run", "ServedModel", "RequestError"]
