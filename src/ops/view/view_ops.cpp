// View ops: the output shares the input's storage; the meta function computes its layout.
#include <algorithm>
#include <numeric>

#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"
#include "xport/ops/derivative.h"
#include "xport/ops/functions.h"

namespace xport::ops {
namespace {

TensorMeta view_of(const Tensor& self, std::vector<SymInt> sizes, std::vector<SymInt> strides,
                   SymInt offset) {
  TensorMeta m;
  m.sizes = std::move(sizes);
  m.strides = std::move(strides);
  m.storage_offset = std::move(offset);
  m.dtype = self.dtype();
  return m;
}

std::vector<TensorMeta> one(TensorMeta m) { return {std::move(m)}; }

// Replaces a single -1 with the size that keeps numel; checks the total.
std::vector<SymInt> infer_size(const OpArgs& args, const std::vector<SymInt>& shape,
                               const SymInt& numel) {
  std::vector<SymInt> out = shape;
  std::optional<size_t> infer;
  SymInt known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].maybe_int() == std::optional<int64_t>(-1)) {
      XPORT_CHECK(!infer, InvalidInput, args.name(), ": only one dimension can be -1, got ",
                  shape_str(shape));
      infer = i;
    } else {
      XPORT_CHECK(static_cast<bool>(shape[i] >= 0), InvalidInput, args.name(), ": invalid size ",
                  shape[i], " in ", shape_str(shape));
      known = known * shape[i];
    }
  }
  if (infer) {
    XPORT_CHECK(!static_cast<bool>(known == 0), InvalidInput, args.name(), ": cannot infer -1 in ",
                shape_str(shape), " for a tensor of ", numel,
                " elements, because the other sizes multiply to 0");
    XPORT_CHECK(static_cast<bool>(numel % known == 0), InvalidInput, args.name(), ": shape ",
                shape_str(shape), " is invalid for input of size ", numel);
    out[*infer] = numel / known;
  } else {
    XPORT_CHECK(static_cast<bool>(known == numel), InvalidInput, args.name(), ": shape ",
                shape_str(shape), " is invalid for input of size ", numel);
  }
  return out;
}

// ATen's computeStride: strides for viewing (sizes, strides) as new_sizes without copying, or
// nullopt when the memory layout does not allow it.
std::optional<std::vector<SymInt>> view_strides(const std::vector<SymInt>& sizes,
                                                const std::vector<SymInt>& strides,
                                                const std::vector<SymInt>& new_sizes) {
  // A contiguous tensor views as any shape of the same numel with contiguous strides; deciding
  // that up front keeps symbolic sizes free of the size-1 guards of the general walk below.
  // The walk decides size-obliviously: a size-1 dim only makes a view easier, so a view found
  // for sizes >= 2 holds at 0 and 1 too (the run's own meta call takes the concrete path).
  const std::vector<SymInt> contiguous = contiguous_strides(sizes);
  bool is_contiguous = true;
  for (size_t d = 0; is_contiguous && d < sizes.size(); ++d) {
    is_contiguous = strides[d].is_same(contiguous[d]);
  }
  if (is_contiguous) return contiguous_strides(new_sizes);
  std::vector<SymInt> out(new_sizes.size());
  if (sizes.empty()) {
    for (auto& s : out) s = 1;
    return out;
  }
  const SymInt numel = numel_of(sizes);
  if (guard_size_oblivious(numel == 0)) {
    bool same = sizes.size() == new_sizes.size();
    for (size_t i = 0; same && i < sizes.size(); ++i) same = sizes[i].is_same(new_sizes[i]);
    if (same) return strides;
    return contiguous_strides(new_sizes);
  }
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  SymInt chunk_base_stride = strides.back();
  SymInt tensor_numel = 1;
  SymInt view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel = tensor_numel * sizes[d];
    const bool chunk_ends =
        d == 0 || (!guard_size_oblivious(sizes[d - 1] == 1) &&
                   !guard_size_oblivious(strides[d - 1] == tensor_numel * chunk_base_stride));
    if (chunk_ends) {
      while (view_d >= 0 && (guard_size_oblivious(view_numel < tensor_numel) ||
                             guard_size_oblivious(new_sizes[view_d] == 1))) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel = view_numel * new_sizes[view_d];
        --view_d;
      }
      if (!guard_size_oblivious(view_numel == tensor_numel)) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

std::vector<TensorMeta> view_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const std::vector<SymInt> sizes = infer_size(args, args.sym_ints("size"), self.numel());
  auto strides = view_strides(self.sizes(), self.strides(), sizes);
  XPORT_CHECK(strides.has_value(), InvalidInput, args.name(), ": view size ", shape_str(sizes),
              " is not compatible with the input's size ", shape_str(self.sizes()), " and stride ",
              shape_str(self.strides()),
              " (at least one dimension spans two contiguous subspaces); use reshape instead");
  return one(view_of(self, sizes, *strides, self.storage_offset()));
}

