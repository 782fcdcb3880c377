// Reductions: sum, mean, prod, var/std, any/all, cumsum, logsumexp and vector norms
// (amax/max/argmax live in minmax_ops.cpp, softmax in softmax_ops.cpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu/pointwise.h"
#include "kernels/cpu/reduce.h"
#include "ops/reduction/reduction_ops.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"
#include "xport/ops/functions.h"

namespace xport::ops {

std::vector<int64_t> reduction_dims(const OpArgs& args, std::string_view name) {
  const std::vector<int64_t> dims = args.optional_ints(name).value_or(std::vector<int64_t>{});
  return wrap_dims(args, dims, args.tensor("self").dim());
}

Tensor expand_reduced(const Tensor& g, const Tensor& self, std::vector<int64_t> dims,
                      bool keepdim) {
  if (dims.empty()) {
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
  }
  std::sort(dims.begin(), dims.end());
  Tensor r = g;
  if (!keepdim) {
    for (int64_t d : dims) r = r.unsqueeze(d);
  }
  return r.expand(self.sizes());
}

std::vector<int64_t> single_dim(const OpArgs& args, int64_t dim) {
  const int64_t ndim = args.tensor("self").dim();
  const int64_t d = wrap_dim(args, dim, ndim);
  if (ndim == 0) return {};
  return {d};
}

std::vector<SymInt> reduced_sizes(const Tensor& self, const std::vector<int64_t>& dims,
                                  bool keepdim) {
  std::vector<SymInt> sizes;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!std::binary_search(dims.begin(), dims.end(), d))
      sizes.push_back(self.sizes()[d]);
    else if (keepdim)
      sizes.push_back(1);
  }
  return sizes;
}

void check_nonempty_dims(const OpArgs& args, const Tensor& self, const std::vector<int64_t>& dims) {
  for (int64_t d : dims) {
    XPORT_CHECK(!static_cast<bool>(self.sizes()[d] == 0), InvalidInput, args.name(),
                ": Expected reduction dim ", d, " to have non-zero size (self has shape ",
                shape_str(self.sizes()), "); this reduction has no value for an empty set");
  }
}

namespace cpu = kernels::cpu;

namespace {

// The dims a kernel reduces: every dim when None or empty (a 0-dim self has none).
std::vector<int64_t> kernel_dims(std::string_view op, const Tensor& self,
                                 const std::optional<std::vector<int64_t>>& dim) {
  return wrap_dims(op, dim.value_or(std::vector<int64_t>{}), self.dim());
}
std::vector<int64_t> kernel_dim(std::string_view op, const Tensor& self, int64_t dim) {
  if (self.dim() == 0) return {};
  return {wrap_dim(op, dim, self.dim())};
}

}  // namespace

