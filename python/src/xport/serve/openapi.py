"""The OpenAPI description of the Open Inference Protocol's bodies, for the routes' page (/docs,
/openapi.json). Written out here rather than as FastAPI's models: the infer route reads its body
itself (the size limit, the binary tensor data extension), and the answers are built by hand."""
from collections.abc import Sequence
from typing import Any

from .protocol import DATATYPES

JSON = dict[str, Any]

_SHAPE: JSON = {"type": "array", "items": {"type": "integer"}}
_TENSOR_METADATA: JSON = {
    "type": "object", "required": ["name", "datatype", "shape"],
    "properties": {
        "name": {"type": "string"}, "datatype": {"type": "string", "enum": list(DATATYPES)},
        "shape": {**_SHAPE, "description": "dynamic dims as -1"},
        "parameters": {"type": "object",
                       "description": "shape: the symbolic shape, which -1 is which Dim"}}}
_INPUT: JSON = {
    "type": "object", "required": ["name", "datatype", "shape"],
    "properties": {
        "name": {"type": "string"}, "datatype": {"type": "string", "enum": list(DATATYPES)},
        "shape": {"type": "array", "items": {"type": "integer", "minimum": 0}},
        "data": {"description": "the values, flat or nested, in row-major order"},
        "parameters": {"type": "object", "properties": {"binary_data_size": {
            "type": "integer", "description": "the tensor's bytes after the JSON, instead of "
                                              "data (binary tensor data extension)"}}}}}
_REQUESTED_OUTPUT: JSON = {
    "type": "object", "required": ["name"],
    "properties": {"name": {"type": "string"}, "parameters": {
        "type": "object", "properties": {"binary_data": {"type": "boolean"}}}}}

INFER_REQUEST: JSON = {
    "type": "object", "required": ["inputs"],
    "properties": {
        "id": {"type": "string"},
        "inputs": {"type": "array", "items": _INPUT, "minItems": 1},
        "outputs": {"type": "array", "items": _REQUESTED_OUTPUT,
                    "description": "a subset of the outputs (default: all)"},
        "parameters": {"type": "object", "properties": {"binary_data_output": {
            "type": "boolean", "description": "every output as binary data"}}}}}
INFER_RESPONSE: JSON = {
    "type": "object", "required": ["model_name", "outputs"],
    "properties": {
        "model_name": {"type": "string"}, "model_version": {"type": "string"},
        "id": {"type": "string"},
        "outputs": {"type": "array", "items": {
            "type": "object", "required": ["name", "datatype", "shape"],
            "properties": {"name": {"type": "string"}, "datatype": {"type": "string"},
                           "shape": _SHAPE, "data": {"type": "array", "items": {}},
                           "parameters": {"type": "object"}}}},
        "parameters": {"type": "object", "properties": {"batch_size": {
            "type": "integer", "description": "how many requests shared the run"}}}}}
SERVER_METADATA: JSON = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "version": {"type": "string"},
                   "extensions": {"type": "array", "items": {"type": "string"}}}}
MODEL_METADATA: JSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string"}, "versions": {"type": "array", "items": {"type": "string"}},
        "platform": {"type": "string"},
        "inputs": {"type": "array", "items": _TENSOR_METADATA},
        "outputs": {"type": "array", "items": _TENSOR_METADATA},
        "parameters": {"type": "object", "description": "the contract's text, and each Dim's "
                                                        ".min, .max and .source"}}}
_ERROR: JSON = {"type": "object", "required": ["error"],
                "properties": {"error": {"type": "string"}}}
_REFUSALS = {400: "a malformed request, or inputs outside the contract (the runtime's message)",
             404: "no such model, version or route", 405: "another method",
             413: "a body over the server's max_request_bytes", 500: "an error of the server"}


def answers(ok: str, schema: JSON | None = None, refusals: Sequence[int] = (404, 405),
            extra_content: JSON | None = None) -> dict[int | str, JSON]:
    """A route's `responses`: 200 (`ok`, with `schema` as JSON where it has a body, and
    `extra_content`'s other media types) and its `refusals`, in Triton's {"error": ...} form."""
    success: JSON = {"description": ok}
    if schema is not None:
        success["content"] = {"application/json": {"schema": schema}, **(extra_content or {})}
    result: dict[int | str, JSON] = {200: success}
    for status in refusals:
        result[status] = {"description": _REFUSALS[status],
                          "content": {"application/json": {"schema": _ERROR}}}
    return result


INFER_BODY: JSON = {"requestBody": {
    "required": True,
    "description": "JSON; or, with the binary tensor data extension, the JSON followed by "
                   "the inputs' bytes, the JSON's length in the Inference-Header-Content-Length "
                   "header. A body over max_request_bytes is refused with 413.",
    "content": {"application/json": {"schema": INFER_REQUEST},
                "application/octet-stream": {"schema": {"type": "string",
                                                        "format": "binary"}}}}}
BINARY_RESPONSE: JSON = {"application/octet-stream": {"schema": {"type": "string",
                                                                 "format": "binary"}}}
