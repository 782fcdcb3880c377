// Pooling over 2 or 3 dims: max (with and without indices), average, adaptive average, and the
// 2-D gradients; one meta function and one kernel path for each, over N pooled dims.
#include <array>
#include <string>
#include <utility>

#include "kernels/cpu/pool.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_util.h"
#include "ops/typed_kernel.h"
#include "xport/ops/derivative.h"
#include "xport/ops/functions.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

// The names of the input's layouts in messages: [C, H, W] / [N, C, H, W] or with D.
template <size_t N>
const char* spatial_names() {
  return N == 2 ? "H, W" : "D, H, W";
}

// The `int[N]` argument `name`; the dispatcher has already repeated a single value.
template <size_t N>
std::array<int64_t, N> int_array(const std::vector<int64_t>& v) {
  std::array<int64_t, N> a{};
  for (size_t i = 0; i < N; ++i) a[i] = v[i];
  return a;
}

template <size_t N>
std::array<int64_t, N> int_array(const OpArgs& args, const char* name) {
  const std::vector<int64_t> v = args.ints(name);
  XPORT_CHECK(v.size() == N, InvalidInput, args.name(), ": ", name, " must be a single int or a ",
              "tuple of ", N, " ints, got ", v.size(), " values");
  return int_array<N>(v);
}

// For messages.
template <size_t N>
std::vector<SymInt> list(const std::array<int64_t, N>& a) {
  return std::vector<SymInt>(a.begin(), a.end());
}

// kernel_size, stride (empty means kernel_size), padding, and, when the op has one, dilation
// (without: none, i.e. 1).
template <size_t N>
cpu::PoolWindow<N> read_pool(const OpArgs& args) {
  cpu::PoolWindow<N> p;
  p.kernel = int_array<N>(args, "kernel_size");
  p.stride = args.ints("stride").empty() ? p.kernel : int_array<N>(args, "stride");
  p.pad = int_array<N>(args, "padding");
  if (args.op().arg_position("dilation") >= 0) p.dilation = int_array<N>(args, "dilation");
  return p;
}

template <size_t N>
void check_input_dims(const OpArgs& args, const Tensor& self) {
  const auto n = static_cast<int64_t>(N);
  XPORT_CHECK(self.dim() == n + 1 || self.dim() == n + 2, InvalidInput, args.name(),
              ": expected a ", n + 1, "-D [C, ", spatial_names<N>(), "] or ", n + 2, "-D [N, C, ",
              spatial_names<N>(), "] input, got ", self.dim(), " dims ", shape_str(self.sizes()));
}

void check_floating(const OpArgs& args, const Tensor& self) {
  XPORT_CHECK(is_floating(self.dtype()), InvalidInput, args.name(),
              ": needs a floating point input, got ", dtype_name(self.dtype()),
              "; convert it with .to(DType::Float32)");
}

// ATen's pooling_output_shape: the number of windows along one dim, floor (or ceil) of the
// window count; in ceil mode the last window must start inside the input or its left padding.
SymInt pooled_size(const SymInt& in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                   bool ceil_mode) {
  SymInt out =
      (in + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0)) / stride + 1;
  if (ceil_mode && static_cast<bool>((out - 1) * stride >= in + pad)) out = out - 1;
  return out;
}

