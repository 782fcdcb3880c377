#include "aot/codegen.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>

#include "ir/argument_value.h"
#include "ir/ir_util.h"
#include "ir/passes/constant_graph.h"
#include "program/write_back.h"
#include "runtime/compiled_graph.h"
#include "runtime/execution_plan.h"
#include "runtime/prepared_graph.h"
#include "runtime/run_inputs.h"

namespace xport::aot {
namespace {

using runtime::PackedCall;
using runtime::Placement;
using runtime::PlannedStep;
using runtime::StepKind;

constexpr int64_t kAlign = 64;  // each embedded constant starts on a cache line

const char* enumerator(DType d) {  // xport::DType::NAME
  static const char* const kNames[] = {"Bool",     "UInt8",   "Int8",      "Int16",
                                       "Int32",    "Int64",   "Float16",   "BFloat16",
                                       "Float32",  "Float64", "Complex64", "Complex128"};
  return kNames[static_cast<size_t>(d)];
}

std::string int_literal(int64_t v) {
  if (v == INT64_MIN) return "(-INT64_C(9223372036854775807) - 1)";
  return "INT64_C(" + std::to_string(v) + ")";
}

std::string double_literal(double v) {
  if (std::isnan(v)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v)) {
    return v > 0 ? "std::numeric_limits<double>::infinity()"
                 : "-std::numeric_limits<double>::infinity()";
  }
  std::ostringstream out;
  out << std::hexfloat << v;  // exact
  return out.str();
}

std::string string_literal(const std::string& s) {
  std::ostringstream out;
  out << '"';
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out << '\\' << c;
    } else if (c >= 0x20 && c < 0x7f) {
      out << c;
    } else {
      out << '\\' << static_cast<char>('0' + (c >> 6)) << static_cast<char>('0' + ((c >> 3) & 7))
          << static_cast<char>('0' + (c & 7));
    }
  }
  out << '"';
  return out.str();
}

std::string to_string_int(int64_t v) { return std::to_string(v); }
std::string identity(const std::string& s) { return s; }

template <class T, class F>
std::string list_literal(const std::vector<T>& values, F&& element) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + element(values[i]);
  return out + "}";
}

// `{}` is no array: an empty table gets one unused entry.
template <class T, class F>
std::string table_literal(const std::vector<T>& values, F&& element) {
  return values.empty() ? "{0}" : list_literal(values, element);
}

std::string scalar_literal(const Scalar& s) {
  if (s.is_bool()) return std::string("xport::Scalar(") + (s.to_bool() ? "true" : "false") + ")";
  if (s.is_int()) return "xport::Scalar(" + int_literal(s.to_int()) + ")";
  return "xport::Scalar(" + double_literal(s.to_double()) + ")";
}

// The C++ parameter type without `const` and `&`.
std::string bare_type(std::string type) {
  if (type.rfind("const ", 0) == 0) type = type.substr(6);
  if (!type.empty() && type.back() == '&') type.pop_back();
  return type;
}

std::string unwrap_optional(const std::string& type) {
  const std::string prefix = "std::optional<";
  if (type.rfind(prefix, 0) != 0) return type;
  return type.substr(prefix.size(), type.size() - prefix.size() - 1);
}

enum class Home {
  UserInput,  // a user input placeholder: per run
  Weight,     // a weight, buffer or constant placeholder, or a view of one: made at load
  Frame,      // in the pooled arena, or a view of it: made once per frame
  Run,        // a fresh output, or a view of one: made per run
  None,       // an undefined tensor
};

class Generator {
 public:
  Generator(const ExportedProgram& program, bool fuse) : program_(program) {
    for (const InputSpec& spec : program.signature().inputs) {
      names_.push_back(spec.kind == InputSpec::Kind::UserInput ? spec.name : spec.target);
    }
    runtime::ProgramPlaceholders placeholders = runtime::program_placeholders(program);
    program_placeholders_ = placeholders.tensors.size();
    prepared_ = runtime::prepare_graph(program.graph(), std::move(placeholders.tensors),
                                       std::move(placeholders.is_user_input),
                                       buffer_updates(program.signature()), fuse);
    graph_ = runtime::compile_graph(prepared_.graph, &prepared_.kernels);
  }

