// xport's side of the sentence-embedding benchmark (bench/compare_sentences.py): a
// sentence-transformers model folder (all-MiniLM-L6-v2) exported once with dynamic batch and
// length, run by runtime::Program.
//
//   xport_sentence_bench MODEL_DIR SENTENCES.txt [--batch B] [--runs K] [--threads T]
//                        [--profile 1]
//
// Encodes every line of SENTENCES.txt (UTF-8, one sentence a line) in batches of B, longest
// first as sentence-transformers does (so a batch carries little padding), then back in the
// file's order: WordPiece tokenization (truncated to the model's max_seq_length, padded to the
// batch's longest) and one runtime run per batch. One untimed pass, then K timed passes. Prints one JSON line:
// {"batch": B, "sentences": n, "seconds": [one per pass], "embeddings_path": "..."}, the
// embeddings [n, hidden] of the last pass written as float32 .npy beside SENTENCES.txt.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "tools/xport/sentence_program.h"
#include "xport/ops/npy.h"
#include "xport/runtime.h"
#include "xport/text/text.h"
#include "xport/xport.h"

namespace {

using Clock = std::chrono::steady_clock;
using xport::Tensor;

int arg_int(int argc, char** argv, const char* name, int fallback) {
  for (int i = 3; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == name) return std::atoi(argv[i + 1]);
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: xport_sentence_bench MODEL_DIR SENTENCES.txt [--batch B] [--runs K] "
                 "[--threads T] [--profile 1]\n");
    return 2;
  }
  const int batch = arg_int(argc, argv, "--batch", 32);
  const int runs = arg_int(argc, argv, "--runs", 3);
  const int threads = arg_int(argc, argv, "--threads", 2);
  try {
    std::vector<std::string> sentences;
    std::ifstream in(argv[2]);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) sentences.push_back(line);
    }
    if (sentences.empty() || batch < 1) {
      std::fprintf(stderr, "xport_sentence_bench: no sentences in %s, or batch < 1\n", argv[2]);
      return 2;
    }
    auto model = xport::models::sentence_encoder_from_pretrained(argv[1]);
    const auto tokenizer = xport::text::WordPiece::from_pretrained(argv[1]);
    xport::runtime::Options options;
    options.num_threads = threads;
    const xport::runtime::Program program = xport::runtime::Program::from_exported(
        xport::tools::export_sentence_encoder(*model, std::max(batch, 1)), options);

    const int64_t max_len = model->max_seq_length();
    auto encode_all = [&] {
      std::vector<int64_t> order(sentences.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return sentences[static_cast<size_t>(a)].size() > sentences[static_cast<size_t>(b)].size();
      });
      std::vector<Tensor> parts;
      for (size_t i = 0; i < order.size(); i += static_cast<size_t>(batch)) {
        std::vector<std::string> texts;
        for (size_t k = i; k < std::min(order.size(), i + static_cast<size_t>(batch)); ++k) {
          texts.push_back(sentences[static_cast<size_t>(order[k])]);
        }
        const xport::text::Batch b = tokenizer.encode_batch(texts, max_len);
        parts.push_back(program.run({b.ids, b.attention_mask}).at(0));
      }
      // Row k of the sorted result belongs to sentence order[k].
      const auto n = static_cast<int64_t>(order.size());
      return xport::index_put(xport::zeros({n, parts[0].size(1)}), {xport::from_vector(order, {n})},
                              xport::cat(parts, 0));
    };
    Tensor embeddings = encode_all();  // untimed: plans memory for each shape, pages in weights
    std::vector<double> seconds;
    for (int r = 0; r < runs; ++r) {
      const Clock::time_point start = Clock::now();
      embeddings = encode_all();
      seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    if (arg_int(argc, argv, "--profile", 0) != 0) {
      const xport::text::Batch b = tokenizer.encode_batch(
          std::vector<std::string>(sentences.begin(),
                                   sentences.begin() + std::min<std::ptrdiff_t>(
                                                           batch, std::ssize(sentences))),
          max_len);
      for (const xport::runtime::OpTime& t : program.profile({b.ids, b.attention_mask}, runs)) {
        std::fprintf(stderr, "%-48s %4lld calls %8.3f ms\n", t.op.c_str(),
                     static_cast<long long>(t.calls), t.ms);
      }
    }
    const std::string npy = (std::filesystem::path(argv[2]).parent_path() /
                             ("xport_embeddings_b" + std::to_string(batch) + ".npy"))
                                .string();
    xport::save_npy(embeddings, npy);
    std::printf("{\"batch\": %d, \"sentences\": %zu, \"seconds\": [", batch, sentences.size());
    for (size_t i = 0; i < seconds.size(); ++i) std::printf("%s%.6f", i ? ", " : "", seconds[i]);
    std::printf("], \"embeddings_path\": \"%s\"}\n", npy.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xport_sentence_bench: %s\n", e.what());
    return 1;
  }
}
