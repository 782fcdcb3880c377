// 3-D pooling: max (with and without indices), average, adaptive average.
#include "kernels/cpu/pool3d.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_util.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

// An `int[3]` argument, which the dispatcher has already repeated from a single value.
std::array<int64_t, 3> triple(const std::vector<int64_t>& v) { return {v[0], v[1], v[2]}; }

std::array<int64_t, 3> triple(const OpArgs& args, const char* name) {
  const std::vector<int64_t> v = args.ints(name);
  XPORT_CHECK(v.size() == 3, InvalidInput, args.name(), ": ", name,
              " must be a single int or a tuple of three ints, got ", v.size(), " values");
  return triple(v);
}

// For messages.
std::vector<SymInt> list(const std::array<int64_t, 3>& a) {
  return {SymInt(a[0]), SymInt(a[1]), SymInt(a[2])};
}

// kernel_size, stride (empty means kernel_size), padding, and dilation where the op has one.
cpu::Pool3d read_pool(const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& stride,
                      const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation) {
  cpu::Pool3d p{};
  p.kernel = triple(kernel_size);
  p.stride = triple(stride.empty() ? kernel_size : stride);
  p.pad = triple(padding);
  if (!dilation.empty()) p.dilation = triple(dilation);
  return p;
}

cpu::Pool3d read_pool(const OpArgs& args) {
  cpu::Pool3d p{};
  p.kernel = triple(args, "kernel_size");
  p.stride = args.ints("stride").empty() ? p.kernel : triple(args, "stride");
  p.pad = triple(args, "padding");
  if (args.op().arg_position("dilation") >= 0) p.dilation = triple(args, "dilation");
  return p;
}

void check_input_dims(const OpArgs& args, const Tensor& self) {
  XPORT_CHECK(self.dim() == 4 || self.dim() == 5, InvalidInput, args.name(),
              ": expected a 4-D [C, D, H, W] or 5-D [N, C, D, H, W] input, got ", self.dim(),
              " dims ", shape_str(self.sizes()));
}

// The output of a 3-D pool with window `p`, validated like ATen's pool3d_shape_check.
std::vector<SymInt> pool_output_sizes(const OpArgs& args, const Tensor& self, const cpu::Pool3d& p,
                                      bool ceil_mode) {
  check_input_dims(args, self);
  for (int d = 0; d < 3; ++d) {
    XPORT_CHECK(p.kernel[d] > 0 && p.stride[d] > 0 && p.dilation[d] > 0, InvalidInput,
                args.name(), ": kernel_size, stride and dilation must be greater than zero, got ",
                shape_str(list(p.kernel)), ", ", shape_str(list(p.stride)), " and ",
                shape_str(list(p.dilation)));
    XPORT_CHECK(p.pad[d] >= 0 && p.pad[d] <= p.kernel[d] / 2, InvalidInput, args.name(),
                ": padding must be non-negative and at most half of kernel_size, got padding ",
                shape_str(list(p.pad)), " for kernel_size ", shape_str(list(p.kernel)));
  }
  const int64_t n = self.dim();
  for (int64_t i = n - 4; i < n; ++i) {
    XPORT_CHECK(!static_cast<bool>(self.size(i) == 0), InvalidInput, args.name(),
                ": expected non-zero channel, depth, height and width (only the batch dim may be "
                "0), got ",
                shape_str(self.sizes()));
  }
  std::vector<SymInt> sizes(self.sizes().begin(), self.sizes().end() - 3);
  for (int d = 0; d < 3; ++d) {
    const SymInt o = pooled_size(self.size(n - 3 + d), p.kernel[d], p.pad[d], p.stride[d],
                                 p.dilation[d], ceil_mode);
    XPORT_CHECK(static_cast<bool>(o >= 1), InvalidInput, args.name(), ": input ",
                shape_str(self.sizes()), " is too small for the window ", shape_str(list(p.kernel)),
                "; use a smaller kernel_size, or padding");
    sizes.push_back(o);
  }
  return sizes;
}

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
  check_input_dims(args, self);
  XPORT_CHECK(is_floating(self.dtype()), InvalidInput, args.name(),
              ": needs a floating point input, got ", dtype_name(self.dtype()),
              "; convert it with .to(DType::Float32)");
  const std::vector<SymInt>& out_size = args.sym_ints("output_size");
  XPORT_CHECK(out_size.size() == 3, InvalidInput, args.name(),
              ": output_size must have 3 values, got ", out_size.size());
  const int64_t n = self.dim();
  for (int64_t i = n - 3; i < n; ++i) {
    XPORT_CHECK(!static_cast<bool>(self.size(i) == 0), InvalidInput, args.name(),
                ": expected non-zero depth, height and width, got input ",
                shape_str(self.sizes()));
  }
  for (const SymInt& s : out_size) {
    XPORT_CHECK(static_cast<bool>(s >= 0), InvalidInput, args.name(),
                ": output_size must be non-negative, got ", shape_str(out_size));
  }
  std::vector<SymInt> sizes(self.sizes().begin(), self.sizes().end() - 3);
  sizes.insert(sizes.end(), out_size.begin(), out_size.end());
  return {contiguous_meta(sizes, self.dtype())};
}

}  // namespace

