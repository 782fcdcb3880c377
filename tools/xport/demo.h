#pragma once
// `xport demo`: the main job on the bundled model. Today: GPT-2 (124M) run eagerly on a short
// prompt of token ids, printing the most likely next tokens and a few greedy steps.

#include <ostream>
#include <string>

namespace xport::tools {

struct DemoOptions {
  /// A GPT-2 checkpoint in safetensors format (e.g. the Hugging Face Hub's model.safetensors);
  /// empty: seeded random weights.
  std::string weights;
  int steps = 8;  // greedy tokens to generate after the top-k table
};

int run_demo(const DemoOptions& options, std::ostream& out);

}  // namespace xport::tools
