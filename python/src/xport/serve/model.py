"""A loaded program as the Open Inference Protocol sees it: its inputs and outputs with
datatypes and shapes (dynamic dims as -1), the contract's ranges as metadata parameters, the
batch dim that dynamic batching concatenates along (if the program has one), and a run by
input names."""
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import xport

from .protocol import XPORT_DATATYPES, Array, InferRequest, RequestError

VERSION = "1"
# The program's errors that a client's input causes (answered 400); any other is the server's.
CLIENT_ERRORS: tuple[type[Exception], ...] = (xport.InvalidInput, xport.ConstraintViolation,
                                              xport.DataDependent)
# Scalar inputs (a program exported with an int, float or bool argument) travel as tensors of
# shape [] (or [1]).
_SCALAR_DATATYPES = {"int": "INT64", "float": "FP64", "bool": "BOOL"}


class Spec(Protocol):
    """An entry of a program's inputs, outputs or contract dims, or its contract: xport's
    dataclasses (read by attribute), or a loader's dicts (by key); _field reads either."""


class Program(Protocol):
    """What the server uses of an xport.Program (a `loader`'s program has the same)."""

    @property
    def inputs(self) -> Sequence[Spec]: ...

    @property
    def outputs(self) -> Sequence[Spec]: ...

    @property
    def contract(self) -> Spec: ...

    def run_flat(self, leaves: Sequence[Any]) -> Sequence[Array]: ...


@dataclass(frozen=True)
class Tensor:
    """An input or output as the protocol describes it: `shape` with dynamic dims as -1,
    `symbolic` with the contract's symbols; `kind` is the program's (a scalar input's int,
    float or bool, else tensor)."""

    name: str
    kind: str
    datatype: str
    shape: list[int]
    symbolic: list[int | str]

    def public(self) -> dict[str, Any]:
        """Its metadata: the symbolic shape (which -1 is which Dim) as a parameter."""
        return {"name": self.name, "datatype": self.datatype, "shape": self.shape,
                "parameters": {"shape": "[%s]" % ", ".join(map(str, self.symbolic))}}


class ServedModel:
    """`program` (an xport.Program) served under `name`; batching along its batch dim joins at
    most `max_batch` rows per run (1: no batching)."""

    def __init__(self, program: Program, name: str, max_batch: int = 1) -> None:
        self.program = program
        self.name = name
        self.inputs = [_describe_input(i) for i in program.inputs]
        self.outputs = [_describe_output(o) for o in program.outputs]
        self.input_names = [i.name for i in self.inputs]
        self.output_names = [o.name for o in self.outputs]
        self._scalars = {i.name: i.kind for i in self.inputs if i.kind != "tensor"}
        self.symbols: dict[str, Spec] = {_field(s, "symbol"): s
                                         for s in _field(program.contract, "symbols")}
        self.batch_dim = _batch_dim(program, self.symbols)
        self.max_batch = 1
        self.min_batch = 0
        if self.batch_dim is not None:
            self.min_batch = _field(self.batch_dim, "min") or 0
            limit = _field(self.batch_dim, "max")
            self.max_batch = min(max_batch, limit) if limit is not None else max_batch

    @property
    def batching(self) -> bool:
        return self.max_batch > 1

    def metadata(self) -> dict[str, Any]:
        """GET /v2/models/NAME: inputs and outputs, and the contract in "parameters"."""
        parameters: dict[str, Any] = {"contract": _field(self.program.contract, "text")}
        for s in self.symbols.values():
            parameters[_field(s, "name") + ".min"] = _field(s, "min")
            if _field(s, "max") is not None:  # None: unbounded
                parameters[_field(s, "name") + ".max"] = _field(s, "max")
            if _field(s, "source"):
                parameters[_field(s, "name") + ".source"] = _field(s, "source")
        if self.batch_dim is not None and self.batching:
            parameters["batch_dim"] = _field(self.batch_dim, "name")
            parameters["max_batch_rows"] = self.max_batch
        return {"name": self.name, "versions": [VERSION], "platform": "xport",
                "inputs": [i.public() for i in self.inputs],
                "outputs": [o.public() for o in self.outputs], "parameters": parameters}

    def check(self, request: InferRequest) -> None:
        """A request's inputs and requested outputs against the program's names; the arrays
        themselves are the runtime's to check."""
        missing = [n for n in self.input_names if n not in request.inputs]
        if missing:
            raise RequestError("inputs: missing input %s; the model takes %s"
                               % (", ".join(map(repr, missing)), ", ".join(self.input_names)))
        for i, name in enumerate(request.inputs):
            if name not in self.input_names:
                raise RequestError("inputs[%d].name: the model has no input %r; its inputs are %s"
                                   % (i, name, ", ".join(self.input_names)))
        for i, (name, _) in enumerate(request.outputs or []):
            if name not in self.output_names:
                raise RequestError("outputs[%d].name: the model has no output %r; its outputs "
                                   "are %s" % (i, name, ", ".join(self.output_names)))

    def run(self, inputs: dict[str, Array]) -> dict[str, Array]:
        """Runs the program on {input name: array}; returns {output name: array}. A scalar
        input's one-element array becomes its number."""
        leaves: list[Any] = []
        for name in self.input_names:
            value = inputs[name]
            if name in self._scalars:
                if value.size != 1:
                    raise RequestError("input %r: expected one value (the program takes a %s), "
                                       "got shape %s" % (name, self._scalars[name],
                                                         list(value.shape)))
                leaves.append(value.reshape(()).item())
            else:
                leaves.append(value)
        return dict(zip(self.output_names, self.program.run_flat(leaves)))


