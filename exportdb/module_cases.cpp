// Programs that use nn::Module state: parameters and buffers become graph inputs.
#include <memory>
#include <vector>

#include "exportdb/cases.h"
#include "xport/xport.h"

namespace xport::exportdb {
namespace {

// A block with submodules two levels deep: body.{0,1,2} and norm.
class Block : public nn::Module {
 public:
  Block() : nn::Module("Block") {
    body = register_module(
        "body", std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
                    std::make_shared<nn::Linear>(8, 16), std::make_shared<nn::ReLU>(),
                    std::make_shared<nn::Linear>(16, 8)}));
    norm = register_module("norm", std::make_shared<nn::LayerNorm>(std::vector<int64_t>{8}));
  }
  Tensor forward(const Tensor& x) override {
    nn::ModuleScope scope(*this);
    return norm->forward(x + body->forward(x));
  }
  std::shared_ptr<nn::Sequential> body;
  std::shared_ptr<nn::LayerNorm> norm;
};

// A parameter and a buffer of its own, used directly in forward.
class Standardize : public nn::Module {
 public:
  Standardize() : nn::Module("Standardize") {
    mean = register_buffer("mean", from_vector<float>({0.5f, -1.0f, 2.0f}, {3}));
    scale = register_parameter("scale", from_vector<float>({2.0f, 0.5f, 1.0f}, {3}));
  }
  Tensor forward(const Tensor& x) override {
    nn::ModuleScope scope(*this);
    return (x - mean) * scale;
  }
  Tensor mean, scale;
};

// Counts its calls and keeps a running mean of the rows it saw, in place.
class RunningMean : public nn::Module {
 public:
  RunningMean() : nn::Module("RunningMean") {
    count = register_buffer("count", zeros({}, DType::Int64));
    mean = register_buffer("mean", zeros({3}));
  }
  Tensor forward(const Tensor& x) override {
    nn::ModuleScope scope(*this);
    count.add_(1);
    mean.mul_(0.9).add_(x.mean({0}) * 0.1);
    return x - mean;
  }
  Tensor count, mean;
};

template <class M>
TracedFn forward_of(const std::shared_ptr<M>& m) {
  return adapt([m](const Tensor& x) { return m->forward(x); });
}

}  // namespace

