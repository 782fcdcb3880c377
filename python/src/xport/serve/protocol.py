"""The Open Inference Protocol (KServe's "V2" REST protocol, as Triton and Seldon speak it): an
inference request's JSON (and its binary tensor data extension) in, NumPy arrays out; NumPy
arrays in, a response out. Nothing here knows Ray or the program: every check of a request's
form is here, every check of its contract is the runtime's."""
import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]

# The protocol's datatypes and NumPy's. BYTES (strings) has no tensor in xport.
DATATYPES: dict[str, np.dtype[Any]] = {
    "BOOL": np.dtype(np.bool_), "UINT8": np.dtype(np.uint8), "INT8": np.dtype(np.int8),
    "INT16": np.dtype(np.int16), "INT32": np.dtype(np.int32), "INT64": np.dtype(np.int64),
    "FP16": np.dtype(np.float16), "FP32": np.dtype(np.float32), "FP64": np.dtype(np.float64),
}
_DATATYPE_OF = {dtype: name for name, dtype in DATATYPES.items()}
# xport's dtype names (program.inputs) and the protocol's. bfloat16 outputs reach Python as
# float32 (NumPy has no bfloat16), so they are served as FP32.
XPORT_DATATYPES = {
    "bool": "BOOL", "uint8": "UINT8", "int8": "INT8", "int16": "INT16", "int32": "INT32",
    "int64": "INT64", "float16": "FP16", "float32": "FP32", "float64": "FP64",
}
# JSON values a datatype takes: NumPy's kind of the decoded list.
_JSON_KINDS = {"b": "b", "u": "iu", "i": "iu", "f": "iuf"}
HEADER_LENGTH = "inference-header-content-length"
# NumPy's limits on an array (its dims, and its bytes in an int64 even where a dim is 0).
_MAX_RANK = 64
_MAX_ELEMENTS = (2 ** 63 - 1) // 8


class RequestError(Exception):
    """A request the server refuses: `status` is the HTTP status, the message names the field."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def datatype_of(array: Array) -> str:
    """The protocol's datatype of a NumPy array."""
    try:
        return _DATATYPE_OF[array.dtype]
    except KeyError:
        raise RequestError("the output's dtype %s has no Open Inference Protocol datatype"
                           % array.dtype, status=500) from None


@dataclass
class InferRequest:
    """A decoded request: `inputs` maps each input's name to its array, `outputs` lists the
    requested outputs with whether each is wanted as binary data (None: all, as JSON unless
    the request's binary_data_output says otherwise)."""

    id: str | None
    inputs: dict[str, Array]
    outputs: list[tuple[str, bool | None]] | None
    binary_output: bool


def decode_request(body: bytes, header_length: str | None = None) -> InferRequest:
    """An InferRequest from an HTTP body, and the value of its Inference-Header-Content-Length
    header where it has one (the JSON is then followed by the inputs' binary data)."""
    header, binary = _split_body(body, header_length)
    try:
        request = json.loads(header)
    except (ValueError, RecursionError) as e:
        raise RequestError("request body: not a JSON object (%s)" % e) from None
    if not isinstance(request, dict):
        raise RequestError("request body: expected a JSON object, got %s" % _kind(request))
    request_id = request.get("id")
    if request_id is not None and not isinstance(request_id, str):
        raise RequestError("id: expected a string, got %s" % _kind(request_id))
    parameters = _parameters(request, "parameters")
    binary_output = parameters.get("binary_data_output", False)
    if not isinstance(binary_output, bool):
        raise RequestError("parameters.binary_data_output: expected true or false")
    inputs = request.get("inputs")
    if not isinstance(inputs, list) or not inputs:
        raise RequestError("inputs: expected a non-empty list of tensors, got %s"
                           % _kind(inputs))
    arrays: dict[str, Array] = {}
    offset = 0
    for i, tensor in enumerate(inputs):
        name, array, offset = _decode_input(tensor, "inputs[%d]" % i, binary, offset)
        if name in arrays:
            raise RequestError("inputs[%d].name: input %r given twice" % (i, name))
        arrays[name] = array
    if offset != len(binary):
        raise RequestError("request body: %d bytes of binary data follow the JSON, the inputs' "
                           "binary_data_size add up to %d" % (len(binary), offset))
    return InferRequest(request_id, arrays, _requested_outputs(request), binary_output)


def _split_body(body: bytes, header_length: str | None) -> tuple[bytes, bytes]:
    if header_length is None:
        return body, b""
    try:
        n = int(header_length)
    except ValueError:
        n = -1
    if not 0 < n <= len(body):
        raise RequestError("Inference-Header-Content-Length: expected the JSON's length in "
                           "bytes, at most the body's %d, got %r" % (len(body), header_length))
    return body[:n], body[n:]


