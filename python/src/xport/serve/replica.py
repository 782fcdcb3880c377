"""One Ray Serve replica: loads the archive with xport.load and answers the Open Inference
Protocol over HTTP. Its routes are a FastAPI app (Serve's ingress), which also serves their
OpenAPI page at /docs and /openapi.json. A request's form is checked by .protocol, its contract
by the runtime; the runtime's refusals are 400s with its message, and nothing a client sends ends
the replica."""
import asyncio
import concurrent.futures
import logging
from collections.abc import Callable, Sequence
from typing import Annotated, Any

from fastapi import FastAPI, Header
from ray import serve
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

import xport

from . import batching, openapi, protocol
from .limits import DEFAULT_MAX_REQUEST_BYTES, read_body
from .model import CLIENT_ERRORS, VERSION, Program, ServedModel
from .protocol import Array, InferRequest, RequestError

logger = logging.getLogger("ray.serve")

# A run's answer to one request: (its outputs, how many requests shared the run), or the
# exception that answers it.
RunResult = tuple[dict[str, Array], int] | Exception
Loader = Callable[[str, int], Program]


class _PathsFromRoot:
    """Routes match the path from the server's root, whatever the application's route prefix
    (Serve passes it as root_path): an application at "/v2/models/NAME" serves that model's V2
    routes beside another at "/"."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        root = scope.get("root_path", "")
        if scope["type"] == "http" and root:
            path = scope["path"]  # Serve 2.60 keeps the prefix in it; older ones cut it
            scope = dict(scope, root_path="", path=path if path.startswith(root) else root + path)
        await self.app(scope, receive, send)


app = FastAPI(title="xport.serve", version=xport.__version__,
              summary="A .pt2 program served with the Open Inference Protocol (KServe V2)",
              openapi_tags=[{"name": "server"}, {"name": "model"}])
app.add_middleware(_PathsFromRoot)

# The operations of the protocol's routes with and without /versions/{model_version}.
_MODEL = "/v2/models/{model_name}"
_VERSION = _MODEL + "/versions/{model_version}"
_METADATA: dict[str, Any] = {
    "tags": ["model"],
    "responses": openapi.answers("the model's metadata", openapi.MODEL_METADATA)}
_READY: dict[str, Any] = {"tags": ["model"], "responses": openapi.answers("the model is ready")}
_INFER: dict[str, Any] = {
    "tags": ["model"], "openapi_extra": openapi.INFER_BODY,
    "responses": openapi.answers("the outputs: JSON, or JSON followed by binary data",
                                 openapi.INFER_RESPONSE, (400, 404, 405, 413, 500),
                                 openapi.BINARY_RESPONSE)}
HeaderLength = Annotated[str | None, Header(
    alias=protocol.HEADER_LENGTH,
    description="the JSON's length, where the inputs' binary data follows it")]


def _load(path: str, threads: int) -> Program:
    program: Program = xport.load(path, threads=threads)
    return program


@app.exception_handler(RequestError)
async def _refused(request: Request, error: RequestError) -> Response:
    return _error(error.status, str(error))


@app.exception_handler(HTTPException)
async def _no_route(request: Request, error: HTTPException) -> Response:
    """Starlette's 404 and 405, in the protocol's form and words."""
    path = request.scope["path"]
    if error.status_code == 405:
        allowed = (error.headers or {}).get("Allow", "").split(", ")
        return _error(405, "%s %s: this route takes %s" % (
            request.method, path, ", ".join(sorted(m for m in allowed if m != "HEAD"))))
    if error.status_code == 404:
        under_v2 = path == "/v2" or path.startswith("/v2/")
        return _error(404, "no route %s%s" % (
            path, "" if under_v2 else ": the Open Inference Protocol's are under /v2"))
    return _error(error.status_code, str(error.detail))


def _error(status: int, message: str) -> Response:
    return Response(protocol.error_body(message), status_code=status,
                    media_type="application/json")


# Everything the app uses is defined above the class: serve.ingress freezes a copy of it.
@serve.deployment
@serve.ingress(app)
class XportReplica:
    def __init__(self, path: str, name: str, threads: int, max_batch: int,
                 batch_wait_ms: float, loader: Loader | None = None,
                 max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES) -> None:
        program = (loader or _load)(path, threads)
        self.model = ServedModel(program, name, max_batch)
        self.max_request_bytes = max_request_bytes
        # One run at a time, off the event loop: health checks and metadata stay answered
        # while the program runs on its own `threads` kernel threads.
        self._runner = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="xport")
        if self.model.batching:
            # Requests per batch: each has at least one row, plan_runs keeps the rows in range.
            # (Ray types serve.batch's method as a plain callable, without its setters.)
            self._run_batch.set_max_batch_size(self.model.max_batch)  # type: ignore[attr-defined]
            self._run_batch.set_batch_wait_timeout_s(  # type: ignore[attr-defined]
                batch_wait_ms / 1000.0)

    @app.get("/v2", tags=["server"], summary="Server metadata",
             responses=openapi.answers("the server's name, version and protocol extensions",
                                       openapi.SERVER_METADATA, (405,)))
    async def server_metadata(self) -> JSONResponse:
        return JSONResponse({"name": "xport", "version": xport.__version__,
                             "extensions": ["binary_tensor_data"]})

    @app.get("/v2/health/live", tags=["server"], summary="Server live",
             responses=openapi.answers("the server is live", refusals=(405,)))
    async def server_live(self) -> Response:
        return Response(status_code=200)

    @app.get("/v2/health/ready", tags=["server"], summary="Server ready",
             responses=openapi.answers("a replica has loaded the archive", refusals=(405,)))
    async def server_ready(self) -> Response:
        return Response(status_code=200)

    @app.get(_MODEL, summary="Model metadata", **_METADATA)
    async def model_metadata(self, model_name: str) -> JSONResponse:
        self._check_model(model_name)
        return JSONResponse(self.model.metadata())

    @app.get(_VERSION, summary="Model version metadata", **_METADATA)
    async def model_version_metadata(self, model_name: str, model_version: str) -> JSONResponse:
        self._check_model(model_name, model_version)
        return JSONResponse(self.model.metadata())

    @app.get(_MODEL + "/ready", summary="Model ready", **_READY)
    async def model_ready(self, model_name: str) -> Response:
        self._check_model(model_name)
        return Response(status_code=200)

    @app.get(_VERSION + "/ready", summary="Model version ready", **_READY)
    async def model_version_ready(self, model_name: str, model_version: str) -> Response:
        self._check_model(model_name, model_version)
        return Response(status_code=200)

    @app.post(_MODEL + "/infer", summary="Inference", **_INFER)
    async def infer(self, model_name: str, request: Request,
                    header_length: HeaderLength = None) -> Response:
        self._check_model(model_name)
        return await self._infer(request, header_length)

    @app.post(_VERSION + "/infer", summary="Model version inference", **_INFER)
    async def model_version_infer(self, model_name: str, model_version: str, request: Request,
                                  header_length: HeaderLength = None) -> Response:
        self._check_model(model_name, model_version)
        return await self._infer(request, header_length)

    def _check_model(self, name: str, version: str = VERSION) -> None:
        if name != self.model.name:
            raise RequestError("unknown model %r: this server serves %r"
                               % (name, self.model.name), status=404)
        if version != VERSION:
            raise RequestError("model %r has no version %r (its version is %s)"
                               % (name, version, VERSION), status=404)

    async def _infer(self, http_request: Request, header_length: str | None) -> Response:
        try:
            return await self._answer(http_request, header_length)
        except RequestError:
            raise
        except Exception as e:  # a bug of ours or Serve's: the replica answers on
            logger.exception("xport.serve: %s %s", http_request.method, http_request.url.path)
            raise RequestError("%s: %s" % (type(e).__name__, e), status=500) from e

    async def _answer(self, http_request: Request, header_length: str | None) -> Response:
        if http_request.headers.get("content-encoding", "identity") != "identity":
            raise RequestError("Content-Encoding %s: send the request uncompressed"
                               % http_request.headers["content-encoding"])
        # The body is read here, not by FastAPI: a Content-Length over the limit is refused
        # before any of it is read, a chunked body once it passes the limit.
        body = await read_body(http_request, self.max_request_bytes)
        request = protocol.decode_request(body, header_length)
        self.model.check(request)
        if self.model.batching:
            result = await self._run_batch(request)
        else:
            result = (await self._run([request]))[0]
        if isinstance(result, Exception):  # a 400, or an xport.Error of the server's (500)
            raise result
        outputs, batch_size = result
        body, headers = protocol.encode_response(self.model.name, VERSION, request, outputs,
                                                 {"batch_size": batch_size})
        return Response(body, headers=headers)

    @serve.batch(max_batch_size=1, batch_wait_timeout_s=0.0)
    async def _run_batch(self, requests: list[InferRequest]) -> list[RunResult]:
        return await self._run(requests)

    async def _run(self, requests: Sequence[InferRequest]) -> list[RunResult]:
        """Per request, (its outputs, how many requests shared its run) or the exception that
        answers it."""
        loop = asyncio.get_running_loop()
        results: dict[int, RunResult] = {}
        for run in batching.plan_runs(self.model, requests) if len(requests) > 1 else [[0]]:
            group = [requests[i] for i in run]
            outcome = await loop.run_in_executor(self._runner, self._run_group, group)
            results.update(zip(run, outcome))
        return [results[i] for i in range(len(requests))]

    def _run_group(self, group: list[InferRequest]) -> list[RunResult]:
        if len(group) > 1:
            try:
                outputs = self.model.run(batching.join(self.model, group))
            except CLIENT_ERRORS:
                pass  # one request's input refused: each runs alone and gets its own answer
            else:
                rows = [r.inputs[self.model.input_names[0]].shape[0] for r in group]
                return [(part, len(group)) for part in batching.split(outputs, rows)]
        return [self._run_alone(r) for r in group]

    def _run_alone(self, request: InferRequest) -> RunResult:
        try:
            return self.model.run(request.inputs), 1
        except CLIENT_ERRORS as e:
            return RequestError(str(e))
        except (RequestError, xport.Error) as e:
            return e
