// Higher-order ops: cond -> If, map -> Scan, while_loop -> Loop. Their xport subgraphs become
// ONNX bodies that read the enclosing graph's values by name.
#include "onnx/lowering.h"

namespace xport::onnx {
namespace {

const ir::Graph& subgraph(NodeLowering& n, const char* name) {
  return *std::get<ir::SubgraphRef>(n.node().arg(name).value).graph;
}

// A one-element tensor as the bool scalar If and Loop take.
std::string as_condition(GraphBuilder& g, const std::string& v, DType dtype) {
  return g.add("Reshape", {g.cast(v, dtype, DType::Bool), g.ints({})}, {}, "cond");
}

void cond(NodeLowering& n) {
  GraphBuilder& g = n.g;
  const ir::Argument& pred = n.node().arg("pred");
  std::string condition;
  if (const auto* ref = std::get_if<ir::ValueRef>(&pred.value)) {
    const DType dtype = ref->node->outputs()[static_cast<size_t>(ref->index)].dtype;
    condition = as_condition(g, g.value(*ref), dtype);
  } else if (const auto* e = std::get_if<sym::ExprPtr>(&pred.value)) {
    condition = as_condition(g, g.sym_bool(*e), DType::Bool);
  } else {
    condition = as_condition(g, g.constant(DType::Bool, {n.flag("pred") ? 1.0 : 0.0}, {}),
                             DType::Bool);
  }
  const std::vector<std::string> operands = n.tensors("operands");
  n.emit("If", {condition},
         {attr("then_branch", lower_body(subgraph(n, "true_fn"), g, operands, {}, "then")),
          attr("else_branch", lower_body(subgraph(n, "false_fn"), g, operands, {}, "else"))});
}

// map: the body runs on each leading-dim slice of xs (Scan's scan inputs); the other inputs are
// read from the enclosing graph.
void map(NodeLowering& n) {
  GraphBuilder& g = n.g;
  const std::vector<std::string> xs = n.tensors("xs"), pos_args = n.tensors("pos_args");
  const std::vector<const ir::TensorSpec*> xs_specs = n.specs("xs");
  std::vector<std::string> body_names;
  std::vector<std::pair<std::string, const ir::TensorSpec*>> body_inputs;
  for (size_t i = 0; i < xs.size(); ++i) {
    body_names.push_back(g.model().fresh(n.node().name() + "_slice"));
    body_inputs.emplace_back(body_names.back(), xs_specs[i]);
  }
  std::vector<std::string> inputs = body_names;
  inputs.insert(inputs.end(), pos_args.begin(), pos_args.end());
  ::onnx::GraphProto body = lower_body(subgraph(n, "f"), g, inputs, body_inputs, "map_body");
  n.emit("Scan", xs,
         {attr("body", std::move(body)), attr("num_scan_inputs", static_cast<int64_t>(xs.size()))});
}

// while_loop: Loop carries the values; its body runs body_fn, then cond_fn on the new values
// for the next iteration's condition. The first condition is cond_fn on the initial values.
void while_loop(NodeLowering& n) {
  GraphBuilder& g = n.g;
  const ir::Graph& cond_fn = subgraph(n, "cond_fn");
  const ir::Graph& body_fn = subgraph(n, "body_fn");
  const std::vector<std::string> carried = n.tensors("carried_inputs"),
                                 extra = n.tensors("additional_inputs");
  const std::vector<const ir::TensorSpec*> carried_specs = n.specs("carried_inputs");

  auto run_cond = [&](GraphBuilder& into, const std::vector<std::string>& values) {
    std::vector<std::string> inputs = values;
    inputs.insert(inputs.end(), extra.begin(), extra.end());
    const std::vector<const ir::Node*> placeholders = cond_fn.placeholders();
    for (size_t i = 0; i < inputs.size(); ++i) into.bind(placeholders[i]->out(), inputs[i]);
    const std::string result = lower_calls(cond_fn, into).at(0);
    const auto& ref = std::get<ir::ValueRef>(cond_fn.output()->args()[0].value);
    return as_condition(into, result, ref.node->outputs()[static_cast<size_t>(ref.index)].dtype);
  };
  const std::string first = run_cond(g, carried);

  ::onnx::GraphProto body;
  body.set_name(g.model().fresh("loop_body"));
  GraphBuilder b(&body, g.model(), &g);
  ir::TensorSpec iter = ir::TensorSpec::contiguous(DType::Int64, {});
  ir::TensorSpec flag = ir::TensorSpec::contiguous(DType::Bool, {});
  *body.add_input() = value_info(g.model().fresh("iteration"), iter, ShapeDetail::kFull);
  *body.add_input() = value_info(g.model().fresh("condition_in"), flag, ShapeDetail::kFull);
  std::vector<std::string> values;
  for (size_t i = 0; i < carried.size(); ++i) {
    values.push_back(g.model().fresh(n.node().name() + "_carried"));
    *body.add_input() = value_info(values.back(), *carried_specs[i], ShapeDetail::kNone);
  }
  std::vector<std::string> inputs = values;
  inputs.insert(inputs.end(), extra.begin(), extra.end());
  const std::vector<const ir::Node*> placeholders = body_fn.placeholders();
  for (size_t i = 0; i < inputs.size(); ++i) b.bind(placeholders[i]->out(), inputs[i]);
  const std::vector<std::string> next = lower_calls(body_fn, b);
  const std::string again = b.add("Identity", {run_cond(b, next)}, {}, "condition_out");
  *body.add_output() = value_info(again, flag, ShapeDetail::kFull);
  for (size_t i = 0; i < next.size(); ++i) {
    const std::string out = b.add("Identity", {next[i]}, {}, n.node().name() + "_next");
    *body.add_output() = value_info(out, *carried_specs[i], ShapeDetail::kRank);
  }
  std::vector<std::string> loop_inputs{"", first};
  loop_inputs.insert(loop_inputs.end(), carried.begin(), carried.end());
  n.emit("Loop", std::move(loop_inputs), {attr("body", std::move(body))});
}

}  // namespace

LoweringList control_flow_lowerings() {
  return {
      {"higher_order::cond", cond},
      {"higher_order::map_impl", map},
      {"higher_order::while_loop", while_loop},
  };
}

}  // namespace xport::onnx