std::vector<TensorMeta> permute_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const std::vector<int64_t> dims = args.ints("dims");
  const int64_t n = self.dim();
  XPORT_CHECK(static_cast<int64_t>(dims.size()) == n, InvalidInput, args.name(), ": got ",
              dims.size(), " dims for a tensor of ", n, " dims");
  std::vector<bool> seen(n, false);
  std::vector<SymInt> sizes(n), strides(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = wrap_dim(args, dims[i], n);
    XPORT_CHECK(!seen[d], InvalidInput, args.name(), ": dim ", dims[i],
                " repeats in the permutation");
    seen[d] = true;
    sizes[i] = self.sizes()[d];
    strides[i] = self.strides()[d];
  }
  return one(view_of(self, sizes, strides, self.storage_offset()));
}

std::vector<TensorMeta> transpose_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const int64_t n = self.dim();
  if (n == 0) return one(self.meta());
  const int64_t a = wrap_dim(args, args.integer("dim0"), n);
  const int64_t b = wrap_dim(args, args.integer("dim1"), n);
  std::vector<SymInt> sizes = self.sizes(), strides = self.strides();
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return one(view_of(self, sizes, strides, self.storage_offset()));
}

// min(a, b) and max(a, b) for a slice's bounds: one of them where what is known decides which;
// otherwise symbolic, with no guard. A guard would narrow the contract to the example's side
// (x[0:2] with x: [m], m in [1, 25], to m >= 2), and where the comparison depends on a size only
// the data decides (nonzero's row count, item()'s value) no guard can be taken at all.
SymInt bound_min(const SymInt& a, const SymInt& b) {
  if (const std::optional<bool> greater = decide_without_guard(a > b)) return *greater ? b : a;
  return sym_min(a, b);
}

SymInt bound_max(const SymInt& a, const SymInt& b) {
  if (const std::optional<bool> less = decide_without_guard(a < b)) return *less ? b : a;
  return sym_max(a, b);
}

std::vector<TensorMeta> slice_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  XPORT_CHECK(self.dim() > 0, InvalidInput, args.name(), ": cannot slice a 0-dim tensor");
  const int64_t d = wrap_dim(args, args.integer("dim"), self.dim());
  const SymInt size = self.sizes()[d];
  const SymInt step = args.sym_int("step");
  XPORT_CHECK(static_cast<bool>(step > 0), InvalidInput, args.name(),
              ": slice step must be positive, got ", step);
  // Python slicing semantics: negative bounds count from the end; everything clamps.
  auto clamp_bound = [&](std::optional<SymInt> v, const SymInt& fallback) {
    if (!v) return fallback;
    SymInt b = *v;
    if (static_cast<bool>(b < 0)) b = b + size;
    if (static_cast<bool>(b < 0)) b = 0;
    return bound_min(b, size);
  };
  const SymInt start = clamp_bound(args.optional_sym_int("start"), 0);
  const SymInt end = bound_max(clamp_bound(args.optional_sym_int("end"), size), start);
  std::vector<SymInt> sizes = self.sizes(), strides = self.strides();
  sizes[d] = (end - start + step - 1) / step;
  strides[d] = strides[d] * step;
  return one(view_of(self, sizes, strides, self.storage_offset() + start * self.strides()[d]));
}

