// Pooling: max and average pooling, adaptive average pooling, and their gradients.
#include <algorithm>
#include <functional>

#include "onnx/lowering.h"

namespace xport::onnx {
namespace {

// ---- average pooling as matrices ---------------------------------------------------------------
// An average pool's windows along one dim are independent of the other dims', and so are its
// divisors (the product of each dim's window length, or a given divisor): the pool is the input
// contracted with one [out, in] matrix per spatial dim, row i holding 1 / length over window i.
// Its gradient is the same contraction with the matrices transposed. This covers what ONNX's
// pooling ops cannot say: windows of varying size (adaptive pooling to any size) and
// divisor_override; it needs static spatial sizes, as the matrices are constants.

struct Windows {
  int64_t in = 0, out = 0;
  std::vector<double> weights;  // [out, in], row-major
};

// Which input positions a dim's windows average, and with what weight (one dim's share).
using WindowsFn =
    std::function<Windows(NodeLowering&, size_t spatial, size_t d, int64_t in, int64_t out)>;

// PyTorch's adaptive windows: output i averages [floor(i * in / out), ceil((i + 1) * in / out)).
Windows adaptive_windows(NodeLowering&, size_t, size_t, int64_t in, int64_t out) {
  Windows w{in, out, std::vector<double>(static_cast<size_t>(in * out), 0.0)};
  for (int64_t i = 0; i < out; ++i) {
    const int64_t begin = i * in / out, end = ((i + 1) * in + out - 1) / out;
    for (int64_t j = begin; j < end; ++j) {
      w.weights[static_cast<size_t>(i * in + j)] = 1.0 / static_cast<double>(end - begin);
    }
  }
  return w;
}

// avg_pool's windows along dim `d`, as PyTorch's kernel bounds and counts them: a window starts
// at i * stride - padding; its length for the divisor counts the padding (count_include_pad) but
// not what lies past it (ceil_mode's last window); divisor_override replaces the divisor and is
// applied to the first dim's matrix only.
Windows avg_windows(NodeLowering& n, size_t spatial, size_t d, int64_t in, int64_t out) {
  const int64_t k = per_dim(n, "kernel_size", spatial).at(d);
  const std::vector<int64_t> strides = per_dim(n, "stride", spatial);
  const int64_t s = strides.empty() ? k : strides.at(d);
  const int64_t p = per_dim(n, "padding", spatial).at(d);
  const auto divisor = n.optional_integer("divisor_override");
  Windows w{in, out, std::vector<double>(static_cast<size_t>(in * out), 0.0)};
  for (int64_t i = 0; i < out; ++i) {
    const int64_t start = i * s - p, end = std::min(start + k, in + p);
    const int64_t first = std::max<int64_t>(start, 0), last = std::min(end, in);
    double weight = 1.0;
    if (divisor) {
      weight = d == 0 ? 1.0 / static_cast<double>(*divisor) : 1.0;
    } else {
      weight = 1.0 / static_cast<double>(n.flag("count_include_pad") ? end - start : last - first);
    }
    for (int64_t j = first; j < last; ++j) w.weights[static_cast<size_t>(i * in + j)] = weight;
  }
  return w;
}

// The static sizes of the last `spatial` dims of `sizes` (UnsupportedOp when one is symbolic).
std::vector<int64_t> static_spatial(NodeLowering& n, const std::vector<sym::ExprPtr>& sizes,
                                    size_t spatial) {
  std::vector<int64_t> out;
  for (size_t d = sizes.size() - spatial; d < sizes.size(); ++d) {
    const auto v = sym::as_int(sizes[d]);
    if (!v) n.refuse("a symbolic spatial size (" + sym::str(sizes[d]) + ")");
    out.push_back(*v);
  }
  return out;
}

// `x` ([lead..., from...]) contracted over each of its last from.size() dims with the matrices
// `matrices` ([to_d, from_d]): [lead..., to...]. The last dim goes first; each step views x as
// [lead..., from_0..from_d, rest] and multiplies from the left.
std::string contract_spatial(GraphBuilder& g, std::string x, DType t,
                             const std::vector<sym::ExprPtr>& lead,
                             const std::vector<int64_t>& from, const std::vector<int64_t>& to,
                             const std::vector<std::vector<double>>& matrices) {
  const size_t spatial = from.size();
  int64_t rest = 1;
  for (size_t d = spatial; d-- > 0;) {
    std::vector<sym::ExprPtr> view = lead;
    for (size_t e = 0; e <= d; ++e) view.push_back(sym::integer(from[e]));
    view.push_back(sym::integer(rest));
    const std::string m = g.constant(t, matrices[d], {to[d], from[d]});
    x = g.add("MatMul", {m, g.add("Reshape", {x, g.shape(view)})});
    rest *= to[d];
  }
  std::vector<sym::ExprPtr> sizes = lead;
  for (int64_t v : to) sizes.push_back(sym::integer(v));
  return g.add("Reshape", {x, g.shape(sizes)});
}

std::vector<double> transposed(const Windows& w) {
  std::vector<double> t(w.weights.size());
  for (int64_t i = 0; i < w.out; ++i) {
    for (int64_t j = 0; j < w.in; ++j) {
      t[static_cast<size_t>(j * w.out + i)] = w.weights[static_cast<size_t>(i * w.in + j)];
    }
  }
  return t;
}

// An average pool of argument `input` over its last `spatial` dims, by the matrices `windows`
// gives, to the node's result sizes.
void separable_pool(NodeLowering& n, const char* input, size_t spatial, const WindowsFn& windows) {
  const ir::TensorSpec& x = n.spec(input);
  const std::vector<int64_t> in = static_spatial(n, x.sizes, spatial);
  const std::vector<int64_t> out = static_spatial(n, n.out_spec().sizes, spatial);
  std::vector<std::vector<double>> matrices;
  for (size_t d = 0; d < spatial; ++d) {
    matrices.push_back(windows(n, spatial, d, in[d], out[d]).weights);
  }
  const std::vector<sym::ExprPtr> lead(x.sizes.begin(),
                                       x.sizes.end() - static_cast<std::ptrdiff_t>(spatial));
  const DType t = n.out_dtype();
  n.set(n.g.add("Identity",
                {contract_spatial(n.g, n.tensor_as(input, t), t, lead, in, out, matrices)}, {},
                n.node().name()));
}

// The gradient of such a pool: grad_output contracted with the transposed matrices, to the
// input's sizes.
void separable_pool_backward(NodeLowering& n, size_t spatial, const WindowsFn& windows) {
  const ir::TensorSpec& self = n.spec("self");
  const std::vector<int64_t> in = static_spatial(n, self.sizes, spatial);
  const std::vector<int64_t> out = static_spatial(n, n.spec("grad_output").sizes, spatial);
  std::vector<std::vector<double>> matrices;
  for (size_t d = 0; d < spatial; ++d) {
    matrices.push_back(transposed(windows(n, spatial, d, in[d], out[d])));
  }
  const std::vector<sym::ExprPtr> lead(self.sizes.begin(),
                                       self.sizes.end() - static_cast<std::ptrdiff_t>(spatial));
  const DType t = n.out_dtype();
  n.set(n.g.add("Identity", {contract_spatial(n.g, n.tensor_as("grad_output", t), t, lead, out,
                                              in, matrices)},
                {}, n.node().name()));
}

// Pooling wants a batch dim: an input of `spatial` + 1 dims (C, H, W) gets one for the op.
std::string batched(NodeLowering& n, const std::string& x, size_t rank, size_t spatial) {
  return rank == spatial + 1 ? n.g.add("Unsqueeze", {x, n.g.ints({0})}) : x;
}

// ONNX Runtime's pooling with ceil_mode keeps a last window that starts in the padding, where
// PyTorch drops it: the result is cut to the node's sizes.
std::string cropped(NodeLowering& n, const std::string& y, size_t spatial) {
  if (!n.flag("ceil_mode")) return y;
  const std::vector<sym::ExprPtr>& out = n.out_spec().sizes;
  const std::vector<sym::ExprPtr> sizes(out.end() - static_cast<std::ptrdiff_t>(spatial),
                                        out.end());
  std::vector<int64_t> axes;
  for (size_t d = 0; d < spatial; ++d) axes.push_back(static_cast<int64_t>(2 + d));
  return n.g.add("Slice", {y, n.g.ints(std::vector<int64_t>(spatial, 0)), n.g.shape(sizes),
                           n.g.ints(axes)});
}

// The pooled value as the node's result: without the batch dim batched() added.
void unbatched(NodeLowering& n, const std::string& y, size_t rank, size_t spatial) {
  if (rank == spatial + 1) return n.emit("Reshape", {y, n.g.shape(n.out_spec().sizes)});
  n.set(y);
}

// max_pool2d / max_pool3d_with_indices over `spatial` dims.
LowerFn max_pool(size_t spatial) {
  return [spatial](NodeLowering& n) {
    const ir::TensorSpec& self = n.spec("self");
    const size_t rank = self.sizes.size();
    const std::vector<int64_t> kernel = per_dim(n, "kernel_size", spatial);
    std::vector<int64_t> stride = per_dim(n, "stride", spatial);
    if (stride.empty()) stride = kernel;
    GraphBuilder& g = n.g;
    // The indices only when read: without them ONNX Runtime takes its faster pooling kernels.
    std::vector<std::string> outs{g.model().fresh(n.node().name())};
    if (!n.unused(1)) outs.push_back(g.model().fresh(n.node().name() + "_indices"));
    g.add_to("MaxPool", {batched(n, n.tensor("self"), rank, spatial)}, outs,
             {attr("kernel_shape", kernel), attr("strides", stride),
              attr("pads", twice(per_dim(n, "padding", spatial))),
              attr("dilations", per_dim(n, "dilation", spatial)),
              attr("ceil_mode", static_cast<int64_t>(n.flag("ceil_mode")))});
    const bool unbatch = rank == spatial + 1;
    const std::string out_shape = unbatch ? g.shape(n.out_spec().sizes) : std::string();
    const std::string y = cropped(n, outs[0], spatial);
    n.set(0, unbatch ? g.add("Reshape", {y, out_shape}) : y);
    if (outs.size() == 1) return;
    // ONNX's index counts over the whole tensor, PyTorch's within each plane (volume).
    sym::ExprPtr plane = sym::integer(1);
    for (size_t d = rank - spatial; d < rank; ++d) plane = sym::mul(plane, self.sizes[d]);
    const std::string within =
        g.add("Mod", {cropped(n, outs[1], spatial), g.sym_int(plane)}, {attr("fmod", int64_t{0})});
    n.set(1, unbatch ? g.add("Reshape", {within, out_shape}) : within);
  };
}

LowerFn avg_pool(size_t spatial) {
  return [spatial](NodeLowering& n) {
    // ONNX's AveragePool has no divisor to give: the windows' matrices (above) take one.
    if (!n.is_none("divisor_override")) return separable_pool(n, "self", spatial, avg_windows);
    const size_t rank = n.spec("self").sizes.size();
    std::vector<int64_t> kernel = per_dim(n, "kernel_size", spatial);
    std::vector<int64_t> stride = per_dim(n, "stride", spatial);
    if (stride.empty()) stride = kernel;
    const std::vector<int64_t> padding = per_dim(n, "padding", spatial);
    // A window wider than an unpadded dim with one output (PyTorch allows it, under ceil_mode)
    // averages the whole dim: the same window clipped to it, which OpenVINO also takes.
    for (size_t d = 0; d < spatial; ++d) {
      const std::optional<int64_t> in = sym::as_int(n.spec("self").sizes[rank - spatial + d]);
      const std::optional<int64_t> out = sym::as_int(n.out_spec().sizes[rank - spatial + d]);
      if (in && out == 1 && padding.at(d) == 0 && kernel.at(d) > *in) kernel[d] = *in;
    }
    const std::string y = n.g.add(
        "AveragePool", {batched(n, n.tensor("self"), rank, spatial)},
        {attr("kernel_shape", kernel), attr("strides", stride), attr("pads", twice(padding)),
         attr("ceil_mode", static_cast<int64_t>(n.flag("ceil_mode"))),
         attr("count_include_pad", static_cast<int64_t>(n.flag("count_include_pad")))});
    unbatched(n, cropped(n, y, spatial), rank, spatial);
  };
}


// Adaptive average pooling to all-ones is a global average; to a size that divides the input's,
// a plain average pool; to other sizes (windows of varying size) the windows' matrices.
LowerFn adaptive_avg_pool(size_t spatial) {
  return [spatial](NodeLowering& n) {
    const ir::TensorSpec& self = n.spec("self");
    const size_t rank = self.sizes.size();
    const std::vector<int64_t> out = n.integers("output_size");
    const std::string x = batched(n, n.tensor("self"), rank, spatial);
    if (out == std::vector<int64_t>(spatial, 1)) {
      return unbatched(n, n.g.add("GlobalAveragePool", {x}), rank, spatial);
    }
    std::vector<int64_t> kernel;
    for (size_t d = 0; d < spatial; ++d) {
      const auto in = sym::as_int(self.sizes[rank - spatial + d]);
      if (!in || out[d] <= 0 || *in % out[d] != 0) {
        return separable_pool(n, "self", spatial, adaptive_windows);
      }
      kernel.push_back(*in / out[d]);
    }
    const std::string y =
        n.g.add("AveragePool", {x}, {attr("kernel_shape", kernel), attr("strides", kernel)});
    unbatched(n, y, rank, spatial);
  };
}

// max_pool2d_with_indices_backward: each output's gradient added at the input position its
// index names within its plane.
void max_pool_backward(NodeLowering& n) {
  GraphBuilder& g = n.g;
  const DType t = n.out_dtype();
  auto planes = [](const std::vector<sym::ExprPtr>& sizes) {
    std::vector<sym::ExprPtr> flat(sizes.begin(), sizes.end() - 2);
    flat.push_back(sym::mul(sizes[sizes.size() - 2], sizes.back()));
    return flat;
  };
  const std::vector<sym::ExprPtr>& self = n.spec("self").sizes;
  const std::string grad_shape = g.shape(planes(n.spec("grad_output").sizes));
  const std::string zeros = g.add("Expand", {g.scalar(t, 0), g.shape(planes(self))});
  const std::string sum = g.add(
      "ScatterElements",
      {zeros, g.add("Reshape", {n.tensor_as("indices", DType::Int64), grad_shape}),
       g.add("Reshape", {n.tensor_as("grad_output", t), grad_shape})},
      {attr("axis", static_cast<int64_t>(self.size() - 2)), attr("reduction", std::string("add"))});
  n.emit("Reshape", {sum, g.shape(self)});
}

}  // namespace

LoweringList pooling_lowerings() {
  return {
      {"aten::max_pool2d_with_indices", max_pool(2)},
      {"aten::max_pool3d_with_indices", max_pool(3)},
      {"aten::avg_pool2d", avg_pool(2)},
      {"aten::avg_pool3d", avg_pool(3)},
      {"aten::_adaptive_avg_pool2d", adaptive_avg_pool(2)},
      {"aten::_adaptive_avg_pool3d", adaptive_avg_pool(3)},
      {"aten::max_pool2d_with_indices_backward", max_pool_backward},
      {"aten::avg_pool2d_backward",
       [](NodeLowering& n) { separable_pool_backward(n, 2, avg_windows); }},
      {"aten::_adaptive_avg_pool2d_backward",
       [](NodeLowering& n) { separable_pool_backward(n, 2, adaptive_windows); }},
  };
}

}  // namespace xport::onnx