void sum_dim_IntList_out(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                         bool, std::optional<DType>, const Tensor& out) {
  cpu::sum_out(self, kernel_dims("aten::sum.dim_IntList", self, dim), out);
}
void sum_out(const Tensor& self, std::optional<DType>, const Tensor& out) {
  cpu::sum_out(self, kernel_dims("aten::sum", self, std::nullopt), out);
}
void mean_dim_out(const Tensor& self, const std::optional<std::vector<int64_t>>& dim, bool,
                  std::optional<DType>, const Tensor& out) {
  cpu::mean_out(self, kernel_dims("aten::mean.dim", self, dim), out);
}
void mean_out(const Tensor& self, std::optional<DType>, const Tensor& out) {
  cpu::mean_out(self, kernel_dims("aten::mean", self, std::nullopt), out);
}
void prod_out(const Tensor& self, std::optional<DType>, const Tensor& out) {
  cpu::prod_out(self, kernel_dims("aten::prod", self, std::nullopt), out);
}
void prod_dim_int_out(const Tensor& self, int64_t dim, bool, std::optional<DType>,
                      const Tensor& out) {
  cpu::prod_out(self, kernel_dim("aten::prod.dim_int", self, dim), out);
}
// correction None means 1 (Bessel's correction); it may be fractional.
void var_correction_out(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                        const std::optional<Scalar>& correction, bool, const Tensor& out) {
  cpu::var_out(self, kernel_dims("aten::var.correction", self, dim),
               correction ? correction->to_double() : 1.0, false, out);
}
void std_correction_out(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                        const std::optional<Scalar>& correction, bool, const Tensor& out) {
  cpu::var_out(self, kernel_dims("aten::std.correction", self, dim),
               correction ? correction->to_double() : 1.0, true, out);
}
// var with Bessel's correction or none.
void var_dim_out(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                 bool unbiased, bool, const Tensor& out) {
  cpu::var_out(self, kernel_dims("aten::var.dim", self, dim), unbiased ? 1.0 : 0.0, false, out);
}
// any over several dims: None means every dim, an empty list none (each element's truth).
void any_dims_out(const Tensor& self, const std::optional<std::vector<int64_t>>& dim, bool,
                  const Tensor& out) {
  if (dim && dim->empty()) {
    cpu::ne_out(self, cpu::scalar_tensor(Scalar(int64_t{0}), self.dtype()), out);
    return;
  }
  cpu::any_out(self, kernel_dims("aten::any.dims", self, dim), out);
}
void any_dim_out(const Tensor& self, int64_t dim, bool, const Tensor& out) {
  cpu::any_out(self, kernel_dim("aten::any.dim", self, dim), out);
}
void any_out(const Tensor& self, const Tensor& out) {
  cpu::any_out(self, kernel_dims("aten::any", self, std::nullopt), out);
}
void all_dim_out(const Tensor& self, int64_t dim, bool, const Tensor& out) {
  cpu::all_out(self, kernel_dim("aten::all.dim", self, dim), out);
}
void all_out(const Tensor& self, const Tensor& out) {
  cpu::all_out(self, kernel_dims("aten::all", self, std::nullopt), out);
}
void cumsum_out(const Tensor& self, int64_t dim, std::optional<DType>, const Tensor& out) {
  cpu::cumsum_out(self, wrap_dim("aten::cumsum", dim, self.dim()), out);
}
void logsumexp_out(const Tensor& self, const std::vector<int64_t>& dim, bool, const Tensor& out) {
  cpu::logsumexp_out(self, kernel_dims("aten::logsumexp", self, dim), out);
}

