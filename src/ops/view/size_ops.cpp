// PyTorch's size queries as ops: sym_size.int, sym_stride.int, sym_numel, sym_storage_offset.
// In xport's graphs a size is an integer expression, not a node (the archive reader turns
// PyTorch's sym_* nodes into expressions, docs/ARCHIVE.md); called as ops, each is the int64
// 0-dim tensor scalar_tensor(size), which under capture records the symbolic size itself.

#include "ops/op_util.h"
#include "ops/register_all.h"

namespace xport::ops {
namespace {

Tensor int_tensor(const SymInt& value) {
  return call1(XPORT_OP("aten::scalar_tensor"), {value, DType::Int64});
}

int64_t dim_of(const OpArgs& args) {
  return wrap_dim(args, args.integer("dim"), args.tensor("self").dim());
}

}  // namespace

void register_size_ops() {
  register_op({
      .schema = "aten::sym_size.int(Tensor self, int dim) -> SymInt",
      .decomp = [](const OpArgs& args) {
        return single(int_tensor(args.tensor("self").size(dim_of(args))));
      },
      .core = true,
  });
  register_op({
      .schema = "aten::sym_stride.int(Tensor self, int dim) -> SymInt",
      .decomp = [](const OpArgs& args) {
        return single(int_tensor(args.tensor("self").stride(dim_of(args))));
      },
      .core = true,
  });
  register_op({
      .schema = "aten::sym_numel(Tensor self) -> SymInt",
      .decomp = [](const OpArgs& args) {
        return single(int_tensor(args.tensor("self").numel()));
      },
      .core = true,
  });
  register_op({
      .schema = "aten::sym_storage_offset(Tensor self) -> SymInt",
      .decomp = [](const OpArgs& args) {
        return single(int_tensor(args.tensor("self").storage_offset()));
      },
      .core = true,
  });
}

}  // namespace xport::ops