std::vector<TensorMeta> select_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  XPORT_CHECK(self.dim() > 0, InvalidInput, args.name(), ": cannot select on a 0-dim tensor");
  const int64_t d = wrap_dim(args, args.integer("dim"), self.dim());
  const SymInt size = self.sizes()[d];
  SymInt index = args.sym_int("index");
  XPORT_CHECK(static_cast<bool>(index >= -size) && static_cast<bool>(index < size), InvalidInput,
              args.name(), ": index ", index, " is out of range for dim ", d, " of size ", size);
  if (static_cast<bool>(index < 0)) index = index + size;
  std::vector<SymInt> sizes = self.sizes(), strides = self.strides();
  const SymInt offset = self.storage_offset() + index * strides[d];
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return one(view_of(self, sizes, strides, offset));
}

std::vector<TensorMeta> expand_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const std::vector<SymInt>& target = args.sym_ints("size");
  const int64_t n = static_cast<int64_t>(target.size());
  XPORT_CHECK(n >= self.dim(), InvalidInput, args.name(), ": the expanded size ", shape_str(target),
              " must have at least ", self.dim(), " dims (the tensor's)");
  std::vector<SymInt> sizes(n), strides(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    const int64_t j = i - (n - self.dim());
    const SymInt& want = target[i];
    if (j < 0) {
      XPORT_CHECK(!static_cast<bool>(want < 0), InvalidInput, args.name(),
                  ": -1 is not allowed for a new leading dim in ", shape_str(target));
      sizes[i] = want;
      strides[i] = 0;
      continue;
    }
    const SymInt& have = self.sizes()[j];
    if (want.maybe_int() == std::optional<int64_t>(-1) || want.is_same(have)) {
      sizes[i] = have;
      strides[i] = self.strides()[j];
    } else if (size_is_one(have)) {  // as broadcast_shapes decides it
      sizes[i] = want;
      strides[i] = 0;
    } else {
      XPORT_CHECK(static_cast<bool>(have == want), InvalidInput, args.name(),
                  ": the expanded size ", want, " must match the existing size ", have, " at dim ",
                  i, " (only size-1 dims can be expanded); tensor shape ", shape_str(self.sizes()));
      sizes[i] = have;
      strides[i] = self.strides()[j];
    }
  }
  return one(view_of(self, sizes, strides, self.storage_offset()));
}

std::vector<TensorMeta> unsqueeze_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const int64_t d = wrap_dim(args, args.integer("dim"), self.dim() + 1);
  std::vector<SymInt> sizes = self.sizes(), strides = self.strides();
  const SymInt stride = d < self.dim() ? strides[d] * sizes[d] : SymInt(1);
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return one(view_of(self, sizes, strides, self.storage_offset()));
}

// Removes the listed dims that have size 1 (all size-1 dims when `dims` is empty).
TensorMeta squeeze_dims(const Tensor& self, const std::vector<int64_t>& dims, bool all) {
  std::vector<SymInt> sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    const bool listed = all || std::find(dims.begin(), dims.end(), d) != dims.end();
    if (listed && static_cast<bool>(self.sizes()[d] == 1)) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  return view_of(self, sizes, strides, self.storage_offset());
}