# Keys of a loader's dicts that xport's dataclasses spell otherwise.
_ATTRIBUTES = {"symbols": "dims"}


def _field(spec: Spec, key: str) -> Any:
    """A spec's field: the attribute of xport's dataclasses (InputSpec, OutputSpec, Dim,
    Contract), or the item of a loader's dict; None where the spec has no such field (a
    constant output has no dtype, an output no kind)."""
    if isinstance(spec, Mapping):
        return spec.get(key)
    return getattr(spec, _ATTRIBUTES.get(key, key), None)


def _describe_input(spec: Spec) -> Tensor:
    kind = _field(spec, "kind")
    if kind in _SCALAR_DATATYPES:
        return Tensor(_field(spec, "name"), kind, _SCALAR_DATATYPES[kind], [], [])
    if kind != "tensor":
        raise ValueError("xport.serve: input %r is a %s, which the Open Inference Protocol has "
                         "no tensor for" % (_field(spec, "name"), kind.replace("_", " ")))
    return _describe_tensor(spec, "input")


def _describe_output(spec: Spec) -> Tensor:
    if _field(spec, "dtype") is None:
        raise ValueError("xport.serve: output %r is the constant %s, not a tensor"
                         % (_field(spec, "name"), _field(spec, "value")))
    return _describe_tensor(spec, "output")


def _describe_tensor(spec: Spec, role: str) -> Tensor:
    dtype = _field(spec, "dtype")
    if dtype == "bfloat16" and role == "output":
        dtype = "float32"  # the package returns bfloat16 outputs as float32
    if dtype not in XPORT_DATATYPES:
        raise ValueError("xport.serve: %s %r is %s, which the Open Inference Protocol has no "
                         "datatype for here" % (role, _field(spec, "name"), dtype))
    symbolic = list(_field(spec, "shape"))
    return Tensor(_field(spec, "name"), "tensor", XPORT_DATATYPES[dtype],
                  [d if isinstance(d, int) else -1 for d in symbolic], symbolic)


def _batch_dim(program: Program, symbols: dict[str, Spec]) -> Spec | None:
    """The contract's symbol that is dim 0 of every input and every output and appears nowhere
    else, or None: only then can requests be concatenated along dim 0 and the outputs split
    back by rows."""
    tensors = list(program.inputs) + list(program.outputs)
    if any((_field(t, "kind") or "tensor") != "tensor" or not _field(t, "shape")
           for t in tensors):
        return None
    first = _field(tensors[0], "shape")[0]
    if isinstance(first, int):
        return None
    symbol = next((s for s in symbols.values()
                   if first in (_field(s, "symbol"), _field(s, "name"))), None)
    if symbol is None or _field(symbol, "unbacked"):
        return None
    mention = re.compile(r"\b%s\b" % re.escape(first))
    for t in tensors:
        if _field(t, "shape")[0] != first:
            return None
        if any(mention.search(str(d)) for d in _field(t, "shape")[1:]):
            return None
    return symbol
