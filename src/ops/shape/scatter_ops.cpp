// Writing into a copy of self: scatter, scatter_add, scatter_reduce, slice_scatter,
// select_scatter.
#include "kernels/cpu/index.h"
#include "kernels/cpu/shape.h"
#include "ops/shape/shape_ops.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

// Checks scatter's index against self and src (undefined for the value
// overload).
std::vector<TensorMeta> scatter_meta(const OpArgs& args, const Tensor& src) {
  const Tensor& self = args.tensor("self");
  const Tensor& index = args.tensor("index");
  const int64_t dim = wrap_dim(args, args.integer("dim"), self.dim());
  check_gather_index(args, self, index);
  if (src.defined()) {
    XPORT_CHECK(src.dtype() == self.dtype(), InvalidInput, args.name(),
                ": src's dtype must match self's, got ", dtype_name(src.dtype()), " for ",
                dtype_name(self.dtype()));
    XPORT_CHECK(nonempty_dim(src) == nonempty_dim(self), InvalidInput, args.name(),
                ": src must have as many dims as self: src ", shape_str(src.sizes()), ", self ",
                shape_str(self.sizes()));
  }
  for (int64_t d = 0; d < nonempty_dim(self); ++d) {
    const SymInt i = nonempty_size(index, d);
    XPORT_CHECK(d == dim || static_cast<bool>(i <= nonempty_size(self, d)), InvalidInput,
                args.name(), ": index ", shape_str(index.sizes()), " must be no larger than self ",
                shape_str(self.sizes()), " in every dim but dim ", dim);
    XPORT_CHECK(!src.defined() || static_cast<bool>(i <= nonempty_size(src, d)), InvalidInput,
                args.name(), ": index ", shape_str(index.sizes()), " must be no larger than src ",
                shape_str(src.sizes()), " in every dim");
  }
  return {contiguous_meta(self.sizes(), self.dtype())};
}

// scatter_reduce's `reduce` argument; the meta function has checked it.
cpu::ScatterMode scatter_reduction(const std::string& reduce) {
  if (reduce == "sum") return cpu::ScatterMode::Add;
  if (reduce == "prod") return cpu::ScatterMode::Prod;
  if (reduce == "mean") return cpu::ScatterMode::Mean;
  return reduce == "amax" || reduce == "max" ? cpu::ScatterMode::Amax : cpu::ScatterMode::Amin;
}

// The view of `base` that slice.Tensor / select.int give for these arguments.
TensorMeta view_meta(const OpDef& view_op, std::vector<Value> view_args) {
  return view_op.meta(bind_args(view_op, std::move(view_args)))[0];
}

void check_src_shape(const OpArgs& args, const Tensor& src, const TensorMeta& view,
                     const char* what) {
  bool same = src.dim() == static_cast<int64_t>(view.sizes.size());
  for (int64_t d = 0; same && d < src.dim(); ++d)
    same = static_cast<bool>(src.sizes()[d] == view.sizes[d]);
  XPORT_CHECK(same, InvalidInput, args.name(), ": src must have the shape of the ", what,
              " of self: src ", shape_str(src.sizes()), ", ", what, " ", shape_str(view.sizes));
}

// Copies src into the view of out (already a copy of self) that `view`
// describes.
void scatter_into_view(const Tensor& src, const Tensor& out, TensorMeta view) {
  const Tensor part = Tensor::make(out.storage(), std::move(view));
  if (part.int_numel() > 0) cpu::copy_tensor(part, src);
}

}  // namespace