namespace {

using ops::call1;

// sum/prod result dtype: `dtype` when given, else int64 for integers and bool, else self's.
DType sum_dtype(const Tensor& self, std::optional<DType> dtype) {
  if (dtype) return *dtype;
  return is_integral(self.dtype(), /*include_bool=*/true) ? DType::Int64 : self.dtype();
}

// mean has no integer result: the input (or `dtype`) must be floating.
DType mean_dtype(const OpArgs& args, std::optional<DType> dtype) {
  const Tensor& self = args.tensor("self");
  if (dtype) {
    XPORT_CHECK(is_floating(*dtype), InvalidInput, args.name(),
                ": could not infer output dtype. Optional dtype must be a floating point dtype, "
                "got ",
                dtype_name(*dtype));
    return *dtype;
  }
  XPORT_CHECK(is_floating(self.dtype()), InvalidInput, args.name(),
              ": could not infer output dtype. Input dtype must be a floating point dtype, got ",
              dtype_name(self.dtype()), "; pass dtype=float32 or convert the input first");
  return self.dtype();
}

void check_var_dtype(const OpArgs& args) {
  XPORT_CHECK(is_floating(args.tensor("self").dtype()), InvalidInput, args.name(),
              ": std and var only support floating point dtypes, got ",
              dtype_name(args.tensor("self").dtype()), "; convert the input to float first");
}

// any/all give uint8 for uint8 input (as ATen does), else bool.
DType any_dtype(const Tensor& self) {
  return self.dtype() == DType::UInt8 ? DType::UInt8 : DType::Bool;
}

std::vector<TensorMeta> one(std::vector<SymInt> sizes, DType dtype) {
  return {contiguous_meta(std::move(sizes), dtype)};
}

// all = not any(not self), cast back to uint8 for uint8 input.
Tensor all_from_any(const Tensor& self, const Tensor& any_of_not) {
  const Tensor r = logical_not(any_of_not);
  return self.dtype() == DType::UInt8 ? r.to(DType::UInt8) : r;
}

// ---- derivatives ----

// How many elements each result of a reduction over `dims` of self takes (every dim when
// empty), less `correction`: a number when the sizes are known, else a 0-dim tensor the program
// computes from them (a Scalar holds no symbolic integer).
Value reduced_count(const Tensor& self, std::vector<int64_t> dims, double correction) {
  if (dims.empty()) {
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
  }
  std::vector<SymInt> sizes;
  int64_t known = 1;
  bool symbolic = false;
  for (int64_t d : dims) {
    sizes.push_back(self.sizes()[d]);
    if (auto n = sizes.back().maybe_int()) {
      known *= *n;
    } else {
      symbolic = true;
    }
  }
  if (!symbolic) return static_cast<double>(known) - correction;
  return ones({}, self.dtype()).expand(sizes).sum().sub(correction);
}

Tensor divide(const Tensor& t, const Value& count) {
  return count.is_tensor() ? t / count.to_tensor() : t / count.to_double();
}

void sum_derivative(Backward& b) {
  const Tensor& self = b.args().tensor("self");
  b.set("self", expand_reduced(b.grad(), self, reduction_dims(b.args(), "dim"),
                               b.args().boolean("keepdim")));
}

void mean_derivative(Backward& b) {
  const Tensor& self = b.args().tensor("self");
  const std::vector<int64_t> dims = reduction_dims(b.args(), "dim");
  const Tensor spread = expand_reduced(b.grad(), self, dims, b.args().boolean("keepdim"));
  b.set("self", divide(spread, reduced_count(self, dims, 0)));
}

// d var / dx = 2 (x - mean) / (N - correction).
void var_derivative(Backward& b) {
  const OpArgs& a = b.args();
  const Tensor& self = a.tensor("self");
  const std::vector<int64_t> dims = reduction_dims(a, "dim");
  const int unbiased = a.op().arg_position("unbiased");
  const double correction = unbiased >= 0 ? (a.boolean("unbiased") ? 1.0 : 0.0)
                                          : a.optional_scalar("correction").value_or(1).to_double();
  const Tensor centered = self - self.mean(dims, true);
  const Tensor spread = expand_reduced(b.grad(), self, dims, a.boolean("keepdim"));
  b.set("self", divide(spread * centered * 2.0, reduced_count(self, dims, correction)));
}

void register_sum_mean_prod() {
  register_op({
      .schema = "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
                "ScalarType? dtype=None) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            return one(reduced_sizes(self, reduction_dims(args, "dim"), args.boolean("keepdim")),
                       sum_dtype(self, args.optional_dtype("dtype")));
          },
      .kernel = XPORT_OP_KERNEL(sum_dim_IntList_out),
      .derivative = sum_derivative,
      .core = true,
  });
  register_op({
      .schema = "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            return one({}, sum_dtype(args.tensor("self"), args.optional_dtype("dtype")));
          },
      .kernel = XPORT_OP_KERNEL(sum_out),
      .decomp =
          [](const OpArgs& args) {
            return std::vector<Tensor>{call1(XPORT_OP("aten::sum.dim_IntList"),
                                             {args.tensor("self"), Value(), false, args["dtype"]})};
          },
  });
  register_op({
      .schema = "aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, "
                "ScalarType? dtype=None) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const DType dtype = mean_dtype(args, args.optional_dtype("dtype"));
            return one(reduced_sizes(args.tensor("self"), reduction_dims(args, "dim"),
                                     args.boolean("keepdim")),
                       dtype);
          },
      .kernel = XPORT_OP_KERNEL(mean_dim_out),
      .derivative = mean_derivative,
      .core = true,
  });
  register_op({
      .schema = "aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            return one({}, mean_dtype(args, args.optional_dtype("dtype")));
          },
      .kernel = XPORT_OP_KERNEL(mean_out),
      .decomp =
          [](const OpArgs& args) {
            return std::vector<Tensor>{call1(XPORT_OP("aten::mean.dim"),
                                             {args.tensor("self"), Value(), false, args["dtype"]})};
          },
  });
  register_op({
      .schema = "aten::prod(Tensor self, *, ScalarType? dtype=None) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            return one({}, sum_dtype(args.tensor("self"), args.optional_dtype("dtype")));
          },
      .kernel = XPORT_OP_KERNEL(prod_out),
      .core = true,
  });
  register_op({
      .schema = "aten::prod.dim_int(Tensor self, int dim, bool keepdim=False, *, "
                "ScalarType? dtype=None) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            return one(reduced_sizes(self, single_dim(args, args.integer("dim")),
                                     args.boolean("keepdim")),
                       sum_dtype(self, args.optional_dtype("dtype")));
          },
      .kernel = XPORT_OP_KERNEL(prod_dim_int_out),
      .core = true,
  });
}

