// export_program: lift parameters and buffers, make fake inputs with symbolic sizes, trace the
// function once, check the guards against the spec, and package the ExportedProgram.
#include "xport/capture/export.h"

#include <set>

#include "capture/call_site.h"
#include "capture/dynamic_spec.h"
#include "capture/expr_node.h"
#include "capture/tracer.h"
#include "tensor/user_location.h"

namespace xport {
namespace {

using capture::TensorInput;

std::vector<std::string> input_names(const ExportOptions& options, size_t count) {
  if (!options.input_names.empty()) {
    XPORT_CHECK(options.input_names.size() == count, InvalidSpec, "export_program: ", count,
                " inputs but ", options.input_names.size(), " input_names");
    return options.input_names;
  }
  if (count == 1) return {"x"};
  std::vector<std::string> names;
  for (size_t i = 0; i < count; ++i) names.push_back("x" + std::to_string(i));
  return names;
}

// Fake sizes and contiguous strides over the symbolic sizes.
TensorMeta symbolic_meta(capture::ShapeEnv& env, const Tensor& example,
                         const std::vector<sym::ExprPtr>& sizes) {
  TensorMeta meta;
  meta.dtype = example.dtype();
  for (sym::ExprPtr s : sizes) meta.sizes.push_back(env.make_int(s));
  meta.strides = contiguous_strides(meta.sizes);
  meta.storage_offset = 0;
  return meta;
}

ExportedProgram export_impl(nn::Module* module, const TracedFn& fn,
                            std::vector<Value> example_inputs, const ExportOptions& options,
                            GraphSignature::Returns returns) {
  // Errors raised below the capture layer (reading a fake tensor's data) name the user's line.
  detail::set_user_location_fn([] { return capture::user_source(capture::capture_call_site()); });
  const std::vector<std::string> names = input_names(options, example_inputs.size());
  auto env = capture::ShapeEnv::create();
  ir::Graph graph;
  capture::Tracer tracer(graph, env);
  std::map<std::string, InputSpec> specs;  // by placeholder name
  std::map<std::string, Tensor> state;

  // Parameters and buffers become inputs named by their paths.
  if (module != nullptr) {
    std::set<std::string> persistent;
    for (const auto& [name, t] : module->state_dict()) persistent.insert(name);
    auto lift = [&](const nn::NamedTensors& tensors, const std::string& prefix,
                    InputSpec::Kind kind) {
      for (const auto& [path, t] : tensors) {
        ir::NodeMeta meta;
        ir::Node* node =
            graph.add_placeholder(capture::lifted_input_name(prefix, path), tracer.spec_of(t.meta()), meta);
        tracer.lift(t, node->out());
        specs[node->name()] = {kind, node->name(), path, persistent.count(path) > 0};
        state[path] = t;
      }
    };
    lift(module->named_parameters(), "p_", InputSpec::Kind::Parameter);
    lift(module->named_buffers(), "b_", InputSpec::Kind::Buffer);
  }

  // User inputs: check the spec, make symbols, and build fake tensors.
  XPORT_CHECK(
      options.dynamic_shapes.empty() || options.dynamic_shapes.size() == example_inputs.size(),
      InvalidSpec, "export_program: dynamic_shapes has ", options.dynamic_shapes.size(),
      " entries for ", example_inputs.size(),
      " inputs; give one DimSpec per input (an empty {} for an input with no dynamic "
      "dim)");
  std::vector<TensorInput> tensor_inputs;
  std::vector<InputContract> contract;
  auto spec_at = [&](size_t input) {
    return options.dynamic_shapes.empty() ? DimSpec{} : options.dynamic_shapes[input];
  };
  for (size_t i = 0; i < example_inputs.size(); ++i) {
    const Value& v = example_inputs[i];
    InputContract c;
    c.name = names[i];
    if (v.is_tensor()) {
      c.kind = InputContract::Kind::Tensor;
      tensor_inputs.push_back({names[i], i, v.to_tensor(), spec_at(i)});
    } else if (v.is_list()) {
      c.kind = InputContract::Kind::TensorList;
      XPORT_CHECK(spec_at(i).empty(), InvalidSpec, "export_program: input ", names[i],
                  " is a list of tensors; dynamic dims of list elements are not supported yet");
      for (size_t e = 0; e < v.to_tensor_list().size(); ++e) {
        tensor_inputs.push_back({names[i] + "_" + std::to_string(e), i, v.to_tensor_list()[e], {}});
      }
    } else if (v.is_bool()) {
      c.kind = InputContract::Kind::Bool;
      c.int_value = v.to_bool();
    } else if (v.is_int()) {
      c.kind = InputContract::Kind::Int;
      c.int_value = v.to_int();
    } else if (v.is_double()) {
      c.kind = InputContract::Kind::Float;
      c.float_value = v.to_double();
    } else {
      XPORT_FAIL(InvalidSpec, "export_program: input ", names[i], " is a ", v.type_name(),
                 "; inputs may be tensors, lists of tensors, ints, floats and bools");
    }
    XPORT_CHECK(v.is_tensor() || spec_at(i).empty(), InvalidSpec, "export_program: input ",
                names[i], " is not a tensor, so it cannot have dynamic dims");
    contract.push_back(std::move(c));
  }
  std::vector<capture::DimSymbol> roots;
  const auto sizes = capture::make_symbolic_sizes(*env, tensor_inputs, roots);

  std::vector<Value> fake_inputs = example_inputs;
  for (size_t t = 0; t < tensor_inputs.size(); ++t) {
    const TensorInput& in = tensor_inputs[t];
    XPORT_CHECK(!in.example.is_fake(), InvalidSpec, "export_program: input ", in.name,
                " is a fake tensor; pass a real example");
    const TensorMeta meta = symbolic_meta(*env, in.example, sizes[t]);
    ir::Node* node = graph.add_placeholder(in.name, tracer.spec_of(meta), {});
    specs[node->name()] = {InputSpec::Kind::UserInput, node->name(), "", true};
    const Tensor fake = tracer.make_fake(meta, node->out());
    InputContract& c = contract[in.input_index];
    if (c.kind == InputContract::Kind::Tensor) {
      c.dtype = in.example.dtype();
      c.sizes = sizes[t];
      fake_inputs[in.input_index] = fake;
    } else {
      InputContract e;
      e.name = in.name;
      e.dtype = in.example.dtype();
      e.sizes = sizes[t];
      c.elements.push_back(std::move(e));
      std::vector<Tensor> list = fake_inputs[in.input_index].to_tensor_list();
      list[c.elements.size() - 1] = fake;
      fake_inputs[in.input_index] = list;
    }
  }

  // Trace.
  std::vector<Tensor> outputs;
  {
    InterceptorGuard guard(&tracer);
    outputs = fn(fake_inputs);
  }
  std::vector<ir::Argument> results;
  GraphSignature signature;
  signature.returns = returns;
  for (const ir::Node* p : graph.placeholders()) {
    // Inputs updated in place: their new values come first, in input order, as in PyTorch.
    for (const capture::InputMutation& m : tracer.mutations()) {
      if (m.placeholder != p) continue;
      const auto spec = specs.find(p->name());
      const std::string at = m.source.empty() ? "" : " (" + m.source + ")";
      XPORT_CHECK(spec != specs.end(), UnsupportedOp, "export_program: a tensor from the "
                  "enclosing scope is updated in place", at, "; the exported program cannot "
                  "update it: make it a buffer of the module (register_buffer) or an input");
      XPORT_CHECK(spec->second.kind != InputSpec::Kind::Parameter, UnsupportedOp,
                  "export_program: parameter ", spec->second.target, " is updated in place", at,
                  "; export captures inference: register state the model updates as a buffer "
                  "(register_buffer), not a parameter");
      const ir::ValueRef ref = tracer.value_of(m.tensor);
      results.emplace_back(ref);
      const bool buffer = spec->second.kind == InputSpec::Kind::Buffer;
      signature.outputs.push_back(
          {buffer ? OutputSpec::Kind::BufferMutation : OutputSpec::Kind::UserInputMutation,
           ref.node->name(), buffer ? spec->second.target : spec->second.name});
    }
  }
  for (const Tensor& out : outputs) {
    XPORT_CHECK(out.defined(), InvalidSpec,
                "export_program: the function returned an "
                "undefined tensor");
    const ir::ValueRef ref = tracer.value_of(out);
    results.emplace_back(ref);
    signature.outputs.push_back({OutputSpec::Kind::UserOutput, ref.node->name(), ""});
  }
  graph.set_output(std::move(results));
  capture::check_guards(*env, tensor_inputs, roots);

  for (const auto& [name, t] : tracer.constants()) {
    specs[name] = {InputSpec::Kind::Constant, name, name, true};
    state[name] = t;
  }
  for (const ir::Node* p : graph.placeholders()) signature.inputs.push_back(specs.at(p->name()));

  // Sizes in the contract and the graph use the final replacements (a symbol that a guard
  // equated with another is gone).
  for (InputContract& c : contract) {
    for (sym::ExprPtr& s : c.sizes) s = env->simplify(s);
    for (InputContract& e : c.elements) {
      for (sym::ExprPtr& s : e.sizes) s = env->simplify(s);
    }
  }
  std::vector<SymbolSpec> symbols;
  for (const capture::SymbolInfo& s : env->symbols()) {
    if (env->replacements().count(s.symbol)) continue;
    symbols.push_back({s.symbol->name(), s.source, s.dim_name, s.range, s.unbacked});
  }
  graph.eliminate_dead_code();
  return ExportedProgram(std::move(graph), std::move(signature), std::move(contract),
                         std::move(symbols), std::move(state));
}

}  // namespace

namespace detail {
Tensor scalar_output(const SymInt& v) {
  return call_op("aten::scalar_tensor", {v, DType::Int64}).to_tensor();
}

ExportedProgram export_adapted(nn::Module* module, const TracedFn& fn,
                               std::vector<Value> example_inputs, ExportOptions options,
                               GraphSignature::Returns returns) {
  return export_impl(module, fn, std::move(example_inputs), options, returns);
}
}  // namespace detail

ExportedProgram export_program(nn::Module& module, const TracedFn& fn,
                               std::vector<Value> example_inputs, ExportOptions options) {
  return export_impl(&module, fn, std::move(example_inputs), options,
                     GraphSignature::Returns::Sequence);
}

ExportedProgram export_program(const TracedFn& fn, std::vector<Value> example_inputs,
                               ExportOptions options) {
  return export_impl(nullptr, fn, std::move(example_inputs), options,
                     GraphSignature::Returns::Sequence);
}

}  // namespace xport