  GeneratedModel run() {
    refuse_what_needs_run_time_sizes();
    make_plan();
    home_.assign(static_cast<size_t>(graph_.num_slots), Home::None);
    expr_.assign(static_cast<size_t>(graph_.num_slots), "");
    bind_placeholders();
    for (size_t i = 0; i < plan_->steps.size(); ++i) emit_step(plan_->steps[i]);
    emit_outputs();
    GeneratedModel out;
    out.source = assemble();
    out.constants = std::move(constants_);
    out.kernel_calls = kernel_calls_;
    out.packed_calls = packed_calls_;
    out.chains = chains_;
    out.views = run_views_;
    out.arena_bytes = plan_->stats.arena_bytes;
    return out;
  }

 private:
  // ---- what this generator does not do yet, refused before anything is compiled ----------------

  void refuse_what_needs_run_time_sizes() {
    XPORT_CHECK(graph_.unplannable.empty(), UnsupportedOp, "aot::compile: ",
                graph_.unplannable, "; such programs run in the runtime (runtime::Program)");
    refuse_symbolic_sizes(program_);
  }

  void refuse(const ir::Node& node, const std::string& why) const {
    XPORT_FAIL(UnsupportedOp, "aot::compile: node ", ir::detail::node_label(node), ": ", why,
               "; run the archive in the runtime (runtime::Program) instead");
  }

  // ---- the plan, for the inputs' one shape ------------------------------------------------------

  void make_plan() {
    std::vector<Tensor> fakes = prepared_.placeholders;
    const std::vector<const ir::Node*> nodes = graph_.graph->placeholders();
    for (size_t p = 0; p < fakes.size(); ++p) {
      if (!prepared_.is_user_input[p]) continue;
      const ir::TensorSpec& spec = nodes.at(p)->outputs().at(0);
      TensorMeta meta;
      meta.dtype = spec.dtype;
      for (sym::ExprPtr size : spec.sizes) {
        meta.sizes.emplace_back(ir::passes::constant_int(size));
      }
      meta.strides = contiguous_strides(meta.sizes);
      fakes[p] = Tensor::make(nullptr, std::move(meta));
    }
    plan_ = runtime::make_plan(graph_, fakes, prepared_.is_user_input, {});
    for (size_t o : prepared_.in_place_outputs) plan_->copy_output.at(o) = false;
  }

  void bind_placeholders() {
    root_.assign(expr_.size(), -1);
    for (size_t p = 0; p < graph_.placeholder_slots.size(); ++p) {
      const auto s = static_cast<size_t>(graph_.placeholder_slots[p]);
      expr_[s] = "p[" + std::to_string(p) + "]";
      home_[s] = prepared_.is_user_input[p] ? Home::UserInput : Home::Weight;
      root_[s] = static_cast<int>(p);
      if (prepared_.is_user_input[p]) continue;
      const Tensor& t = prepared_.placeholders[p];
      if (p < program_placeholders_) {
        archive_ << "    {" << p << ", " << layout(t.meta()) << ", " << string_literal(names_[p])
                 << "},\n";
        ++archive_count_;
      } else {
        add_constant(t);
      }
    }
  }

