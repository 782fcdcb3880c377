// Re-tracing an exported program's graph over the same symbols, the ops of a decomposition
// table replaced by what they decompose into. Subgraphs are re-traced the same way, each into a
// new subgraph of the node that owns it. run_decompositions is this alone; train::grad and
// export_training_step replace the user outputs with more traced ops (ReplacedResults).
#include "capture/replay.h"

#include <algorithm>
#include <functional>

#include "capture/expr_node.h"
#include "capture/float_node.h"
#include "ir/ir_util.h"

namespace xport::capture {

Value replayed_argument(const ir::Argument& arg, const ArgType& type,
                        const std::function<Tensor(const ir::ValueRef&)>& tensor_of,
                        ShapeEnv& env) {
  return std::visit(
      [&](const auto& v) -> Value {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return Value();
        } else if constexpr (std::is_same_v<T, ir::ValueRef>) {
          // A number the graph computes (item_float()'s value) stays a symbolic float.
          if (type.base == BaseType::Scalar || type.base == BaseType::Float)
            return SymFloat(std::make_shared<FloatNode>(tensor_of(v)));
          return tensor_of(v);
        } else if constexpr (std::is_same_v<T, sym::ExprPtr>) {
          return env.make_int(v);
        } else if constexpr (std::is_same_v<T, std::vector<ir::Argument>>) {
          if (type.base == BaseType::Tensor) {
            std::vector<Tensor> list;
            for (const ir::Argument& a : v) {
              list.push_back(a.is_none() ? Tensor() : tensor_of(std::get<ir::ValueRef>(a.value)));
            }
            return list;
          }
          if (type.base == BaseType::Float) {
            std::vector<double> list;
            for (const ir::Argument& a : v) list.push_back(std::get<double>(a.value));
            return list;
          }
          if (type.base == BaseType::Bool) {  // `bool[3] output_mask`
            std::vector<bool> list;
            for (const ir::Argument& a : v) list.push_back(std::get<bool>(a.value));
            return list;
          }
          std::vector<SymInt> list;
          for (const ir::Argument& a : v) {
            list.push_back(env.make_int(std::get<sym::ExprPtr>(a.value)));
          }
          return list;
        } else if constexpr (std::is_same_v<T, ir::SubgraphRef>) {
          XPORT_FAIL(Internal, "re-tracing: subgraph ", v.name, " as an op's value");
        } else {
          return v;
        }
      },
      arg.value);
}

namespace {

using Values = std::unordered_map<const ir::Node*, std::vector<Tensor>>;

Tensor tensor_of(const ir::ValueRef& ref, const Values& values) {
  return values.at(ref.node).at(static_cast<size_t>(ref.index));
}

Value value_of(const ir::Argument& arg, const ArgType& type, const Values& values,
               ShapeEnv& env) {
  return replayed_argument(
      arg, type, [&](const ir::ValueRef& ref) { return tensor_of(ref, values); }, env);
}

// The results of a replayed graph's output node, from its values.
using Finish = std::function<std::vector<ir::Argument>(const Values&, const ir::Node& output)>;

// Re-traces `src` into the graph `tracer` builds (placeholders first, as in `src`); `finish`,
// when given, makes the output's results (else they are `src`'s own, mapped).
void replay(const ir::Graph& src, ir::Graph& dst, Tracer& tracer,
            const DecompositionTable& table, const Finish& finish = nullptr);

// A node copied rather than re-traced (a higher-order op, or one that binds unbacked symbols,
// which re-tracing would rename): each subgraph re-traced into a new one, the other arguments
// mapped to the new graph's values, the bindings kept.
std::vector<Tensor> replay_as_is(const ir::Node& node, ir::Graph& dst, Tracer& tracer,
                                 const DecompositionTable& table, const Values& values) {
  std::vector<ir::Argument> args;
  for (const ir::Argument& a : node.args()) {
    ir::Argument copy = a;
    if (auto* g = std::get_if<ir::SubgraphRef>(&copy.value)) {
      auto graph = std::make_shared<ir::Graph>();
      Tracer child(*graph, tracer.env(), &tracer);
      replay(*g->graph, *graph, child, table);
      XPORT_CHECK(child.closures().empty(), Internal, "re-tracing: subgraph ", g->name,
                  " refers to a value outside it");
      g->graph = std::move(graph);
    }
    ir::detail::for_each_ref(copy,
                             [&](ir::ValueRef& r) { r = tracer.value_of(tensor_of(r, values)); });
    args.push_back(std::move(copy));
  }
  std::vector<Tensor> outs = tracer.add_node(*node.op(), std::move(args), node.outputs());
  if (!node.unbacked_bindings().empty()) {
    dst.set_unbacked_bindings(dst.nodes().back().get(), node.unbacked_bindings());
  }
  return outs;
}

void replay(const ir::Graph& src, ir::Graph& dst, Tracer& tracer,
            const DecompositionTable& table, const Finish& finish) {
  tracer.set_decompositions(&table);
  Values values;
  for (const auto& node : src.nodes()) {
    switch (node->kind()) {
      case ir::NodeKind::Placeholder: {
        ir::Node* p = dst.add_placeholder(node->name(), node->outputs()[0], node->meta());
        values[node.get()] = {tracer.make_fake(tracer.meta_of(node->outputs()[0]), p->out())};
        break;
      }
      case ir::NodeKind::Call: {
        const OpDef& op = *node->op();
        tracer.set_inherited_meta(&node->meta());
        if (op.higher_order || !node->unbacked_bindings().empty()) {
          values[node.get()] = replay_as_is(*node, dst, tracer, table, values);
        } else {
          // A runtime assertion's condition holds after it: later decisions may rely on it.
          if (has_tag(op, Tag::RuntimeAssert)) {
            if (const auto* e = std::get_if<sym::ExprPtr>(&node->args()[0].value)) {
              tracer.env()->add_fact(*e);
            }
          }
          std::vector<Value> args;
          for (size_t i = 0; i < node->args().size(); ++i) {
            args.push_back(
                value_of(node->args()[i], op.parsed.arguments[i].type, values, *tracer.env()));
          }
          InterceptorGuard guard(&tracer);
          values[node.get()] = call_tensors(op, std::move(args));
        }
        tracer.set_inherited_meta(nullptr);
        break;
      }
      case ir::NodeKind::Output: {
        std::vector<ir::Argument> results;
        if (finish) {
          results = finish(values, *node);
        } else {
          for (const ir::Argument& a : node->args()) {
            results.emplace_back(
                tracer.value_of(tensor_of(std::get<ir::ValueRef>(a.value), values)));
          }
        }
        dst.set_output(std::move(results));
        break;
      }
    }
  }
}

}  // namespace