// The output of an N-d pool with window `p`, validated like ATen's pool2d/pool3d_shape_check.
template <size_t N>
std::vector<SymInt> pool_output_sizes(const OpArgs& args, const Tensor& self,
                                      const cpu::PoolWindow<N>& p, bool ceil_mode) {
  check_input_dims<N>(args, self);
  for (size_t d = 0; d < N; ++d) {
    XPORT_CHECK(p.kernel[d] > 0 && p.stride[d] > 0 && p.dilation[d] > 0, InvalidInput,
                args.name(), ": kernel_size, stride and dilation must be greater than zero, got ",
                shape_str(list(p.kernel)), ", ", shape_str(list(p.stride)), " and ",
                shape_str(list(p.dilation)));
    XPORT_CHECK(p.pad[d] >= 0 && p.pad[d] <= p.kernel[d] / 2, InvalidInput, args.name(),
                ": padding must be non-negative and at most half of kernel_size, got padding ",
                shape_str(list(p.pad)), " for kernel_size ", shape_str(list(p.kernel)));
  }
  const int64_t n = self.dim();
  const auto first = n - static_cast<int64_t>(N);
  for (int64_t i = first - 1; i < n; ++i) {
    XPORT_CHECK(!static_cast<bool>(self.size(i) == 0), InvalidInput, args.name(),
                ": expected non-zero channel and ", spatial_names<N>(),
                " (only the batch dim may be 0), got ", shape_str(self.sizes()));
  }
  std::vector<SymInt> sizes(self.sizes().begin(), self.sizes().begin() + first);
  for (size_t d = 0; d < N; ++d) {
    const SymInt o = pooled_size(self.size(first + static_cast<int64_t>(d)), p.kernel[d],
                                 p.pad[d], p.stride[d], p.dilation[d], ceil_mode);
    XPORT_CHECK(static_cast<bool>(o >= 1), InvalidInput, args.name(), ": input ",
                shape_str(self.sizes()), " is too small for the window ", shape_str(list(p.kernel)),
                "; use a smaller kernel_size, or padding");
    sizes.push_back(o);
  }
  return sizes;
}

// max_pool{2,3}d[_with_indices](self, kernel_size, stride, padding, dilation, ceil_mode)
template <size_t N>
std::vector<TensorMeta> max_pool_meta(const OpArgs& args, bool with_indices) {
  const Tensor& self = args.tensor("self");
  const std::vector<SymInt> sizes =
      pool_output_sizes<N>(args, self, read_pool<N>(args), args.boolean("ceil_mode"));
  XPORT_CHECK(self.dtype() != DType::Bool, InvalidInput, args.name(),
              ": needs a numeric input, got bool; convert it with .to(DType::UInt8)");
  std::vector<TensorMeta> metas{contiguous_meta(sizes, self.dtype())};
  if (with_indices) metas.push_back(contiguous_meta(sizes, DType::Int64));
  return metas;
}

template <size_t N>
std::vector<TensorMeta> avg_pool_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const std::vector<SymInt> sizes =
      pool_output_sizes<N>(args, self, read_pool<N>(args), args.boolean("ceil_mode"));
  XPORT_CHECK(is_floating(self.dtype()) || self.dtype() == DType::Int64, InvalidInput, args.name(),
              ": needs a floating point or int64 input, got ", dtype_name(self.dtype()));
  const auto divisor = args.optional_int("divisor_override");
  XPORT_CHECK(!divisor || *divisor != 0, InvalidInput, args.name(),
              ": divisor_override must not be zero; pass None to divide by the window size");
  return {contiguous_meta(sizes, self.dtype())};
}

template <size_t N>
std::vector<TensorMeta> adaptive_avg_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  check_input_dims<N>(args, self);
  check_floating(args, self);
  const std::vector<SymInt>& out_size = args.sym_ints("output_size");
  XPORT_CHECK(out_size.size() == N, InvalidInput, args.name(), ": output_size must have ", N,
              " values, got ", out_size.size());
  const int64_t n = self.dim();
  for (int64_t i = n - static_cast<int64_t>(N); i < n; ++i) {
    XPORT_CHECK(!static_cast<bool>(self.size(i) == 0), InvalidInput, args.name(),
                ": expected non-zero ", spatial_names<N>(), ", got input ",
                shape_str(self.sizes()));
  }
  for (const SymInt& s : out_size) {
    XPORT_CHECK(static_cast<bool>(s >= 0), InvalidInput, args.name(),
                ": output_size must be non-negative, got ", shape_str(out_size));
  }
  std::vector<SymInt> sizes(self.sizes().begin(), self.sizes().end() - N);
  sizes.insert(sizes.end(), out_size.begin(), out_size.end());
  return {contiguous_meta(sizes, self.dtype())};
}

