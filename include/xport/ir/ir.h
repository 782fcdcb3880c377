#pragma once
/// \file The graph IR: a functional graph of registered ops over tensors whose sizes are
/// symbolic expressions. It prints like code, is checked by a verifier, and runs eagerly in an
/// interpreter given the values of its symbols.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "xport/core/dtype.h"
#include "xport/core/expr.h"
#include "xport/ops/op_registry.h"
#include "xport/tensor/tensor.h"

namespace xport::ir {

/// Values of size symbols: what a run's inputs (and its data-dependent results) bind them to.
using SymbolValues = std::unordered_map<sym::ExprPtr, int64_t>;

/// Metadata of a tensor value: dtype and symbolic sizes/strides/offset (constants are Integer
/// expressions).
struct TensorSpec {
  DType dtype = DType::Float32;
  std::vector<sym::ExprPtr> sizes;
  std::vector<sym::ExprPtr> strides;
  sym::ExprPtr storage_offset = nullptr;  // null means 0
  /// A None result (TensorMeta::none): an unrequested gradient; no tensor, no memory.
  bool none = false;
  static TensorSpec none_result() {
    TensorSpec s;
    s.none = true;
    return s;
  }
  /// Contiguous strides for `sizes`.
  static TensorSpec contiguous(DType dtype, std::vector<sym::ExprPtr> sizes);
  /// The layout concrete() gives: the spec's own strides and offset, or contiguous strides.
  enum class Layout { AsSpecified, Contiguous };
  /// The tensor this spec describes for the given symbol values (a None result for a None
  /// spec); nullopt when an expression needs a symbol `symbols` lacks, or divides by zero. The
  /// verifier, the runtime's planner and the AOT compiler all make specs concrete here.
  std::optional<TensorMeta> concrete(const SymbolValues& symbols,
                                     Layout layout = Layout::AsSpecified) const;
  /// `f32[s0, 10]`: dtype and sizes.
  std::string str() const;
};

class Node;
class Graph;

/// One output of a node (ops with several or list outputs have one value per element).
struct ValueRef {
  const Node* node = nullptr;
  int index = 0;
  bool operator==(const ValueRef&) const = default;
};

/// A subgraph a higher-order op's node owns (cond's `true_graph_0`). It is closed: its own
/// placeholders take what the node passes in, and it refers to no value outside it.
struct SubgraphRef {
  std::string name;              ///< unique among the subgraphs of the graph that owns the node
  std::shared_ptr<Graph> graph;  ///< never shared between nodes (clone() copies it)
  bool operator==(const SubgraphRef&) const = default;
};

/// An argument of a call or of the output node: none, a graph value, an integer expression
/// (constants are Integer nodes), a float, a bool, a string, a dtype, a list of these, or a
/// subgraph.
struct Argument {
  std::variant<std::monostate, ValueRef, sym::ExprPtr, double, bool, std::string, DType,
               std::vector<Argument>, SubgraphRef>
      value;

  Argument() = default;
  Argument(ValueRef v) : value(v) {}      // NOLINT
  Argument(sym::ExprPtr v) : value(v) {}  // NOLINT
  Argument(double v) : value(v) {}        // NOLINT
  Argument(bool v) : value(v) {}          // NOLINT
  /// An integer constant (`sym::integer(v)`).
  Argument(int64_t v) : value(sym::integer(v)) {}   // NOLINT
  Argument(int v) : value(sym::integer(v)) {}       // NOLINT
  Argument(std::string v) : value(std::move(v)) {}  // NOLINT
  /// A string (without this, a literal would pick the bool constructor).
  Argument(const char* v) : value(std::string(v)) {}          // NOLINT
  Argument(DType v) : value(v) {}                             // NOLINT
  Argument(std::vector<Argument> v) : value(std::move(v)) {}  // NOLINT
  Argument(SubgraphRef v) : value(std::move(v)) {}            // NOLINT

