// xport::onnx::describe: what `xport inspect FILE.onnx` prints.
#include <onnx/onnx_pb.h>

#include <fstream>
#include <sstream>

#include "onnx/contract_metadata.h"
#include "xport/core/error.h"
#include "xport/onnx/onnx.h"

namespace xport::onnx {
namespace {

std::string dims_text(const ::onnx::ValueInfoProto& v) {
  if (!v.type().tensor_type().has_shape()) return "[?]";
  std::string out = "[";
  const auto& dims = v.type().tensor_type().shape().dim();
  for (int i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ", ";
    out += dims[i].has_dim_value() ? std::to_string(dims[i].dim_value()) : dims[i].dim_param();
  }
  return out + "]";
}

std::string type_name(int32_t elem_type) {
  return ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(elem_type));
}

}  // namespace

std::string describe(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  XPORT_CHECK(in.good(), InvalidArchive, path, ": cannot open the file");
  ::onnx::ModelProto model;
  XPORT_CHECK(model.ParseFromIstream(&in), InvalidArchive, path,
              ": not an ONNX model (the protobuf does not parse)");
  std::ostringstream out;
  out << "onnx model: " << path << "\n  producer: " << model.producer_name() << " "
      << model.producer_version() << "\n  ir version: " << model.ir_version() << "\n";
  for (const auto& opset : model.opset_import()) {
    out << "  opset: " << (opset.domain().empty() ? "ai.onnx" : opset.domain()) << " "
        << opset.version() << "\n";
  }
  const ::onnx::GraphProto& g = model.graph();
  int64_t bytes = 0;
  for (const auto& t : g.initializer()) bytes += static_cast<int64_t>(t.raw_data().size());
  out << "  nodes: " << g.node_size() << "\n  initializers: " << g.initializer_size() << " ("
      << bytes << " bytes inline)\n";
  std::unordered_set<std::string> initialized;
  for (const auto& t : g.initializer()) initialized.insert(t.name());
  for (const auto& v : g.input()) {
    out << "  input " << v.name() << ": " << type_name(v.type().tensor_type().elem_type()) << " "
        << dims_text(v) << (initialized.count(v.name()) ? " (defaults to its initializer)" : "")
        << "\n";
  }
  for (const auto& v : g.output()) {
    out << "  output " << v.name() << ": " << type_name(v.type().tensor_type().elem_type())
        << " " << dims_text(v) << "\n";
  }
  out << describe_contract(model);
  return out.str();
}

}  // namespace xport::onnx
