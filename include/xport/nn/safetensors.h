#pragma once
/// \file Weights in Hugging Face's safetensors format: an 8-byte little-endian header length, a
/// JSON header ({name: {dtype, shape, data_offsets}}, optional "__metadata__"), then raw
/// little-endian tensor bytes.

#include <map>
#include <string>

#include "xport/nn/module.h"

namespace xport {

/// The tensors of one safetensors file, in file order (by data offset). Reading maps the file;
/// the tensors view the mapping (copy-on-write) and keep it alive. A malformed file is an
/// InvalidArchive error naming the problem.
struct SafetensorsContents {
  nn::NamedTensors tensors;
  std::map<std::string, std::string> metadata;
};
SafetensorsContents read_safetensors(const std::string& path);
/// Writes `tensors` (any layout; stored contiguous, in the given order) and string metadata.
void write_safetensors(const std::string& path, const nn::NamedTensors& tensors,
                       const std::map<std::string, std::string>& metadata = {});

/// Loads a safetensors file into `module` (strict: names and shapes must match, as in
/// nn::Module::load_state_dict).
void load_safetensors(nn::Module& module, const std::string& path);
/// Saves the module's state dict; a tensor tied under several names is stored once, under its
/// first name (as Hugging Face does).
void save_safetensors(const nn::Module& module, const std::string& path);

}  // namespace xport
