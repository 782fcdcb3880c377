#include "program/write_back.h"

#include "xport/core/error.h"

namespace xport {
namespace {

bool same_memory(const Tensor& a, const Tensor& b) {
  return a.storage() == b.storage() &&
         a.storage_offset().maybe_int() == b.storage_offset().maybe_int() &&
         a.int_strides() == b.int_strides();
}

void write(Tensor target, const Tensor& value) {
  if (!same_memory(target, value)) target.copy_(value);
}

}  // namespace

std::vector<BufferUpdate> buffer_updates(const GraphSignature& signature) {
  std::vector<BufferUpdate> out;
  for (size_t o = 0; o < signature.outputs.size(); ++o) {
    if (signature.outputs[o].kind != OutputSpec::Kind::BufferMutation) continue;
    for (size_t i = 0; i < signature.inputs.size(); ++i) {
      const InputSpec& in = signature.inputs[i];
      if (in.kind == InputSpec::Kind::Buffer && in.target == signature.outputs[o].target) {
        out.push_back({i, o});
      }
    }
  }
  return out;
}

std::vector<Tensor> write_back_mutations(const GraphSignature& signature,
                                         std::vector<Tensor> results,
                                         const std::map<std::string, Tensor>& state,
                                         const std::vector<Tensor>& user_inputs) {
  XPORT_CHECK(results.size() == signature.outputs.size(), Internal, "run: the graph gave ",
              results.size(), " results for ", signature.outputs.size(), " output specs");
  std::vector<Tensor> user_outputs;
  for (size_t i = 0; i < results.size(); ++i) {
    const OutputSpec& spec = signature.outputs[i];
    switch (spec.kind) {
      case OutputSpec::Kind::UserOutput:
        user_outputs.push_back(std::move(results[i]));
        break;
      case OutputSpec::Kind::BufferMutation: {
        const auto it = state.find(spec.target);
        XPORT_CHECK(it != state.end(), Internal, "run: buffer ", spec.target,
                    " is updated but the program holds no such buffer");
        write(it->second, results[i]);
        break;
      }
      case OutputSpec::Kind::UserInputMutation: {
        size_t user = 0;
        bool found = false;
        for (const InputSpec& in : signature.inputs) {
          if (in.kind != InputSpec::Kind::UserInput) continue;
          if (in.name == spec.target) {
            found = true;
            break;
          }
          ++user;
        }
        XPORT_CHECK(found && user < user_inputs.size(), Internal, "run: user input ",
                    spec.target, " is updated but the program has no such input");
        write(user_inputs[user], results[i]);
        break;
      }
    }
  }
  return user_outputs;
}

}  // namespace xport