  // A constant the load-time passes made: a view of an archive's tensor (a transposed weight)
  // is made again over it; a computed one (a batch norm folded into weights) is embedded.
  void add_constant(const Tensor& t) {
    ++constant_count_;
    for (size_t q = 0; q < program_placeholders_; ++q) {
      const Tensor& source = prepared_.placeholders[q];
      if (source.defined() && source.storage() == t.storage()) {
        constants_table_ << "    {" << q << ", " << layout(t.meta()) << ", 0, 0},  // a view of "
                         << names_[q] << "\n";
        return;
      }
    }
    const int64_t offset = static_cast<int64_t>(constants_.size());
    const int64_t bytes = storage_bytes(t.meta());
    const auto* data = static_cast<const unsigned char*>(t.storage()->data());
    constants_.insert(constants_.end(), data, data + bytes);
    constants_.resize((constants_.size() + kAlign - 1) / kAlign * kAlign, 0);
    constants_table_ << "    {-1, " << layout(t.meta()) << ", " << offset << ", " << bytes
                     << "},\n";
  }

  // ---- steps ------------------------------------------------------------------------------------

  void emit_step(const PlannedStep& planned) {
    const runtime::CompiledStep& step = *planned.step;
    const ir::Node& node = *step.node;
    if (planned.sized_at_run) refuse(node, "its sizes are known only when it runs");
    if (step.kind == StepKind::HigherOrder) {
      refuse(node, "control flow (subgraphs) is not generated yet");
    }
    if (step.binds) refuse(node, "it defines a data-dependent size");
    const auto first = static_cast<size_t>(step.first_slot);
    if (step.kind == StepKind::View) {
      for (size_t o = 0; o < planned.outputs.size(); ++o) {
        view(first + o, static_cast<size_t>(planned.alias_slot), planned.outputs[o]);
      }
      return;
    }
    for (size_t o = 0; o < planned.outputs.size(); ++o) {
      place(first + o, planned, o);
    }
    if (!planned.run_kernel) return;
    run_ << "  // " << ir::detail::node_label(node)
         << (node.meta().source.empty() ? "" : " at " + node.meta().source) << "\n";
    std::vector<std::string> outs;
    for (size_t o = 0; o < planned.outputs.size(); ++o) outs.push_back(expr_[first + o]);
    if (const auto it = prepared_.packed.find(&node); it != prepared_.packed.end()) {
      emit_packed(planned, it->second, outs);
      return;
    }
    const KernelSymbol& symbol = step.op->kernel.symbol;
    if (step.kernel != &step.op->kernel.fn || symbol.name.empty()) {
      refuse(node, "its kernel (" + step.op->qualified_name + ") has no named C++ function");
    }
    run_ << "  " << call(symbol, planned.args, hole_exprs(planned), outs) << ";\n";
    ++kernel_calls_;
  }

  // A view's tensor: made where its base lives (once at load, once per frame, or per run).
  void view(size_t slot, size_t base, const TensorMeta& layout_of) {
    const Home home = home_[base] == Home::UserInput ? Home::Run : home_[base];
    home_[slot] = home;
    const std::string storage = expr_[base] + ".storage()";
    const std::string made = "xport::aot::tensor_in(" + storage + ", " + meta(layout_of) + ")";
    switch (home) {
      case Home::Weight:
        root_[slot] = root_[base];
        expr_[slot] = "w_[" + std::to_string(weight_views_) + "]";
        weight_views_table_ << "    {" << root_[base] << ", " << layout(layout_of) << "},\n";
        ++weight_views_;
        break;
      case Home::Frame:
        expr_[slot] = frame_tensor(layout_of);
        break;
      default:
        expr_[slot] = "v" + std::to_string(slot);
        run_ << "  const xport::Tensor " << expr_[slot] << " = " << made << ";\n";
        ++run_views_;
    }
  }

