// grid_sampler_2d (F.grid_sample on 4-D inputs): bilinear, nearest or bicubic sampling with
// zeros, border or reflection padding.
#include "kernels/cpu/grid_sample.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_util.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

std::vector<TensorMeta> grid_sampler_meta(const OpArgs& args) {
  const Tensor& input = args.tensor("input");
  const Tensor& grid = args.tensor("grid");
  XPORT_CHECK(input.dtype() == DType::Float32 || input.dtype() == DType::Float64, InvalidInput,
              args.name(), ": needs a float32 or float64 input, got ", dtype_name(input.dtype()));
  XPORT_CHECK(grid.dtype() == input.dtype(), InvalidInput, args.name(),
              ": expected grid to have the input's dtype ", dtype_name(input.dtype()), ", got ",
              dtype_name(grid.dtype()));
  XPORT_CHECK(input.dim() == 4 && grid.dim() == 4, InvalidInput, args.name(),
              ": expected a 4-D input [N, C, H, W] and a 4-D grid [N, H_out, W_out, 2], got ",
              shape_str(input.sizes()), " and ", shape_str(grid.sizes()));
  XPORT_CHECK(static_cast<bool>(grid.sizes()[3] == 2), InvalidInput, args.name(),
              ": the grid's last dim holds (x, y): expected size 2, got grid ",
              shape_str(grid.sizes()));
  XPORT_CHECK(static_cast<bool>(input.sizes()[0] == grid.sizes()[0]), InvalidInput, args.name(),
              ": expected grid and input to have the same batch size, got input ",
              shape_str(input.sizes()), " and grid ", shape_str(grid.sizes()));
  const bool empty_image =
      static_cast<bool>(input.sizes()[2] == 0) || static_cast<bool>(input.sizes()[3] == 0);
  XPORT_CHECK(!empty_image, InvalidInput, args.name(), ": expected a non-empty input image, got ",
              shape_str(input.sizes()));
  const int64_t mode = args.integer("interpolation_mode");
  const int64_t padding = args.integer("padding_mode");
  XPORT_CHECK(mode >= 0 && mode <= 2, InvalidInput, args.name(),
              ": interpolation_mode is 0 (bilinear), 1 (nearest) or 2 (bicubic), got ", mode);
  XPORT_CHECK(padding >= 0 && padding <= 2, InvalidInput, args.name(),
              ": padding_mode is 0 (zeros), 1 (border) or 2 (reflection), got ", padding);
  return {contiguous_meta({input.sizes()[0], input.sizes()[1], grid.sizes()[1], grid.sizes()[2]},
                          input.dtype())};
}

}  // namespace

void grid_sampler_2d_out(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                         int64_t padding_mode, bool align_corners, const Tensor& out) {
  kernels::cpu::grid_sampler_2d_out(
      input, grid, static_cast<kernels::cpu::GridInterpolation>(interpolation_mode),
      static_cast<kernels::cpu::GridPadding>(padding_mode), align_corners, out);
}

void register_grid_sample_ops() {
  register_op({
      .schema = "aten::grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, "
                "int padding_mode, bool align_corners) -> Tensor",
      .meta = grid_sampler_meta,
      .kernel = XPORT_OP_KERNEL(grid_sampler_2d_out),
      .core = true,
  });
}

}  // namespace xport::ops
