// Writes .pt2 archives with xport::save for PyTorch to load (tests/serde/torch_load_cases.py):
// every ExportDB case that exports and every reference model at full size, static and dynamic,
// with their inputs, xport's eager outputs, inputs outside the contract, and the range
// constraints, and all-MiniLM-L6-v2 with its trained weights. Usage: xport_write_archives
// OUT_DIR MINILM_DATA (where tests/models/make_minilm_data.py wrote). The manifest has the
// layout of tests/serde/torch_export_cases.py's (the other direction), so one reader serves both.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "serde/round_trip.h"
#include "tools/xport/sentence_program.h"
#include "xport/exportdb/exportdb.h"
#include "xport/text/text.h"
#include "xport/xport.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace xport;
using test_support::copy_inputs;  // a program may update its inputs: each use gets copies

struct Writer {
  fs::path root;
  json cases = json::array();

  json leaf(const Value& v, const std::string& file) {
    if (v.is_tensor()) {
      const Tensor& t = v.to_tensor();
      // NumPy has no bfloat16: such tensors travel as float32 with their dtype named.
      save_npy(t.dtype() == DType::BFloat16 ? t.to(DType::Float32) : t, (root / file).string());
      return {{"npy", file}, {"dtype", dtype_name(t.dtype())}, {"shape", t.int_sizes()}};
    }
    if (v.is_bool()) return {{"value", v.to_bool()}};
    if (v.is_int()) return {{"value", v.to_int()}};
    if (v.is_double()) return {{"value", v.to_double()}};
    throw std::runtime_error(std::string("cannot write a ") + v.type_name() + " leaf to " + file);
  }

  // The pytree leaves of `values`, as torch's tree_flatten gives them: a list of tensors is as
  // many leaves.
  json leaves(const std::vector<Value>& values, const std::string& stem) {
    json out = json::array();
    for (const Value& v : values) {
      const std::vector<Value> items =
          v.is_list() ? std::vector<Value>(v.to_tensor_list().begin(), v.to_tensor_list().end())
                      : std::vector<Value>{v};
      for (const Value& item : items)
        out.push_back(leaf(item, stem + std::to_string(out.size()) + ".npy"));
    }
    return out;
  }

  // Exports nothing itself: `program` is saved, `eager` gives the expected outputs of each input
  // set (on copies of the inputs, which the files hold as they were before the call).
  void add(const std::string& name, const std::string& group, const ExportedProgram& program,
           const std::function<std::vector<Tensor>(const std::vector<Value>&)>& eager,
           const std::vector<std::vector<Value>>& runs,
           const std::vector<std::vector<Value>>& refused, double tolerance = 0) {
    fs::create_directories(root / name);
    save(program, (root / name / "model.pt2").string());
    json c = {{"name", name}, {"group", group}, {"pt2", name + "/model.pt2"}};
    if (tolerance > 0) c["tolerance"] = tolerance;
    c["runs"] = json::array();
    for (size_t k = 0; k < runs.size(); ++k) {
      const std::string stem = name + "/run" + std::to_string(k);
      json run = {{"inputs", leaves(runs[k], stem + "_in")}};
      // The eager call gets copies; what it leaves in them is what the program must leave in
      // the inputs it updates in place.
      const std::vector<Value> after = copy_inputs(runs[k]);
      std::vector<Value> outputs;
      for (const Tensor& t : eager(after)) outputs.emplace_back(t);
      run["outputs"] = leaves(outputs, stem + "_out");
      run["inputs_after"] = leaves(after, stem + "_after");
      c["runs"].push_back(run);
    }
    c["refused_inputs"] = json::array();
    for (size_t k = 0; k < refused.size(); ++k)
      c["refused_inputs"].push_back(leaves(refused[k], name + "/refused" + std::to_string(k) + "_in"));
    c["range_constraints"] = json::object();
    for (const auto& [symbol, range] : program.range_constraints()) {
      c["range_constraints"][symbol] = {
          range.lo, range.hi == sym::Range::kPosInf ? json(nullptr) : json(range.hi)};
    }
    cases.push_back(c);
    std::cout << "wrote " << name << "\n";
  }
};

void write_exportdb(Writer& w) {
  for (const exportdb::Case& c : exportdb::all_cases()) {
    if (c.expected_error) continue;
    exportdb::Case copy = c;
    copy.example_inputs = copy_inputs(c.example_inputs);
    const ExportedProgram program = exportdb::export_case(copy);
    std::vector<std::vector<Value>> runs = {c.example_inputs};
    runs.insert(runs.end(), c.valid_inputs.begin(), c.valid_inputs.end());
    for (auto& run : runs) run = copy_inputs(run);
    w.add(c.name, "exportdb", program,
          [&](const std::vector<Value>& in) { return c.fn(in); }, runs,
          c.invalid_inputs);
  }
}

Tensor token_ids(int64_t batch, int64_t seq, uint64_t seed) {
  std::vector<int64_t> v(static_cast<size_t>(batch * seq));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>((i * 7919 + seed * 31) % 50257);
  return from_vector(v, {batch, seq});
}

