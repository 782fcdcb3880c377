"""The request size limit, which each replica keeps: a body over it is refused with 413 before
the replica reads any of it where its Content-Length says so, and as soon as it passes the limit
where it comes in chunks. (Serve 2.60's HTTP proxy takes no middleware of ours, and queues what
the client sends whatever the replica answers.)"""
from starlette.requests import Request

from .protocol import RequestError

DEFAULT_MAX_REQUEST_BYTES = 32 * 2 ** 20


def too_large(limit: int, size: int | None = None) -> RequestError:
    """The 413 error of a body of `size` bytes (None: not known, it came in chunks)."""
    received = "%d bytes" % size if size is not None else "more bytes"
    return RequestError("request body: %s, over this server's limit of %d bytes: send tensors "
                        "as binary data (4 bytes per FP32 value instead of JSON's ~12) or fewer "
                        "rows per request, or raise the limit (xport.serve's max_request_bytes, "
                        "--max-request-bytes)" % (received, limit), status=413)


def content_length(value: str | None) -> int | None:
    """A Content-Length header's value as an int, or None when it has none that is one."""
    if value is None:
        return None
    return int(value) if value.strip().isdigit() else None


async def read_body(request: Request, limit: int) -> bytes:
    """A Starlette request's body, refused (RequestError 413) once it passes `limit` bytes."""
    size = content_length(request.headers.get("content-length"))
    if size is not None and size > limit:
        raise too_large(limit, size)
    chunks: list[bytes] = []
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            raise too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)