std::vector<TensorMeta> as_strided_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const std::vector<SymInt>& sizes = args.sym_ints("size");
  const std::vector<SymInt>& strides = args.sym_ints("stride");
  XPORT_CHECK(sizes.size() == strides.size(), InvalidInput, args.name(), ": got ", sizes.size(),
              " sizes and ", strides.size(), " strides");
  const SymInt offset = args.optional_sym_int("storage_offset").value_or(self.storage_offset());
  XPORT_CHECK(static_cast<bool>(offset >= 0), InvalidInput, args.name(),
              ": storage_offset must be non-negative, got ", offset);
  SymInt extent = offset;  // last element reached, to check it lies in the storage
  bool empty = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    XPORT_CHECK(static_cast<bool>(sizes[i] >= 0) && static_cast<bool>(strides[i] >= 0),
                InvalidInput, args.name(), ": negative size or stride at dim ", i);
    if (static_cast<bool>(sizes[i] == 0)) empty = true;
    extent = extent + (sizes[i] - 1) * strides[i];
  }
  if (!empty && self.storage() != nullptr) {
    const int64_t capacity = self.storage()->nbytes() / self.element_size();
    XPORT_CHECK(static_cast<bool>(extent < capacity), InvalidInput, args.name(), ": size ",
                shape_str(sizes), ", stride ", shape_str(strides), " and offset ", offset,
                " reach element ", extent, ", past the storage of ", capacity, " elements");
  }
  return one(view_of(self, sizes, strides, offset));
}

std::vector<TensorMeta> diagonal_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const int64_t offset = args.integer("offset");
  const int64_t d1 = wrap_dim(args, args.integer("dim1"), self.dim());
  const int64_t d2 = wrap_dim(args, args.integer("dim2"), self.dim());
  XPORT_CHECK(d1 != d2, InvalidInput, args.name(), ": dim1 and dim2 cannot be the same (", d1, ")");
  const SymInt s1 = self.sizes()[d1], s2 = self.sizes()[d2];
  SymInt len, start = self.storage_offset();
  if (offset >= 0) {
    len = sym_max(sym_min(s1, s2 - offset), 0);
    if (static_cast<bool>(len > 0)) start = start + self.strides()[d2] * offset;
  } else {
    len = sym_max(sym_min(s1 + offset, s2), 0);
    if (static_cast<bool>(len > 0)) start = start - self.strides()[d1] * offset;
  }
  std::vector<SymInt> sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  sizes.push_back(len);
  strides.push_back(self.strides()[d1] + self.strides()[d2]);
  return one(view_of(self, sizes, strides, start));
}

// ---- derivatives: a view's gradient is the gradient put back where the view took it ----

// Views that only regroup elements (view, squeeze, unsqueeze): the gradient reshaped back.
void reshape_back(Backward& b) { b.set("self", b.grad().reshape(b.args().tensor("self").sizes())); }

void identity_derivative(Backward& b) { b.set("self", b.grad()); }

void permute_derivative(Backward& b) {
  const Tensor& self = b.args().tensor("self");
  const std::vector<int64_t> dims = b.args().ints("dims");
  std::vector<int64_t> inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    inverse[wrap_dim(b.args(), dims[i], self.dim())] = static_cast<int64_t>(i);
  }
  b.set("self", b.grad().permute(inverse));
}

void transpose_derivative(Backward& b) {
  b.set("self", b.grad().transpose(b.args().integer("dim0"), b.args().integer("dim1")));
}

void slice_derivative(Backward& b) {
  const OpArgs& a = b.args();
  b.set("self", slice_scatter(zeros_like(a.tensor("self")), b.grad(), a.integer("dim"),
                              a.optional_sym_int("start"), a.optional_sym_int("end"),
                              a.sym_int("step")));
}

void select_derivative(Backward& b) {
  const OpArgs& a = b.args();
  b.set("self", select_scatter(zeros_like(a.tensor("self")), b.grad(), a.integer("dim"),
                               a.sym_int("index")));
}

}  // namespace

// Autograd bookkeeping (xport has no autograd): self stays as it is.
void detach__out(const Tensor&, const Tensor&) {}