void register_var_std() {
  const auto meta = [](const OpArgs& args) {
    check_var_dtype(args);
    const Tensor& self = args.tensor("self");
    return one(reduced_sizes(self, reduction_dims(args, "dim"), args.boolean("keepdim")),
               self.dtype());
  };
  // correction None means 1 (Bessel's correction); it may be fractional.
  register_op({
      .schema = "aten::var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
                "bool keepdim=False) -> Tensor",
      .meta = meta,
      .kernel = XPORT_OP_KERNEL(var_correction_out),
      .derivative = var_derivative,
      .core = true,
  });
  register_op({
      .schema = "aten::var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) "
                "-> Tensor",
      .meta = meta,
      .kernel = XPORT_OP_KERNEL(var_dim_out),
      .derivative = var_derivative,
      .core = true,
  });
  register_op({
      .schema = "aten::std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
                "bool keepdim=False) -> Tensor",
      .meta = meta,
      .kernel = XPORT_OP_KERNEL(std_correction_out),
      .decomp =
          [](const OpArgs& args) {
            const Tensor var =
                call1(XPORT_OP("aten::var.correction"),
                      {args.tensor("self"), args["dim"], args["correction"], args["keepdim"]});
            return std::vector<Tensor>{sqrt(var)};
          },
  });
}

void register_any_all() {
  register_op({
      .schema = "aten::any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            return one(reduced_sizes(self, single_dim(args, args.integer("dim")),
                                     args.boolean("keepdim")),
                       any_dtype(self));
          },
      .kernel = XPORT_OP_KERNEL(any_dim_out),
      .core = true,
  });
  register_op({
      .schema = "aten::any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            const std::optional<std::vector<int64_t>> dim = args.optional_ints("dim");
            if (dim && dim->empty()) return one(self.sizes(), any_dtype(self));
            return one(reduced_sizes(self, reduction_dims(args, "dim"), args.boolean("keepdim")),
                       any_dtype(self));
          },
      .kernel = XPORT_OP_KERNEL(any_dims_out),
      .core = true,
  });
  register_op({
      .schema = "aten::any(Tensor self) -> Tensor",
      .meta = [](const OpArgs& args) { return one({}, any_dtype(args.tensor("self"))); },
      .kernel = XPORT_OP_KERNEL(any_out),
      .core = true,
  });
  register_op({
      .schema = "aten::all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            return one(reduced_sizes(self, single_dim(args, args.integer("dim")),
                                     args.boolean("keepdim")),
                       any_dtype(self));
          },
      .kernel = XPORT_OP_KERNEL(all_dim_out),
      .decomp =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            const Tensor any =
                call1(XPORT_OP("aten::any.dim"), {logical_not(self), args["dim"], args["keepdim"]});
            return std::vector<Tensor>{all_from_any(self, any)};
          },
  });
  register_op({
      .schema = "aten::all(Tensor self) -> Tensor",
      .meta = [](const OpArgs& args) { return one({}, any_dtype(args.tensor("self"))); },
      .kernel = XPORT_OP_KERNEL(all_out),
      .decomp =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            const Tensor any = call1(XPORT_OP("aten::any"), {logical_not(self)});
            return std::vector<Tensor>{all_from_any(self, any)};
          },
  });
}