  // A kernel's output `o`: in the frame's arena, fresh per run, the argument it updates, or none.
  void place(size_t slot, const PlannedStep& planned, size_t o) {
    const TensorMeta& layout = planned.outputs[o];
    switch (planned.placement[o]) {
      case Placement::Arena:
        home_[slot] = Home::Frame;
        expr_[slot] = frame_tensor(layout);
        break;
      case Placement::Heap:
        home_[slot] = Home::Run;
        expr_[slot] = "v" + std::to_string(slot);
        run_ << "  const xport::Tensor " << expr_[slot] << " = xport::aot::fresh_tensor("
             << meta(layout) << ");\n";
        break;
      case Placement::Alias:
        home_[slot] = home_[static_cast<size_t>(planned.alias_slot)];
        expr_[slot] = expr_[static_cast<size_t>(planned.alias_slot)];
        break;
      case Placement::None:
        home_[slot] = Home::None;
        expr_[slot] = "kNone";
        break;
      case Placement::Returned:
        refuse(*planned.step->node, "its kernel returns its results");
    }
  }

  // A tensor of the frame's arena (the layout's offset is where it lies in the arena).
  std::string frame_tensor(const TensorMeta& m) {
    frame_layouts_.push_back(std::to_string(layout(m)));
    return "f.t[" + std::to_string(frame_layouts_.size() - 1) + "]";
  }

  // Each tensor argument's expression, by argument index (list arguments: "{a, b}").
  std::map<size_t, std::string> hole_exprs(const PlannedStep& planned) const {
    std::map<size_t, std::string> out;
    for (const runtime::TensorHole& hole : planned.holes) {
      if (!hole.list) {
        const std::string& e = expr_[static_cast<size_t>(hole.slot)];
        out[hole.arg] = hole.number ? "xport::aot::scalar_of(" + e + ")" : e;
        continue;
      }
      std::string list = "{";
      for (size_t i = 0; i < hole.list_slots.size(); ++i) {
        const int s = hole.list_slots[i];
        list += (i ? ", " : "") + (s < 0 ? std::string("kNone") : expr_[static_cast<size_t>(s)]);
      }
      out[hole.arg] = list + "}";
    }
    return out;
  }

  // `name(arguments..., outputs...)` for a typed kernel; literals of vectors and strings become
  // constants of the translation unit.
  std::string call(const KernelSymbol& symbol, const std::vector<Value>& args,
                   const std::map<size_t, std::string>& tensors,
                   const std::vector<std::string>& outs) {
    std::string out = symbol.name + "(";
    for (size_t i = 0; i < symbol.parameters.size(); ++i) {
      if (i) out += ", ";
      if (i >= args.size()) {
        out += outs.at(i - args.size());
        continue;
      }
      out += argument(bare_type(symbol.parameters[i]), args[i], tensors, i);
    }
    return out + ")";
  }

  std::string argument(const std::string& type, const Value& v,
                       const std::map<size_t, std::string>& tensors, size_t index) {
    const std::string inner = unwrap_optional(type);
    if (inner.find("xport::Tensor") != std::string::npos) {
      if (const auto it = tensors.find(index); it != tensors.end()) {
        if (inner == "std::vector<std::optional<xport::Tensor>>") {
          return "xport::aot::optional_tensors(" + it->second + ")";
        }
        if (inner.rfind("std::vector", 0) == 0) return "std::vector<xport::Tensor>" + it->second;
        return it->second;
      }
      XPORT_CHECK(v.is_none(), Internal, "aot: a tensor argument that is not a graph value");
      return inner == type ? "kNone" : "std::nullopt";
    }
    if (const auto it = tensors.find(index); it != tensors.end()) {  // a computed number
      if (inner == "double") return it->second + ".to_double()";
      return it->second;
    }
    if (v.is_none()) return "std::nullopt";
    if (inner == "xport::Scalar") return scalar_literal(v.to_scalar());
    if (inner == "int64_t") return int_literal(v.to_int());
    if (inner == "double") return double_literal(v.to_double());
    if (inner == "bool") return v.to_bool() ? "true" : "false";
    if (inner == "xport::DType") return std::string("xport::DType::") + enumerator(v.to_dtype());
    std::string literal;
    if (inner == "std::string") {
      literal = string_literal(v.to_string_value());
    } else if (inner == "std::vector<int64_t>") {
      literal = "std::vector<int64_t>" + list_literal(v.to_int_list(), int_literal);
    } else if (inner == "std::vector<double>") {
      literal = "std::vector<double>" + list_literal(v.to_double_list(), double_literal);
    } else if (inner == "std::vector<bool>") {
      literal = "std::vector<bool>" + list_literal(v.to_bool_list(), [](bool b) {
                  return std::string(b ? "true" : "false");
                });
    } else {
      XPORT_FAIL(Internal, "aot: no literal for a parameter of type ", type);
    }
    return constant(type, literal);
  }