void max_pool3d_with_indices_out(const Tensor& self, const std::vector<int64_t>& kernel_size,
                                 const std::vector<int64_t>& stride,
                                 const std::vector<int64_t>& padding,
                                 const std::vector<int64_t>& dilation, bool, const Tensor& out,
                                 const Tensor& indices) {
  cpu::max_pool3d_out(self, read_pool(kernel_size, stride, padding, dilation), out, indices);
}
void avg_pool3d_out(const Tensor& self, const std::vector<int64_t>& kernel_size,
                    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding, bool,
                    bool count_include_pad, std::optional<int64_t> divisor_override,
                    const Tensor& out) {
  cpu::avg_pool3d_out(self, read_pool(kernel_size, stride, padding, {}), count_include_pad,
                      divisor_override, out);
}
void _adaptive_avg_pool3d_out(const Tensor& self, const std::vector<int64_t>&,
                              const Tensor& out) {
  cpu::adaptive_avg_pool3d_out(self, out);
}

void register_pool3d_ops() {
  const OpDef& with_indices = register_op({
      .schema = "aten::max_pool3d_with_indices(Tensor self, int[3] kernel_size, "
                "int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) "
                "-> (Tensor, Tensor)",
      .meta = [](const OpArgs& args) { return max_pool_meta(args, true); },
      .kernel = XPORT_OP_KERNEL(max_pool3d_with_indices_out),
      .core = true,
  });
  register_op({
      .schema = "aten::max_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], "
                "int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) -> Tensor",
      .decomp =
          [&with_indices](const OpArgs& args) {
            // An explicit stride, as max_pool2d's decomposition writes it.
            std::vector<Value> values = args.values();
            if (args.ints("stride").empty()) values[args.index("stride")] = args["kernel_size"];
            return std::vector<Tensor>{call_tensors(with_indices, std::move(values))[0]};
          },
  });
  register_op({
      .schema = "aten::avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], "
                "int[3] padding=0, bool ceil_mode=False, bool count_include_pad=True, "
                "int? divisor_override=None) -> Tensor",
      .meta = avg_pool_meta,
      .kernel = XPORT_OP_KERNEL(avg_pool3d_out),
      .core = true,
  });
  const OpDef& adaptive = register_op({
      .schema = "aten::_adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor",
      .meta = adaptive_avg_meta,
      .kernel = XPORT_OP_KERNEL(_adaptive_avg_pool3d_out),
      .core = true,
  });
  register_op({
      .schema = "aten::adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor",
      .decomp = [&adaptive](const OpArgs& args) { return call_tensors(adaptive, args.values()); },
  });
}

}  // namespace xport::ops