  bool is_none() const { return value.index() == 0; }
  /// Same kind and value (expressions compare by pointer, which is by value for interned ones).
  bool operator==(const Argument&) const = default;
  /// `%x`, `2*s0`, `1.5`, `True`, `"tanh"`, `torch.float32`, `[%a, %b]`, `true_graph_0`.
  std::string str() const;
};

enum class NodeKind { Placeholder, Call, Output };

/// Where a node came from in the user's program.
struct NodeMeta {
  std::string source = {};       ///< "model.cpp:12" (the user's line), or empty
  std::string module_path = {};  ///< "layers.3.attn" (innermost module), or empty
  /// (path, type) of every module the op ran in, outermost first: PyTorch's nn_module_stack.
  std::vector<std::pair<std::string, std::string>> module_stack = {};
};

/// How a node gives a data-dependent (unbacked) symbol its value when it runs: the value of its
/// one-element output (`aten::item`), or that output's size along `dim` (`aten::nonzero`).
/// PyTorch's node.meta["unbacked_bindings"].
struct UnbackedBinding {
  sym::ExprPtr symbol = nullptr;
  int output = 0;
  int dim = -1;  ///< -1: the value of the output
  bool operator==(const UnbackedBinding&) const = default;
};

class Node {
 public:
  NodeKind kind() const { return kind_; }
  /// Unique in the graph: the placeholder's input name, or the op's base name plus a counter
  /// (`addmm`, `addmm_1`).
  const std::string& name() const { return name_; }
  /// The op of a Call node (null otherwise).
  const OpDef* op() const { return op_; }
  /// Call: one argument per schema argument, in schema order (defaults included).
  /// Output: the graph's results.
  const std::vector<Argument>& args() const { return args_; }
  /// A Call's argument by its schema name (`bn.arg("eps")`); Internal when the op's schema has
  /// no such argument.
  const Argument& arg(std::string_view name) const;
  /// One spec per produced value (a placeholder has one; the output node none).
  const std::vector<TensorSpec>& outputs() const { return outputs_; }
  ValueRef out(int index = 0) const { return ValueRef{this, index}; }
  const NodeMeta& meta() const { return meta_; }
  NodeMeta& mutable_meta() { return meta_; }
  /// Position in the graph (0-based), kept up to date by the graph.
  size_t position() const { return position_; }
  /// The subgraphs among the arguments (a higher-order op's), in argument order.
  std::vector<const SubgraphRef*> subgraphs() const;
  /// The unbacked symbols this node's results define (empty for most nodes).
  const std::vector<UnbackedBinding>& unbacked_bindings() const { return bindings_; }

 private:
  friend class Graph;
  NodeKind kind_ = NodeKind::Call;
  std::string name_;
  const OpDef* op_ = nullptr;
  std::vector<Argument> args_;
  std::vector<TensorSpec> outputs_;
  NodeMeta meta_;
  std::vector<UnbackedBinding> bindings_;
  size_t position_ = 0;
};

/// Placeholders first, then calls in execution order, then one output node.
class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  Graph(Graph&&) = default;
  Graph& operator=(Graph&&) = default;