  // A constant of the translation unit, made once (identical ones shared).
  std::string constant(const std::string& type, const std::string& literal) {
    const std::string key = type + "=" + literal;
    const auto it = constant_names_.find(key);
    if (it != constant_names_.end()) return it->second;
    const std::string name = "kC" + std::to_string(constant_names_.size());
    globals_ << "const " << type << " " << name << " = " << literal << ";\n";
    constant_names_.emplace(key, name);
    return name;
  }

  // A layout as an expression: its entry in the translation unit's table of layouts.
  std::string meta(const TensorMeta& m) { return "kMeta[" + std::to_string(layout(m)) + "]"; }

  // A layout's index in the table of layouts (kMeta), each layout once.
  size_t layout(const TensorMeta& m) {
    std::vector<int64_t> code = {static_cast<int64_t>(m.dtype),
                                 static_cast<int64_t>(m.sizes.size()),
                                 *m.storage_offset.maybe_int()};
    for (const SymInt& v : m.sizes) code.push_back(*v.maybe_int());
    for (const SymInt& v : m.strides) code.push_back(*v.maybe_int());
    const auto [it, added] = layout_index_.emplace(code, layout_index_.size());
    if (added) layouts_.insert(layouts_.end(), code.begin(), code.end());
    return it->second;
  }

  // ---- the runtime's own kernels ----------------------------------------------------------------

  void emit_packed(const PlannedStep& planned, const PackedCall& packed,
                   const std::vector<std::string>& outs) {
    const ir::Node& node = *planned.step->node;
    const std::string kernel = "k_[" + std::to_string(packed_kernels_) + "]";
    if (packed.kind == PackedCall::Kind::PointwiseChain) {
      emit_chain(node, outs.at(0));
      return;
    }
    const int weight = load_placeholder(node, "weight");
    const int bias = node.arg("bias").is_none() ? -1 : load_placeholder(node, "bias");
    const std::string input = arg_expr(node, "input");
    std::vector<int64_t> params(12, 0);
    if (packed.kind == PackedCall::Kind::Conv2d) {
      const PackedCall& c = packed;
      params = {c.conv.stride[0],   c.conv.stride[1],        c.conv.padding[0],
                c.conv.padding[1],  c.conv.dilation[0],      c.conv.dilation[1],
                c.conv.groups,      c.epilogue.residual,     c.epilogue.relu,
                c.layouts.src_nhwc, c.layouts.residual_nhwc, c.layouts.dst_nhwc};
      const std::string residual =
          node.arg("residual").is_none() ? "kNone" : arg_expr(node, "residual");
      run_ << "  xport::aot::run_conv2d(*" << kernel << ", " << input << ", " << residual << ", "
           << outs.at(0) << ");\n";
    } else {
      params[0] = static_cast<int64_t>(packed.activation);
      run_ << "  xport::aot::run_linear(*" << kernel << ", " << input << ", " << outs.at(0)
           << ");\n";
    }
    packed_table_ << "    {" << (packed.kind == PackedCall::Kind::Conv2d ? 0 : 1) << ", "
                  << weight << ", " << bias << ", " << list_literal(params, to_string_int)
                  << "},\n";
    ++packed_kernels_;
    ++packed_calls_;
  }

