// train::grad on whole programs: an MLP, a small CNN and a 2-layer GPT-2 against torch.autograd
// on the same saved program (tests/train/torch_program_grads.py), in ExportedProgram::run and
// in the runtime; and the errors a user meets.
#include <gtest/gtest.h>

#include <filesystem>

#include "expect_error.h"
#include "python_oracle.h"
#include "serde/round_trip.h"
#include "train/train_models.h"
#include "xport/ops/derivative.h"
#include "xport/xport.h"

namespace xport {
namespace {

namespace fs = std::filesystem;
using test_support::expect_error;
using test_support::cross_entropy;
using test_support::mse;
using test_support::SmallCnn;
using test_support::TempFile;

std::vector<std::string> parameter_names(const nn::Module& m) {
  std::vector<std::string> names;
  for (const auto& [name, t] : m.named_parameters()) names.push_back(name);
  return names;
}

// PyTorch's loss and gradients of the forward program `program` (saved as .pt2) at `inputs`,
// d loss / d each of `wrt` (parameter paths; user inputs as "input:K").
std::vector<Tensor> torch_gradients(const ExportedProgram& program,
                                    const std::vector<Tensor>& inputs,
                                    const std::vector<std::string>& wrt) {
  const fs::path dir = fs::temp_directory_path() / ("xport_grad_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const TempFile archive("grad_forward");
  save(program, archive.path());
  std::string args = archive.path() + " " + dir.string();
  for (const std::string& w : wrt) args += " " + w;
  args += " --";
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string file = (dir / ("input_" + std::to_string(k) + ".npy")).string();
    save_npy(inputs[k], file);
    args += " " + file;
  }
  const testing::PythonRun run = testing::run_python(
      std::string(XPORT_TESTS_DIR) + "/train/torch_program_grads.py", args, dir / "stdout");
  EXPECT_TRUE(run.ok()) << run.log;
  std::vector<Tensor> out;
  if (run.ok()) {
    out.push_back(load_npy((dir / "loss.npy").string()));
    for (size_t k = 0; k < wrt.size(); ++k) {
      out.push_back(load_npy((dir / ("grad_" + std::to_string(k) + ".npy")).string()));
    }
  }
  fs::remove_all(dir);
  return out;
}

// Gradients agree when within rtol of the largest magnitude (sums in another order).
void expect_close(const std::vector<Tensor>& ours, const std::vector<Tensor>& theirs,
                  const std::vector<std::string>& names, double rtol) {
  ASSERT_EQ(ours.size(), theirs.size());
  for (size_t k = 0; k < ours.size(); ++k) {
    const std::string what = k == 0 ? "loss" : "d loss / d " + names[k - 1];
    ASSERT_EQ(ours[k].int_sizes(), theirs[k].int_sizes()) << what;
    const double scale = std::max(1.0, theirs[k].abs().max().item<double>());
    EXPECT_TRUE(allclose(ours[k], theirs[k], rtol, rtol * scale))
        << what << ": max difference "
        << (ours[k] - theirs[k]).abs().max().item<double>() << " at scale " << scale;
  }
}

// The gradient program in ExportedProgram::run, then saved and run in the runtime (which must
// give the same numbers), against PyTorch on the forward program.
void check_against_torch(const ExportedProgram& forward, const std::vector<std::string>& wrt,
                         const std::vector<std::string>& torch_wrt,
                         const std::vector<Tensor>& inputs, double rtol) {
  const ExportedProgram g = train::grad(forward, wrt);
  std::vector<Value> values(inputs.begin(), inputs.end());
  const std::vector<Tensor> ours = g.run(values);
  expect_close(ours, torch_gradients(forward, inputs, torch_wrt), wrt, rtol);
  const TempFile archive("grad_program");
  save(g, archive.path());
  const std::vector<Tensor> runtime = runtime::Program::load(archive.path()).run(inputs);
  expect_close(runtime, ours, wrt, rtol);
}

TEST(Grad, MlpGradientsEqualTorchAutogradAtAnotherBatchSize) {
  auto model = models::mlp({8, 16, 16, 4});
  ExportOptions options;
  const Dim batch("batch", 1, 64);
  options.dynamic_shapes = {{{0, batch}}, {{0, batch}}};
  const ExportedProgram forward = export_program(
      *model, [&](const Tensor& x, const Tensor& y) { return mse(model->forward(x), y); },
      {randn({5, 8}, 1), randn({5, 4}, 2)}, options);
  std::vector<std::string> wrt = parameter_names(*model);
  std::vector<std::string> torch_wrt = wrt;
  wrt.push_back("x0");  // export names positional inputs x0, x1, ...
  torch_wrt.push_back("input:0");
  check_against_torch(forward, wrt, torch_wrt, {randn({7, 8}, 3), randn({7, 4}, 4)}, 1e-5);
}

// Batch norm in evaluation mode (its running statistics as constants of the step).
TEST(Grad, SmallCnnGradientsEqualTorchAutograd) {
  auto model = std::make_shared<SmallCnn>();
  model->eval();
  ExportOptions options;
  const Dim batch("batch", 1, 16);
  options.dynamic_shapes = {{{0, batch}}, {{0, batch}}};
  const ExportedProgram forward = export_program(
      *model, [&](const Tensor& x, const Tensor& y) { return mse(model->forward(x), y); },
      {randn({2, 3, 12, 12}, 5), randn({2, 10}, 6)}, options);
  const std::vector<std::string> wrt = parameter_names(*model);
  check_against_torch(forward, wrt, wrt, {randn({3, 3, 12, 12}, 7), randn({3, 10}, 8)}, 1e-5);
}

TEST(Grad, TwoLayerGpt2GradientsEqualTorchAutograd) {
  auto model = test_support::tiny_gpt2();
  model->eval();
  ExportOptions options;
  const Dim seq("seq", 2, 32);
  options.dynamic_shapes = {{{1, seq}}, {{1, seq}}};
  const auto ids = [](int64_t n, uint64_t seed) {
    return floor(rand({2, n}, seed) * 97).to(DType::Int64);
  };
  const ExportedProgram forward = export_program(
      *model,
      [&](const Tensor& x, const Tensor& y) { return cross_entropy(model->forward(x), y); },
      {ids(8, 9), ids(8, 10)}, options);
  const std::vector<std::string> wrt = parameter_names(*model);
  check_against_torch(forward, wrt, wrt, {ids(11, 11), ids(11, 12)}, 1e-4);
}

ExportedProgram small_program(bool use_all) {
  auto model = models::mlp({4, 3});
  return export_program(
      *model,
      [&](const Tensor& x) {
        return use_all ? mse(model->forward(x), x.slice(1, 0, 3)) : x.sum();
      },
      {randn({2, 4}, 1)});
}

TEST(Grad, RefusesNamesThatAreNoInputOfTheProgram) {
  expect_error([] { train::grad(small_program(true), {"layers.0.wieght"}); },
               ErrorKind::InvalidSpec, {"'layers.0.wieght' is not an input", "layers.0.weight"});
}

TEST(Grad, NamesAParameterTheLossDoesNotReach) {
  expect_error([] { train::grad(small_program(false), {"layers.0.weight"}); },
               ErrorKind::InvalidSpec, {"does not depend on 'layers.0.weight'"});
}

TEST(Grad, RefusesAProgramThatDoesNotReturnOneScalarLoss) {
  auto model = models::mlp({4, 3});
  const ExportedProgram p = export_program(
      *model, [&](const Tensor& x) { return model->forward(x); }, {randn({2, 4}, 1)});
  expect_error([&] { train::grad(p, {"layers.0.weight"}); }, ErrorKind::InvalidSpec,
               {"0-dim floating loss", "reduce it"});
}

TEST(Grad, NamesAnOpWithoutADerivativeAndTheUsersLine) {
  const ExportedProgram p = export_program(
      [](const Tensor& x) { return prod(x); },  // aten::prod has no derivative rule yet
      {randn({3}, 1)});
  expect_error([&] { train::grad(p, {"x"}); }, ErrorKind::UnsupportedOp,
               {"aten::prod", "no derivative rule", "grad_test.cpp:"});
}

// native_dropout draws its mask at random, so the op table cannot hold it to PyTorch's: its
// rule on the mask it drew. Kept elements pass the gradient scaled by 1 / (1 - p).
TEST(Derivatives, NativeDropoutPassesTheGradientWhereItKept) {
  const OpDef& op = find_op("aten::native_dropout");
  const Tensor x = randn({256}, 1), g = randn({256}, 2);
  for (const bool train : {true, false}) {
    const OpArgs args = bind_args(op, {x, 0.25, train});
    const std::vector<Tensor> outs = run_eager(args);  // (result, mask)
    const std::vector<Value> grads =
        run_derivative(args, outs, {g, Tensor()}, {true, false, false});
    const Tensor& mask = outs[1];
    const Tensor expected = train ? g * mask / 0.75 : g;
    EXPECT_TRUE(allclose(grads[0].to_tensor(), expected, 1e-6, 1e-7)) << "train " << train;
    if (train) {
      const double kept = mask.to(DType::Float32).mean().item<float>();
      EXPECT_GT(kept, 0.5);  // about 0.75: both kept and dropped elements were checked
      EXPECT_LT(kept, 0.95);
    }
  }
}

}  // namespace
}  // namespace xport
