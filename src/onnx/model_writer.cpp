#include "onnx/model_writer.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <fstream>

#include "xport/core/error.h"

namespace xport::onnx {
namespace {

// Protobuf's wire format, for the fields written by hand.
void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
void put_length_delimited_tag(std::string& out, int field, uint64_t length) {
  put_varint(out, (static_cast<uint64_t>(field) << 3) | 2);
  put_varint(out, length);
}

// Field numbers of onnx.proto.
constexpr int kModelGraph = 7;
constexpr int kGraphInitializer = 5;
constexpr int kTensorRawData = 9;

// One initializer as a serialized ModelProto that holds only it: protobuf merges concatenated
// messages field by field, so appending it to the model's bytes adds it to graph.initializer.
// `tensor` is written with its bytes in `data` (empty when they are external).
void write_initializer(std::ostream& out, const ::onnx::TensorProto& tensor, const char* data,
                       uint64_t bytes) {
  std::string t = tensor.SerializeAsString();
  std::string raw_header;
  if (data != nullptr) put_length_delimited_tag(raw_header, kTensorRawData, bytes);
  const uint64_t tensor_size = t.size() + raw_header.size() + (data ? bytes : 0);
  std::string graph_header, model_header;
  put_length_delimited_tag(graph_header, kGraphInitializer, tensor_size);
  put_length_delimited_tag(model_header, kModelGraph, graph_header.size() + tensor_size);
  out << model_header << graph_header << t << raw_header;
  if (data != nullptr) out.write(data, static_cast<std::streamsize>(bytes));
}

}  // namespace

void write_model(::onnx::ModelProto model, const std::map<std::string, Tensor>& weights,
                 const std::string& path, int64_t external_threshold) {
  ::google::protobuf::RepeatedPtrField<::onnx::TensorProto> initializers;
  initializers.Swap(model.mutable_graph()->mutable_initializer());
  int64_t total = 0;
  for (const auto& t : initializers) {
    const Tensor& w = weights.at(t.name());
    total += w.int_numel() * w.element_size();
  }
  const bool external = total > external_threshold;
  const std::string suffix = ".tmp" + std::to_string(::getpid());
  const std::string data_path = path + ".data";
  const std::string data_name = std::filesystem::path(data_path).filename().string();
  try {
    std::ofstream out(path + suffix, std::ios::binary);
    std::ofstream data;
    if (external) data.open(data_path + suffix, std::ios::binary);
    XPORT_CHECK(out.good() && (!external || data.good()), InvalidInput,
                "onnx::save: cannot write ", path, ": ", std::strerror(errno));
    XPORT_CHECK(model.SerializeToOstream(&out), InvalidInput, "onnx::save: writing ", path,
                " failed: ", std::strerror(errno));
    int64_t offset = 0;
    for (::onnx::TensorProto& t : initializers) {
      const Tensor w = weights.at(t.name()).contiguous();
      const auto bytes = static_cast<uint64_t>(w.int_numel() * w.element_size());
      const char* raw = static_cast<const char*>(w.raw_data());
      t.clear_raw_data();
      if (!external || static_cast<int64_t>(bytes) < kExternalMinBytes) {
        write_initializer(out, t, raw, bytes);
        continue;
      }
      data.write(raw, static_cast<std::streamsize>(bytes));
      auto entry = [&](const char* key, const std::string& value) {
        auto* e = t.add_external_data();
        e->set_key(key);
        e->set_value(value);
      };
      entry("location", data_name);
      entry("offset", std::to_string(offset));
      entry("length", std::to_string(bytes));
      t.set_data_location(::onnx::TensorProto::EXTERNAL);
      offset += static_cast<int64_t>(bytes);
      write_initializer(out, t, nullptr, 0);
    }
    out.close();
    if (external) data.close();
    // errno says why (a full disk: "No space left on device").
    XPORT_CHECK(out.good() && (!external || data.good()), InvalidInput, "onnx::save: writing ",
                path, " failed: ", std::strerror(errno));
    // A file replaced by rename is flushed to disk first by ext4 (auto_da_alloc): the old one
    // is removed instead, so the new one is written back when the kernel chooses.
    std::filesystem::remove(path);
    if (external) {
      std::filesystem::remove(data_path);
      std::filesystem::rename(data_path + suffix, data_path);
    }
    std::filesystem::rename(path + suffix, path);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(path + suffix, ignored);
    std::filesystem::remove(data_path + suffix, ignored);
    throw;
  }
}

}  // namespace xport::onnx