void write_model(Writer& w, const std::string& name, nn::Module& model,
                 const std::vector<Value>& example, const ExportOptions& options,
                 const std::vector<std::vector<Value>>& runs,
                 const std::vector<std::vector<Value>>& refused) {
  model.eval();
  auto fn = [&](const Tensor& x) { return model.forward(x); };
  const ExportedProgram program = export_program(model, fn, example, options);
  w.add(name, "reference", program,
        [&](const std::vector<Value>& in) { return std::vector<Tensor>{fn(in[0].to_tensor())}; },
        runs, refused);
}

ExportOptions dims(DimSpec spec) {
  ExportOptions options;
  options.dynamic_shapes = {std::move(spec)};
  return options;
}

void write_models(Writer& w) {
  {
    auto m = models::mlp({1024, 4096, 4096, 1024});
    const Tensor x = randn({4, 1024}, 0);
    write_model(w, "mlp_static", *m, {x}, {}, {{x}}, {{randn({5, 1024}, 1)}});
    write_model(w, "mlp_dynamic", *m, {x}, dims({{0, Dim("batch", 2, 512)}}),
                {{x}, {randn({33, 1024}, 1)}}, {{randn({513, 1024}, 2)}});
  }
  {
    auto m = models::resnet50();
    const Tensor x = randn({2, 3, 64, 64}, 3);
    write_model(w, "resnet50_static", *m, {x}, {}, {{x}}, {{randn({3, 3, 64, 64}, 4)}});
    write_model(w, "resnet50_dynamic", *m, {x}, dims({{0, Dim("batch", 2, 16)}}),
                {{x}, {randn({3, 3, 64, 64}, 5)}}, {{randn({17, 3, 64, 64}, 6)}});
  }
  {
    auto m = models::bert_encoder();
    const Tensor x = randn({2, 16, 768}, 7);
    write_model(w, "bert_static", *m, {x}, {}, {{x}}, {{randn({2, 17, 768}, 8)}});
    write_model(w, "bert_dynamic", *m, {x},
                dims({{0, Dim("batch", 2, 8)}, {1, Dim("seq", 2, 128)}}),
                {{x}, {randn({3, 5, 768}, 9)}}, {{randn({2, 129, 768}, 10)}});
  }
  {
    auto m = models::gpt2();
    const Tensor x = token_ids(1, 16, 11);
    write_model(w, "gpt2_static", *m, {x}, {}, {{x}}, {{token_ids(1, 17, 12)}});
    write_model(w, "gpt2_dynamic", *m, {x}, dims({{1, Dim("seq", 2, 1024)}}),
                {{x}, {token_ids(1, 7, 13)}}, {{token_ids(1, 1025, 14)}});
  }
  {
    // GPT-2 with a KV cache: one program for a prompt and the steps after it. The runs go in
    // order, so PyTorch's module must carry its cache buffers from call to call as xport's does.
    models::Gpt2Config config;
    config.n_layer = 2;
    config.n_embd = 64;
    config.n_head = 4;
    config.vocab_size = 1000;
    config.cache_size = 16;
    auto m = models::gpt2(config);
    m->eval();
    auto positions = [](int64_t begin, int64_t end) {
      return arange(begin, end, 1, DType::Int64);
    };
    auto ids = [](std::vector<int64_t> v) {
      const auto n = static_cast<int64_t>(v.size());
      return from_vector(v, {1, n});
    };
    const Dim tokens("tokens", 1, config.cache_size);
    ExportOptions options;
    options.dynamic_shapes = {{{1, tokens}}, {{0, tokens}}};
    options.input_names = {"ids", "positions"};
    auto step = [m](const std::vector<Value>& in) {
      return std::vector<Tensor>{m->forward(in[0].to_tensor(), in[1].to_tensor())};
    };
    const ExportedProgram program =
        export_program(*m, step, {ids({5, 17, 300, 42, 7}), positions(0, 5)}, options);
    w.add("gpt2_kv_cache", "reference", program, step,
          {{ids({5, 17, 300, 42, 7}), positions(0, 5)},
           {ids({99}), positions(5, 6)},
           {ids({3, 640}), positions(6, 8)}},
          {{ids(std::vector<int64_t>(17, 1)), positions(0, 17)}});
  }
}

