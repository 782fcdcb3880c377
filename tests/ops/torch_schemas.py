#!/usr/bin/env python3
"""Prints PyTorch's schema text for each op named on standard input (one qualified name a line,
"aten::var.correction"; "aten::relu" is the default overload) as one JSON object
{name: schema text, or null when PyTorch has no such op}. Used by the schema comparison test."""
import json
import sys

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401 (defines quantized_decomposed::*)


def schema_of(qualified):
    namespace, rest = qualified.split("::")
    name, _, overload = rest.partition(".")
    try:
        packet = getattr(getattr(torch.ops, namespace), name)
        return str(getattr(packet, overload or "default")._schema)
    except (AttributeError, RuntimeError):
        return None


def main():
    names = [line.strip() for line in sys.stdin if line.strip()]
    json.dump({n: schema_of(n) for n in names}, sys.stdout, indent=0)


if __name__ == "__main__":
    main()
