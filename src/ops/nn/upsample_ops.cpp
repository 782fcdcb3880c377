// Spatial upsampling of [N, C, H, W] tensors: nearest and bilinear, to an output size or by
// scale factors (the `.vec` overloads F.interpolate exports).
#include <cmath>

#include "kernels/cpu/upsample.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_util.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

// `size` scaled by `factor`, rounded down as ATen does. An integral factor keeps a symbolic size
// symbolic; another needs the size's value, which specialises it.
SymInt scaled_size(const SymInt& size, double factor) {
  if (factor == std::floor(factor)) return size * static_cast<int64_t>(factor);
  return static_cast<int64_t>(std::floor(static_cast<double>(static_cast<int64_t>(size)) * factor));
}

// input [N, C, H, W] with C, H and W non-empty; exactly one of output_size (2 sizes) and
// scale_factors (2 positive factors).
std::vector<TensorMeta> upsample_meta(const OpArgs& args, bool floating_only) {
  const Tensor& input = args.tensor("input");
  XPORT_CHECK(input.dim() == 4, InvalidInput, args.name(),
              ": expected a 4-d input [N, C, H, W], got ", input.dim(), " dims");
  for (int64_t d = 1; d < 4; ++d) {
    XPORT_CHECK(static_cast<bool>(input.size(d) != 0), InvalidInput, args.name(),
                ": C, H and W must be non-empty, got sizes ", shape_str(input.sizes()));
  }
  XPORT_CHECK(is_floating(input.dtype()) || (!floating_only && input.dtype() == DType::UInt8),
              InvalidInput, args.name(), ": not supported for ", dtype_name(input.dtype()),
              " tensors; convert with .to(DType::Float32)");
  const Value& size = args["output_size"];
  const Value& factors = args["scale_factors"];
  XPORT_CHECK(size.is_none() != factors.is_none(), InvalidInput, args.name(),
              ": give exactly one of output_size and scale_factors");
  std::vector<SymInt> sizes = {input.size(0), input.size(1)};
  if (!size.is_none()) {
    const std::vector<SymInt>& hw = size.to_sym_int_list();
    XPORT_CHECK(hw.size() == 2, InvalidInput, args.name(), ": output_size needs 2 sizes, got ",
                hw.size());
    for (const SymInt& s : hw) {
      XPORT_CHECK(static_cast<bool>(s > 0), InvalidInput, args.name(),
                  ": output sizes must be positive, got ", shape_str(hw));
      sizes.push_back(s);
    }
  } else {
    const std::vector<double>& f = factors.to_double_list();
    XPORT_CHECK(f.size() == 2, InvalidInput, args.name(), ": scale_factors needs 2 factors, got ",
                f.size());
    for (int64_t d = 0; d < 2; ++d) {
      XPORT_CHECK(f[d] > 0, InvalidInput, args.name(), ": scale factors must be positive, got ",
                  f[d]);
      const SymInt s = scaled_size(input.size(2 + d), f[d]);
      XPORT_CHECK(static_cast<bool>(s > 0), InvalidInput, args.name(), ": scaling ",
                  input.size(2 + d), " by ", f[d], " leaves no output");
      sizes.push_back(s);
    }
  }
  return {contiguous_meta(std::move(sizes), input.dtype())};
}

std::optional<double> factor(const std::optional<std::vector<double>>& factors, size_t d) {
  return factors ? std::optional<double>((*factors)[d]) : std::nullopt;
}

}  // namespace

// The kernels take out sized by the meta function, so output_size is not read again.
void upsample_nearest2d_vec_out(const Tensor& input,
                                const std::optional<std::vector<int64_t>>& /*output_size*/,
                                const std::optional<std::vector<double>>& scale_factors,
                                const Tensor& out) {
  cpu::upsample_nearest2d_out(input, factor(scale_factors, 0), factor(scale_factors, 1), out);
}

void upsample_bilinear2d_vec_out(const Tensor& input,
                                 const std::optional<std::vector<int64_t>>& /*output_size*/,
                                 bool align_corners,
                                 const std::optional<std::vector<double>>& scale_factors,
                                 const Tensor& out) {
  cpu::upsample_bilinear2d_out(input, align_corners, factor(scale_factors, 0),
                               factor(scale_factors, 1), out);
}

void register_upsample_ops() {
  register_op({
      .schema = "aten::upsample_nearest2d.vec(Tensor input, SymInt[]? output_size, "
                "float[]? scale_factors) -> Tensor",
      .meta = [](const OpArgs& args) { return upsample_meta(args, /*floating_only=*/false); },
      .kernel = XPORT_OP_KERNEL(upsample_nearest2d_vec_out),
      .core = true,
  });
  register_op({
      .schema = "aten::upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, "
                "bool align_corners, float[]? scale_factors) -> Tensor",
      .meta = [](const OpArgs& args) { return upsample_meta(args, /*floating_only=*/true); },
      .kernel = XPORT_OP_KERNEL(upsample_bilinear2d_vec_out),
      .core = true,
  });
}

}  // namespace xport::ops