Tensor ReplayEdit::input(size_t index) {
  const ir::Node* p = graph.placeholders().at(index);
  return tracer.make_fake(tracer.meta_of(p->outputs()[0]), p->out());
}

Tensor ReplayEdit::add_buffer(const std::string& target, const Tensor& initial) {
  size_t index = 0;
  while (index < signature.inputs.size() &&
         signature.inputs[index].kind != InputSpec::Kind::UserInput) {
    ++index;
  }
  const std::string name = lifted_input_name("b_", target);
  std::vector<sym::ExprPtr> sizes;
  for (int64_t n : initial.int_sizes()) sizes.push_back(sym::integer(n));
  const ir::Node* p =
      graph.insert_placeholder(index, name, ir::TensorSpec::contiguous(initial.dtype(), sizes));
  signature.inputs.insert(signature.inputs.begin() + static_cast<std::ptrdiff_t>(index),
                          {InputSpec::Kind::Buffer, name, target, true});
  state[target] = initial;
  return tracer.make_fake(tracer.meta_of(p->outputs()[0]), p->out());
}

ExportedProgram replay_program(const ExportedProgram& program, const DecompositionTable& table,
                               const std::string& what, const ReplacedResults& replaced) {
  auto env = ShapeEnv::create();
  for (const SymbolSpec& s : program.symbols()) {
    // Any value in range will do as the hint: a step that guards is a bug, reported below,
    // since the program must stay valid for the whole range.
    if (s.unbacked) {
      env->create_unbacked(s.range, s.source, s.name);
    } else {
      env->create_symbol(s.range.lo, s.range, s.source, s.dim_name, s.name);
    }
  }
  ir::Graph graph;
  Tracer tracer(graph, env);
  const GraphSignature& old_sig = program.signature();
  GraphSignature sig = old_sig;
  sig.outputs.clear();
  std::map<std::string, Tensor> state = program.state();
  if (replaced) sig.returns = GraphSignature::Returns::Sequence;  // unless `replaced` says
  const auto finish = [&](const Values& values, const ir::Node& output) {
    // A graph that updates inputs in place (PyTorch's training IR: `add_` on a buffer) becomes
    // functional here: each input's new value becomes an output, first and in input order, as
    // export gives them.
    std::vector<ir::Argument> results;
    const std::vector<const ir::Node*> placeholders = graph.placeholders();
    for (size_t i = 0; i < placeholders.size(); ++i) {
      for (const InputMutation& m : tracer.mutations()) {
        if (m.placeholder != placeholders[i]) continue;
        const InputSpec& in = old_sig.inputs.at(i);
        XPORT_CHECK(in.kind == InputSpec::Kind::Buffer || in.kind == InputSpec::Kind::UserInput,
                    UnsupportedOp, what, ": ", in.target, " (", in.name,
                    ") is updated in place; only buffers and user inputs may be");
        const bool buffer = in.kind == InputSpec::Kind::Buffer;
        results.emplace_back(tracer.value_of(m.tensor));
        sig.outputs.push_back(
            {buffer ? OutputSpec::Kind::BufferMutation : OutputSpec::Kind::UserInputMutation, "",
             buffer ? in.target : in.name});
      }
    }
    std::vector<Tensor> user_outputs;
    for (size_t i = 0; i < output.args().size(); ++i) {
      const Tensor t = tensor_of(std::get<ir::ValueRef>(output.args()[i].value), values);
      if (replaced && old_sig.outputs.at(i).kind == OutputSpec::Kind::UserOutput) {
        user_outputs.push_back(t);
        continue;
      }
      results.emplace_back(tracer.value_of(t));
      sig.outputs.push_back(old_sig.outputs.at(i));
    }
    if (replaced) {
      ReplayEdit edit{tracer, graph, sig, state};
      for (const ReplayedResult& r : replaced(edit, user_outputs)) {
        results.emplace_back(tracer.value_of(r.value));
        sig.outputs.push_back(r.spec);
      }
    }
    return results;
  };
  replay(program.graph(), graph, tracer, table, finish);
  XPORT_CHECK(env->guards().empty(), Internal, what, ": a step took a decision about shapes (",
              env->describe(env->guards().front().expr),
              ") that the exported program does not; each step must hold for every size");
  XPORT_CHECK(tracer.constants().empty(), Internal, what, ": a step captured a real tensor (",
              tracer.constants().front().first, ")");
  graph.eliminate_dead_code();
  for (size_t i = 0; i < sig.outputs.size(); ++i) {
    sig.outputs[i].name = std::get<ir::ValueRef>(graph.output()->args()[i].value).node->name();
  }
  return ExportedProgram(std::move(graph), std::move(sig), program.contract(), program.symbols(),
                         std::move(state));
}

}  // namespace xport::capture