void add_module_cases(std::vector<Case>& cases) {
  {
    auto block = std::make_shared<Block>();
    block->eval();
    add(cases,
        {
            .name = "nested_modules",
            .tags = {"module", "dynamic-shape"},
            .description =
                "A custom nn::Module holding a Sequential of Linear/ReLU/Linear and a LayerNorm. "
                "Pass the root module to export_program: every parameter becomes a graph input "
                "named by its dotted path (p_body_0_weight for body.0.weight), and every node "
                "records the module path it ran in. The batch is dynamic; the feature width is "
                "fixed by the weights.",
            .module = block,
            .fn = forward_of(block),
            .example_inputs = {randn({4, 8}, 0)},
            .options = spec({{{0, Dim("batch")}}}),
            .valid_inputs = {{randn({2, 8}, 1)}, {randn({33, 8}, 2)}},
            .invalid_inputs = {{randn({4, 9}, 3)}},
        });
  }

  {
    auto model = models::mlp({16, 32, 8});
    model->eval();
    add(cases,
        {
            .name = "mlp_dynamic_batch",
            .tags = {"module", "dynamic-shape", "model"},
            .description =
                "The reference MLP (models::mlp: Linear, GELU, Linear) with a dynamic "
                "batch bounded by Dim(\"batch\", 2, 512). One exported program runs every "
                "batch size in the range and refuses larger ones.",
            .module = model,
            .fn = forward_of(model),
            .example_inputs = {randn({4, 16}, 0)},
            .options = spec({{{0, Dim("batch", 2, 512)}}}),
            .valid_inputs = {{randn({2, 16}, 1)}, {randn({31, 16}, 2)}, {randn({512, 16}, 3)}},
            .invalid_inputs = {{randn({513, 16}, 4)}, {randn({4, 15}, 5)}},
        });
  }

  {
    auto standardize = std::make_shared<Standardize>();
    add(cases, {
                   .name = "module_buffer",
                   .tags = {"module"},
                   .description =
                       "A module that uses its own buffer and parameter in forward: both become "
                       "graph inputs marked `buffer mean` and `parameter scale` in the signature, "
                       "and their values are stored with the program. Buffers that forward only "
                       "reads need nothing special; see buffer_mutation for updating one.",
                   .module = standardize,
                   .fn = forward_of(standardize),
                   .example_inputs = {randn({4, 3}, 0)},
                   .options = spec({{{0, Dim("batch")}}}),
                   .valid_inputs = {{randn({9, 3}, 1)}},
                   .invalid_inputs = {{randn({4, 4}, 2)}},
               });
  }

  {
    auto counter = std::make_shared<RunningMean>();
    add(cases,
        {
            .name = "buffer_mutation",
            .tags = {"module", "mutation"},
            .description =
                "A module that updates its own buffers in place (a call counter, a running "
                "mean). The graph computes their new values functionally and lists them first "
                "among the outputs as `buffer mutation count` / `buffer mutation mean`; "
                "ExportedProgram::run and the runtime write them back into the program's "
                "buffers after each call, so consecutive calls see the state eager calls would. "
                "The archive stores them as PyTorch's buffers_to_mutate.",
            .module = counter,
            .fn = forward_of(counter),
            .example_inputs = {randn({4, 3}, 0)},
            .options = spec({{{0, Dim("batch")}}}),
            .valid_inputs = {{randn({9, 3}, 1)}, {randn({2, 3}, 2)}},
        });
  }

  {
    auto net = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
        std::make_shared<nn::Conv2d>(3, 4, std::vector<int64_t>{3, 3},
                                     nn::Conv2d::Options{.padding = {1, 1}}),
        std::make_shared<nn::BatchNorm2d>(4), std::make_shared<nn::ReLU>()});
    net->train();
    add(cases,
        {
            .name = "batch_norm_training",
            .tags = {"module", "mutation", "model"},
            .description =
                "BatchNorm2d in training mode normalises with the batch's statistics and "
                "updates running_mean, running_var and num_batches_tracked in place. Export "
                "records aten::_native_batch_norm_legit_functional, whose extra outputs are the "
                "new running statistics, listed as buffer mutations, as PyTorch's "
                "run_decompositions() does.",
            .module = net,
            .fn = forward_of(net),
            .example_inputs = {randn({2, 3, 6, 6}, 0)},
            .options = spec({{{0, Dim("batch", 2, 16)}}}),
            .valid_inputs = {{randn({5, 3, 6, 6}, 1)}},
        });
  }

  {
    auto net = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
        std::make_shared<nn::Conv2d>(3, 4, std::vector<int64_t>{3, 3},
                                     nn::Conv2d::Options{.padding = {1, 1}}),
        std::make_shared<nn::BatchNorm2d>(4), std::make_shared<nn::ReLU>()});
    net->eval();
    const Dim size("size", 4, 64);
    add(cases,
        {
            .name = "conv_dynamic_image_size",
            .tags = {"module", "dynamic-shape"},
            .description =
                "Conv2d, BatchNorm2d (eval mode: running statistics) and ReLU over images whose "
                "batch and square spatial size are dynamic; one Dim `size` on dims 2 and 3 "
                "declares the image square, and the padded 3x3 convolution keeps it, so the "
                "output is [N, 4, size, size]. Non-square images are refused.",
            .module = net,
            .fn = forward_of(net),
            .example_inputs = {randn({2, 3, 8, 8}, 0)},
            .options = spec({{{0, Dim("batch", 2, 16)}, {2, size}, {3, size}}}),
            .valid_inputs = {{randn({3, 3, 5, 5}, 1)}, {randn({2, 3, 17, 17}, 2)}},
            .invalid_inputs = {{randn({2, 3, 8, 9}, 3)}, {randn({2, 3, 3, 3}, 4)}},
        });
  }

  {
    auto attention = std::make_shared<nn::MultiheadAttention>(16, 4, 0.0, true,
                                                              /*batch_first=*/true);
    attention->eval();
    add(cases,
        {
            .name = "multihead_attention_dynamic_sequence",
            .tags = {"module", "dynamic-shape", "attention"},
            .description =
                "nn::MultiheadAttention (batch_first) as self-attention over a dynamic batch and "
                "sequence length: the head split reshapes with symbolic sizes and the [T, T] "
                "attention weights follow T, so one program serves every length.",
            .module = attention,
            .fn = forward_of(attention),
            .example_inputs = {randn({2, 7, 16}, 0)},
            .options = spec({{{0, Dim("batch")}, {1, Dim("seq")}}}),
            .valid_inputs = {{randn({3, 2, 16}, 1)}, {randn({2, 19, 16}, 2)}},
            .invalid_inputs = {{randn({2, 7, 8}, 3)}},
        });
  }

  {
    auto embedding = std::make_shared<nn::Embedding>(10, 4);
    auto ids = [](int64_t n, int64_t t) {
      std::vector<int64_t> v(static_cast<size_t>(n * t));
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>((i * 7) % 10);
      return from_vector(v, {n, t});
    };
    add(cases,
        {
            .name = "embedding_dynamic_sequence",
            .tags = {"module", "dynamic-shape"},
            .description = "An Embedding lookup of int64 ids [N, T] with both dims dynamic: the "
                           "ids' dtype is part of the contract (float ids are refused), and the "
                           "output [N, T, 4] follows the ids' shape.",
            .module = embedding,
            .fn = forward_of(embedding),
            .example_inputs = {ids(2, 5)},
            .options = spec({{{0, Dim("batch")}, {1, Dim("seq")}}}),
            .valid_inputs = {{ids(3, 2)}, {ids(2, 13)}},
            .invalid_inputs = {{randn({2, 5}, 0)}},
        });
  }

  {
    auto linear = std::make_shared<nn::Linear>(3, 2);
    add(cases,
        {
            .name = "output_parameter",
            .tags = {"module", "outputs"},
            .description = "A program may return a module's parameter as well as computed values: "
                           "the output names the parameter's graph input, and run() returns the "
                           "value stored with the program.",
            .module = linear,
            .fn = adapt([linear](const Tensor& x) {
              return std::make_tuple(linear->forward(x), linear->weight);
            }),
            .example_inputs = {randn({4, 3}, 0)},
            .options = spec({{{0, Dim("batch")}}}),
            .valid_inputs = {{randn({2, 3}, 1)}},
        });
  }
}

}  // namespace xport::exportdb
