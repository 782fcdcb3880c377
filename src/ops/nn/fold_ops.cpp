// col2im (F.fold): sliding-window columns summed back into an image.
#include "kernels/cpu/fold.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_util.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

kernels::cpu::Fold read_fold(const std::vector<int64_t>& kernel_size,
                             const std::vector<int64_t>& dilation,
                             const std::vector<int64_t>& padding,
                             const std::vector<int64_t>& stride) {
  return {{kernel_size[0], kernel_size[1]},
          {dilation[0], dilation[1]},
          {padding[0], padding[1]},
          {stride[0], stride[1]}};
}

std::vector<TensorMeta> col2im_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const std::vector<SymInt>& size = args.sym_ints("output_size");
  std::vector<int64_t> lists[4];
  const char* const names[4] = {"kernel_size", "dilation", "padding", "stride"};
  for (int i = 0; i < 4; ++i) {
    lists[i] = args.ints(names[i]);
    XPORT_CHECK(lists[i].size() == 2, InvalidInput, args.name(), ": ", names[i],
                " must have 2 values, got ", lists[i].size());
  }
  const kernels::cpu::Fold f = read_fold(lists[0], lists[1], lists[2], lists[3]);
  XPORT_CHECK(size.size() == 2, InvalidInput, args.name(),
              ": output_size must have 2 values, got ", shape_str(size));
  for (int d = 0; d < 2; ++d) {
    XPORT_CHECK(f.kernel[d] > 0 && f.dilation[d] > 0 && f.stride[d] > 0 && f.padding[d] >= 0,
                InvalidInput, args.name(),
                ": kernel_size, dilation and stride must be positive and padding non-negative");
  }
  XPORT_CHECK(is_floating(self.dtype()), InvalidInput, args.name(),
              ": needs a floating point input, got ", dtype_name(self.dtype()));
  XPORT_CHECK((self.dim() == 2 || self.dim() == 3) && !static_cast<bool>(self.numel() == 0),
              InvalidInput, args.name(),
              ": expected a non-empty 2-D or 3-D input [(N,) C * kh * kw, L], got ",
              shape_str(self.sizes()));
  const SymInt& rows = self.sizes()[self.dim() - 2];
  const int64_t window = f.kernel[0] * f.kernel[1];
  XPORT_CHECK(static_cast<bool>(rows % window == 0), InvalidInput, args.name(),
              ": expected the input's dim ", self.dim() - 2, " (", rows,
              ") to be divisible by the product of kernel_size (", window, ")");
  SymInt blocks = 1;
  for (int d = 0; d < 2; ++d) {
    blocks = blocks * ((size[d] + 2 * f.padding[d] - f.dilation[d] * (f.kernel[d] - 1) - 1) /
                           f.stride[d] +
                       1);
  }
  XPORT_CHECK(static_cast<bool>(self.sizes().back() == blocks), InvalidInput, args.name(),
              ": given output_size ", shape_str(size),
              " and the window, expected the input's last dim to be ", blocks, ", got ",
              self.sizes().back());
  std::vector<SymInt> sizes;
  if (self.dim() == 3) sizes.push_back(self.sizes()[0]);
  sizes.push_back(rows / window);
  sizes.insert(sizes.end(), size.begin(), size.end());
  return {contiguous_meta(std::move(sizes), self.dtype())};
}

}  // namespace

void col2im_out(const Tensor& self, const std::vector<int64_t>&,
                const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& dilation,
                const std::vector<int64_t>& padding, const std::vector<int64_t>& stride,
                const Tensor& out) {
  const kernels::cpu::Fold f = read_fold(kernel_size, dilation, padding, stride);
  // Unbatched: a batch of one, through views of the same storage.
  if (self.dim() == 2) {
    kernels::cpu::col2im_out(self.unsqueeze(0), f, out.unsqueeze(0));
  } else {
    kernels::cpu::col2im_out(self, f, out);
  }
}

void register_fold_ops() {
  register_op({
      .schema = "aten::col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, "
                "int[2] dilation, int[2] padding, int[2] stride) -> Tensor",
      .meta = col2im_meta,
      .kernel = XPORT_OP_KERNEL(col2im_out),
      .core = true,
  });
}

}  // namespace xport::ops
