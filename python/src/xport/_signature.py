"""What a loaded program says about itself: its inputs, outputs and shape contract, as frozen
dataclasses made from the extension's dicts.

Until 0.2 each also answers the dict spelling of 0.1 (`spec["shape"]`, `contract["symbols"]`),
with a DeprecationWarning, and gives the same values as 0.1 did (lists and dicts)."""
from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Tuple, Union, cast

if TYPE_CHECKING:
    from ._xport import _ContractDict, _DimDict, _InputDict, _OutputDict

Shape = Tuple[Union[int, str], ...]
"""A shape: static dims as ints, dynamic dims as text (a Dim's name, `s0`, `2*batch`)."""

InputKind = Literal["tensor", "tensor_list", "int", "float", "bool"]


class _DictAccess:
    """The dict spelling of 0.1 (`spec["name"]`, `spec.get`, `spec.keys()`), deprecated: each
    key gives the value 0.1's dict held; a key the dict did not hold raises KeyError."""

    def _as_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def __getitem__(self, key: str) -> Any:
        _warn(type(self).__name__, key)
        return self._as_dict()[key]

    def get(self, key: str, default: Any = None) -> Any:
        _warn(type(self).__name__, key)
        return self._as_dict().get(key, default)

    def keys(self) -> list[str]:
        return list(self._as_dict())

    def __contains__(self, key: object) -> bool:
        return key in self._as_dict()

    def __iter__(self) -> Iterator[str]:
        return iter(self._as_dict())


def _warn(cls: str, key: str) -> None:
    warnings.warn("xport.%s[%r]: the dict spelling is deprecated and goes in 0.2; read the "
                  "attribute (`.%s`)" % (cls, key, _ATTRIBUTES.get(key, key)),
                  DeprecationWarning, stacklevel=3)


# Keys of 0.1's dicts that are attributes of another name now.
_ATTRIBUTES = {"symbols": "dims"}


@dataclass(frozen=True)
class InputSpec(_DictAccess):
    """One input of a program, in the order `run_flat` takes them.

    A tensor has `dtype` and `shape`; a list of tensors its `elements` (one InputSpec each); an
    int, float or bool input (exported with a number) the `value` it was exported with."""

    name: str
    kind: InputKind
    dtype: str | None = None
    shape: Shape | None = None
    elements: tuple[InputSpec, ...] = ()
    value: int | float | bool | None = None

    def _as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.kind == "tensor":
            d["dtype"], d["shape"] = self.dtype, list(self.shape or ())
        elif self.kind == "tensor_list":
            d["elements"] = [e._as_dict() for e in self.elements]
        else:
            d["value"] = self.value
        return d


@dataclass(frozen=True)
class OutputSpec(_DictAccess):
    """One output of a program, in the order `run_flat` returns them: a tensor's `dtype` and
    `shape`, or for an output the program computes nothing for, its constant `value` as text."""

    name: str
    dtype: str | None = None
    shape: Shape | None = None
    value: str | None = None

    def _as_dict(self) -> dict[str, Any]:
        if self.dtype is None:
            return {"name": self.name, "value": self.value}
        return {"name": self.name, "dtype": self.dtype, "shape": list(self.shape or ())}


@dataclass(frozen=True)
class Dim(_DictAccess):
    """A dynamic dim of the contract: its `name` (the torch.export.Dim's, else the symbol), the
    runtime's `symbol` (`s0`), the input dim it comes from (`source`, such as `x.size(0)`), and
    its range `min`..`max` (inclusive; None: unbounded). `unbacked`: a value the program
    computes from data (nonzero's count), not an input's dim."""

    name: str
    symbol: str
    source: str
    min: int | None
    max: int | None
    unbacked: bool

    def _as_dict(self) -> dict[str, Any]:
        return {"symbol": self.symbol, "name": self.name, "source": self.source, "min": self.min,
                "max": self.max, "unbacked": self.unbacked}


@dataclass(frozen=True)
class Contract(_DictAccess):
    """The shapes a program accepts: its dynamic `dims` with their ranges, each tensor input's
    shape by those dims (`inputs`), the groups of input dims that must be equal
    (`equalities`, e.g. `("input_ids.size(0)", "attention_mask.size(0)")`), and all of it as
    `text`."""

    dims: tuple[Dim, ...]
    inputs: Mapping[str, Shape]
    equalities: tuple[tuple[str, ...], ...]
    text: str

    def _as_dict(self) -> dict[str, Any]:
        return {"symbols": [d._as_dict() for d in self.dims],
                "inputs": {name: list(shape) for name, shape in self.inputs.items()},
                "equalities": [list(group) for group in self.equalities], "text": self.text}

    def __str__(self) -> str:
        return self.text

    # The dataclass's own hash would hash `inputs`, a dict: a contract hashes as its contents.
    def __hash__(self) -> int:
        return hash((self.dims, tuple(sorted(self.inputs.items())), self.equalities, self.text))


def input_spec(d: _InputDict) -> InputSpec:
    shape = d.get("shape")
    return InputSpec(name=d["name"], kind=cast(InputKind, d["kind"]), dtype=d.get("dtype"),
                     shape=None if shape is None else tuple(shape),
                     elements=tuple(input_spec(e) for e in d.get("elements", ())),
                     value=d.get("value"))


def output_spec(d: _OutputDict) -> OutputSpec:
    shape = d.get("shape")
    return OutputSpec(name=d["name"], dtype=d.get("dtype"),
                      shape=None if shape is None else tuple(shape), value=d.get("value"))


def contract(d: _ContractDict) -> Contract:
    return Contract(dims=tuple(_dim(s) for s in d["symbols"]),
                    inputs={name: tuple(shape) for name, shape in d["inputs"].items()},
                    equalities=tuple(tuple(group) for group in d["equalities"]), text=d["text"])


def _dim(d: _DimDict) -> Dim:
    return Dim(name=d["name"], symbol=d["symbol"], source=d["source"], min=d["min"],
               max=d["max"], unbacked=d["unbacked"])
