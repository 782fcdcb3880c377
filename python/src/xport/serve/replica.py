"""One Ray Serve replica: loads the archive with xport.load and answers the Open Inference
Protocol over HTTP. A request's form is checked by .protocol, its contract by the runtime; the
runtime's refusals are 400s with its message, and nothing a client sends ends the replica."""
import asyncio
import concurrent.futures
import logging

from ray import serve
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

import xport

from . import batching, protocol
from .limits import DEFAULT_MAX_REQUEST_BYTES, read_body
from .model import CLIENT_ERRORS, VERSION, ServedModel
from .protocol import RequestError

logger = logging.getLogger("ray.serve")


@serve.deployment
class XportReplica:
    def __init__(self, path, name, threads, max_batch, batch_wait_ms, loader=None,
                 max_request_bytes=DEFAULT_MAX_REQUEST_BYTES):
        program = (loader or _load)(path, threads)
        self.model = ServedModel(program, name, max_batch)
        self.max_request_bytes = max_request_bytes
        # One run at a time, off the event loop: health checks and metadata stay answered
        # while the program runs on its own `threads` kernel threads.
        self._runner = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="xport")
        if self.model.batching:
            # Requests per batch: each has at least one row, plan_runs keeps the rows in range.
            self._run_batch.set_max_batch_size(self.model.max_batch)
            self._run_batch.set_batch_wait_timeout_s(batch_wait_ms / 1000.0)

    async def __call__(self, request: Request) -> Response:
        try:
            return await self._route(request)
        except RequestError as e:
            return _error(e.status, str(e))
        except Exception as e:  # a bug of ours or the runtime's: the replica answers on
            logger.exception("xport.serve: %s %s", request.method, request.url.path)
            return _error(500, "%s: %s" % (type(e).__name__, e))

    async def _route(self, request):
        parts = _full_path(request).strip("/").split("/")
        if parts[:1] != ["v2"]:
            raise RequestError("no route %s: the Open Inference Protocol's are under /v2"
                               % _full_path(request), status=404)
        route = parts[1:]
        if route in ([], ["health", "live"], ["health", "ready"]):
            _expect(request, "GET")
            if not route:
                return JSONResponse({"name": "xport", "version": xport.__version__,
                                     "extensions": ["binary_tensor_data"]})
            return Response(status_code=200)
        if route[:1] == ["models"] and len(route) >= 2:
            return await self._model_route(request, route[1], route[2:])
        raise RequestError("no route %s" % _full_path(request), status=404)

    async def _model_route(self, request, name, rest):
        if name != self.model.name:
            raise RequestError("unknown model %r: this server serves %r"
                               % (name, self.model.name), status=404)
        if rest[:1] == ["versions"] and len(rest) >= 2:
            if rest[1] != VERSION:
                raise RequestError("model %r has no version %r (its version is %s)"
                                   % (name, rest[1], VERSION), status=404)
            rest = rest[2:]
        if not rest:
            _expect(request, "GET")
            return JSONResponse(self.model.metadata())
        if rest == ["ready"]:
            _expect(request, "GET")
            return Response(status_code=200)
        if rest == ["infer"]:
            _expect(request, "POST")
            return await self._infer(request)
        raise RequestError("no route %s" % _full_path(request), status=404)

    async def _infer(self, http_request):
        if http_request.headers.get("content-encoding", "identity") != "identity":
            raise RequestError("Content-Encoding %s: send the request uncompressed"
                               % http_request.headers["content-encoding"])
        body = await read_body(http_request, self.max_request_bytes)
        request = protocol.decode_request(body, http_request.headers.get(protocol.HEADER_LENGTH))
        self.model.check(request)
        if self.model.batching:
            result = await self._run_batch(request)
        else:
            result = await self._run([request])
            result = result[0]
        if isinstance(result, Exception):
            raise result
        outputs, batch_size = result
        body, headers = protocol.encode_response(self.model.name, VERSION, request, outputs,
                                                 {"batch_size": batch_size})
        return Response(body, headers=headers)

    @serve.batch(max_batch_size=1, batch_wait_timeout_s=0.0)
    async def _run_batch(self, requests):
        return await self._run(requests)

    async def _run(self, requests):
        """Per request, (its outputs, how many requests shared its run) or the exception that
        answers it."""
        loop = asyncio.get_running_loop()
        results = [None] * len(requests)
        for run in batching.plan_runs(self.model, requests) if len(requests) > 1 else [[0]]:
            group = [requests[i] for i in run]
            outcome = await loop.run_in_executor(self._runner, self._run_group, group)
            for i, result in zip(run, outcome):
                results[i] = result
        return results

    def _run_group(self, group):
        if len(group) > 1:
            try:
                outputs = self.model.run(batching.join(self.model, group))
            except CLIENT_ERRORS:
                pass  # one request's input refused: each runs alone and gets its own answer
            else:
                rows = [r.inputs[self.model.input_names[0]].shape[0] for r in group]
                return [(part, len(group)) for part in batching.split(outputs, rows)]
        return [self._run_alone(r) for r in group]

    def _run_alone(self, request):
        try:
            return self.model.run(request.inputs), 1
        except CLIENT_ERRORS as e:
            return RequestError(str(e))
        except (RequestError, xport.Error) as e:
            return e


def _load(path, threads):
    return xport.load(path, threads=threads)


def _full_path(request):
    """The request's path from the server's root (Serve passes a route prefix as root_path)."""
    path, root = request.scope.get("path", "/"), request.scope.get("root_path", "")
    return path if not root or path.startswith(root) else root + path


def _expect(request, method):
    if request.method != method:
        raise RequestError("%s %s: this route takes %s" % (request.method, _full_path(request),
                                                           method), status=405)


def _error(status, message):
    return Response(protocol.error_body(message), status_code=status,
                    media_type="application/json")

