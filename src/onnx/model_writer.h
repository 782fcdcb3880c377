#pragma once
// Writing an ONNX model file: the model's structure through protobuf, its weights straight from
// the program's tensors (no copy into the message), in a PATH.data file beside it past 1 GB.
#include <onnx/onnx_pb.h>

#include <map>
#include <string>

#include "xport/tensor/tensor.h"

namespace xport::onnx {

/// Protobuf refuses messages past 2 GB: beyond this many bytes of weights, each weight of
/// kExternalMinBytes or more goes to `PATH.data` (ONNX's external data).
inline constexpr int64_t kExternalDataThreshold = int64_t{1} << 30;
inline constexpr int64_t kExternalMinBytes = 1024;

/// Writes `model` to `path`, each initializer's bytes taken from `weights` by its name (its
/// raw_data in `model` only stands in for them); past `external_threshold` bytes of weights,
/// the large ones to `PATH.data`. Written beside `path` and renamed into place: on any error no
/// file is left behind.
void write_model(::onnx::ModelProto model, const std::map<std::string, Tensor>& weights,
                 const std::string& path, int64_t external_threshold = kExternalDataThreshold);

}  // namespace xport::onnx
