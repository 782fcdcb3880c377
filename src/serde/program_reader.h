#pragma once
// The parts that read a PT2 archive's program (deserialize.cpp puts them together): the
// symbols and tensor metadata, the graph and its nodes, the signature and contract, and the
// payloads. Each checks what it reads; a failure is InvalidArchive naming the entry and field.

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "serde/json_field.h"
#include "serde/serialize.h"
#include "serde/zip_io.h"
#include "xport/program/exported_program.h"

namespace xport::serde {

using Json = nlohmann::json;

/// A JSON entry of the archive, parsed; `file` names it in errors.
Json parse_json(const ZipEntry& entry, const std::string& file);

/// range_constraints, sym_int_values and tensor_values: the symbols and the tensors' metadata
/// that the graph, the payloads and the contract refer to (read_symbols.cpp).
class SymbolTable {
 public:
  std::map<std::string, sym::Range> ranges;        // range_constraints
  std::map<std::string, sym::ExprPtr> sym_values;  // sym_int_values
  std::map<std::string, ir::TensorSpec> specs;     // tensor_values

  void read_ranges(const Field& constraints);
  void read_sym_values(const Field& values);
  void read_tensor_values(const Field& values);
  /// An integer expression over symbols that range_constraints lists.
  sym::ExprPtr parse_expr(const Field& f);
  sym::ExprPtr sym_int(const Field& f);
  std::vector<sym::ExprPtr> sym_int_list(const Field& f);
  ir::TensorSpec tensor_spec(const Field& meta);
  const ir::TensorSpec& spec_of(const Field& name_field);
  static DType dtype(const Field& f);
};

/// The graph: inputs, nodes (ops, and the nodes of PyTorch's graphs that are not op calls),
/// subgraphs and outputs (read_graph.cpp, read_node_ops.cpp, read_special_nodes.cpp).
class GraphReader {
 public:
  explicit GraphReader(SymbolTable& symbols) : symbols_(symbols) {}

  void read_graph(const Field& g);

  ir::Graph graph;
  // Plain values the program was specialised to, by graph input index (PyTorch's constant
  // inputs: the graph has no placeholder for them).
  std::map<size_t, InputContract> constant_inputs;
  std::set<sym::ExprPtr> input_symbols;  // in the sizes of graph inputs

 private:
  SymbolTable& symbols_;
  std::map<std::string, sym::ExprPtr> sym_bools_;  // outputs of comparison nodes
  std::set<sym::ExprPtr> bound_symbols_;           // unbacked ones, defined by a node
  std::map<std::string, ir::ValueRef> values_;     // defined so far
  // Prefixes the names of nodes read from an inlined subgraph, which may repeat the enclosing
  // graph's (read_grad_mode_wrapper).
  std::string scope_;
  int subgraph_depth_ = 0;
  static constexpr int kMaxSubgraphDepth = 32;  // a hostile file cannot recurse without bound

  // read_graph.cpp: values, arguments, op calls, subgraphs.
  struct NodeOutputs {
    std::vector<std::optional<Field>> names;  // nullopt: a None result (as_none)
    std::set<size_t> numbers;                 // the outputs that are SymFloats
  };
  void read_node(const Field& n);
  std::vector<ir::Argument> call_arguments(const OpDef& op, const Field& inputs);
  static NodeOutputs node_outputs(const OpDef& op, const Field& outputs);
  std::vector<ir::TensorSpec> output_specs(const NodeOutputs& out);
  void bind_new_symbols(ir::Node* node);
  ir::ValueRef value_ref(const Field& tensor_arg);
  void define(const Field& name_field, ir::ValueRef ref);
  ir::Argument sym_float_argument(const Field& f);
  sym::ExprPtr sym_int_argument(const Field& f);
  ir::Argument argument(const Field& f);
  static ir::Argument default_argument(const Value& d, const Field& where);
  ir::SubgraphRef subgraph(const Field& f);

