"""xport: run a .pt2 program (written by xport or by torch.export.save) from Python, without
PyTorch.

    import xport
    program = xport.load("model.pt2")
    outputs = program(x)              # NumPy arrays (or DLPack tensors, Python numbers) in

Inputs are NumPy arrays, Python numbers, or any tensor on the CPU that speaks DLPack (a torch
tensor, a CuPy array on the host), taken without a copy where the layout allows; outputs are NumPy
arrays over the runtime's memory, in the structure the program returns (a tuple, a dict, ...).
An input outside the program's contract raises xport.InvalidInput with the runtime's message.
`program.inputs`, `.outputs` and `.contract` describe what it takes and returns, as frozen
dataclasses (InputSpec, OutputSpec, Contract with its Dims).
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from . import _xport
from ._errors import (ConstraintViolation, DataDependent, Error, Internal, InvalidArchive,
                      InvalidInput, InvalidSpec, UnsupportedOp)
from ._pytree import TUPLE, Spec
from ._signature import Contract, Dim, InputKind, InputSpec, OutputSpec, Shape
from ._signature import contract as _contract
from ._signature import input_spec as _input_spec
from ._signature import output_spec as _output_spec

__version__ = "0.1.0"
__all__ = ["load", "Program", "InputSpec", "OutputSpec", "Contract", "Dim", "Shape", "InputKind",
           "Error", "InvalidInput", "InvalidArchive", "UnsupportedOp", "ConstraintViolation",
           "DataDependent", "InvalidSpec", "Internal"]


def load(path: str | os.PathLike[str], *, threads: int | None = None,
         fuse: bool = True) -> Program:
    """Loads a .pt2 archive written by xport or by torch.export.save, or a model compiled ahead
    of time (`xport compile FILE.pt2 NAME.so`: NAME.pt2 lies beside it, or with --embed, in it).

    threads: kernel threads per call (default: the machine's cores).
    fuse: rewrite the graph at load where one kernel can do the work of several (results agree
      with the unfused graph to float rounding; fuse=False gives the graph's own ops bit for bit).
    """
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or threads < 1):
        raise InvalidInput("xport.load: threads must be a positive int or None, got %r"
                           % (threads,))
    path = os.fspath(path)
    return Program(_xport.load(path, threads or 0, bool(fuse)), path)


class Program:
    """A loaded program. Call it (or .run) with the inputs the program was exported with,
    positionally or by name; a program that updates buffers keeps them across calls. Calls from
    several threads run in parallel (the GIL is released while the program runs)."""

    def __init__(self, impl: _xport.Program, path: str) -> None:
        self._impl = impl
        self.path = path
        """The archive it was loaded from."""
        self.inputs = tuple(_input_spec(i) for i in impl.inputs)
        """Its inputs in the order `run_flat` takes them: name, kind, dtype, shape (dynamic dims
        by their names)."""
        self.outputs = tuple(_output_spec(o) for o in impl.outputs)
        """Its outputs in the order `run_flat` returns them: name, dtype, shape."""
        self.contract = _contract(impl.contract)
        """The shape contract: the dynamic dims with their ranges, the inputs' shapes by those
        dims, the equalities between input dims, and all of it as `text`."""
        self._in_spec = _parse_spec(impl.in_spec)
        self._out_spec = _parse_spec(impl.out_spec)
        self._arg_names = list(impl.forward_arg_names)
        self._names = [i.name for i in self.inputs]
        self._no_specs: list[Spec | None] = [None] * len(self._names)
        self._kinds = [i.kind for i in self.inputs]
        spec = self._in_spec
        if spec is not None and (spec.kind != TUPLE or len(spec.children) != 2
                                 or spec.leaf_count() != len(self.inputs)):
            self._in_spec = None  # not (args, kwargs) of this program: inputs by their names
        if self._out_spec is not None and self._out_spec.leaf_count() != len(self.outputs):
            self._out_spec = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.run(*args, **kwargs)

    def run(self, *args: Any, **kwargs: Any) -> Any:
        """Runs the program; returns its outputs in the program's structure."""
        if self._in_spec is not None:
            leaves = self._flatten(self._in_spec, args, kwargs)
        else:
            leaves = _bind(self._names, self._no_specs, args, kwargs)
        outputs = self._impl.run(self._prepare(leaves))
        if self._out_spec is not None:
            return self._out_spec.build(iter(outputs))
        return tuple(outputs)

    def run_flat(self, inputs: Sequence[Any] | Mapping[str, Any]) -> list[npt.NDArray[Any]]:
        """Runs the program on its inputs in the order of `program.inputs` (a sequence), or by
        their names there (a mapping); returns the outputs as a list, in the order of
        `program.outputs`."""
        if isinstance(inputs, Mapping):
            leaves = _bind(self._names, self._no_specs, (), inputs)
        else:
            leaves = list(inputs)
            if len(leaves) != len(self._names):
                raise TypeError("the program takes %d input(s) (%s), got %d"
                                % (len(self._names), ", ".join(self._names), len(leaves)))
        return self._impl.run(self._prepare(leaves))

    def _prepare(self, leaves: list[Any]) -> list[Any]:
        prepared = [_as_input(leaf, kind) for leaf, kind in zip(leaves, self._kinds)]
        for value, spec in zip(prepared, self.inputs):
            _check_array_dtype(value, spec)
        return prepared

    def __str__(self) -> str:
        return str(self._impl)

    def __repr__(self) -> str:
        return "<xport.Program %r: inputs %s, %d output(s)>" % (
            self.path, self._names, len(self.outputs))

    def _flatten(self, spec: Spec, args: Sequence[Any], kwargs: Mapping[str, Any]) -> list[Any]:
        """The leaves of (args, kwargs) by the archive's input spec."""
        args_spec, kwargs_spec = spec.children
        count = len(args_spec.children)
        names = self._arg_names[:count]
        names += ["input %d" % i for i in range(len(names), count)]
        keys = [str(k) for k in kwargs_spec.keys() or []]
        return _bind(names + keys, args_spec.children + kwargs_spec.children, args, kwargs,
                     positional=count)


def _parse_spec(text: str) -> Spec | None:
    """A pytree spec, or None when the archive has none or one of a format not known here (the
    program then takes its inputs by their names and returns a tuple)."""
    try:
        return Spec.parse(text)
    except (ValueError, KeyError, TypeError):
        return None


def _bind(names: Sequence[str], specs: Sequence[Spec | None], args: Sequence[Any],
          kwargs: Mapping[str, Any], positional: int | None = None) -> list[Any]:
    """The leaves of the arguments bound to `names` (positionally first, up to `positional`),
    each flattened by its spec (None: taken as it is)."""
    positional = len(names) if positional is None else positional
    if len(args) > positional:
        raise TypeError("the program takes %d positional input(s) (%s) but %d were given"
                        % (positional, ", ".join(names[:positional]), len(args)))
    unknown = sorted(set(kwargs) - set(names))
    if unknown:
        raise TypeError("the program has no input named %s; its inputs are %s"
                        % (", ".join(map(repr, unknown)), ", ".join(names)))
    leaves: list[Any] = []
    for i, (name, spec) in enumerate(zip(names, specs)):
        if i < len(args):
            if name in kwargs:
                raise TypeError("input %r given both by position and by name" % name)
            value = args[i]
        elif name in kwargs:
            value = kwargs[name]
        else:
            raise TypeError("missing input %r" % name)
        if spec is not None:
            spec.flatten(value, name, leaves)
        else:
            leaves.append(value)
    return leaves


def _check_array_dtype(value: Any, spec: InputSpec) -> None:
    """Refuses a NumPy array of another dtype than the input's, saying how to convert it in
    NumPy (the runtime's own message spells the C++ conversion). Other arrays (DLPack) are
    left to the runtime's check."""
    if type(value) is not np.ndarray or spec.kind != "tensor" or spec.dtype is None:
        return
    if value.dtype.name != spec.dtype and {value.dtype.name, spec.dtype} <= _NUMPY_DTYPES:
        raise InvalidInput("input %s: expected dtype %s, got %s; convert it with "
                           "%s.astype(numpy.%s)" % (spec.name, spec.dtype, value.dtype.name,
                                                    spec.name, spec.dtype))


# The dtypes NumPy and xport both name: an array of one of them, passed where the input has
# another, gets the NumPy spelling of the conversion.
_NUMPY_DTYPES = frozenset({"bool", "uint8", "int8", "int16", "int32", "int64", "float16",
                           "float32", "float64", "complex64", "complex128"})


def _as_input(value: Any, kind: str) -> Any:
    """A leaf as the runtime takes it: arrays and objects that speak DLPack as they are; NumPy
    scalars and sequences for a tensor input as arrays; NumPy scalars for a number as numbers."""
    if type(value) is np.ndarray:
        return value
    if kind == "tensor" and not hasattr(value, "__dlpack__"):
        return np.asarray(value)
    if isinstance(value, np.generic):
        return value.item()
    return value
