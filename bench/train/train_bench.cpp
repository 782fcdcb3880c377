// xport's side of the training-step benchmark (bench/train/compare_training.py).
//
//   xport_train_bench prepare DIR [ROW ...]
//       For each row (mlp, cnn, gpt2; all by default) writes DIR/ROW/: forward.pt2 (the loss
//       program, PyTorch's side trains it with torch.optim), step.pt2 (train::export_training_step
//       of the same model, weights and optimizer), in0.npy, in1.npy (one batch) and
//       optimizer.json (torch.optim's settings). The step is timed by `xport_peer_bench time`.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "xport/xport.h"

namespace {

using namespace xport;
namespace fs = std::filesystem;

struct Row {
  std::string name;
  std::function<std::shared_ptr<nn::Module>()> model;
  std::function<Tensor(const Tensor&, const Tensor&)> loss;  // (model output, target)
  std::vector<Tensor> batch;
  std::variant<train::SGD, train::AdamW> optimizer;
};

Tensor cross_entropy(const Tensor& logits, const Tensor& targets) {
  return -gather(log_softmax(logits, -1), -1, targets.unsqueeze(-1)).mean();
}

Tensor ids(std::vector<int64_t> shape, int64_t classes, uint64_t seed) {
  return floor(rand(shape, seed) * static_cast<double>(classes)).to(DType::Int64);
}

// A CNN at ResNet-18's stem and first-stage width: 64 channels, batch norm in training mode.
struct Cnn : nn::Module {
  std::shared_ptr<nn::Conv2d> conv1 =
      register_module("conv1", std::make_shared<nn::Conv2d>(3, 64, std::vector<int64_t>{3, 3}));
  std::shared_ptr<nn::BatchNorm2d> bn1 =
      register_module("bn1", std::make_shared<nn::BatchNorm2d>(64));
  std::shared_ptr<nn::Conv2d> conv2 =
      register_module("conv2", std::make_shared<nn::Conv2d>(64, 64, std::vector<int64_t>{3, 3}));
  std::shared_ptr<nn::BatchNorm2d> bn2 =
      register_module("bn2", std::make_shared<nn::BatchNorm2d>(64));
  std::shared_ptr<nn::Linear> fc = register_module("fc", std::make_shared<nn::Linear>(64, 10));
  Tensor forward(const Tensor& x) override {
    Tensor h = max_pool2d(relu(bn1->forward(conv1->forward(x))), {2, 2});
    h = relu(bn2->forward(conv2->forward(h)));
    return fc->forward(adaptive_avg_pool2d(h, {1, 1}).flatten(1));
  }
};

std::vector<Row> rows() {
  std::vector<Row> out;
  out.push_back({"mlp", [] { return models::mlp({256, 1024, 1024, 256}); },
                 [](const Tensor& y, const Tensor& t) { return (y - t).pow(2).mean(); },
                 {randn({64, 256}, 1), randn({64, 256}, 2)},
                 train::SGD{.lr = 0.01, .momentum = 0.9, .weight_decay = 1e-4}});
  out.push_back({"cnn",
                 [] {
                   auto m = std::make_shared<Cnn>();
                   m->train();
                   return m;
                 },
                 cross_entropy, {randn({16, 3, 32, 32}, 3), ids({16}, 10, 4)},
                 train::SGD{.lr = 0.05, .momentum = 0.9}});
  out.push_back({"gpt2",
                 [] {
                   models::Gpt2Config c;
                   c.vocab_size = 1000;
                   c.n_positions = 128;
                   c.n_embd = 128;
                   c.n_layer = 2;
                   c.n_head = 4;
                   return std::static_pointer_cast<nn::Module>(models::gpt2(c));
                 },
                 cross_entropy, {ids({4, 64}, 1000, 5), ids({4, 64}, 1000, 6)},
                 train::AdamW{.lr = 1e-3}});
  return out;
}

std::string settings_json(const std::variant<train::SGD, train::AdamW>& optimizer) {
  char buf[256];
  if (const auto* s = std::get_if<train::SGD>(&optimizer)) {
    std::snprintf(buf, sizeof buf,
                  "{\"kind\": \"sgd\", \"lr\": %.17g, \"momentum\": %.17g, "
                  "\"weight_decay\": %.17g}",
                  s->lr, s->momentum, s->weight_decay);
  } else {
    const auto& a = std::get<train::AdamW>(optimizer);
    std::snprintf(buf, sizeof buf,
                  "{\"kind\": \"adamw\", \"lr\": %.17g, \"beta1\": %.17g, \"beta2\": %.17g, "
                  "\"eps\": %.17g, \"weight_decay\": %.17g}",
                  a.lr, a.beta1, a.beta2, a.eps, a.weight_decay);
  }
  return buf;
}

void prepare(const fs::path& dir, const Row& row) {
  const fs::path out = dir / row.name;
  fs::create_directories(out);
  auto model = row.model();
  const train::LossFn loss = [&](nn::Module& m, const std::vector<Tensor>& b) {
    return row.loss(m.forward(b[0]), b[1]);
  };
  const std::vector<Value> batch(row.batch.begin(), row.batch.end());
  const ExportedProgram forward = export_program(
      *model,
      [&](const std::vector<Value>& in) {
        return std::vector<Tensor>{loss(*model, {in[0].to_tensor(), in[1].to_tensor()})};
      },
      batch);
  save(forward, (out / "forward.pt2").string());
  save(train::export_training_step(*model, loss, row.optimizer, batch),
       (out / "step.pt2").string());
  for (size_t k = 0; k < row.batch.size(); ++k) {
    save_npy(row.batch[k], (out / ("in" + std::to_string(k) + ".npy")).string());
  }
  std::ofstream(out / "optimizer.json") << settings_json(row.optimizer) << "\n";
  std::cout << "prepared " << out.string() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || std::string(argv[1]) != "prepare") {
    std::cerr << "usage: " << argv[0] << " prepare DIR [mlp|cnn|gpt2 ...]\n";
    return 2;
  }
  try {
    const std::vector<std::string> wanted(argv + 3, argv + argc);
    for (const Row& row : rows()) {
      if (wanted.empty() || std::find(wanted.begin(), wanted.end(), row.name) != wanted.end()) {
        prepare(argv[2], row);
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "xport_train_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