// A pool's backward: grad_input has self's shape; grad_output must have the shape the forward
// pool gives (`expected`).
std::vector<TensorMeta> pool_backward_meta(const OpArgs& args,
                                           const std::vector<SymInt>& expected) {
  const Tensor& grad = args.tensor("grad_output");
  const Tensor& self = args.tensor("self");
  check_floating(args, grad);
  bool same = grad.dim() == static_cast<int64_t>(expected.size());
  for (int64_t d = 0; same && d < grad.dim(); ++d)
    same = static_cast<bool>(grad.sizes()[d] == expected[d]);
  XPORT_CHECK(same, InvalidInput, args.name(), ": grad_output ", shape_str(grad.sizes()),
              " does not have the pooled shape ", shape_str(expected), " of self ",
              shape_str(self.sizes()));
  return {contiguous_meta(self.sizes(), grad.dtype())};
}

// max_poolNd's decomposition: max_poolNd_with_indices' values, with an explicit stride (the
// dispatcher refuses an empty list for `int[N]`).
std::vector<Tensor> max_pool_values(const OpDef& with_indices, const OpArgs& args) {
  std::vector<Value> values = args.values();
  if (args.ints("stride").empty()) values[args.index("stride")] = args["kernel_size"];
  return std::vector<Tensor>{call_tensors(with_indices, std::move(values))[0]};
}

}  // namespace

void max_pool2d_with_indices_out(const Tensor& self, const std::vector<int64_t>& kernel_size,
                                 const std::vector<int64_t>& stride,
                                 const std::vector<int64_t>& padding,
                                 const std::vector<int64_t>& dilation, bool, const Tensor& out,
                                 const Tensor& indices) {
  cpu::max_pool_out<2>(self, cpu::pool_window<2>(kernel_size, stride, padding, dilation), out,
                       indices);
}
void max_pool2d_out(const Tensor& self, const std::vector<int64_t>& kernel_size,
                    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                    const std::vector<int64_t>& dilation, bool, const Tensor& out) {
  cpu::max_pool_out<2>(self, cpu::pool_window<2>(kernel_size, stride, padding, dilation), out,
                       Tensor());
}
void max_pool3d_with_indices_out(const Tensor& self, const std::vector<int64_t>& kernel_size,
                                 const std::vector<int64_t>& stride,
                                 const std::vector<int64_t>& padding,
                                 const std::vector<int64_t>& dilation, bool, const Tensor& out,
                                 const Tensor& indices) {
  cpu::max_pool_out<3>(self, cpu::pool_window<3>(kernel_size, stride, padding, dilation), out,
                       indices);
}
void avg_pool2d_out(const Tensor& self, const std::vector<int64_t>& kernel_size,
                    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding, bool,
                    bool count_include_pad, std::optional<int64_t> divisor_override,
                    const Tensor& out) {
  cpu::avg_pool_out<2>(self, cpu::pool_window<2>(kernel_size, stride, padding, {}),
                       count_include_pad, divisor_override, out);
}
void avg_pool3d_out(const Tensor& self, const std::vector<int64_t>& kernel_size,
                    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding, bool,
                    bool count_include_pad, std::optional<int64_t> divisor_override,
                    const Tensor& out) {
  cpu::avg_pool_out<3>(self, cpu::pool_window<3>(kernel_size, stride, padding, {}),
                       count_include_pad, divisor_override, out);
}
void _adaptive_avg_pool2d_out(const Tensor& self, const std::vector<int64_t>&,
                              const Tensor& out) {
  cpu::adaptive_avg_pool_out<2>(self, out);
}
void _adaptive_avg_pool3d_out(const Tensor& self, const std::vector<int64_t>&,
                              const Tensor& out) {
  cpu::adaptive_avg_pool_out<3>(self, out);
}

void max_pool2d_with_indices_backward_out(const Tensor& grad_output, const Tensor&,
                                          const std::vector<int64_t>&,
                                          const std::vector<int64_t>&,
                                          const std::vector<int64_t>&,
                                          const std::vector<int64_t>&, bool,
                                          const Tensor& indices, const Tensor& grad_input) {
  cpu::max_pool_backward_out<2>(grad_output, indices, grad_input);
}
void avg_pool2d_backward_out(const Tensor& grad_output, const Tensor&,
                             const std::vector<int64_t>& kernel_size,
                             const std::vector<int64_t>& stride,
                             const std::vector<int64_t>& padding, bool, bool count_include_pad,
                             std::optional<int64_t> divisor_override, const Tensor& grad_input) {
  cpu::avg_pool_backward_out<2>(grad_output, cpu::pool_window<2>(kernel_size, stride, padding, {}),
                                count_include_pad, divisor_override, grad_input);
}
void _adaptive_avg_pool2d_backward_out(const Tensor& grad_output, const Tensor&,
                                       const Tensor& grad_input) {
  cpu::adaptive_avg_pool_backward_out<2>(grad_output, grad_input);
}

