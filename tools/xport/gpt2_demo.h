#pragma once
// `xport demo --gpt2`: the whole job on the bundled GPT-2 (124M) with a KV cache. Build it,
// capture it with a dynamic number of new tokens, print the input contract, save the archive,
// load it in the runtime, check the runtime against eager at two lengths, print the most likely
// next tokens and a short greedy continuation, and show the runtime refusing inputs outside the
// contract.

#include <ostream>
#include <string>

namespace xport::tools {

struct Gpt2DemoOptions {
  /// A GPT-2 checkpoint in safetensors format (e.g. the Hugging Face Hub's model.safetensors);
  /// empty: seeded random weights.
  std::string weights;
  /// Where the archive is saved; empty: xport-demo-gpt2.pt2 in the system's temp directory.
  std::string archive;
  int steps = 8;  // tokens decoded one at a time through the KV cache
};

/// Returns 0, or 1 when the runtime's logits differ from eager's by more than 1e-4 of their
/// largest magnitude or it accepts an input outside the contract.
int run_gpt2_demo(const Gpt2DemoOptions& options, std::ostream& out);

}  // namespace xport::tools
