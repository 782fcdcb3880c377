// cat and stack: joining tensors along a dim.
#include <algorithm>

#include "kernels/cpu/shape.h"
#include "ops/shape/shape_ops.h"
#include "ops/typed_kernel.h"
#include "xport/ops/derivative.h"
#include "xport/ops/functions.h"

namespace xport::ops {

namespace cpu = kernels::cpu;

namespace {

// PyTorch still skips 1-D empty tensors in cat, whatever the other inputs' shapes. Among 1-D
// inputs only, skipping an empty one changes nothing, so nothing is decided (a data-dependent
// length stays symbolic); beside inputs of another rank it is decided size-obliviously, as
// PyTorch does: a 1-D input that may be empty takes part, and its rank is refused at export.
bool legacy_empty(const Tensor& t, bool all_1d) {
  return t.dim() == 1 && !all_1d && guard_size_oblivious(t.sizes()[0] == 0);
}

// The inputs that take part and the wrapped dim; checks ranks and sizes.
std::pair<std::vector<Tensor>, int64_t> cat_inputs(std::string_view op,
                                                   const std::vector<Tensor>& tensors,
                                                   int64_t dim_arg) {
  XPORT_CHECK(!tensors.empty(), InvalidInput, op, ": expected a non-empty list of tensors");
  const bool all_1d =
      std::all_of(tensors.begin(), tensors.end(), [](const Tensor& t) { return t.dim() == 1; });
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < tensors.size(); ++i) {
    XPORT_CHECK(tensors[i].dim() > 0, InvalidInput, op, ": zero-dimensional tensor (at position ",
                i, ") cannot be concatenated; unsqueeze it to 1-D first");
    if (!legacy_empty(tensors[i], all_1d)) inputs.push_back(tensors[i]);
  }
  if (inputs.empty()) return {inputs, 0};
  const Tensor& ref = inputs[0];
  const int64_t dim = wrap_dim(op, dim_arg, ref.dim());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (legacy_empty(t, all_1d)) continue;
    XPORT_CHECK(t.dim() == ref.dim(), InvalidInput, op,
                ": tensors must have the same number of dims: got ", ref.dim(), " and ", t.dim(),
                " (tensor ", i, ", shape ", shape_str(t.sizes()), ")");
    for (int64_t d = 0; d < ref.dim(); ++d) {
      XPORT_CHECK(d == dim || static_cast<bool>(t.sizes()[d] == ref.sizes()[d]), InvalidInput,
                  op, ": sizes of tensors must match except in dim ", dim, ": expected size ",
                  ref.sizes()[d], " but got size ", t.sizes()[d], " at dim ", d, " for tensor ",
                  i, " in the list");
    }
  }
  return {inputs, dim};
}
std::pair<std::vector<Tensor>, int64_t> cat_inputs(const OpArgs& args) {
  return cat_inputs(args.name(), args.tensors("tensors"), args.integer("dim"));
}

DType cat_dtype(const OpArgs& args) {
  ResultType rt;
  for (const Tensor& t : args.tensors("tensors")) rt.tensor(t);
  return rt.get();
}

std::vector<TensorMeta> cat_meta(const OpArgs& args) {
  const auto [inputs, dim] = cat_inputs(args);
  const DType dtype = cat_dtype(args);
  if (inputs.empty()) return {contiguous_meta({0}, dtype)};
  std::vector<SymInt> sizes = inputs[0].sizes();
  sizes[dim] = 0;
  for (const Tensor& t : inputs) sizes[dim] = sizes[dim] + t.sizes()[dim];
  return {contiguous_meta(std::move(sizes), dtype)};
}

}  // namespace

void cat_out(const std::vector<Tensor>& tensors, int64_t dim, const Tensor& out) {
  const auto [inputs, wrapped] = cat_inputs("aten::cat", tensors, dim);
  cpu::cat_out(inputs, wrapped, out);
}

void register_cat_ops() {
  register_op({
      .schema = "aten::cat(Tensor[] tensors, int dim=0) -> Tensor",
      .meta = cat_meta,
      .kernel = XPORT_OP_KERNEL(cat_out),
      .derivative =
          [](Backward& b) {  // each input's slice of the gradient
            const Tensor g = b.grad();
            const int64_t dim = wrap_dim(b.args(), b.args().integer("dim"), g.dim());
            std::vector<Tensor> grads;
            SymInt offset = 0;
            for (const Tensor& t : b.args().tensors("tensors")) {
              const SymInt size = t.dim() == g.dim() ? t.sizes()[dim] : SymInt(0);
              grads.push_back(t.dim() == g.dim() ? g.slice(dim, offset, offset + size)
                                                 : zeros_like(t));  // a legacy empty [0]
              offset = offset + size;
            }
            b.set_list("tensors", std::move(grads));
          },
      .core = true,
  });
  register_op({
      .schema = "aten::stack(Tensor[] tensors, int dim=0) -> Tensor",
      .decomp =
          [](const OpArgs& args) {
            const std::vector<Tensor>& tensors = args.tensors("tensors");
            XPORT_CHECK(!tensors.empty(), InvalidInput, args.name(),
                        ": expected a non-empty list of tensors");
            const Tensor& ref = tensors[0];
            const int64_t dim = wrap_dim(args, args.integer("dim"), ref.dim() + 1);
            std::vector<Tensor> parts;
            for (size_t i = 0; i < tensors.size(); ++i) {
              const Tensor& t = tensors[i];
              bool same = t.dim() == ref.dim();
              for (int64_t d = 0; same && d < t.dim(); ++d)
                same = static_cast<bool>(t.sizes()[d] == ref.sizes()[d]);
              XPORT_CHECK(same, InvalidInput, args.name(),
                          ": expects each tensor to be equal size, but got ",
                          shape_str(ref.sizes()), " at entry 0 and ", shape_str(t.sizes()),
                          " at entry ", i);
              parts.push_back(t.unsqueeze(dim));
            }
            return call_tensors(XPORT_OP("aten::cat"), {parts, dim});
          },
  });
}

}  // namespace xport::ops