  /// Adds an input (before any call); `name` must be a valid, unused identifier after
  /// sanitizing (dots become underscores: `layers.0.weight` -> `p_layers_0_weight` is the
  /// caller's choice). Throws InvalidInput otherwise. Added after calls exist, it is inserted
  /// after the last placeholder.
  Node* add_placeholder(const std::string& name, TensorSpec spec, NodeMeta meta = {});
  /// Inserts an input before the input at `index` (the number of inputs: after the last).
  Node* insert_placeholder(size_t index, const std::string& name, TensorSpec spec,
                           NodeMeta meta = {});
  /// Removes an input no node uses (a weight a pass replaced); whoever keeps a signature for
  /// the graph's inputs updates it. InvalidInput while a node uses it.
  void erase_placeholder(const Node* node);
  /// Appends a call of `op`; `outputs` from the op's meta function.
  Node* add_call(const OpDef& op, std::vector<Argument> args, std::vector<TensorSpec> outputs,
                 NodeMeta meta = {});
  /// Appends a call with a given name (a loaded graph keeps its names); throws InvalidInput
  /// when `name` is not a valid, unused identifier.
  Node* add_named_call(const std::string& name, const OpDef& op, std::vector<Argument> args,
                       std::vector<TensorSpec> outputs, NodeMeta meta = {});
  /// Inserts a call before the node at `position` (an insertion point for passes); positions
  /// after it shift by one. Nothing is checked until verify().
  Node* insert_call(size_t position, const OpDef& op, std::vector<Argument> args,
                    std::vector<TensorSpec> outputs, NodeMeta meta = {});
  /// Replaces a call's arguments (one per schema argument, in schema order; checked by
  /// verify()), or the output node's results: a pass that changes what one node reads.
  void set_args(Node* node, std::vector<Argument> args);
  /// Sets the output node (once: verify() rejects a second one).
  Node* set_output(std::vector<Argument> results);
  /// Records that `node`'s results give unbacked symbols their values (a node that binds
  /// symbols is never removed as dead: later sizes use them).
  void set_unbacked_bindings(Node* node, std::vector<UnbackedBinding> bindings);
  /// Makes every use of `from` (in calls and the output) use `to` instead, except in `to`'s
  /// own node (so a node inserted after `from` that reads it can take over its uses).
  void replace_all_uses(ValueRef from, ValueRef to);
  /// Removes a call (InvalidInput, naming them, while other nodes use its values).
  void erase(const Node* node);
  /// Replaces symbols (keys: Symbol expressions) by expressions everywhere: each value's sizes,
  /// strides and offset, each integer argument, subgraphs too (a program specialised to some
  /// sizes). Throws InvalidInput when a divisor becomes 0.
  void substitute(const std::unordered_map<sym::ExprPtr, sym::ExprPtr>& replacements);
  /// The calls of `op`, in execution order (this graph's, not its subgraphs').
  std::vector<Node*> find_nodes(const OpDef& op) const;
  /// The calls of the op named `qualified_name` ("aten::convolution"; UnsupportedOp when no op
  /// has that name).
  std::vector<Node*> find_nodes(const std::string& qualified_name) const;

  const std::vector<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  std::vector<const Node*> placeholders() const;
  const Node* output() const;
  /// Whether a node of this graph has this name.
  bool uses_name(const std::string& name) const { return names_.count(name) > 0; }
  /// Nodes that use `node`'s values, in order.
  std::vector<const Node*> users(const Node* node) const;

  /// Removes calls whose values nobody uses (every op in the graph is functional); calls that
  /// return nothing (assertions) or mutate an argument stay. Subgraphs are cleaned too (their
  /// placeholders stay: they match what the node passes in).
  void eliminate_dead_code();
  /// A deep copy (node pointers remapped, subgraphs copied).
  Graph clone() const;

  /// One line per node: `%addmm = aten::addmm.default(%bias, %x, %t)  # f32[s0, 10]
  /// model.cpp:12  fc`, placeholders as `%x : f32[s0, 3]`, then `return (%addmm,)`; then each
  /// subgraph, as `true_graph_0:` and its nodes indented.
  std::string to_string() const;
  /// Checks the invariants (names unique, references point to earlier nodes of this graph,
  /// value indices in range, placeholders first, exactly one output last, argument count and
  /// kinds match each op's schema; a subgraph verifies, and its inputs and outputs match what
  /// its node passes and returns); throws xport::Error(Internal) naming the node.
  void verify() const;

 private:
  std::vector<std::unique_ptr<Node>> nodes_;
  std::unordered_map<std::string, int> name_counts_;
  std::unordered_set<std::string> names_;  // every name in use

  Node* insert_node(size_t position, std::unique_ptr<Node> node);
  void check_new_name(const char* caller, const char* noun, const std::string& name) const;
  std::string unique_name(const std::string& base);
};

/// Runs each call's meta function with the symbols taking `symbols`' values and checks the
/// node's recorded dtype and sizes against what it gives (subgraphs too); throws
/// xport::Error(Internal) naming the node, both specs and the values. Returns false, checking
/// nothing further, when one of the graph's runtime assertions fails at these values.
bool verify_metadata(const Graph& graph, const std::unordered_map<sym::ExprPtr, int64_t>& symbols);

/// Runs the graph eagerly: placeholders take `inputs` (in order), symbols take `symbols`
/// (Symbol expression -> value), each call runs its op's eager kernel (and gives the unbacked
/// symbols it binds their values); returns the output node's tensor values. Intermediate
/// tensors are released after their last use.
std::vector<Tensor> interpret(const Graph& graph, const std::vector<Tensor>& inputs,
                              const std::unordered_map<sym::ExprPtr, int64_t>& symbols);

}  // namespace xport::ir
