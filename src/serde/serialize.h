#pragma once
// ExportedProgram -> the JSON documents and tensor payloads of a PT2 archive, and back.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "serde/zip_io.h"
#include "xport/program/exported_program.h"
#include "xport/serde/archive.h"

namespace xport::serde {

/// One stored tensor storage: its path in the archive (`data/weights/weight_0`) and bytes.
struct Payload {
  std::string path;
  std::shared_ptr<Storage> storage;
};

struct SerializedProgram {
  std::string model_json;             ///< models/model.json
  std::string weights_config_json;    ///< data/weights/model_weights_config.json
  std::string constants_config_json;  ///< data/constants/model_constants_config.json
  std::vector<Payload> payloads;      ///< in the order they are written
};

SerializedProgram serialize(const ExportedProgram& program);

/// Rebuilds a program from an archive's entries (names relative to the archive's root folder).
/// Tensors view `entries`' bytes, which `owner` keeps alive. Validates everything: InvalidArchive
/// naming the field, UnsupportedOp naming an unknown op. Fills `info` except file_bytes.
ExportedProgram deserialize(const ZipView& zip, const std::string& root,
                            const std::shared_ptr<const void>& owner, const std::string& what,
                            ArchiveInfo& info);

/// load() over bytes already in memory (a mapped file, or a fuzzer's input); tensors view
/// `data`, which `owner` keeps alive. `what` names the source in errors.
ExportedProgram load_bytes(const uint8_t* data, uint64_t size, std::shared_ptr<const void> owner,
                           const std::string& what, ArchiveInfo& info);

}  // namespace xport::serde
