"""Malformed Open Inference Protocol requests for the `pair` model (serve_models.py), as a
Hypothesis strategy: a valid request, with its data as JSON or as binary after the JSON, then
up to three of its parts replaced by any JSON value, removed, or given a stranger beside them,
and at times its framing broken (the JSON cut or a byte changed, the header length wrong, the
binary data cut or grown). Shared by the in-process test (test_protocol.py), the live server's
(test_serve.py) and `make fuzz-serve`."""
import json
import re

import numpy as np
from hypothesis import strategies as st

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats()
    | st.text(max_size=8) | st.sampled_from(["FP32", "FP64", "INT64", "BOOL", "BYTES", "x", "y"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=3),
    max_leaves=10)
# What an error message starts with: the field of the request it names, or the input the
# runtime's contract refused (the pair model's x or y).
FIELD = re.compile(r"^(request body|inputs|outputs|id|parameters|Inference-Header-Content-Length"
                   r"|input |[xy][. \[(])")


def _paths(value, prefix=()):
    """Every place in a JSON value that a mutation can touch, the value itself included."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value[:3]):
            yield from _paths(item, prefix + (i,))


def _mutate(draw, body):
    path = draw(st.sampled_from(list(_paths(body))))
    if not path:
        return draw(json_values)
    parent = body
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    action = draw(st.sampled_from(["replace", "remove", "add"]))
    if action == "replace":
        parent[key] = draw(json_values)
    elif action == "remove":
        del parent[key]
    elif isinstance(parent, dict):
        parent[draw(st.sampled_from(["data", "shape", "datatype", "name", "parameters",
                                     "binary_data_size", "outputs", "inputs", "id"]))] = \
            draw(json_values)
    else:
        parent.insert(key, draw(json_values))
    return body


@st.composite
def requests(draw):
    """(body bytes, Inference-Header-Content-Length value or None) of one request."""
    rows = draw(st.integers(0, 66))
    binary = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    arrays = {"x": rng.standard_normal((rows, 16), dtype=np.float32),
              "y": rng.standard_normal((rows, 8), dtype=np.float32)}
    tensors = []
    for name, array in arrays.items():
        tensor = {"name": name, "datatype": "FP32", "shape": list(array.shape)}
        if binary:
            tensor["parameters"] = {"binary_data_size": array.nbytes}
        else:
            tensor["data"] = array.reshape(-1).tolist()
        tensors.append(tensor)
    body = {"inputs": tensors}
    if draw(st.booleans()):
        body["outputs"] = [{"name": "add", "parameters": {"binary_data": draw(st.booleans())}}]
    if draw(st.integers(0, 4)) == 0:  # a shape beyond NumPy's (too many dims, or too large)
        tensor = tensors[draw(st.integers(0, 1))]
        tensor["shape"] = draw(st.lists(st.sampled_from([0, 1, 2, 2 ** 31, 2 ** 62, 2 ** 70]),
                                        max_size=70))
        tensor.pop("data", None) if "parameters" in tensor else tensor.update(data=[])
    for _ in range(draw(st.integers(0, 3))):
        body = _mutate(draw, body)
    header = json.dumps(body).encode()
    blob = b"".join(a.tobytes() for a in arrays.values()) if binary else b""
    if draw(st.integers(0, 9)) == 0:  # the JSON cut or one of its bytes changed
        at = draw(st.integers(0, max(len(header) - 1, 0)))
        header = (header[:at] if draw(st.booleans())
                  else header[:at] + bytes([draw(st.integers(0, 255))]) + header[at + 1:])
    if binary and draw(st.integers(0, 4)) == 0:  # the binary data cut or grown
        blob = blob[:draw(st.integers(0, len(blob)))] + draw(st.binary(max_size=8))
    length = str(len(header)) if binary else None
    if draw(st.integers(0, 9)) == 0:
        length = draw(st.one_of(st.none(), st.text(st.characters(min_codepoint=32,
                                                                 max_codepoint=126), max_size=6),
                                st.integers(-5, len(header) + len(blob) + 5).map(str)))
    return header + blob, length
