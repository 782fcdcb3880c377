# The compiled extension (python/bindings/module.cpp): the runtime for Python. Its users are the
# package's Python files; `xport.Program` is the public API. The TypedDicts are the dicts
# python/bindings/describe.cpp builds; they exist only here, for the type checker.
from collections.abc import Sequence
from typing import Any, Union

import numpy.typing as npt
from typing_extensions import NotRequired, TypedDict

_Dim = Union[int, str]

class _InputDict(TypedDict):
    name: str
    kind: str  # tensor, tensor_list, int, float, bool
    dtype: NotRequired[str]  # a tensor's
    shape: NotRequired[list[_Dim]]  # a tensor's
    elements: NotRequired[list[_InputDict]]  # a tensor list's
    value: NotRequired[Union[int, float, bool]]  # a number's

class _OutputDict(TypedDict):
    name: str
    dtype: NotRequired[str]  # a tensor's
    shape: NotRequired[list[_Dim]]  # a tensor's
    value: NotRequired[str]  # a constant's, as text

class _DimDict(TypedDict):
    symbol: str
    name: str
    source: str
    min: Union[int, None]
    max: Union[int, None]
    unbacked: bool

class _ContractDict(TypedDict):
    symbols: list[_DimDict]
    inputs: dict[str, list[_Dim]]
    equalities: list[list[str]]
    text: str

class Program:
    def run(self, inputs: Sequence[object]) -> list[npt.NDArray[Any]]:
        """Runs the program on a flat sequence of inputs (arrays, numbers, lists of arrays);
        returns its user outputs as NumPy arrays."""

    @property
    def inputs(self) -> list[_InputDict]: ...
    @property
    def outputs(self) -> list[_OutputDict]: ...
    @property
    def contract(self) -> _ContractDict: ...
    @property
    def in_spec(self) -> str: ...
    @property
    def out_spec(self) -> str: ...
    @property
    def forward_arg_names(self) -> list[str]: ...
    @property
    def written_by_xport(self) -> bool: ...
    @property
    def threads(self) -> int: ...
    @property
    def fuse(self) -> bool: ...

def load(path: str, threads: int, fuse: bool) -> Program: ...
