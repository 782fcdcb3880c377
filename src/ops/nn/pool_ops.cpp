// 2-D pooling: max (with and without indices), average, adaptive average, and their gradients.
#include <tuple>
#include <utility>

#include "kernels/cpu/pool.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_util.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

// The `int[2]` argument `name`; the dispatcher has already repeated a single value.
std::pair<int64_t, int64_t> int_pair(const OpArgs& args, const char* name) {
  const std::vector<int64_t> v = args.ints(name);
  XPORT_CHECK(v.size() == 2, InvalidInput, args.name(), ": ", name,
              " must be a single int or a tuple of two ints, got ", v.size(), " values");
  return {v[0], v[1]};
}

// kernel_size, stride (empty means kernel_size), padding, and, when the op has one,
// dilation (without: none, i.e. 1).
cpu::Pool2d read_pool(const OpArgs& args) {
  cpu::Pool2d p{};
  std::tie(p.kernel_h, p.kernel_w) = int_pair(args, "kernel_size");
  if (args.ints("stride").empty()) {
    p.stride_h = p.kernel_h;
    p.stride_w = p.kernel_w;
  } else {
    std::tie(p.stride_h, p.stride_w) = int_pair(args, "stride");
  }
  std::tie(p.pad_h, p.pad_w) = int_pair(args, "padding");
  if (args.op().arg_position("dilation") >= 0)
    std::tie(p.dilation_h, p.dilation_w) = int_pair(args, "dilation");
  return p;
}

// The same for a kernel, whose lists the meta function checked; an empty `dilation` is none.
cpu::Pool2d read_pool(const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride,
                      const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation) {
  const std::vector<int64_t>& s = stride.empty() ? kernel_size : stride;
  cpu::Pool2d p{.kernel_h = kernel_size[0],
                .kernel_w = kernel_size[1],
                .stride_h = s[0],
                .stride_w = s[1],
                .pad_h = padding[0],
                .pad_w = padding[1]};
  if (!dilation.empty()) {
    p.dilation_h = dilation[0];
    p.dilation_w = dilation[1];
  }
  return p;
}

void check_pool_input_dims(const OpArgs& args, const Tensor& self) {
  XPORT_CHECK(self.dim() == 3 || self.dim() == 4, InvalidInput, args.name(),
              ": expected a 3-D [C, H, W] or 4-D [N, C, H, W] input, got ", self.dim(), " dims ",
              shape_str(self.sizes()));
}

// The output of a 2-D pool with window `p`: validates like ATen's
// pool2d_shape_check.
std::vector<SymInt> pool_output_sizes(const OpArgs& args, const Tensor& self, const cpu::Pool2d& p,
                                      bool ceil_mode) {
  check_pool_input_dims(args, self);
  XPORT_CHECK(p.kernel_h > 0 && p.kernel_w > 0, InvalidInput, args.name(),
              ": kernel_size must be greater than zero, got (", p.kernel_h, ", ", p.kernel_w, ")");
  XPORT_CHECK(p.stride_h > 0 && p.stride_w > 0, InvalidInput, args.name(),
              ": stride must be greater than zero, got (", p.stride_h, ", ", p.stride_w, ")");
  XPORT_CHECK(p.dilation_h > 0 && p.dilation_w > 0, InvalidInput, args.name(),
              ": dilation must be greater than zero, got (", p.dilation_h, ", ", p.dilation_w, ")");
  XPORT_CHECK(p.pad_h >= 0 && p.pad_w >= 0, InvalidInput, args.name(),
              ": padding must be non-negative, got (", p.pad_h, ", ", p.pad_w, ")");
  XPORT_CHECK(p.pad_h <= p.kernel_h / 2 && p.pad_w <= p.kernel_w / 2, InvalidInput, args.name(),
              ": padding must be at most half of kernel_size, got padding (", p.pad_h, ", ",
              p.pad_w, ") for kernel_size (", p.kernel_h, ", ", p.kernel_w, ")");
  const int64_t d = self.dim();
  for (int64_t i = d - 3; i < d; ++i) {
    XPORT_CHECK(!static_cast<bool>(self.size(i) == 0), InvalidInput, args.name(),
                ": expected non-zero channel, height and width (only the batch "
                "dim may be 0), got ",
                shape_str(self.sizes()));
  }
  const SymInt oh =
      pooled_size(self.size(d - 2), p.kernel_h, p.pad_h, p.stride_h, p.dilation_h, ceil_mode);
  const SymInt ow =
      pooled_size(self.size(d - 1), p.kernel_w, p.pad_w, p.stride_w, p.dilation_w, ceil_mode);
  XPORT_CHECK(static_cast<bool>(oh >= 1) && static_cast<bool>(ow >= 1), InvalidInput, args.name(),
              ": input ", shape_str(self.sizes()),
              " is too small for the window: the output would be ", oh, "x", ow,
              "; use a smaller kernel_size, or padding");
  std::vector<SymInt> sizes(self.sizes().begin(), self.sizes().end() - 2);
  sizes.push_back(oh);
  sizes.push_back(ow);
  return sizes;
}

