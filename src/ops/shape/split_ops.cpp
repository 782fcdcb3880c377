// split, split_with_sizes, chunk, unbind: views of consecutive parts of a dim.
#include "ops/shape/shape_ops.h"
#include "xport/ops/derivative.h"
#include "xport/ops/functions.h"

namespace xport::ops {
namespace {

std::vector<TensorMeta> split_with_sizes_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  XPORT_CHECK(self.dim() > 0, InvalidInput, args.name(),
              ": expects at least a 1-dimensional tensor, got a 0-dim one");
  const int64_t dim = wrap_dim(args, args.integer("dim"), self.dim());
  const std::vector<SymInt>& parts = args.sym_ints("split_sizes");
  SymInt total = 0;
  for (const SymInt& s : parts) {
    XPORT_CHECK(static_cast<bool>(s >= 0), InvalidInput, args.name(),
                ": split_sizes must be non-negative, got ", shape_str(parts));
    total = total + s;
  }
  XPORT_CHECK(static_cast<bool>(total == self.sizes()[dim]), InvalidInput, args.name(),
              ": split_sizes ", shape_str(parts), " must sum exactly to ", self.sizes()[dim],
              " (the size of dim ", dim, ")");
  std::vector<TensorMeta> outs;
  SymInt start = 0;
  for (const SymInt& s : parts) {
    TensorMeta m;
    m.sizes = self.sizes();
    m.sizes[dim] = s;
    m.strides = self.strides();
    m.storage_offset = self.storage_offset() + start * self.strides()[dim];
    m.dtype = self.dtype();
    outs.push_back(std::move(m));
    start = start + s;
  }
  return outs;
}

// split's part sizes: split_size each, the last one smaller.
std::vector<SymInt> split_sizes(const OpArgs& args, const SymInt& size, const SymInt& split) {
  XPORT_CHECK(static_cast<bool>(split >= 0), InvalidInput, args.name(),
              ": split_size must be non-negative, got ", split);
  if (static_cast<bool>(size == 0)) return {SymInt(0)};
  XPORT_CHECK(!static_cast<bool>(split == 0), InvalidInput, args.name(),
              ": split_size can only be 0 if the dim's size is 0, but it is ", size);
  const int64_t count = static_cast<int64_t>((size + split - 1) / split);
  std::vector<SymInt> sizes(count, split);
  sizes.back() = size - split * (count - 1);
  return sizes;
}

// The `dim` argument of split.Tensor, chunk and unbind.int, wrapped; self must have a dim.
int64_t checked_dim(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  XPORT_CHECK(self.dim() > 0, InvalidInput, args.name(),
              ": expects at least a 1-dimensional tensor, got a 0-dim one");
  return wrap_dim(args, args.integer("dim"), self.dim());
}

}  // namespace

void register_split_ops() {
  register_op({
      .schema = "aten::split_with_sizes(Tensor(a -> *) self, SymInt[] "
                "split_sizes, int dim=0) "
                "-> Tensor(a)[]",
      .meta = split_with_sizes_meta,
      .derivative =
          [](Backward& b) {  // the parts' gradients put back side by side
            std::vector<Tensor> parts;
            for (size_t i = 0; i < b.args().sym_ints("split_sizes").size(); ++i) {
              parts.push_back(b.grad(i));
            }
            b.set("self", cat(parts, checked_dim(b.args())));
          },
      .core = true,
  });
  register_op({
      .schema = "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, "
                "int dim=0) -> Tensor(a)[]",
      .decomp =
          [](const OpArgs& args) {
            const int64_t dim = checked_dim(args);
            const Tensor& self = args.tensor("self");
            return call_tensors(
                XPORT_OP("aten::split_with_sizes"),
                {self, split_sizes(args, self.sizes()[dim], args.sym_int("split_size")), dim});
          },
  });
  register_op({
      .schema = "aten::chunk(Tensor(a -> *) self, int chunks, int dim=0) -> "
                "Tensor(a)[]",
      .decomp =
          [](const OpArgs& args) {
            const int64_t dim = checked_dim(args);
            const Tensor& self = args.tensor("self");
            const int64_t chunks = args.integer("chunks");
            XPORT_CHECK(chunks > 0, InvalidInput, args.name(),
                        ": chunks must be greater than 0, got ", chunks);
            const SymInt size = self.sizes()[dim];
            const SymInt split = (size + chunks - 1) / chunks;
            // An empty dim still gives `chunks` (empty) parts.
            const std::vector<SymInt> sizes = static_cast<bool>(size == 0)
                                                  ? std::vector<SymInt>(chunks, SymInt(0))
                                                  : split_sizes(args, size, split);
            return call_tensors(XPORT_OP("aten::split_with_sizes"), {self, sizes, dim});
          },
  });
  register_op({
      .schema = "aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
      .decomp =
          [](const OpArgs& args) {
            const int64_t dim = checked_dim(args);
            const Tensor& self = args.tensor("self");
            const int64_t n = static_cast<int64_t>(self.sizes()[dim]);
            std::vector<Tensor> parts;
            for (int64_t i = 0; i < n; ++i) parts.push_back(self.select(dim, i));
            return parts;
          },
  });
}

}  // namespace xport::ops