// Programs quantized by xport::quant (the PT2E ops PyTorch defines): the expected outputs are
// xport's run of the quantized program, which PyTorch's run of the same file must give within a
// quantization step (a float sum a rounding apart may land one step apart after a quantize).
void write_quantized(Writer& w) {
  const auto add = [&w](const std::string& name, const ExportedProgram& program,
                        const std::vector<std::vector<Value>>& runs,
                        const std::vector<std::vector<Value>>& refused) {
    w.add(name, "quantized", program,
          [&](const std::vector<Value>& in) { return program.run(in); }, runs, refused, 2e-2);
  };
  const auto exported = [](nn::Module& m, const Tensor& x, const ExportOptions& options) {
    m.eval();
    return export_program(m, [&m](const Tensor& in) { return m.forward(in); }, {x}, options);
  };
  {
    auto m = models::mlp({256, 512, 128});
    const ExportedProgram prepared =
        quant::prepare(exported(*m, randn({4, 256}, 20), dims({{0, Dim("batch", 1, 64)}})));
    for (uint64_t seed = 21; seed < 25; ++seed) prepared.run({randn({8, 256}, seed)});
    add("mlp_static_int8", quant::convert(prepared), {{randn({3, 256}, 26)}},
        {{randn({65, 256}, 27)}});
  }
  {
    auto m = models::resnet18(10);
    const ExportedProgram p = exported(*m, randn({2, 3, 32, 32}, 28),
                                       dims({{0, Dim("batch", 1, 8)}}));
    add("resnet18_dynamic_int8",
        quant::convert(quant::prepare(p, {.scheme = quant::Scheme::DynamicInt8})),
        {{randn({2, 3, 32, 32}, 29)}, {randn({3, 3, 32, 32}, 30)}},
        {{randn({9, 3, 32, 32}, 31)}});
  }
  {
    models::BertConfig config;
    config.num_layers = 2;
    config.hidden = 128;
    config.heads = 4;
    config.feedforward = 256;
    auto m = models::bert_encoder(config);
    const ExportedProgram p = exported(*m, randn({2, 8, 128}, 32),
                                       dims({{0, Dim("batch", 1, 8)}, {1, Dim("seq", 2, 64)}}));
    add("bert_int8_weight", quant::prepare(p, {.scheme = quant::Scheme::WeightOnlyInt8}),
        {{randn({3, 5, 128}, 33)}}, {{randn({3, 65, 128}, 34)}});
    add("bert_bf16", quant::to_bf16(p), {{randn({2, 7, 128}, 35)}}, {});
  }
  {
    models::Gpt2Config config;
    config.n_layer = 2;
    config.n_embd = 128;
    config.n_head = 4;
    config.vocab_size = 1000;
    config.n_positions = 64;
    auto m = models::gpt2(config);
    m->eval();
    const auto ids = [](int64_t n, int64_t seed) {  // token ids below the vocabulary's 1000
      return xport::remainder(token_ids(1, n, static_cast<uint64_t>(seed)),
                              full({}, 1000, DType::Int64));
    };
    const ExportedProgram p =
        export_program(*m, [&](const Tensor& x) { return m->forward(x); }, {ids(8, 36)},
                       dims({{1, Dim("seq", 2, 64)}}));
    add("gpt2_int4_weight",
        quant::prepare(p, {.scheme = quant::Scheme::WeightOnlyInt4, .group_size = 32}),
        {{ids(9, 37)}}, {{ids(65, 38)}});
  }
}

// all-MiniLM-L6-v2 with its trained weights, from the folder MINILM_DATA/manifest.json names
// (tests/models/make_minilm_data.py): a padded batch, one sentence, and one of a single token.
void write_pretrained(Writer& w, const fs::path& minilm_data) {
  json manifest;
  std::ifstream(minilm_data / "manifest.json") >> manifest;
  const std::string dir = manifest["model_dir"];
  auto m = models::sentence_encoder_from_pretrained(dir);
  const auto tokenizer = text::WordPiece::from_pretrained(dir);
  auto batch = [&](const std::vector<std::string>& texts) {
    const text::Batch b = tokenizer.encode_batch(texts, m->max_seq_length());
    return std::vector<Value>{b.ids, b.attention_mask};
  };
  const Tensor one = from_vector<int64_t>({2023}, {1, 1});
  const Tensor too_long = ones({1, m->max_seq_length() + 1}, DType::Int64);
  w.add("minilm_sentences", "pretrained", tools::export_sentence_encoder(*m, 64),
        [&](const std::vector<Value>& in) {
          return std::vector<Tensor>{m->forward(in[0].to_tensor(), in[1].to_tensor())};
        },
        {batch({"A man is eating food.", "A man is eating a piece of bread.",
                "Déjà vu, naïve café!"}),
         batch({"The new movie is awesome."}), {one, ones_like(one)}},
        {{too_long, too_long}});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: xport_write_archives OUT_DIR MINILM_DATA\n";
    return 2;
  }
  try {
    Writer w{fs::path(argv[1])};
    fs::create_directories(w.root);
    write_exportdb(w);
    write_models(w);
    write_quantized(w);
    write_pretrained(w, argv[2]);
    const fs::path manifest = w.root / "manifest.json";
    std::ofstream(manifest.string() + ".tmp") << json{{"cases", w.cases}}.dump(1) << "\n";
    fs::rename(manifest.string() + ".tmp", manifest);
    std::cout << w.cases.size() << " archives in " << w.root << "\n";
  } catch (const std::exception& e) {
    std::cerr << "xport_write_archives: failed: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