void register_cumsum_logsumexp() {
  register_op({
      .schema = "aten::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            wrap_dim(args, args.integer("dim"), self.dim());
            return one(self.sizes(), sum_dtype(self, args.optional_dtype("dtype")));
          },
      .kernel = XPORT_OP_KERNEL(cumsum_out),
      .derivative =
          [](Backward& b) {  // each input adds to every later result: a reversed cumsum
            const Tensor g = b.grad();
            if (g.dim() == 0) return b.set("self", g);
            const std::vector<int64_t> dim = {wrap_dim(b.args(), b.args().integer("dim"), g.dim())};
            b.set("self", flip(cumsum(flip(g, dim), dim[0]), dim));
          },
      .core = true,
  });
  // log(sum(exp(x - m))) + m with m the max, taken as 0 where it is infinite (so all -inf gives
  // -inf and any +inf gives +inf, as ATen does). Integers compute in float32.
  register_op({
      .schema = "aten::logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            return one(reduced_sizes(self, reduction_dims(args, "dim"), args.boolean("keepdim")),
                       is_floating(self.dtype()) ? self.dtype() : kDefaultFloat);
          },
      .kernel = XPORT_OP_KERNEL(logsumexp_out),
      .decomp =
          [](const OpArgs& args) {
            Tensor x = args.tensor("self");
            if (!is_floating(x.dtype())) x = x.to(kDefaultFloat);
            const std::vector<int64_t> dims = reduction_dims(args, "dim");
            const bool keepdim = args.boolean("keepdim");
            if (static_cast<bool>(x.numel() == 0)) {
              return std::vector<Tensor>{log(sum(exp(x), dims, keepdim))};
            }
            const Tensor m = amax(x, dims, /*keepdim=*/true);
            const Tensor shift =
                masked_fill(m, abs(m).eq(std::numeric_limits<double>::infinity()), 0.0);
            Tensor r = log(sum(exp(x - shift), dims, /*keepdim=*/true)) + shift;
            if (!keepdim) r = r.reshape(reduced_sizes(x, dims, false));
            return std::vector<Tensor>{r};
          },
  });
}

// linalg.vector_norm: the largest (ord = inf) or smallest (-inf) |x|, the count of nonzeros
// (ord = 0), else (sum |x|^ord)^(1 / ord), over `dim` (every dim when None).
void register_vector_norm() {
  register_op({
      .schema = "aten::linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, "
                "bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
      .decomp =
          [](const OpArgs& args) {
            Tensor x = args.tensor("self");
            XPORT_CHECK(is_floating(x.dtype()), InvalidInput, args.name(),
                        ": expected a floating point tensor as input, got ",
                        dtype_name(x.dtype()), "; convert it with .to(float32) first");
            if (const std::optional<DType> dtype = args.optional_dtype("dtype")) x = x.to(*dtype);
            const double ord = args.scalar("ord").to_double();
            const std::vector<int64_t> dims = reduction_dims(args, "dim");
            const bool keepdim = args.boolean("keepdim");
            const Tensor a = abs(x);
            if (std::isinf(ord)) {
              check_nonempty_dims(args, x, dims);
              return single(ord > 0 ? amax(a, dims, keepdim) : amin(a, dims, keepdim));
            }
            if (ord == 0) return single(sum(a.ne(0.0).to(x.dtype()), dims, keepdim));
            if (ord == 1) return single(sum(a, dims, keepdim));
            if (ord == 2) return single(sqrt(sum(a * a, dims, keepdim)));
            return single(pow(sum(pow(a, ord), dims, keepdim), 1.0 / ord));
          },
  });
}

}  // namespace

void register_reduction_ops() {
  register_sum_mean_prod();
  register_var_std();
  register_any_all();
  register_cumsum_logsumexp();
  register_vector_norm();
  register_minmax_ops();
  register_softmax_ops();
}

}  // namespace xport::ops