void check_floating(const OpArgs& args, const Tensor& self) {
  XPORT_CHECK(is_floating(self.dtype()), InvalidInput, args.name(),
              ": needs a floating point input, got ", dtype_name(self.dtype()),
              "; convert it with .to(DType::Float32)");
}

// max_pool2d[_with_indices](self, kernel_size, stride, padding, dilation,
// ceil_mode)
std::vector<TensorMeta> max_pool_meta(const OpArgs& args, bool with_indices) {
  return max_pool_results(args,
                          pool_output_sizes(args, args.tensor("self"), read_pool(args),
                                            args.boolean("ceil_mode")),
                          with_indices);
}

std::vector<TensorMeta> avg_pool_meta(const OpArgs& args) {
  return avg_pool_result(args, pool_output_sizes(args, args.tensor("self"), read_pool(args),
                                                 args.boolean("ceil_mode")));
}

std::vector<TensorMeta> adaptive_avg_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  check_pool_input_dims(args, self);
  check_floating(args, self);
  const std::vector<SymInt>& out_size = args.sym_ints("output_size");
  XPORT_CHECK(out_size.size() == 2, InvalidInput, args.name(),
              ": output_size must have 2 values, got ", out_size.size());
  const int64_t d = self.dim();
  for (int64_t i = d - 2; i < d; ++i) {
    XPORT_CHECK(!static_cast<bool>(self.size(i) == 0), InvalidInput, args.name(),
                ": expected non-zero height and width, got input ", shape_str(self.sizes()));
  }
  for (const SymInt& s : out_size) {
    XPORT_CHECK(static_cast<bool>(s >= 0), InvalidInput, args.name(),
                ": output_size must be non-negative, got ", shape_str(out_size));
  }
  std::vector<SymInt> sizes(self.sizes().begin(), self.sizes().end() - 2);
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

}  // namespace

std::vector<TensorMeta> max_pool_results(const OpArgs& args, const std::vector<SymInt>& sizes,
                                         bool with_indices) {
  const Tensor& self = args.tensor("self");
  XPORT_CHECK(self.dtype() != DType::Bool, InvalidInput, args.name(),
              ": needs a numeric input, got bool; convert it with .to(DType::UInt8)");
  std::vector<TensorMeta> metas{contiguous_meta(sizes, self.dtype())};
  if (with_indices) metas.push_back(contiguous_meta(sizes, DType::Int64));
  return metas;
}

std::vector<TensorMeta> avg_pool_result(const OpArgs& args, const std::vector<SymInt>& sizes) {
  const Tensor& self = args.tensor("self");
  XPORT_CHECK(is_floating(self.dtype()) || self.dtype() == DType::Int64, InvalidInput, args.name(),
              ": needs a floating point or int64 input, got ", dtype_name(self.dtype()));
  const auto divisor = args.optional_int("divisor_override");
  XPORT_CHECK(!divisor || *divisor != 0, InvalidInput, args.name(),
              ": divisor_override must not be zero; pass None to divide by the window size");
  return {contiguous_meta(sizes, self.dtype())};
}

SymInt pooled_size(const SymInt& in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                   bool ceil_mode) {
  SymInt out =
      (in + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0)) / stride + 1;
  if (ceil_mode && static_cast<bool>((out - 1) * stride >= in + pad)) out = out - 1;
  return out;
}

