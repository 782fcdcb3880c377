#include "xport/program/exported_program.h"

#include <sstream>

#include "program/input_check.h"
#include "program/write_back.h"

namespace xport {

struct ExportedProgram::Impl {
  ir::Graph graph;
  GraphSignature signature;
  std::vector<InputContract> contract;
  std::vector<SymbolSpec> symbols;
  std::map<std::string, Tensor> state;
};

ExportedProgram::ExportedProgram(ir::Graph graph, GraphSignature signature,
                                 std::vector<InputContract> contract,
                                 std::vector<SymbolSpec> symbols,
                                 std::map<std::string, Tensor> state)
    : impl_(std::make_unique<Impl>(Impl{std::move(graph), std::move(signature), std::move(contract),
                                        std::move(symbols), std::move(state)})) {
  impl_->graph.verify();
}
ExportedProgram::ExportedProgram(ExportedProgram&&) noexcept = default;
ExportedProgram& ExportedProgram::operator=(ExportedProgram&&) noexcept = default;
ExportedProgram::~ExportedProgram() = default;

const ir::Graph& ExportedProgram::graph() const { return impl_->graph; }
const GraphSignature& ExportedProgram::signature() const { return impl_->signature; }
const std::vector<InputContract>& ExportedProgram::contract() const { return impl_->contract; }
const std::vector<SymbolSpec>& ExportedProgram::symbols() const { return impl_->symbols; }
const std::map<std::string, Tensor>& ExportedProgram::state() const { return impl_->state; }

RangeConstraints ExportedProgram::range_constraints() const {
  RangeConstraints out;
  for (const SymbolSpec& s : impl_->symbols) out[s.name] = s.range;
  return out;
}

std::vector<Tensor> ExportedProgram::run(const std::vector<Value>& inputs) const {
  std::unordered_map<sym::ExprPtr, int64_t> bindings;
  const std::vector<Tensor> user = check_inputs(impl_->contract, impl_->symbols, inputs, bindings);
  std::vector<Tensor> placeholders;
  placeholders.reserve(impl_->signature.inputs.size());
  size_t next_user = 0;
  for (const InputSpec& spec : impl_->signature.inputs) {
    if (spec.kind == InputSpec::Kind::UserInput) {
      placeholders.push_back(user.at(next_user++));
    } else {
      placeholders.push_back(impl_->state.at(spec.target));
    }
  }
  return write_back_mutations(impl_->signature,
                              ir::interpret(impl_->graph, placeholders, bindings), impl_->state,
                              user);
}

std::string GraphSignature::str() const {
  static const char* kInputKinds[] = {"parameter", "buffer", "constant", "user input"};
  std::ostringstream out;
  out << "  inputs:\n";
  for (const InputSpec& in : inputs) {
    out << "    %" << in.name << ": " << kInputKinds[static_cast<int>(in.kind)];
    if (in.kind != InputSpec::Kind::UserInput) out << " " << in.target;
    if (in.kind == InputSpec::Kind::Buffer && !in.persistent) out << " (not persistent)";
    out << "\n";
  }
  out << "  outputs:\n";
  static const char* kOutputKinds[] = {"user output", "buffer mutation", "user input mutation"};
  for (const OutputSpec& o : outputs) {
    out << "    %" << o.name << ": " << kOutputKinds[static_cast<int>(o.kind)];
    if (o.kind != OutputSpec::Kind::UserOutput) out << " " << o.target;
    out << "\n";
  }
  return out.str();
}

std::string ExportedProgram::to_string() const {
  std::ostringstream out;
  out << impl_->graph.to_string() << "\nsignature:\n" << impl_->signature.str();
  out << "range constraints:\n";
  if (impl_->symbols.empty()) out << "  (none: every dim is static)\n";
  for (const SymbolSpec& s : impl_->symbols) {
    if (s.unbacked) {
      out << "  " << s.name << ": data-dependent in " << s.range.str() << "  (" << s.source
          << ")\n";
      continue;
    }
    out << "  " << s.name << ": " << (s.dim_name.empty() ? s.source : s.dim_name) << " in "
        << s.range.str() << "  (" << s.source << ")\n";
  }
  return out.str();
}

}  // namespace xport
