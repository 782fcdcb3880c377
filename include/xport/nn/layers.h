#pragma once
/// \file The standard layers, with PyTorch's constructor arguments and parameter names, so a
/// PyTorch state dict loads unchanged. Weights are initialised as PyTorch initialises them
/// (same distributions, not the same numbers), from a seed that load_state_dict overwrites.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "xport/nn/module.h"

namespace xport::nn {

/// y = x W^T + b; weight [out_features, in_features], bias [out_features].
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& input) override;
  Tensor weight, bias;  // bias undefined when bias = false
};

/// 2-D convolution over [N, C, H, W]; weight [out, in / groups, kH, kW].
class Conv2d : public Module {
 public:
  struct Options {
    std::vector<int64_t> stride = {1, 1};
    std::vector<int64_t> padding = {0, 0};
    std::vector<int64_t> dilation = {1, 1};
    int64_t groups = 1;
    bool bias = true;
  };
  Conv2d(int64_t in_channels, int64_t out_channels, std::vector<int64_t> kernel_size,
         Options options);
  Conv2d(int64_t in_channels, int64_t out_channels, std::vector<int64_t> kernel_size)
      : Conv2d(in_channels, out_channels, std::move(kernel_size), Options{}) {}
  Tensor forward(const Tensor& input) override;
  Tensor weight, bias;
  Options options;
};

/// Batch normalization over dim 1 of [N, C, H, W]. In training mode it normalizes with the
/// batch's statistics and updates running_mean / running_var (unbiased) / num_batches_tracked in
/// place; in eval mode it uses the running statistics.
class BatchNorm2d : public Module {
 public:
  explicit BatchNorm2d(int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                       bool affine = true);
  Tensor forward(const Tensor& input) override;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
  double eps, momentum;
};

/// Normalizes over the trailing `normalized_shape` dims; weight and bias have that shape.
class LayerNorm : public Module {
 public:
  explicit LayerNorm(std::vector<int64_t> normalized_shape, double eps = 1e-5,
                     bool elementwise_affine = true);
  Tensor forward(const Tensor& input) override;
  Tensor weight, bias;
  std::vector<int64_t> normalized_shape;
  double eps;
};

/// Rows of weight [num_embeddings, embedding_dim] looked up by integer ids.
class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim,
            std::optional<int64_t> padding_idx = std::nullopt);
  Tensor forward(const Tensor& ids) override;
  Tensor weight;
  std::optional<int64_t> padding_idx;
};

/// Zeroes elements with probability p in training mode (scaling the rest by 1 / (1 - p)), from a
/// generator seeded by `seed` that advances every call; the identity in eval mode.
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5);
  Tensor forward(const Tensor& input) override;
  double p;
};

class ReLU : public Module {
 public:
  ReLU() : Module("ReLU") {}
  Tensor forward(const Tensor& input) override;
};

/// approximate: "none" (erf) or "tanh".
class GELU : public Module {
 public:
  explicit GELU(std::string approximate = "none")
      : Module("GELU"), approximate(std::move(approximate)) {}
  Tensor forward(const Tensor& input) override;
  std::string approximate;
};

class SiLU : public Module {
 public:
  SiLU() : Module("SiLU") {}
  Tensor forward(const Tensor& input) override;
};

class Identity : public Module {
 public:
  Identity() : Module("Identity") {}
  Tensor forward(const Tensor& input) override;
};

/// Runs its modules in order, named "0", "1", ...
class Sequential : public Module {
 public:
  Sequential() : Module("Sequential") {}
  explicit Sequential(std::vector<std::shared_ptr<Module>> modules);
  /// Appends a module under the next index and returns it.
  template <class T>
  std::shared_ptr<T> push_back(std::shared_ptr<T> module) {
    return register_module(std::to_string(named_children().size()), std::move(module));
  }
  Tensor forward(const Tensor& input) override;
  size_t size() const { return named_children().size(); }
  const std::shared_ptr<Module>& operator[](size_t i) const;
};

