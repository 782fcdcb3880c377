#!/usr/bin/env python3
"""Prints every aten overload PyTorch tags `core` (torch.Tag.core: the set a backend is promised
to need), one qualified name a line ("aten::add.Tensor"; "aten::relu" for the default overload),
sorted. Used by the core op coverage test (tests/ops/schema_oracle_test.cpp)."""
import torch


def core_overloads():
    names = set()
    for packet_name in dir(torch.ops.aten):
        packet = getattr(torch.ops.aten, packet_name, None)
        if not hasattr(packet, "overloads"):
            continue
        for overload in packet.overloads():
            if torch.Tag.core in getattr(packet, overload).tags:
                suffix = "" if overload == "default" else "." + overload
                names.add("aten::" + packet_name + suffix)
    return sorted(names)


if __name__ == "__main__":
    print("\n".join(core_overloads()))
