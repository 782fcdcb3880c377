#pragma once
// What the runtime tests' hand-built programs share: float32 specs, integer sizes, transposed
// weight views, and parameters placed as graph inputs with their state.

#include <map>
#include <string>
#include <vector>

#include "xport/runtime.h"

namespace xport::test_support {

/// Builds a graph with its signature and state; parameters come first, as the capture layer
/// places them.
struct GraphBuilder {
  ir::Graph graph;
  GraphSignature signature;
  std::map<std::string, Tensor> state;

  static sym::ExprPtr n(int64_t v) { return sym::integer(v); }
  static ir::TensorSpec spec(std::vector<sym::ExprPtr> sizes) {
    return ir::TensorSpec::contiguous(DType::Float32, std::move(sizes));
  }
  /// transpose(w, 0, 1) of a contiguous [cols, rows] weight.
  static ir::TensorSpec transposed(int64_t rows, int64_t cols) {
    return ir::TensorSpec{DType::Float32, {n(rows), n(cols)}, {n(1), n(rows)}, nullptr};
  }

  /// A parameter at `target` (`fc1.weight`, placeholder `p_fc1_weight`) holding `value` (of
  /// any dtype: PT2E's weights are int8).
  ir::ValueRef parameter(const std::string& target, const Tensor& value) {
    std::string name = "p_" + target;
    for (char& c : name) c = c == '.' ? '_' : c;
    std::vector<sym::ExprPtr> sizes;
    for (int64_t s : value.int_sizes()) sizes.push_back(n(s));
    const ir::Node* p =
        graph.add_placeholder(name, ir::TensorSpec::contiguous(value.dtype(), sizes));
    signature.inputs.push_back({InputSpec::Kind::Parameter, name, target});
    state[target] = value;
    return p->out();
  }
  /// A user input with its contract.
  ir::ValueRef user_input(const std::string& name, std::vector<sym::ExprPtr> sizes,
                          std::vector<InputContract>& contract) {
    const ir::Node* p = graph.add_placeholder(name, spec(sizes));
    signature.inputs.push_back({InputSpec::Kind::UserInput, name, ""});
    InputContract c;
    c.name = name;
    c.sizes = std::move(sizes);
    contract.push_back(std::move(c));
    return p->out();
  }
  /// Sets the graph's results, each named after the node that makes it.
  void outputs(const std::vector<ir::ValueRef>& results) {
    std::vector<ir::Argument> args;
    for (const ir::ValueRef& r : results) {
      args.emplace_back(r);
      signature.outputs.push_back({OutputSpec::Kind::UserOutput, r.node->name(), ""});
    }
    graph.set_output(std::move(args));
  }
};

}  // namespace xport::test_support
