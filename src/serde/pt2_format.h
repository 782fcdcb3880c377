#pragma once
// Names and numbers of the PT2 archive layout and of torch.export's serialized schema that xport
// writes and reads (docs/ARCHIVE.md describes each).

#include <cstdint>
#include <optional>

#include "xport/core/dtype.h"

namespace xport::serde {

// Archive layout. xport writes every entry under kRootFolder, as PyTorch's writer puts them
// under one top-level folder; the reader accepts any single top-level folder, or none.
inline constexpr const char* kRootFolder = "archive/";
inline constexpr const char* kArchiveFormatPath = "archive_format";
inline constexpr const char* kArchiveFormatValue = "pt2";
inline constexpr const char* kArchiveVersionPath = "archive_version";
inline constexpr const char* kArchiveVersionValue = "0";
inline constexpr const char* kByteOrderPath = "byteorder";
inline constexpr const char* kDataVersionPath = ".data/version";
inline constexpr const char* kDataVersionValue = "3";
inline constexpr const char* kSerializationIdPath = ".data/serialization_id";
inline constexpr const char* kModelName = "model";
inline constexpr const char* kModelPath = "models/model.json";
inline constexpr const char* kWeightsDir = "data/weights/";
inline constexpr const char* kWeightsConfigPath = "data/weights/model_weights_config.json";
inline constexpr const char* kWeightPrefix = "weight_";
inline constexpr const char* kConstantsDir = "data/constants/";
inline constexpr const char* kConstantsConfigPath = "data/constants/model_constants_config.json";
inline constexpr const char* kConstantPrefix = "tensor_";
// Pickled example inputs; xport writes none (an empty entry, as torch.export.save does when
// the program has none), but PyTorch's loader requires the entry.
inline constexpr const char* kSampleInputsPath = "data/sample_inputs/model.pt";

// Serialized-schema version written; the reader loads any minor of the same major.
inline constexpr int64_t kSchemaMajor = 8;
inline constexpr int64_t kSchemaMinor = 17;

// treespec_dumps' format version, the first element of a serialized TreeSpec.
inline constexpr int64_t kTreeSpecProtocol = 1;

// Keys of graph_module.metadata where xport keeps what the schema has no field for.
inline constexpr const char* kContractKey = "xport.contract";
inline constexpr const char* kSymbolsKey = "xport.symbols";

// Schema enums.
inline constexpr int64_t kLayoutStrided = 7;
inline constexpr int64_t kArgumentPositional = 1;
inline constexpr int64_t kArgumentKeyword = 2;

/// torch.export's ScalarType number of a dtype (BYTE = 1 ... BFLOAT16 = 13).
int64_t scalar_type_id(DType dtype);
/// The dtype of a ScalarType number, or nullopt for numbers xport has no dtype for.
std::optional<DType> dtype_of_scalar_type(int64_t id);

}  // namespace xport::serde
