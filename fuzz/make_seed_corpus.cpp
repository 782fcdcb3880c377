// Writes the archive fuzzer's seed corpus: a few small programs exported and saved by xport, plus
// any archives named on the command line (e.g. one in PyTorch's own layout), copied as they are.
// Usage: make_seed_corpus DIR [ARCHIVE...]. DIR is emptied first, so every run starts the same.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "xport/xport.h"

namespace {

using namespace xport;
namespace fs = std::filesystem;

// A parameter used twice, a buffer viewing it (stored once with it) and a non-persistent buffer
// (stored with the constants): covers the weights and constants configs and shared storage.
class Mixer : public nn::Module {
 public:
  Mixer() : Module("Mixer") {
    proj = register_module("proj", std::make_shared<nn::Linear>(6, 4));
    scale = register_parameter("scale", randn({4, 4}, 11));
    row = register_buffer("row", scale.select(0, 2));
    bias = register_buffer("bias", randn({4}, 12), /*persistent=*/false);
  }
  Tensor forward(const Tensor& x) override {
    nn::ModuleScope scope(*this);
    const Tensor h = proj->forward(x).matmul(scale) + row;
    return where(gt(h, bias), h, h * 0.5) + scale.sum({0});
  }
  std::shared_ptr<nn::Linear> proj;
  Tensor scale, row, bias;
};

ExportOptions batch_dynamic(size_t inputs, int64_t max = 64) {
  const Dim batch("batch", 2, max);
  ExportOptions options;
  options.dynamic_shapes.assign(inputs, DimSpec{{0, batch}});
  return options;
}

std::vector<std::pair<std::string, std::function<ExportedProgram()>>> programs() {
  return {
      {"mlp",
       [] {
         auto model = models::mlp({8, 16, 4});
         model->eval();
         return export_program(
             *model, [&](const Tensor& x) { return model->forward(x); }, {randn({3, 8}, 1)},
             batch_dynamic(1));
       }},
      // After run_decompositions: core ATen ops only (addmm, permute), as torch.export often saves.
      {"mlp_core_aten",
       [] {
         auto model = models::mlp({8, 16, 4});
         model->eval();
         return export_program(
                    *model, [&](const Tensor& x) { return model->forward(x); }, {randn({3, 8}, 2)},
                    batch_dynamic(1))
             .run_decompositions();
       }},
      {"conv_bn_relu",
       [] {
         auto model = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
             std::make_shared<nn::Conv2d>(3, 4, std::vector<int64_t>{3, 3}),
             std::make_shared<nn::BatchNorm2d>(4), std::make_shared<nn::ReLU>()});
         model->eval();
         return export_program(
             *model, [&](const Tensor& x) { return model->forward(x); }, {randn({2, 3, 8, 8}, 3)},
             batch_dynamic(1, 16));
       }},
      {"mixer",
       [] {
         auto model = std::make_shared<Mixer>();
         model->eval();
         return export_program(
             *model, [&](const Tensor& x) { return model->forward(x); }, {randn({3, 6}, 4)},
             batch_dynamic(1));
       }},
      // ExportDB-style functions: no module, several shape and normalization ops.
      {"cat_view_softmax",
       [] {
         return export_program(
             [](const Tensor& x, const Tensor& y) {
               const Tensor joined = cat({x, y}, 1);                        // [B, 8]
               const Tensor grouped = joined.view({joined.size(0), 2, 4});  // [B, 2, 4]
               return layer_norm(grouped, {4}).softmax(-1).sum({1});
             },
             {randn({3, 6}, 5), randn({3, 2}, 6)}, batch_dynamic(2));
       }},
      {"static_int_ops",
       [] {
         return export_program(
             [](const Tensor& x) {
               const Tensor ids = arange(4).view({2, 2});
               const Tensor picked = index_select(x, 0, arange(0, 4, 2));
               return std::make_tuple(picked.transpose(0, 1) * 2.0,
                                      ids + clamp(x.sum({1}).to(DType::Int64), 0, 3).view({2, 2}));
             },
             {randn({4, 3}, 7)});
       }},
  };
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [ARCHIVE...]\n", argv[0]);
    return 2;
  }
  try {
    const fs::path dir = argv[1];
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const auto& [name, make] : programs()) {
      const fs::path path = dir / (name + ".pt2");
      save(make(), path.string());
      std::printf("%s: %ju bytes\n", path.c_str(), static_cast<uintmax_t>(fs::file_size(path)));
    }
    for (int i = 2; i < argc; ++i) {
      const fs::path source = argv[i];
      fs::copy_file(source, dir / source.filename());
      std::printf("%s: copied from %s\n", (dir / source.filename()).c_str(), source.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_seed_corpus: %s\n", e.what());
    return 1;
  }
  return 0;
}
