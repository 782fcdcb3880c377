#include "ops/op_util.h"

#include <algorithm>
#include <limits>
#include <sstream>

namespace xport::ops {

TensorMeta contiguous_meta(std::vector<SymInt> sizes, DType dtype) {
  TensorMeta m;
  m.strides = contiguous_strides(sizes);
  m.sizes = std::move(sizes);
  m.dtype = dtype;
  return m;
}

int64_t wrap_dim(const OpArgs& args, int64_t dim, int64_t ndim) {
  return wrap_dim(args.name(), dim, ndim);
}

std::vector<int64_t> wrap_dims(const OpArgs& args, const std::vector<int64_t>& dims, int64_t ndim) {
  return wrap_dims(args.name(), dims, ndim);
}

int64_t wrap_dim(std::string_view op, int64_t dim, int64_t ndim) {
  const int64_t n = std::max<int64_t>(ndim, 1);
  XPORT_CHECK(dim >= -n && dim < n, InvalidInput, op, ": dim ", dim,
              " is out of range for a tensor of ", ndim, " dims (expected ", -n, " to ", n - 1,
              ")");
  return dim < 0 ? dim + n : dim;
}

std::vector<int64_t> wrap_dims(std::string_view op, const std::vector<int64_t>& dims,
                               int64_t ndim) {
  std::vector<int64_t> out;
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : dims) out.push_back(wrap_dim(op, d, ndim));
  std::sort(out.begin(), out.end());
  XPORT_CHECK(std::adjacent_find(out.begin(), out.end()) == out.end(), InvalidInput, op,
              ": dim appears more than once in the list of dims");
  // A 0-dim tensor reduces over "dim 0" as if it had one dim; there is nothing to reduce.
  if (ndim == 0) out.clear();
  return out;
}

std::string shape_str(const std::vector<SymInt>& sizes) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < sizes.size(); ++i) out << (i ? ", " : "") << sizes[i];
  out << "]";
  return out.str();
}

bool size_is_one(const SymInt& size) {
  const SymBool one = size == 1;
  if (one.is_symbolic()) {
    const std::optional<bool> oblivious = one.node()->decide_size_oblivious();
    if (oblivious && !*oblivious) return false;
  }
  return static_cast<bool>(one);
}

std::vector<SymInt> broadcast_shapes(const OpArgs& args, const std::vector<SymInt>& a,
                                     const std::vector<SymInt>& b) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<SymInt> out(n);
  for (size_t i = 0; i < n; ++i) {
    const bool has_a = i < a.size(), has_b = i < b.size();
    const SymInt& sa = has_a ? a[a.size() - 1 - i] : b[b.size() - 1 - i];
    const SymInt& sb = has_b ? b[b.size() - 1 - i] : sa;
    SymInt r;
    // A Dim whose range includes 1 keeps it (size_is_one).
    if (sa.is_same(sb))
      r = sa;
    else if (size_is_one(sa))
      r = sb;
    else if (size_is_one(sb))
      r = sa;
    else if (static_cast<bool>(sa == sb))
      r = sa;
    else {
      XPORT_FAIL(InvalidInput, args.name(), ": shapes ", shape_str(a), " and ", shape_str(b),
                 " do not broadcast: size ", sa, " vs ", sb, " at dim ", n - 1 - i,
                 " (from the right: ", i, "); sizes must match or one must be 1");
    }
    out[n - 1 - i] = r;
  }
  return out;
}

}  // namespace xport::ops

namespace xport::ops {

namespace {
bool same_ints(const std::vector<SymInt>& a, const std::vector<SymInt>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!a[i].is_same(b[i])) return false;
  return true;
}
}  // namespace

void check_no_internal_overlap(const OpArgs& args, const Tensor& self) {
  for (int64_t d = 0; d < self.dim(); ++d) {
    XPORT_CHECK(!(self.strides()[d].maybe_int() == std::optional<int64_t>(0) &&
                  static_cast<bool>(self.sizes()[d] > 1)),
                InvalidInput, args.name(),
                ": more than one element of the written-to tensor refers to a single memory "
                "location (dim ", d, " is expanded); write into a .clone() of it instead");
  }
}

Tensor unaliased(const Tensor& self, const Tensor& t) {
  const bool same_layout = t.storage_offset().is_same(self.storage_offset()) &&
                           same_ints(t.sizes(), self.sizes()) &&
                           same_ints(t.strides(), self.strides());
  return t.storage() == self.storage() && !same_layout ? t.clone() : t;
}

void register_inplace(const std::string& schema, const OpDef& functional,
                      const OpKernel& kernel) {
  const OpDef* f = &functional;
  register_op({
      .schema = schema,
      .meta =
          [f](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            const std::vector<TensorMeta> result = f->meta(OpArgs(*f, args.values()));
            const TensorMeta& r = result.at(0);
            XPORT_CHECK(r.sizes.size() == self.sizes().size(), InvalidInput, args.name(),
                        ": the result has shape ", shape_str(r.sizes),
                        ", which cannot be written in place into self of shape ",
                        shape_str(self.sizes()), "; use the out-of-place ", f->qualified_name);
            for (size_t i = 0; i < r.sizes.size(); ++i) {
              XPORT_CHECK(static_cast<bool>(r.sizes[i] == self.sizes()[i]), InvalidInput,
                          args.name(), ": the result has shape ", shape_str(r.sizes),
                          ", which cannot be written in place into self of shape ",
                          shape_str(self.sizes()), "; use the out-of-place ", f->qualified_name);
            }
            XPORT_CHECK(can_cast(r.dtype, self.dtype()), InvalidInput, args.name(),
                        ": result type ", dtype_name(r.dtype),
                        " can't be cast to the desired output type ", dtype_name(self.dtype()),
                        "; use the out-of-place ", f->qualified_name, " or convert self first");
            check_no_internal_overlap(args, self);
            return std::vector<TensorMeta>{self.meta()};
          },
      .kernel = kernel,
      .decomp =
          [f](const OpArgs& args) {
            const Tensor result = call_tensors(*f, args.values())[0];
            Tensor self = args.tensor("self");
            self.copy_(result);
            return std::vector<Tensor>{self};
          },
  });
}

int64_t numel_bound(const std::vector<SymInt>& sizes) {
  int64_t n = 1;
  for (const SymInt& s : sizes) {
    const auto v = s.maybe_int();
    if (!v) return std::numeric_limits<int64_t>::max();
    n *= *v;
  }
  return n;
}

}  // namespace xport::ops
