#!/usr/bin/env python3
"""Writes tests/serde/data/pytorch_style.pt2: a small archive laid out as torch.export.save (PyTorch
2.x) writes one, for the loader's compatibility test. PyTorch 1.13 (the one Debian has) cannot
export, so the file is written field by field from torch.export's schema:

- entries under a top-level folder named after the file (`pytorch_style/`), written by Python's
  zipfile: stored, not 64-byte aligned (so the loader must copy misaligned payloads);
- the graph computes its symbolic size with an `aten.sym_size.int` node whose output is listed in
  `sym_int_values`, as PyTorch's graphs do;
- arguments left at their defaults are omitted, NamedArgument has no `kind`, nodes have no `name`
  (as in older minors of schema 8);
- node metadata holds a multi-frame Python stack trace and PyTorch's nn_module_stack spelling.

    forward(x: f32[s0, 4]) = relu(view(linear(x, weight, bias), [s0, 3, 1]))

weight = arange(12).reshape(3, 4) / 10, bias = [0.5, -1, 2]. Run it with /usr/bin/python3.
"""
import json
import os
import struct
import sys
import zipfile


def sym(expr, hint):
    return {"as_expr": {"expr_str": expr, "hint": {"as_int": hint}}}


def meta(sizes, strides):
    return {"dtype": 7, "sizes": sizes, "requires_grad": False, "device": {"type": "cpu", "index": None},
            "strides": strides, "storage_offset": {"as_int": 0}, "layout": 7}


def i(v):
    return {"as_int": v}


def main(out):
    trace = ('File "/home/user/model.py", line 30, in <module>\n    ep = torch.export.export(m, (x,))\n'
             'File "/home/user/model.py", line 12, in forward\n    y = self.fc(x)')
    stack = "L__self__,,__main__.Net;L__self___fc,fc,torch.nn.modules.linear.Linear"
    graph = {
        "inputs": [{"as_tensor": {"name": "p_fc_weight"}}, {"as_tensor": {"name": "p_fc_bias"}},
                   {"as_tensor": {"name": "x"}}],
        "outputs": [{"as_tensor": {"name": "relu"}}],
        "nodes": [
            {"target": "torch.ops.aten.linear.default",
             "inputs": [{"name": "input", "arg": {"as_tensor": {"name": "x"}}},
                        {"name": "weight", "arg": {"as_tensor": {"name": "p_fc_weight"}}},
                        {"name": "bias", "arg": {"as_tensor": {"name": "p_fc_bias"}}}],
             "outputs": [{"as_tensor": {"name": "linear"}}],
             "metadata": {"stack_trace": trace, "nn_module_stack": stack}},
            {"target": "torch.ops.aten.sym_size.int",
             "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}},
                        {"name": "dim", "arg": {"as_int": 0}}],
             "outputs": [{"as_sym_int": {"as_name": "sym_size_int"}}],
             "metadata": {}},
            {"target": "torch.ops.aten.view.default",
             "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "linear"}}},
                        {"name": "size", "arg": {"as_sym_ints": [{"as_name": "sym_size_int"}, {"as_int": 3},
                                                                 {"as_int": 1}]}}],
             "outputs": [{"as_tensor": {"name": "view"}}],
             "metadata": {"nn_module_stack": "L__self__,,__main__.Net"}},
            {"target": "torch.ops.aten.relu.default",
             "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "view"}}}],
             "outputs": [{"as_tensor": {"name": "relu"}}],
             "metadata": {}},
        ],
        "tensor_values": {
            "p_fc_weight": meta([i(3), i(4)], [i(4), i(1)]),
            "p_fc_bias": meta([i(3)], [i(1)]),
            "x": meta([sym("s0", 5), i(4)], [i(4), i(1)]),
            "linear": meta([sym("s0", 5), i(3)], [i(3), i(1)]),
            "view": meta([sym("s0", 5), i(3), i(1)], [i(3), i(1), i(1)]),
            "relu": meta([sym("s0", 5), i(3), i(1)], [i(3), i(1), i(1)]),
        },
        "sym_int_values": {"sym_size_int": sym("s0", 5)},
        "sym_bool_values": {},
        "is_single_tensor_return": False,
        "custom_obj_values": {},
        "sym_float_values": {},
    }
    signature = {
        "input_specs": [
            {"parameter": {"arg": {"name": "p_fc_weight"}, "parameter_name": "fc.weight"}},
            {"parameter": {"arg": {"name": "p_fc_bias"}, "parameter_name": "fc.bias"}},
            {"user_input": {"arg": {"as_tensor": {"name": "x"}}}},
        ],
        "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "relu"}}}}],
    }
    program = {
        "graph_module": {"graph": graph, "signature": signature, "module_call_graph": [],
                         "metadata": {}, "treespec_namedtuple_fields": {}},
        "opset_version": {"aten": 10},
        "range_constraints": {"s0": {"min_val": 2, "max_val": 64}},
        "schema_version": {"major": 8, "minor": 3},
        "verifiers": [],
        "torch_version": "2.5.0",
    }
    weight = struct.pack("<12f", *[k / 10 for k in range(12)])
    bias = struct.pack("<3f", 0.5, -1.0, 2.0)
    config = {"config": {
        "fc.weight": {"path_name": "weight_0", "is_param": True, "use_pickle": False,
                      "tensor_meta": meta([i(3), i(4)], [i(4), i(1)])},
        "fc.bias": {"path_name": "weight_1", "is_param": True, "use_pickle": False,
                    "tensor_meta": meta([i(3)], [i(1)])},
    }}
    root = "pytorch_style/"
    entries = [("archive_format", b"pt2"), ("archive_version", b"0"), ("byteorder", b"little"),
               (".data/version", b"3"), ("models/model.json", json.dumps(program).encode()),
               ("data/weights/model_weights_config.json", json.dumps(config).encode()),
               ("data/weights/weight_0", weight), ("data/weights/weight_1", bias)]
    # zipfile does not align data; pad weight_0's local header with an unknown extra field
    # (id 0xCAFE) so its data starts 2 bytes past a 4-byte boundary: the loader must copy it.
    for pad in range(4):
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as z:
            for name, data in entries:
                info = zipfile.ZipInfo(root + name, date_time=(1980, 1, 1, 0, 0, 0))
                if name.endswith("weight_0"):
                    info.extra = struct.pack("<HH", 0xCAFE, pad) + b"\0" * pad
                z.writestr(info, data)
        with zipfile.ZipFile(out) as z:
            info = z.getinfo(root + "data/weights/weight_0")
            offset = info.header_offset + 30 + len(info.filename) + len(info.extra)
        if offset % 4 == 2:
            return
    raise SystemExit("could not misalign weight_0")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else
         os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "pytorch_style.pt2"))