/// Holds modules named "0", "1", ... without a forward of its own.
class ModuleList : public Module {
 public:
  ModuleList() : Module("ModuleList") {}
  template <class T>
  std::shared_ptr<T> push_back(std::shared_ptr<T> module) {
    return register_module(std::to_string(named_children().size()), std::move(module));
  }
  size_t size() const { return named_children().size(); }
  const std::shared_ptr<Module>& operator[](size_t i) const;
  /// The i-th module as a T (InvalidInput if it is another type).
  template <class T>
  std::shared_ptr<T> at(size_t i) const {
    auto m = std::dynamic_pointer_cast<T>((*this)[i]);
    XPORT_CHECK(m != nullptr, InvalidInput, "ModuleList: module ", i, " is a ",
                (*this)[i]->type_name(), ", not the type asked for");
    return m;
  }
};

/// Holds modules by name, in insertion order.
class ModuleDict : public Module {
 public:
  ModuleDict() : Module("ModuleDict") {}
  template <class T>
  std::shared_ptr<T> insert(const std::string& key, std::shared_ptr<T> module) {
    return register_module(key, std::move(module));
  }
  bool contains(const std::string& key) const;
  /// The module under `key` (InvalidInput naming the keys when absent).
  const std::shared_ptr<Module>& operator[](const std::string& key) const;
  size_t size() const { return named_children().size(); }
};

/// torch.nn.MultiheadAttention (kdim = vdim = embed_dim): in_proj_weight [3E, E], in_proj_bias
/// [3E], out_proj (Linear). Inputs are [L, N, E] (or [N, L, E] with batch_first).
class MultiheadAttention : public Module {
 public:
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, double dropout = 0.0, bool bias = true,
                     bool batch_first = false);
  struct Output {
    Tensor output;        // like query
    Tensor attn_weights;  // [N, L, S] (averaged) or [N, heads, L, S]; undefined if not needed
  };
  /// key_padding_mask [N, S]: true (or -inf when float) marks keys to ignore. attn_mask [L, S] or
  /// [N * heads, L, S]: true marks pairs that may not attend; a float mask is added to the scores.
  Output forward(const Tensor& query, const Tensor& key, const Tensor& value,
                 const Tensor& key_padding_mask = {}, bool need_weights = true,
                 const Tensor& attn_mask = {}, bool average_attn_weights = true);
  /// Self-attention with no masks.
  Tensor forward(const Tensor& x) override;

  Tensor in_proj_weight, in_proj_bias;
  std::shared_ptr<Linear> out_proj;
  int64_t embed_dim, num_heads;
  double dropout;
  bool batch_first;

 private:
};

/// torch.nn.TransformerEncoderLayer: self_attn, linear1, dropout, linear2, norm1, norm2, dropout1,
/// dropout2; post-norm by default, pre-norm with norm_first.
class TransformerEncoderLayer : public Module {
 public:
  struct Options {
    int64_t dim_feedforward = 2048;
    double dropout = 0.1;
    std::string activation = "relu";  // or "gelu"
    double layer_norm_eps = 1e-5;
    bool batch_first = false;
    bool norm_first = false;
  };
  TransformerEncoderLayer(int64_t d_model, int64_t nhead, Options options);
  TransformerEncoderLayer(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayer(d_model, nhead, Options{}) {}
  /// src_mask [S, S] and src_key_padding_mask [N, S] as in MultiheadAttention.
  Tensor forward(const Tensor& src, const Tensor& src_mask,
                 const Tensor& src_key_padding_mask = {});
  Tensor forward(const Tensor& src) override { return forward(src, Tensor(), Tensor()); }

  std::shared_ptr<MultiheadAttention> self_attn;
  std::shared_ptr<Linear> linear1, linear2;
  std::shared_ptr<Dropout> dropout, dropout1, dropout2;
  std::shared_ptr<LayerNorm> norm1, norm2;
  Options options;

 private:
  Tensor feed_forward(const Tensor& x);
};

}  // namespace xport::nn