// The gradients of the pools (training graphs).
namespace {

void register_pool_backward_ops() {
  register_op({
      .schema = "aten::max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, "
                "int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, "
                "bool ceil_mode, Tensor indices) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            const std::vector<SymInt> pooled =
                pool_output_sizes<2>(args, self, read_pool<2>(args), args.boolean("ceil_mode"));
            const Tensor& indices = args.tensor("indices");
            XPORT_CHECK(indices.dtype() == DType::Int64, InvalidInput, args.name(),
                        ": indices must be int64, got ", dtype_name(indices.dtype()));
            return pool_backward_meta(args, pooled);
          },
      .kernel = XPORT_OP_KERNEL(max_pool2d_with_indices_backward_out),
      .core = true,
  });
  register_op({
      .schema = "aten::avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, "
                "int[2] stride, int[2] padding, bool ceil_mode, bool count_include_pad, "
                "int? divisor_override) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            return pool_backward_meta(
                args, pool_output_sizes<2>(args, self, read_pool<2>(args), args.boolean("ceil_mode")));
          },
      .kernel = XPORT_OP_KERNEL(avg_pool2d_backward_out),
      .core = true,
  });
  register_op({
      .schema = "aten::_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            const Tensor& grad = args.tensor("grad_output");
            check_input_dims<2>(args, self);
            XPORT_CHECK(grad.dim() == self.dim(), InvalidInput, args.name(),
                        ": grad_output ", shape_str(grad.sizes()), " and self ",
                        shape_str(self.sizes()), " must have the same number of dims");
            std::vector<SymInt> pooled(self.sizes().begin(), self.sizes().end() - 2);
            pooled.push_back(grad.sizes()[grad.dim() - 2]);
            pooled.push_back(grad.sizes().back());
            return pool_backward_meta(args, pooled);
          },
      .kernel = XPORT_OP_KERNEL(_adaptive_avg_pool2d_backward_out),
      .core = true,
  });
}

namespace {

// The stride the pool took: an empty `stride` means the kernel size (the backward ops take it
// spelled out).
Value pool_stride(const OpArgs& a) {
  return a.ints("stride").empty() ? a["kernel_size"] : a["stride"];
}

void max_pool2d_derivative(Backward& b) {
  const OpArgs& a = b.args();
  b.set("self", call1(XPORT_OP("aten::max_pool2d_with_indices_backward"),
                      {b.grad(), a["self"], a["kernel_size"], pool_stride(a), a["padding"],
                       a["dilation"], a["ceil_mode"], b.result(1)}));
}

void avg_pool2d_derivative(Backward& b) {
  const OpArgs& a = b.args();
  b.set("self", call1(XPORT_OP("aten::avg_pool2d_backward"),
                      {b.grad(), a["self"], a["kernel_size"], pool_stride(a), a["padding"],
                       a["ceil_mode"], a["count_include_pad"], a["divisor_override"]}));
}

}  // namespace