void max_pool2d_with_indices_out(const Tensor& self, const std::vector<int64_t>& kernel_size,
                                 const std::vector<int64_t>& stride,
                                 const std::vector<int64_t>& padding,
                                 const std::vector<int64_t>& dilation, bool, const Tensor& out,
                                 const Tensor& indices) {
  cpu::max_pool2d_out(self, read_pool(kernel_size, stride, padding, dilation), out, indices);
}
void max_pool2d_out(const Tensor& self, const std::vector<int64_t>& kernel_size,
                    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                    const std::vector<int64_t>& dilation, bool, const Tensor& out) {
  cpu::max_pool2d_out(self, read_pool(kernel_size, stride, padding, dilation), out, Tensor());
}
void avg_pool2d_out(const Tensor& self, const std::vector<int64_t>& kernel_size,
                    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding, bool,
                    bool count_include_pad, std::optional<int64_t> divisor_override,
                    const Tensor& out) {
  cpu::avg_pool2d_out(self, read_pool(kernel_size, stride, padding, {}), count_include_pad,
                      divisor_override, out);
}
void _adaptive_avg_pool2d_out(const Tensor& self, const std::vector<int64_t>&,
                              const Tensor& out) {
  cpu::adaptive_avg_pool2d_out(self, out);
}

void max_pool2d_with_indices_backward_out(const Tensor& grad_output, const Tensor&,
                                          const std::vector<int64_t>&,
                                          const std::vector<int64_t>&,
                                          const std::vector<int64_t>&,
                                          const std::vector<int64_t>&, bool,
                                          const Tensor& indices, const Tensor& grad_input) {
  cpu::max_pool2d_backward_out(grad_output, indices, grad_input);
}
void avg_pool2d_backward_out(const Tensor& grad_output, const Tensor&,
                             const std::vector<int64_t>& kernel_size,
                             const std::vector<int64_t>& stride,
                             const std::vector<int64_t>& padding, bool, bool count_include_pad,
                             std::optional<int64_t> divisor_override, const Tensor& grad_input) {
  cpu::avg_pool2d_backward_out(grad_output, read_pool(kernel_size, stride, padding, {}),
                               count_include_pad, divisor_override, grad_input);
}
void _adaptive_avg_pool2d_backward_out(const Tensor& grad_output, const Tensor&,
                                       const Tensor& grad_input) {
  cpu::adaptive_avg_pool2d_backward_out(grad_output, grad_input);
}

// The gradients of the pools (training graphs).
void register_pool_backward_ops() {
  register_op({
      .schema = "aten::max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, "
                "int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, "
                "bool ceil_mode, Tensor indices) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            const std::vector<SymInt> pooled =
                pool_output_sizes(args, self, read_pool(args), args.boolean("ceil_mode"));
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
                args, pool_output_sizes(args, self, read_pool(args), args.boolean("ceil_mode")));
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
            check_pool_input_dims(args, self);
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

void register_pool_ops() {
  register_pool_backward_ops();
  const OpDef& with_indices = register_op({
      .schema = "aten::max_pool2d_with_indices(Tensor self, int[2] "
                "kernel_size, int[2] stride=[], "
                "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> "
                "(Tensor, Tensor)",
      .meta = [](const OpArgs& args) { return max_pool_meta(args, true); },
      .kernel = XPORT_OP_KERNEL(max_pool2d_with_indices_out),
      .core = true,
  });
  register_op({
      .schema = "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], "
                "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> "
                "Tensor",
      .meta = [](const OpArgs& args) { return max_pool_meta(args, false); },
      .kernel = XPORT_OP_KERNEL(max_pool2d_out),
      .decomp =
          [&with_indices](const OpArgs& args) {
            // An explicit stride: the dispatcher refuses an empty list for
            // `int[2]`.
            std::vector<Value> values = args.values();
            if (args.ints("stride").empty()) values[args.index("stride")] = args["kernel_size"];
            return std::vector<Tensor>{call_tensors(with_indices, std::move(values))[0]};
          },
  });
  register_op({
      .schema = "aten::avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], "
                "int[2] padding=0, bool ceil_mode=False, bool "
                "count_include_pad=True, "
                "int? divisor_override=None) -> Tensor",
      .meta = avg_pool_meta,
      .kernel = XPORT_OP_KERNEL(avg_pool2d_out),
      .core = true,
  });
  const OpDef& adaptive = register_op({
      .schema = "aten::_adaptive_avg_pool2d(Tensor self, SymInt[2] "
                "output_size) -> Tensor",
      .meta = adaptive_avg_meta,
      .kernel = XPORT_OP_KERNEL(_adaptive_avg_pool2d_out),
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

}  // namespace xport::ops