def _decode_input(tensor: Any, where: str, binary: bytes,
                  offset: int) -> tuple[str, Array, int]:
    if not isinstance(tensor, dict):
        raise RequestError("%s: expected a tensor object, got %s" % (where, _kind(tensor)))
    name = tensor.get("name")
    if not isinstance(name, str) or not name:
        raise RequestError("%s.name: expected a string, got %s" % (where, _kind(name)))
    shape = tensor.get("shape")
    if (not isinstance(shape, list)
            or not all(type(d) is int and d >= 0 for d in shape)):
        raise RequestError("%s.shape: expected a list of non-negative integers, got %s"
                           % (where, json.dumps(shape)[:80]))
    if len(shape) > _MAX_RANK or math.prod(d for d in shape if d) > _MAX_ELEMENTS:
        raise RequestError("%s.shape: %s is beyond any tensor's (at most %d dims of at most %d "
                           "elements in all)" % (where, json.dumps(shape)[:80], _MAX_RANK,
                                                 _MAX_ELEMENTS))
    datatype = tensor.get("datatype")
    if not isinstance(datatype, str) or datatype not in DATATYPES:
        raise RequestError("%s.datatype: expected one of %s, got %s"
                           % (where, ", ".join(DATATYPES), json.dumps(datatype)[:40]))
    dtype = DATATYPES[datatype]
    count = math.prod(shape)
    size = _parameters(tensor, where + ".parameters").get("binary_data_size")
    if size is not None:
        if type(size) is not int or size < 0 or offset + size > len(binary):
            raise RequestError("%s.parameters.binary_data_size: expected at most the %d bytes "
                               "left after the JSON, got %r" % (where, len(binary) - offset, size))
        if "data" in tensor:
            raise RequestError("%s.data: given beside binary_data_size" % where)
        if size != count * dtype.itemsize:
            raise RequestError("%s.parameters.binary_data_size: %d bytes for %s %s (%d bytes)"
                               % (where, size, datatype, shape, count * dtype.itemsize))
        # A copy: the runtime takes writable arrays, and the body goes away.
        array = np.frombuffer(binary, dtype.newbyteorder("<"), count, offset).astype(dtype)
        if dtype.kind == "b":  # a byte other than 0 or 1 is true, as a stored bool must be 1
            array = array.view(np.uint8) != 0
        return name, array.reshape(shape), offset + size
    if "data" not in tensor:
        raise RequestError("%s.data: missing (or give parameters.binary_data_size)" % where)
    return name, _json_array(tensor["data"], shape, datatype, dtype, where + ".data"), offset


def _json_array(data: Any, shape: list[int], datatype: str, dtype: np.dtype[Any],
                where: str) -> Array:
    """The array of a tensor's JSON data, flat or nested in row-major order."""
    try:
        values = np.asarray(data)
    except (ValueError, TypeError, OverflowError, RecursionError) as e:
        raise RequestError("%s: not a list of numbers (%s)" % (where, str(e)[:120])) from None
    if values.size != math.prod(shape):
        raise RequestError("%s: %d value(s) for shape %s (%d)"
                           % (where, values.size, shape, math.prod(shape)))
    if values.size and values.dtype.kind not in _JSON_KINDS[dtype.kind]:
        raise RequestError("%s: values of %s must be %s" % (
            where, datatype, "true or false" if dtype.kind == "b" else "numbers"
            if dtype.kind == "f" else "integers"))
    try:
        with np.errstate(over="raise", invalid="raise"):
            converted = values.astype(dtype)
    except (OverflowError, FloatingPointError) as e:
        raise RequestError("%s: a value out of %s's range (%s)" % (where, datatype, e)) from None
    if dtype.kind in "iu" and not np.array_equal(converted, values):
        raise RequestError("%s: a value out of %s's range" % (where, datatype))
    return converted.reshape(shape)


def _requested_outputs(request: dict[str, Any]) -> list[tuple[str, bool | None]] | None:
    """[(name, binary or None)] for the request's "outputs", or None when it names none."""
    outputs = request.get("outputs")
    if outputs is None:
        return None
    if not isinstance(outputs, list):
        raise RequestError("outputs: expected a list, got %s" % _kind(outputs))
    requested: list[tuple[str, bool | None]] = []
    for i, output in enumerate(outputs):
        where = "outputs[%d]" % i
        if not isinstance(output, dict) or not isinstance(output.get("name"), str):
            raise RequestError("%s.name: expected a string" % where)
        binary = _parameters(output, where + ".parameters").get("binary_data")
        if binary is not None and not isinstance(binary, bool):
            raise RequestError("%s.parameters.binary_data: expected true or false" % where)
        requested.append((output["name"], binary))
    return requested


def _parameters(obj: dict[str, Any], where: str) -> dict[str, Any]:
    """obj's "parameters" object ({} when it has none); `where` names it in errors."""
    parameters = obj.get("parameters")
    if parameters is None:
        return {}
    if not isinstance(parameters, dict):
        raise RequestError("%s: expected an object, got %s" % (where, _kind(parameters)))
    return parameters


def _kind(value: object) -> str:
    return "nothing" if value is None else type(value).__name__


def encode_response(model_name: str, version: str, request: InferRequest,
                    outputs: dict[str, Array],
                    parameters: dict[str, Any] | None = None) -> tuple[bytes, dict[str, str]]:
    """(body, headers) of the response to `request`: `outputs` maps each output's name to its
    array, in the program's order. Binary data follows the JSON where it was asked for."""
    wanted = request.outputs
    if wanted is None:
        wanted = [(name, None) for name in outputs]
    tensors: list[dict[str, Any]] = []
    blobs: list[bytes] = []
    for name, binary in wanted:
        array = np.ascontiguousarray(outputs[name])
        tensor: dict[str, Any] = {"name": name, "datatype": datatype_of(array),
                                  "shape": list(array.shape)}
        if binary if binary is not None else request.binary_output:
            blob = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
            tensor["parameters"] = {"binary_data_size": len(blob)}
            blobs.append(blob)
        else:
            tensor["data"] = array.reshape(-1).tolist()
        tensors.append(tensor)
    response: dict[str, Any] = {"model_name": model_name, "model_version": version,
                                "outputs": tensors}
    if request.id is not None:
        response["id"] = request.id
    if parameters:
        response["parameters"] = parameters
    header = json.dumps(response).encode()
    if not blobs:
        return header, {"content-type": "application/json"}
    return header + b"".join(blobs), {"content-type": "application/octet-stream",
                                      HEADER_LENGTH: str(len(header))}


def error_body(message: str) -> bytes:
    """The body of an error response, as Triton writes it (tritonclient shows the message)."""
    return json.dumps({"error": message}).encode()
