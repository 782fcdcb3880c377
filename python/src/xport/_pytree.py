"""The structure of a program's inputs and outputs, from the pytree specs torch.export writes in a
.pt2 archive (`[1, {"type": "builtins.tuple", "context": "null", "children_spec": [...]}]`):
flattening the caller's arguments into the program's inputs, and building its outputs back into
tuples, lists and dicts. A type PyTorch registered that Python here does not know (a Hugging Face
ModelOutput, a dataclass, a namedtuple) comes back as a dict of its fields, or a tuple without
field names."""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

TUPLE, LIST, DICT, NONE = "builtins.tuple", "builtins.list", "builtins.dict", "builtins.NoneType"


class Spec:
    """One node of a pytree spec: `kind` None for a leaf."""

    __slots__ = ("kind", "context", "children")

    def __init__(self, kind: str | None, context: Any, children: list[Spec]) -> None:
        self.kind, self.context, self.children = kind, context, children

    @classmethod
    def parse(cls, text: str) -> Spec | None:
        """A spec from its JSON text, or None for an empty one."""
        if not text:
            return None
        doc = json.loads(text)
        if not (isinstance(doc, list) and len(doc) == 2 and doc[0] == 1):
            raise ValueError("unknown pytree spec format: %.80s" % text)
        return cls._from_json(doc[1])

    @classmethod
    def _from_json(cls, node: dict[str, Any]) -> Spec:
        context = node.get("context")
        if isinstance(context, str):
            context = json.loads(context)
        return cls(node.get("type"), context, [cls._from_json(c) for c in node["children_spec"]])

    @property
    def is_leaf(self) -> bool:
        return self.kind is None

    def keys(self) -> list[Any] | None:
        """The keys of a dict-like node (dict, OrderedDict, a registered class's fields), or
        None."""
        if isinstance(self.context, list) and len(self.context) == len(self.children) \
                and self.kind not in (TUPLE, LIST):
            return self.context
        return None

    def leaf_count(self) -> int:
        return 1 if self.is_leaf else sum(c.leaf_count() for c in self.children)

    def flatten(self, value: Any, where: str, out: list[Any]) -> None:
        """Appends the leaves of `value`, which must have this structure, to `out`."""
        if self.is_leaf:
            out.append(value)
            return
        if self.kind == NONE:
            if value is not None:
                raise TypeError("%s: expected None, got %s" % (where, _describe(value)))
            return
        keys = self.keys()
        if keys is not None:
            if not isinstance(value, dict):
                raise TypeError("%s: expected a dict with keys %s, got %s"
                                % (where, keys, type(value).__name__))
            missing = [k for k in keys if k not in value]
            if missing:
                raise TypeError("%s: missing keys %s" % (where, missing))
            for key, child in zip(keys, self.children):
                child.flatten(value[key], "%s[%r]" % (where, key), out)
            return
        if not isinstance(value, (list, tuple)) or len(value) != len(self.children):
            raise TypeError("%s: expected a sequence of %d, got %s"
                            % (where, len(self.children), _describe(value)))
        for i, (item, child) in enumerate(zip(value, self.children)):
            child.flatten(item, "%s[%d]" % (where, i), out)

    def build(self, leaves: Iterator[Any]) -> Any:
        """This structure over the values taken from the iterator `leaves`."""
        if self.is_leaf:
            return next(leaves)
        if self.kind == NONE:
            return None
        values = [c.build(leaves) for c in self.children]
        keys = self.keys()
        if keys is not None:
            return dict(zip(keys, values))
        if self.kind == LIST:
            return values
        return tuple(values)


def _describe(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return "a %s of %d" % (type(value).__name__, len(value))
    return type(value).__name__