void scatter_src_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                     const Tensor& out) {
  cpu::scatter_out(self, wrap_dim("aten::scatter.src", dim, self.dim()), index, src, Scalar(),
                   cpu::ScatterMode::Assign, out, "aten::scatter.src");
}
void scatter_value_out(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                       const Tensor& out) {
  cpu::scatter_out(self, wrap_dim("aten::scatter.value", dim, self.dim()), index, Tensor(), value,
                   cpu::ScatterMode::Assign, out, "aten::scatter.value");
}
void scatter_add_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                     const Tensor& out) {
  cpu::scatter_out(self, wrap_dim("aten::scatter_add", dim, self.dim()), index, src, Scalar(),
                   cpu::ScatterMode::Add, out, "aten::scatter_add");
}
void scatter_reduce_two_out(const Tensor& self, int64_t dim, const Tensor& index,
                            const Tensor& src, const std::string& reduce, bool include_self,
                            const Tensor& out) {
  cpu::scatter_reduce_out(self, wrap_dim("aten::scatter_reduce.two", dim, self.dim()), index, src,
                          scatter_reduction(reduce), include_self, out, "aten::scatter_reduce.two");
}
void slice_scatter_out(const Tensor& self, const Tensor& src, int64_t dim,
                       std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
                       const Tensor& out) {
  cpu::copy_tensor(out, self);
  scatter_into_view(src, out,
                    view_meta(XPORT_OP("aten::slice.Tensor"),
                              {out, dim, start ? Value(*start) : Value(),
                               end ? Value(*end) : Value(), step}));
}
void select_scatter_out(const Tensor& self, const Tensor& src, int64_t dim, int64_t index,
                        const Tensor& out) {
  cpu::copy_tensor(out, self);
  scatter_into_view(src, out, view_meta(XPORT_OP("aten::select.int"), {out, dim, index}));
}

void register_scatter_ops() {
  register_op({
      .schema = "aten::scatter.src(Tensor self, int dim, Tensor index, Tensor "
                "src) -> Tensor",
      .meta = [](const OpArgs& args) { return scatter_meta(args, args.tensor("src")); },
      .kernel = XPORT_OP_KERNEL(scatter_src_out),
      .core = true,
  });
  register_op({
      .schema = "aten::scatter.value(Tensor self, int dim, Tensor index, "
                "Scalar value) -> Tensor",
      .meta = [](const OpArgs& args) { return scatter_meta(args, Tensor()); },
      .kernel = XPORT_OP_KERNEL(scatter_value_out),
      .core = true,
  });
  register_op({
      .schema = "aten::scatter_add(Tensor self, int dim, Tensor index, Tensor "
                "src) -> Tensor",
      .meta = [](const OpArgs& args) { return scatter_meta(args, args.tensor("src")); },
      .kernel = XPORT_OP_KERNEL(scatter_add_out),
      .core = true,
  });
  register_op({
      .schema = "aten::scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, "
                "str reduce, *, bool include_self=True) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const std::string& reduce = args.str("reduce");
            // ATen takes "max" and "min" too, for amax and amin.
            XPORT_CHECK(reduce == "sum" || reduce == "prod" || reduce == "mean" ||
                            reduce == "amax" || reduce == "amin" || reduce == "max" ||
                            reduce == "min",
                        InvalidInput, args.name(),
                        ": reduce argument must be either sum, prod, mean, amax or amin, got ",
                        reduce);
            return scatter_meta(args, args.tensor("src"));
          },
      .kernel = XPORT_OP_KERNEL(scatter_reduce_two_out),
      .core = true,
  });
  register_op({
      .schema = "aten::slice_scatter(Tensor self, Tensor src, int dim=0, "
                "SymInt? start=None, "
                "SymInt? end=None, SymInt step=1) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            const TensorMeta view =
                view_meta(XPORT_OP("aten::slice.Tensor"),
                          {self, args["dim"], args["start"], args["end"], args["step"]});
            check_src_shape(args, args.tensor("src"), view, "slice");
            return std::vector<TensorMeta>{contiguous_meta(self.sizes(), self.dtype())};
          },
      .kernel = XPORT_OP_KERNEL(slice_scatter_out),
      .core = true,
  });
  register_op({
      .schema = "aten::select_scatter(Tensor self, Tensor src, int dim, SymInt "
                "index) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            const TensorMeta view =
                view_meta(XPORT_OP("aten::select.int"), {self, args["dim"], args["index"]});
            check_src_shape(args, args.tensor("src"), view, "selected slice");
            return std::vector<TensorMeta>{contiguous_meta(self.sizes(), self.dtype())};
          },
      .kernel = XPORT_OP_KERNEL(select_scatter_out),
      .core = true,
  });
}

}  // namespace xport::ops