void register_view_ops() {
  register_op({.schema = "aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
               .meta = view_meta,
               .derivative = reshape_back,
               .core = true});
  register_op({.schema = "aten::alias(Tensor(a) self) -> Tensor(a)",
               .meta = [](const OpArgs& args) { return one(args.tensor("self").meta()); },
               .derivative = identity_derivative,
               .core = true});
  // Autograd bookkeeping that PyTorch's exported graphs keep (xport has no autograd): the values
  // stay as they are.
  register_op({.schema = "aten::detach(Tensor(a) self) -> Tensor(a)",
               .decomp = [](const OpArgs& args) {
                 return call_tensors(XPORT_OP("aten::alias"), {args["self"]});
               }});
  register_op({.schema = "aten::detach_(Tensor(a!) self) -> Tensor(a!)",
               .meta = [](const OpArgs& args) { return one(args.tensor("self").meta()); },
               .kernel = XPORT_OP_KERNEL(detach__out),
               .decomp = [](const OpArgs& args) { return single(args.tensor("self")); }});
  register_op({.schema = "aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)",
               .meta = permute_meta,
               .derivative = permute_derivative,
               .core = true});
  register_op({.schema = "aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
               .meta = transpose_meta,
               .decomp = [](const OpArgs& args) {
                 const Tensor& self = args.tensor("self");
                 std::vector<int64_t> dims(self.dim());
                 std::iota(dims.begin(), dims.end(), 0);
                 if (self.dim() > 0) {
                   std::swap(dims[wrap_dim(args, args.integer("dim0"), self.dim())],
                             dims[wrap_dim(args, args.integer("dim1"), self.dim())]);
                 }
                 return single(self.permute(dims));
               },
               .derivative = transpose_derivative});
  register_op({.schema = "aten::numpy_T(Tensor(a) self) -> Tensor(a)",
               .decomp = [](const OpArgs& args) {  // x.T: every dim reversed
                 const Tensor& self = args.tensor("self");
                 std::vector<int64_t> dims(self.dim());
                 std::iota(dims.rbegin(), dims.rend(), 0);
                 return single(self.permute(dims));
               }});
  register_op({.schema = "aten::t(Tensor(a) self) -> Tensor(a)", .decomp = [](const OpArgs& args) {
                 const Tensor& self = args.tensor("self");
                 XPORT_CHECK(self.dim() <= 2, InvalidInput, args.name(),
                             ": expects a tensor with <= 2 dims, got ", self.dim(),
                             "; use transpose(dim0, dim1) or permute");
                 return single(self.dim() < 2 ? self : self.transpose(0, 1));
               }});
  register_op({.schema = "aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, "
                         "SymInt? end=None, SymInt step=1) -> Tensor(a)",
               .meta = slice_meta,
               .derivative = slice_derivative,
               .core = true});
  register_op({.schema = "aten::select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)",
               .meta = select_meta,
               .derivative = select_derivative,
               .core = true});
  register_op(
      {.schema = "aten::narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)",
       .decomp = [](const OpArgs& args) {
         const Tensor& self = args.tensor("self");
         XPORT_CHECK(self.dim() > 0, InvalidInput, args.name(), ": cannot narrow a 0-dim tensor");
         const int64_t d = wrap_dim(args, args.integer("dim"), self.dim());
         SymInt start = args.sym_int("start");
         const SymInt length = args.sym_int("length");
         const SymInt size = self.sizes()[d];
         if (static_cast<bool>(start < 0)) start = start + size;
         XPORT_CHECK(static_cast<bool>(start >= 0) && static_cast<bool>(length >= 0) &&
                         static_cast<bool>(start + length <= size),
                     InvalidInput, args.name(), ": start (", start, ") + length (", length,
                     ") exceeds dimension size (", size, ")");
         return single(self.slice(d, start, start + length));
       }});
  register_op(
      {.schema = "aten::expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
       .meta = expand_meta,
       .derivative = identity_derivative,  // Backward::set sums the expanded dims
       .core = true});
  register_op({.schema = "aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)",
               .meta = unsqueeze_meta,
               .derivative = reshape_back,
               .core = true});
  register_op({.schema = "aten::squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)",
               .meta =
                   [](const OpArgs& args) {
                     const Tensor& self = args.tensor("self");
                     std::vector<int64_t> dims;
                     for (int64_t d : args.ints("dim"))
                       dims.push_back(wrap_dim(args, d, self.dim()));
                     return one(squeeze_dims(self, dims, false));
                   },
               .derivative = reshape_back,
               .core = true});
  register_op(
      {.schema = "aten::squeeze(Tensor(a) self) -> Tensor(a)",
       .meta = [](const OpArgs& args) { return one(squeeze_dims(args.tensor("self"), {}, true)); },
       .decomp =
           [](const OpArgs& args) {
             const Tensor& self = args.tensor("self");
             std::vector<int64_t> dims;
             for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
             return call_tensors(XPORT_OP("aten::squeeze.dims"), {self, dims});
           }});
  register_op({.schema = "aten::squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)",
               .meta =
                   [](const OpArgs& args) {
                     const Tensor& self = args.tensor("self");
                     return one(squeeze_dims(
                         self, {wrap_dim(args, args.integer("dim"), self.dim())}, false));
                   },
               .decomp =
                   [](const OpArgs& args) {
                     return call_tensors(
                         XPORT_OP("aten::squeeze.dims"),
                         {args.tensor("self"), std::vector<int64_t>{args.integer("dim")}});
                   }});
  register_op({.schema = "aten::as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, "
                         "SymInt? storage_offset=None) -> Tensor(a)",
               .meta = as_strided_meta,
               .core = true});
  register_op(
      {.schema =
           "aten::diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)",
       .meta = diagonal_meta,
       .decomp = [](const OpArgs& args) {
         const TensorMeta m = diagonal_meta(args)[0];
         return single(args.tensor("self").as_strided(m.sizes, m.strides, m.storage_offset));
       }});
  // Composite ops: they run as views (or copies) of other ops.
  register_op({.schema = "aten::reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)",
               .decomp = [](const OpArgs& args) {
                 const Tensor& self = args.tensor("self");
                 const std::vector<SymInt> sizes =
                     infer_size(args, args.sym_ints("shape"), self.numel());
                 if (view_strides(self.sizes(), self.strides(), sizes))
                   return single(self.view(sizes));
                 // A contiguous copy, said so in the graph: PyTorch's clone keeps the input's
                 // strides unless told, and the view after it would not run there.
                 const Tensor copy = call1(XPORT_OP("aten::clone"),
                                           {self, std::string("contiguous_format")});
                 return single(copy.view(sizes));
               }});
  register_op(
      {.schema =
           "aten::flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
       .decomp = [](const OpArgs& args) {
         const Tensor& self = args.tensor("self");
         if (self.dim() == 0) return single(self.reshape({1}));
         const int64_t s = wrap_dim(args, args.integer("start_dim"), self.dim());
         const int64_t e = wrap_dim(args, args.integer("end_dim"), self.dim());
         XPORT_CHECK(s <= e, InvalidInput, args.name(), ": start_dim (", s,
                     ") cannot come after end_dim (", e, ")");
         std::vector<SymInt> sizes(self.sizes().begin(), self.sizes().begin() + s);
         SymInt flat = 1;
         for (int64_t d = s; d <= e; ++d) flat = flat * self.sizes()[d];
         sizes.push_back(flat);
         sizes.insert(sizes.end(), self.sizes().begin() + e + 1, self.sizes().end());
         return single(self.reshape(sizes));
       }});
  register_op(
      {.schema = "aten::unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)",
       .decomp = [](const OpArgs& args) {
         const Tensor& self = args.tensor("self");
         const int64_t d = wrap_dim(args, args.integer("dim"), self.dim());
         const std::vector<SymInt> inner =
             infer_size(args, args.sym_ints("sizes"), self.sizes()[d]);
         std::vector<SymInt> sizes(self.sizes().begin(), self.sizes().begin() + d);
         sizes.insert(sizes.end(), inner.begin(), inner.end());
         sizes.insert(sizes.end(), self.sizes().begin() + d + 1, self.sizes().end());
         return single(self.view(sizes));
       }});
  register_op({.schema = "aten::expand_as(Tensor(a) self, Tensor other) -> Tensor(a)",
               .decomp = [](const OpArgs& args) {
                 return single(args.tensor("self").expand(args.tensor("other").sizes()));
               }});
}

}  // namespace xport::ops
