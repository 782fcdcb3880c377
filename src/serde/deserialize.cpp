// A PT2 archive's JSON and payloads -> ExportedProgram. Nothing from the file is used before it
// is checked: every failure is InvalidArchive naming the entry and field (or UnsupportedOp naming
// an op xport does not have). The parts that read each piece are in program_reader.h.

#include "serde/program_reader.h"
#include "serde/pt2_format.h"
#include "xport/core/error.h"

namespace xport::serde {

Json parse_json(const ZipEntry& entry, const std::string& file) {
  try {
    return Json::parse(entry.data, entry.data + entry.size);
  } catch (const Json::parse_error& e) {
    XPORT_FAIL(InvalidArchive, file, ": invalid JSON at byte ", e.byte, ": ", e.what());
  } catch (const Json::exception& e) {  // out_of_range: a number too large for a double
    XPORT_FAIL(InvalidArchive, file, ": invalid JSON: ", e.what());
  }
}

namespace {

void read_version(const Field& v, ArchiveInfo& info) {
  info.schema_major = v["major"].to_int();
  info.schema_minor = v["minor"].to_int();
  if (info.schema_major != kSchemaMajor) {
    v.fail("schema version " + std::to_string(info.schema_major) + "." +
           std::to_string(info.schema_minor) + " has major " + std::to_string(info.schema_major) +
           "; xport reads major " + std::to_string(kSchemaMajor) +
           " (any minor). Re-export the program with a PyTorch/xport that writes schema " +
           std::to_string(kSchemaMajor) + ".x");
  }
}

}  // namespace

ExportedProgram deserialize(const ZipView& zip, const std::string& root,
                            const std::shared_ptr<const void>& owner, const std::string& what,
                            ArchiveInfo& info) {
  const std::string model_file = what + ": " + kModelPath;
  const ZipEntry* model_entry = zip.find(root + kModelPath);
  XPORT_CHECK(model_entry != nullptr, InvalidArchive, what, ": no ", kModelPath,
              " entry (the serialized program)");
  const Json doc = parse_json(*model_entry, model_file);
  const Field ep(doc, "", model_file);
  read_version(ep["schema_version"], info);

  SymbolTable symbols;
  symbols.read_ranges(ep["range_constraints"]);
  const Field module = ep["graph_module"];
  const Field graph = module["graph"];
  symbols.read_sym_values(graph["sym_int_values"]);
  symbols.read_tensor_values(graph["tensor_values"]);
  GraphReader graph_reader(symbols);
  graph_reader.read_graph(graph);

  SignatureReader interface(graph_reader, symbols, what, info);
  GraphSignature signature = interface.read_signature(module["signature"]);
  std::map<std::string, Tensor> state =
      PayloadReader(zip, root, owner, what, info, symbols).read_state(signature, graph_reader.graph);
  std::vector<InputContract> contract;
  std::vector<SymbolSpec> symbol_specs;
  interface.read_contract(module, signature, contract, symbol_specs);
  interface.read_call_signature(module, signature);
  try {
    return ExportedProgram(std::move(graph_reader.graph), std::move(signature),
                           std::move(contract), std::move(symbol_specs), std::move(state));
  } catch (const Error& e) {
    XPORT_FAIL(InvalidArchive, model_file, ": the graph is not valid: ", e.what());
  }
}

}  // namespace xport::serde