void register_pool2d_ops() {
  const OpDef& with_indices = register_op({
      .schema = "aten::max_pool2d_with_indices(Tensor self, int[2] "
                "kernel_size, int[2] stride=[], "
                "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> "
                "(Tensor, Tensor)",
      .meta = [](const OpArgs& args) { return max_pool_meta<2>(args, true); },
      .kernel = XPORT_OP_KERNEL(max_pool2d_with_indices_out),
      .derivative = max_pool2d_derivative,
      .core = true,
  });
  register_op({
      .schema = "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], "
                "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> "
                "Tensor",
      .meta = [](const OpArgs& args) { return max_pool_meta<2>(args, false); },
      .kernel = XPORT_OP_KERNEL(max_pool2d_out),
      .decomp = [&with_indices](const OpArgs& args) { return max_pool_values(with_indices, args); },
  });
  register_op({
      .schema = "aten::avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], "
                "int[2] padding=0, bool ceil_mode=False, bool "
                "count_include_pad=True, "
                "int? divisor_override=None) -> Tensor",
      .meta = avg_pool_meta<2>,
      .kernel = XPORT_OP_KERNEL(avg_pool2d_out),
      .derivative = avg_pool2d_derivative,
      .core = true,
  });
  const OpDef& adaptive = register_op({
      .schema = "aten::_adaptive_avg_pool2d(Tensor self, SymInt[2] "
                "output_size) -> Tensor",
      .meta = adaptive_avg_meta<2>,
      .kernel = XPORT_OP_KERNEL(_adaptive_avg_pool2d_out),
      .derivative =
          [](Backward& b) {
            b.set("self", call1(XPORT_OP("aten::_adaptive_avg_pool2d_backward"),
                                {b.grad(), b.args()["self"]}));
          },
      .core = true,
  });
  register_op({
      .schema = "aten::adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) "
                "-> Tensor",
      .decomp =
          [&adaptive](const OpArgs& args) {
            for (const SymInt& s : args.sym_ints("output_size")) {
              XPORT_CHECK(static_cast<bool>(s >= 0), InvalidInput, args.name(),
                          ": output_size must be non-negative, got ",
                          shape_str(args.sym_ints("output_size")));
            }
            return call_tensors(adaptive, args.values());
          },
  });
  // 1-D: the 2-D pool of a height-1 image, [N, C, 1, L] (or [C, 1, L] unbatched).
  register_op({
      .schema = "aten::adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor",
      .decomp =
          [&adaptive](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            const std::vector<SymInt>& size = args.sym_ints("output_size");
            XPORT_CHECK(self.dim() == 2 || self.dim() == 3, InvalidInput, args.name(),
                        ": expected a 2-D or 3-D input, got shape ", shape_str(self.sizes()));
            XPORT_CHECK(size.size() == 1 && static_cast<bool>(size[0] >= 0), InvalidInput,
                        args.name(), ": output_size must be one non-negative size, got ",
                        shape_str(size));
            const Tensor pooled =
                call1(adaptive, {self.unsqueeze(-2), std::vector<SymInt>{SymInt(1), size[0]}});
            return std::vector<Tensor>{pooled.squeeze(-2)};
          },
  });
}

void register_pool3d_ops() {
  const OpDef& with_indices = register_op({
      .schema = "aten::max_pool3d_with_indices(Tensor self, int[3] kernel_size, "
                "int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) "
                "-> (Tensor, Tensor)",
      .meta = [](const OpArgs& args) { return max_pool_meta<3>(args, true); },
      .kernel = XPORT_OP_KERNEL(max_pool3d_with_indices_out),
      .core = true,
  });
  register_op({
      .schema = "aten::max_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], "
                "int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) -> Tensor",
      .decomp = [&with_indices](const OpArgs& args) { return max_pool_values(with_indices, args); },
  });
  register_op({
      .schema = "aten::avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], "
                "int[3] padding=0, bool ceil_mode=False, bool count_include_pad=True, "
                "int? divisor_override=None) -> Tensor",
      .meta = avg_pool_meta<3>,
      .kernel = XPORT_OP_KERNEL(avg_pool3d_out),
      .core = true,
  });
  const OpDef& adaptive = register_op({
      .schema = "aten::_adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor",
      .meta = adaptive_avg_meta<3>,
      .kernel = XPORT_OP_KERNEL(_adaptive_avg_pool3d_out),
      .core = true,
  });
  register_op({
      .schema = "aten::adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor",
      .decomp = [&adaptive](const OpArgs& args) { return call_tensors(adaptive, args.values()); },
  });
}

}  // namespace

void register_pool_ops() {
  register_pool_backward_ops();
  register_pool2d_ops();
  register_pool3d_ops();
}

}  // namespace xport::ops
