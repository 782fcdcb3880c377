// export_training_step: 50 steps of an MLP, a small CNN and a 2-layer GPT-2 follow PyTorch's loss
// curve (torch.optim and autograd on the same forward program, tests/train/
// torch_training_curve.py), in ExportedProgram::run, the runtime and (the MLP) the compiled
// library; the step saved halfway, loaded by PyTorch, continues the curve.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "expect_error.h"
#include "python_oracle.h"
#include "serde/round_trip.h"
#include "train/train_models.h"
#include "xport/aot/aot.h"
#include "xport/xport.h"

namespace xport {
namespace {

namespace fs = std::filesystem;
using test_support::expect_error;
using test_support::cross_entropy;
using test_support::mse;
using test_support::SmallCnn;
using test_support::TempFile;
using train::AdamW;
using train::SGD;
using Batches = std::vector<std::vector<Tensor>>;

constexpr int kSteps = 50;

std::string settings_json(const std::variant<SGD, AdamW>& optimizer) {
  std::ostringstream s;
  s.precision(17);
  if (const auto* o = std::get_if<SGD>(&optimizer)) {
    s << "{\"kind\": \"sgd\", \"lr\": " << o->lr << ", \"momentum\": " << o->momentum
      << ", \"weight_decay\": " << o->weight_decay << "}";
  } else {
    const AdamW& a = std::get<AdamW>(optimizer);
    s << "{\"kind\": \"adamw\", \"lr\": " << a.lr << ", \"beta1\": " << a.beta1
      << ", \"beta2\": " << a.beta2 << ", \"eps\": " << a.eps
      << ", \"weight_decay\": " << a.weight_decay << "}";
  }
  return s.str();
}

std::vector<double> read_curve(const fs::path& file) {
  return load_npy(file.string()).to_vector<double>();
}

// Each step's loss of `step` run by `run_one` on the batches [first, last).
template <class Run>
std::vector<double> curve(const Batches& batches, size_t first, size_t last, Run run_one) {
  std::vector<double> losses;
  for (size_t t = first; t < last; ++t) {
    const Tensor loss = run_one(batches[t]);
    losses.push_back(loss.template item<double>());
  }
  return losses;
}

void expect_same_curve(const std::vector<double>& ours, const std::vector<double>& theirs,
                       const std::string& what, double rtol, size_t offset = 0) {
  ASSERT_EQ(ours.size(), theirs.size()) << what;
  double worst = 0;
  for (size_t t = 0; t < ours.size(); ++t) {
    worst = std::max(worst, std::fabs(ours[t] - theirs[t]) / std::fabs(theirs[t]));
  }
  std::cout << what << ": loss " << theirs.front() << " -> " << theirs.back()
            << ", largest relative difference " << worst << "\n";
  for (size_t t = 0; t < ours.size(); ++t) {
    EXPECT_NEAR(ours[t], theirs[t], rtol * std::max(1e-3, std::fabs(theirs[t])))
        << what << ", step " << t + offset;
  }
}

// The whole check for one model, loss and optimizer: see the file's comment.
void check_training(nn::Module& model, const train::LossFn& loss,
                    const std::variant<SGD, AdamW>& optimizer, const Batches& batches,
                    const ExportOptions& options, double rtol, bool compiled) {
  const fs::path dir =
      fs::temp_directory_path() / ("xport_train_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (size_t t = 0; t < batches.size(); ++t) {
    for (size_t k = 0; k < batches[t].size(); ++k) {
      save_npy(batches[t][k], (dir / ("step" + std::to_string(t) + "_" + std::to_string(k) +
                                      ".npy")).string());
    }
  }
  const std::vector<Value> example(batches[0].begin(), batches[0].end());
  // PyTorch's side starts from the forward program with the same initial weights.
  const ExportedProgram forward = export_program(
      model,
      [&](const std::vector<Value>& in) {
        std::vector<Tensor> b;
        for (const Value& v : in) b.push_back(v.to_tensor());
        return std::vector<Tensor>{loss(model, b)};
      },
      example, options);
  const TempFile forward_file("train_forward"), initial("train_step0"), halfway("train_step25");
  save(forward, forward_file.path());
  const ExportedProgram step = train::export_training_step(model, loss, optimizer, example, options);
  save(step, initial.path());

  const auto run_program = [&](const std::vector<Tensor>& b) {
    return step.run(std::vector<Value>(b.begin(), b.end())).at(0);
  };
  std::vector<double> ours = curve(batches, 0, kSteps / 2, run_program);
  save(step, halfway.path());
  const std::vector<double> rest = curve(batches, kSteps / 2, kSteps, run_program);
  ours.insert(ours.end(), rest.begin(), rest.end());

  const testing::PythonRun eager = testing::run_python(
      std::string(XPORT_TESTS_DIR) + "/train/torch_training_curve.py",
      "eager " + forward_file.path() + " " + dir.string() + " " + std::to_string(kSteps) + " '" +
          settings_json(optimizer) + "' " + (dir / "eager.npy").string(),
      dir / "eager.out");
  ASSERT_TRUE(eager.ok()) << eager.log;
  expect_same_curve(ours, read_curve(dir / "eager.npy"), "xport vs torch.optim", rtol);
  EXPECT_LT(ours.back(), ours.front()) << "the loss does not fall: nothing was trained";

  const testing::PythonRun continued = testing::run_python(
      std::string(XPORT_TESTS_DIR) + "/train/torch_training_curve.py",
      "continue " + halfway.path() + " " + dir.string() + " " + std::to_string(kSteps / 2) + " " +
          std::to_string(kSteps) + " " + (dir / "continued.npy").string(),
      dir / "continued.out");
  ASSERT_TRUE(continued.ok()) << continued.log;
  expect_same_curve(std::vector<double>(ours.begin() + kSteps / 2, ours.end()),
                    read_curve(dir / "continued.npy"), "PyTorch running the saved step", 1e-5,
                    kSteps / 2);

  const runtime::Program loaded = runtime::Program::load(initial.path());
  expect_same_curve(curve(batches, 0, kSteps, [&](const auto& b) { return loaded.run(b).at(0); }),
                    ours, "runtime vs ExportedProgram::run", 1e-5);
  if (compiled) {
    const std::string library = (dir / "step.so").string();  // step.pt2 is written beside it
    aot::compile(load(initial.path()), library);
    const runtime::Program so = runtime::Program::load(library);
    expect_same_curve(curve(batches, 0, kSteps, [&](const auto& b) { return so.run(b).at(0); }),
                      ours, "compiled library vs ExportedProgram::run", 1e-5);
  }
  fs::remove_all(dir);
}

// y = sin(x W) + noise: a regression the MLP can fit.
Batches regression_batches(int64_t batch) {
  const Tensor w = randn({8, 4}, 100);
  Batches out;
  for (int t = 0; t < kSteps; ++t) {
    const Tensor x = randn({batch, 8}, 200 + t);
    out.push_back({x, sin(matmul(x, w)) + randn({batch, 4}, 300 + t) * 0.05});
  }
  return out;
}

ExportOptions dynamic_batch(int inputs) {
  ExportOptions options;
  const Dim batch("batch", 1, 256);
  for (int i = 0; i < inputs; ++i) options.dynamic_shapes.push_back({{0, batch}});
  return options;
}

train::LossFn mlp_loss() {
  return [](nn::Module& m, const std::vector<Tensor>& b) { return mse(m.forward(b[0]), b[1]); };
}

TEST(TrainingStep, MlpWithSgdFollowsTorchOptimsCurve) {
  auto model = models::mlp({8, 32, 32, 4});
  check_training(*model, mlp_loss(), SGD{.lr = 0.05, .momentum = 0.9, .weight_decay = 1e-3},
                 regression_batches(16), dynamic_batch(2), 1e-4, true);
}

TEST(TrainingStep, MlpWithAdamWFollowsTorchOptimsCurve) {
  auto model = models::mlp({8, 32, 32, 4});
  check_training(*model, mlp_loss(), AdamW{.lr = 1e-2}, regression_batches(16), dynamic_batch(2),
                 1e-4, true);
}

Tensor class_ids(std::vector<int64_t> shape, int64_t classes, uint64_t seed) {
  return floor(rand(shape, seed) * static_cast<double>(classes)).to(DType::Int64);
}

// Batch norm in training mode: each step updates its running statistics (buffers) too.
TEST(TrainingStep, SmallCnnInTrainingModeWithSgdFollowsTorchOptimsCurve) {
  auto model = std::make_shared<SmallCnn>();
  model->train();
  Batches batches;
  const Tensor patterns = randn({10, 3, 12, 12}, 399);  // each class's image, under noise
  for (int t = 0; t < kSteps; ++t) {
    const Tensor labels = class_ids({8}, 10, 500 + t);
    const Tensor images = index_select(patterns, 0, labels) + randn({8, 3, 12, 12}, 400 + t);
    batches.push_back({images, labels});
  }
  const train::LossFn loss = [](nn::Module& m, const std::vector<Tensor>& b) {
    return cross_entropy(m.forward(b[0]), b[1]);
  };
  check_training(*model, loss, SGD{.lr = 0.05, .momentum = 0.9}, batches, dynamic_batch(2),
                 1e-4, false);
}

TEST(TrainingStep, TwoLayerGpt2WithAdamWFollowsTorchOptimsCurve) {
  auto model = test_support::tiny_gpt2();
  model->eval();  // no dropout in xport's GPT-2: the same program either way
  Batches batches;
  for (int t = 0; t < kSteps; ++t) {  // a rule to learn: each token's target is 3 x + 1 mod 97
    const Tensor ids = class_ids({4, 16}, 97, 600 + t);
    std::vector<int64_t> targets = ids.to_vector<int64_t>();
    for (int64_t& v : targets) v = (3 * v + 1) % 97;
    batches.push_back({ids, from_vector(targets, {4, 16})});
  }
  const train::LossFn loss = [](nn::Module& m, const std::vector<Tensor>& b) {
    return cross_entropy(m.forward(b[0]), b[1]);
  };
  check_training(*model, loss, AdamW{.lr = 3e-3}, batches, dynamic_batch(2), 1e-4, false);
}

TEST(TrainingStep, RefusesALearningRateThatIsNotPositive) {
  auto model = models::mlp({4, 2});
  expect_error(
      [&] {
        train::export_training_step(*model, mlp_loss(), SGD{.lr = 0}, {randn({2, 4}, 1),
                                    randn({2, 2}, 2)});
      },
      ErrorKind::InvalidSpec, {"SGD's lr is 0", "positive learning rate"});
}

TEST(TrainingStep, NamesAParameterTheLossDoesNotReach) {
  auto model = models::mlp({4, 3, 2});
  const train::LossFn first_layer_only = [&](nn::Module&, const std::vector<Tensor>& b) {
    return linear(b[0], model->named_parameters().at(0).second).sum();
  };
  expect_error(
      [&] {
        train::export_training_step(*model, first_layer_only, AdamW{.lr = 1e-3},
                                    {randn({2, 4}, 1)});
      },
      ErrorKind::InvalidSpec, {"does not depend on 'layers.0.bias'"});
}

}  // namespace
}  // namespace xport