  const ir::ValueRef& ref_arg(const ir::Node& node, const char* name) const {
    const auto* ref = std::get_if<ir::ValueRef>(&node.arg(name).value);
    if (ref == nullptr) refuse(node, std::string("its '") + name + "' is not a graph value");
    return *ref;
  }

  std::string arg_expr(const ir::Node& node, const char* name) const {
    return expr_[static_cast<size_t>(graph_.slot(ref_arg(node, name)))];
  }

  // A weight the load packs: a placeholder (the archive's, or a constant the passes made).
  int load_placeholder(const ir::Node& node, const char* name) const {
    const auto slot = static_cast<size_t>(graph_.slot(ref_arg(node, name)));
    if (home_[slot] != Home::Weight || expr_[slot].rfind("p[", 0) != 0) {
      refuse(node, std::string("its '") + name + "' is not a constant");
    }
    return root_[slot];
  }

  // An elementwise chain (xport::fused_pointwise): a function of the translation unit that runs
  // the body's kernels on one chunk, each writing the scratch the next reads.
  void emit_chain(const ir::Node& node, const std::string& out) {
    const ir::Graph& body = *std::get<ir::SubgraphRef>(node.arg("body").value).graph;
    std::vector<const ir::Node*> calls;
    for (const auto& n : body.nodes()) {
      if (n->kind() == ir::NodeKind::Call) calls.push_back(n.get());
    }
    const std::string name = "chain" + std::to_string(chains_);
    std::ostringstream fn;
    fn << "void " << name
       << "(const xport::Tensor* in, const xport::Tensor* scratch, const xport::Tensor& out) {\n";
    std::string previous;
    for (size_t s = 0; s < calls.size(); ++s) {
      const ir::Node& call_node = *calls[s];
      const OpDef& op = *call_node.op();
      if (op.kernel.symbol.name.empty()) {
        refuse(node, "its chain's " + op.qualified_name + " has no named C++ function");
      }
      std::vector<Value> values;
      std::map<size_t, std::string> tensors;
      for (size_t i = 0; i < call_node.args().size(); ++i) {
        const ir::Argument& a = call_node.args()[i];
        if (const auto* ref = std::get_if<ir::ValueRef>(&a.value)) {
          tensors[i] = ref->node->kind() == ir::NodeKind::Placeholder
                           ? "in[" + std::to_string(ref->node->position()) + "]"
                           : previous;
        }
        values.push_back(ir::argument_value(
            a, op.parsed.arguments[i].type, [](const ir::ValueRef&) { return Tensor(); },
            ir::passes::constant_int));
      }
      const std::string result =
          s + 1 == calls.size() ? "out" : "scratch[" + std::to_string(s % 2) + "]";
      fn << "  " << call(op.kernel.symbol, values, tensors, {result}) << ";\n";
      previous = result;
    }
    fn << "}\n";
    functions_ << fn.str();
    run_ << "  xport::aot::run_chunked({";
    const auto& inputs = std::get<std::vector<ir::Argument>>(node.arg("inputs").value);
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto& ref = std::get<ir::ValueRef>(inputs[i].value);
      run_ << (i ? ", " : "") << expr_[static_cast<size_t>(graph_.slot(ref))];
    }
    run_ << "}, " << out << ", &" << name << ");\n";
    ++chains_;
  }

  // ---- outputs and the translation unit ---------------------------------------------------------

  void emit_outputs() {
    run_ << "  return {";
    for (size_t r = 0; r < graph_.output_slots.size(); ++r) {
      const std::string& e = expr_[static_cast<size_t>(graph_.output_slots[r])];
      run_ << (r ? ", " : "") << e << (plan_->copy_output[r] ? ".clone()" : "");
    }
    run_ << "};\n";
  }

  std::string assemble() const {
    std::ostringstream out;
    out << "// Generated by xport::aot::compile: the runtime's plan of one program as C++. Do not "
           "edit.\n"
        << kGeneratedIncludes << "\n"
        << "extern \"C\" const unsigned char xport_aot_constants[];\n\n"
        << "namespace {\n\n"
        << "const xport::Tensor kNone;\n"
        << "// Each layout: dtype, rank, storage offset, sizes, strides.\n"
        << "constexpr int64_t kLayouts[] = " << table_literal(layouts_, to_string_int) << ";\n"
        << "const std::vector<xport::TensorMeta> kMeta = xport::aot::decode_layouts(kLayouts, "
        << layout_index_.size() << ");\n"
        << "// The layout of each tensor in a frame's arena.\n"
        << "constexpr int kFrameLayouts[] = " << table_literal(frame_layouts_, identity) << ";\n"
        << "// The archive's tensors the code reads, with the layout each must have.\n"
        << "constexpr xport::aot::ArchiveTensor kArchive[] = {\n" << table(archive_) << "};\n"
        << "// The constants the load-time passes made, appended to the placeholders.\n"
        << "constexpr xport::aot::ConstantTensor kConstants[] = {\n" << table(constants_table_)
        << "};\n"
        << "// Views of weights, made once: {placeholder, layout}.\n"
        << "constexpr int kWeightViews[][2] = {\n" << table(weight_views_table_) << "};\n"
        << "// Kernels packed at load.\n"
        << "constexpr xport::aot::PackedSpec kPacked[] = {\n" << table(packed_table_) << "};\n"
        << globals_.str() << "\n"
        << functions_.str() << "\n"
        << "struct Frame {\n  std::shared_ptr<xport::Storage> arena;\n"
        << "  xport::Tensor t[" << std::max<size_t>(frame_layouts_.size(), 1) << "];\n};\n\n"
        << "std::unique_ptr<Frame> make_frame() {\n"
        << "  auto f = std::make_unique<Frame>();\n"
        << "  f->arena = xport::Storage::allocate(" << plan_->stats.arena_bytes << ");\n"
        << "  for (size_t i = 0; i < " << frame_layouts_.size() << "; ++i) {\n"
        << "    f->t[i] = xport::aot::tensor_in(f->arena, kMeta[kFrameLayouts[i]]);\n  }\n"
        << "  return f;\n}\n\n"
        << "class Model final : public xport::aot::CompiledModel {\n public:\n"
        << "  void load(std::vector<xport::Tensor>& p) override {\n"
        << "    require_isa();\n"
        << "    xport::aot::expect_placeholders(p.size(), " << program_placeholders_ << ");\n"
        << "    xport::aot::expect_archive(p, kArchive, " << archive_count_ << ", kMeta);\n"
        << "    xport::aot::add_constants(p, kConstants, " << constant_count_
        << ", kMeta, xport_aot_constants);\n"
        << "    for (size_t i = 0; i < " << weight_views_ << "; ++i) {\n"
        << "      w_[i] = xport::aot::tensor_in(p[kWeightViews[i][0]].storage(), "
           "kMeta[kWeightViews[i][1]]);\n    }\n"
        << "    k_ = xport::aot::pack_kernels(p, kPacked, " << packed_kernels_ << ");\n"
        << "  }\n\n"
        << "  std::vector<xport::Tensor> run(const std::vector<xport::Tensor>& p) const override "
           "{\n"
        << "    const auto lease = frames_.acquire();\n    Frame& f = *lease;\n    (void)f;\n"
        << indent(run_.str()) << "  }\n\n"
        << "  std::string isa() const override {\n    std::string s;\n" << isa_lines("s += \" ")
        << "    return s.empty() ? s : s.substr(1);\n  }\n\n"
        << " private:\n"
        << "  static void require_isa() {\n" << isa_checks() << "  }\n"
        << "  xport::Tensor w_[" << std::max<int64_t>(weight_views_, 1) << "];\n"
        << "  std::vector<std::shared_ptr<const xport::aot::PackedKernel>> k_;\n"
        << "  xport::aot::FramePool<Frame> frames_{&make_frame};\n};\n\n"
        << "}  // namespace\n\n"
        << "xport::aot::CompiledModel* xport_aot_new_model() { return new Model(); }\n";
    return out.str();
  }

  // A table's entries; `{}` is no array, so an empty table gets one unused entry.
  static std::string table(const std::ostringstream& entries) {
    const std::string text = entries.str();
    return text.empty() ? "    {},\n" : text;
  }

  static std::string indent(const std::string& body) {
    std::string out;
    std::istringstream in(body);
    for (std::string line; std::getline(in, line);) out += "  " + line + "\n";
    return out;
  }

  // The instruction-set extensions the compiler was told it may use (-march), recorded and
  // checked against the CPU at load.
  static const std::vector<std::pair<std::string, std::string>>& isa_features() {
    static const std::vector<std::pair<std::string, std::string>> kFeatures = {
        {"__AVX__", "avx"},           {"__AVX2__", "avx2"},
        {"__FMA__", "fma"},           {"__F16C__", "f16c"},
        {"__AVX512F__", "avx512f"},   {"__AVX512BW__", "avx512bw"},
        {"__AVX512VL__", "avx512vl"}, {"__AVX512DQ__", "avx512dq"},
        {"__AVX512BF16__", "avx512bf16"}};
    return kFeatures;
  }

  static std::string isa_lines(const std::string& prefix) {
    std::string out;
    for (const auto& [macro, name] : isa_features()) {
      out += "#ifdef " + macro + "\n    " + prefix + name + "\";\n#endif\n";
    }
    return out;
  }

  static std::string isa_checks() {
    std::string out;
    for (const auto& [macro, name] : isa_features()) {
      out += "#ifdef " + macro + "\n    xport::aot::require_cpu_feature(__builtin_cpu_supports(\"" +
             name + "\"), \"" + name + "\");\n#endif\n";
    }
    return out;
  }

  const ExportedProgram& program_;
  std::vector<std::string> names_;  // per program placeholder: its name or target
  size_t program_placeholders_ = 0;
  runtime::PreparedGraph prepared_;
  runtime::CompiledGraph graph_;
  std::unique_ptr<runtime::ExecutionPlan> plan_;
  std::vector<Home> home_;          // per slot
  std::vector<std::string> expr_;   // per slot: its tensor's expression
  std::ostringstream globals_, functions_, run_;
  std::ostringstream archive_, constants_table_, weight_views_table_, packed_table_;
  int64_t archive_count_ = 0, constant_count_ = 0;
  std::vector<int> root_;  // per slot of a weight or a view of one: its placeholder
  std::map<std::vector<int64_t>, size_t> layout_index_;
  std::vector<int64_t> layouts_;             // the layouts, encoded one after another
  std::vector<std::string> frame_layouts_;  // per frame tensor: its layout's index
  std::map<std::string, std::string> constant_names_;
  std::vector<unsigned char> constants_;
  int64_t weight_views_ = 0, packed_kernels_ = 0;
  int64_t kernel_calls_ = 0, packed_calls_ = 0, chains_ = 0, run_views_ = 0;
};

}  // namespace

void refuse_symbolic_sizes(const ExportedProgram& program) {
  for (const SymbolSpec& s : program.symbols()) {
    XPORT_FAIL(UnsupportedOp, "aot::compile: the program's sizes are symbolic (", s.name, " is ",
               s.source, s.dim_name.empty() ? "" : ", Dim '" + s.dim_name + "'",
               "); this version compiles programs of static shapes only: export with static "
               "shapes, or run the archive in the runtime (runtime::Program)");
  }
}

GeneratedModel generate(const ExportedProgram& program, bool fuse) {
  return Generator(program, fuse).run();
}

}  // namespace xport::aot