  // read_node_ops.cpp: which op a node calls, numbers in its Tensor arguments, its metadata.
  static const OpDef& op_of(const Field& target_field);
  static const OpDef& scalar_overload_for_numbers(const OpDef& op, const Field& inputs);
  void materialise_numbers(const OpDef& op, const std::string& node_name,
                           std::vector<ir::Argument>& args, const ir::NodeMeta& meta);
  static std::string source_of_stack_trace(const std::string& trace);
  static ir::NodeMeta node_meta(const Field& metadata);

  // read_special_nodes.cpp: nodes that are not op calls in xport's graphs.
  void check_metadata_assertion(const Field& inputs);
  bool read_item(const Field& n);
  bool read_float_item(const Field& n, const Field& name);
  ir::Node* add_item(const Field& n, const Field& name, bool floating);
  sym::ExprPtr int_operand(const Field& arg);
  bool read_sym_relation(const Field& n);
  bool read_assert(const Field& n);
  bool read_grad_mode_wrapper(const Field& n);
};

/// The graph signature, the input contract (xport's metadata, or derived from the graph for
/// PyTorch's files) and the root call signature (read_signature.cpp).
class SignatureReader {
 public:
  SignatureReader(const GraphReader& graph, SymbolTable& symbols, std::string what,
                  ArchiveInfo& info)
      : graph_(graph.graph),
        constant_inputs_(graph.constant_inputs),
        input_symbols_(graph.input_symbols),
        symbols_(symbols),
        what_(std::move(what)),
        info_(info) {}

  GraphSignature read_signature(const Field& sig);
  void read_contract(const Field& module, const GraphSignature& sig,
                     std::vector<InputContract>& contract, std::vector<SymbolSpec>& symbols);
  /// The root call's pytree specs and argument names into ArchiveInfo; a leaf out_spec makes
  /// `sig.returns` Single.
  void read_call_signature(const Field& module, GraphSignature& sig);

 private:
  const ir::Graph& graph_;
  std::map<size_t, InputContract> constant_inputs_;  // named by read_signature
  const std::set<sym::ExprPtr>& input_symbols_;
  SymbolTable& symbols_;
  std::string what_;
  ArchiveInfo& info_;
  // The user inputs in call order: a constant input, or nullopt for the next user placeholder.
  std::vector<std::optional<InputContract>> user_order_;

  InputContract contract_entry(const Field& c);
  Json nested_json(const Field& text);
  void check_contract(const std::vector<InputContract>& contract,
                      const std::vector<const ir::Node*>& user,
                      const std::vector<SymbolSpec>& symbols);
};

/// Parameters, buffers and constants from the payload entries, viewed in place where they are
/// aligned (read_payloads.cpp).
class PayloadReader {
 public:
  PayloadReader(const ZipView& zip, std::string root, std::shared_ptr<const void> owner,
                std::string what, ArchiveInfo& info, SymbolTable& symbols)
      : zip_(zip),
        root_(std::move(root)),
        owner_(std::move(owner)),
        what_(std::move(what)),
        info_(info),
        symbols_(symbols) {}

  std::map<std::string, Tensor> read_state(const GraphSignature& sig, const ir::Graph& graph);

 private:
  struct PayloadConfig {
    Json doc;
    std::string file;
  };
  const ZipView& zip_;
  std::string root_;
  std::shared_ptr<const void> owner_;
  std::string what_;
  ArchiveInfo& info_;
  SymbolTable& symbols_;
  std::map<std::string, std::shared_ptr<Storage>> storages_;  // by entry name

  std::optional<PayloadConfig> config(const char* path);
  std::shared_ptr<Storage> storage(const std::string& name, const Field& where, int64_t element);
  Tensor payload(const Field& meta, const char* dir, const ir::TensorSpec& expected,
                 const std::string& fqn, int64_t& count, int64_t& bytes);
};

}  // namespace xport::serde
