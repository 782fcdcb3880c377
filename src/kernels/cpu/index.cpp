// Indexing kernels: index_select, gather, scatter (and its reductions), masked_scatter,
// advanced indexing (index, index_put, index_copy) and nonzero. Over 600 lines on purpose: they
// share one file-private plan of index walks (IndexPlan, StridedLoop over bytes, copy_block),
// which a split would turn into a header of internals.
#include "kernels/cpu/index.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/pointwise.h"
#include "kernels/cpu/shape.h"

namespace xport::kernels::cpu {
namespace {

char* data_of(const Tensor& t) { return static_cast<char*>(t.raw_data()); }

std::string sizes_str(const std::vector<int64_t>& v) {  // [2, 3]
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Sizes and strides with a 0-dim tensor seen as 1-D of one element (ATen's
// ensure_nonempty).
struct Layout {
  std::vector<int64_t> sizes, strides;
};
Layout nonempty_layout(const Tensor& t) {
  if (t.dim() == 0) return {{1}, {1}};
  return {t.int_sizes(), t.int_strides()};
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

std::string range_str(int64_t size, bool allow_negative) {
  if (size == 0) return "none (the dim is empty)";
  return "[" + std::to_string(allow_negative ? -size : 0) + ", " + std::to_string(size - 1) + "]";
}

// dst += src for one element of type T.
template <class T>
inline void add_into(char* dst, const char* src) {
  T a, b;
  std::memcpy(&a, dst, sizeof(T));
  std::memcpy(&b, src, sizeof(T));
  T r;
  if constexpr (std::is_same_v<T, bool>) {
    r = a || b;
  } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    r = T(static_cast<float>(a) + static_cast<float>(b));
  } else {
    r = static_cast<T>(a + b);
  }
  std::memcpy(dst, &r, sizeof(T));
}

// The offset (in elements, per stride list) of row r, where rows run over every
// dim of `sizes` but `dim`, row-major.
template <size_t N>
std::array<int64_t, N> row_offsets(const std::vector<int64_t>& sizes, int64_t dim, int64_t r,
                                   const std::array<const std::vector<int64_t>*, N>& strides) {
  std::array<int64_t, N> off{};
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    if (d == dim) continue;
    const int64_t c = r % sizes[d];
    r /= sizes[d];
    for (size_t k = 0; k < N; ++k) off[k] += c * (*strides[k])[d];
  }
  return off;
}

// Copies a block laid out by `loop` (dst, src operands) to new bases: one
// element, one memcpy, or a strided walk.
void copy_block(const StridedLoop<2>& loop, char* dst, const char* src, int64_t es) {
  const int64_t n = loop.numel();
  if (n == 1) {
    std::memcpy(dst, src, static_cast<size_t>(es));
  } else if (loop.inner_size() == n && loop.inner_strides()[0] == es &&
             loop.inner_strides()[1] == es) {
    std::memcpy(dst, src, static_cast<size_t>(n * es));
  } else {
    loop.run_from(
        {dst, const_cast<char*>(src)}, 0, n,
        [es](const std::array<char*, 2>& p, int64_t len, const std::array<int64_t, 2>& st) {
          copy_row(p[0], st[0], p[1], st[1], len, es);
        });
  }
}

std::vector<int64_t> to_bytes(const std::vector<int64_t>& strides, int64_t es) {
  std::vector<int64_t> out(strides);
  for (int64_t& s : out) s *= es;
  return out;
}

// Advanced indexing laid out as loops: `outer` dims (the non-indexed dims
// before the indexed block, then the broadcast index shape collapsed into one
// dim at b_pos) and `inner` dims (the remaining non-indexed dims), with strides
// of the indexed tensor.
struct IndexPlan {
  std::vector<int64_t> result_sizes;
  std::vector<int64_t> outer_sizes, outer_strides;
  size_t b_pos = 0;
  std::vector<int64_t> b_offsets;  // per broadcast index position: the indexed dims' offset
  std::vector<int64_t> inner_sizes, inner_strides;
  int64_t outer_numel = 1, inner_numel = 1;
};

IndexPlan plan_index(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                     const std::vector<Tensor>& indices, std::string_view op) {
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  XPORT_CHECK(static_cast<int64_t>(indices.size()) <= ndim, InvalidInput, op,
              ": too many indices for tensor of dimension ", ndim, " (got ", indices.size(), ")");
  std::vector<int64_t> dims;
  for (size_t d = 0; d < indices.size(); ++d)
    if (indices[d].defined()) dims.push_back(static_cast<int64_t>(d));
  XPORT_CHECK(!dims.empty(), InvalidInput, op, ": needs at least one index tensor, got only None");
  const bool adjacent = dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());

  // The broadcast shape of the index tensors.
  std::vector<int64_t> b_sizes;
  for (int64_t d : dims) {
    const std::vector<int64_t> s = indices[d].int_sizes();
    if (s.size() > b_sizes.size()) b_sizes.insert(b_sizes.begin(), s.size() - b_sizes.size(), 1);
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& b = b_sizes[b_sizes.size() - s.size() + i];
      XPORT_CHECK(b == s[i] || b == 1 || s[i] == 1, InvalidInput, op,
                  ": index tensors could not be broadcast together (a size ", s[i], " against ", b,
                  ")");
      if (b == 1) b = s[i];
    }
  }
  IndexPlan plan;
  const int64_t b_numel = product(b_sizes);
  plan.b_offsets.assign(b_numel, 0);
  for (int64_t d : dims) {
    const IndexValues vals = checked_indices(indices[d], sizes[d], true, op, d);
    const std::vector<int64_t> s = indices[d].int_sizes();
    const std::vector<int64_t> cs = contiguous_strides(s);
    std::vector<int64_t> bst(b_sizes.size(), 0);  // this index's strides over the broadcast shape
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i] != 1) bst[b_sizes.size() - s.size() + i] = cs[i];
    for (int64_t b = 0; b < b_numel; ++b) {
      int64_t rest = b, pos = 0;
      for (int64_t i = static_cast<int64_t>(b_sizes.size()) - 1; i >= 0; --i) {
        pos += (rest % b_sizes[i]) * bst[i];
        rest /= b_sizes[i];
      }
      plan.b_offsets[b] += vals[pos] * strides[d];
    }
  }
  auto indexed = [&](int64_t d) {
    return d < static_cast<int64_t>(indices.size()) && indices[d].defined();
  };
  if (adjacent) {
    for (int64_t d = 0; d < dims.front(); ++d) {
      plan.outer_sizes.push_back(sizes[d]);
      plan.outer_strides.push_back(strides[d]);
      plan.result_sizes.push_back(sizes[d]);
    }
  }
  plan.b_pos = plan.outer_sizes.size();
  plan.outer_sizes.push_back(b_numel);
  plan.outer_strides.push_back(0);
  plan.result_sizes.insert(plan.result_sizes.end(), b_sizes.begin(), b_sizes.end());
  for (int64_t d = adjacent ? dims.back() + 1 : 0; d < ndim; ++d) {
    if (indexed(d)) continue;
    plan.inner_sizes.push_back(sizes[d]);
    plan.inner_strides.push_back(strides[d]);
    plan.result_sizes.push_back(sizes[d]);
  }
  plan.outer_numel = product(plan.outer_sizes);
  plan.inner_numel = product(plan.inner_sizes);
  return plan;
}

// The offset (elements) in the indexed tensor of outer position o.
int64_t outer_offset(const IndexPlan& plan, int64_t o) {
  int64_t off = 0;
  for (int64_t d = static_cast<int64_t>(plan.outer_sizes.size()) - 1; d >= 0; --d) {
    const int64_t c = o % plan.outer_sizes[d];
    o /= plan.outer_sizes[d];
    off += static_cast<size_t>(d) == plan.b_pos ? plan.b_offsets[c] : c * plan.outer_strides[d];
  }
  return off;
}

template <class T>
bool is_nonzero(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return static_cast<float>(v) != 0.0f;
  } else {
    return v != T(0);
  }
}

}  // namespace

IndexValues checked_indices(const Tensor& index, int64_t size, bool allow_negative,
                            std::string_view op, int64_t dim) {
  const int64_t n = index.int_numel();
  if (n == 0) return IndexValues();
  Tensor values = index;
  if (index.dtype() != DType::Int64 || !index.is_contiguous()) {
    values = Tensor::empty_contiguous(index.int_sizes(), DType::Int64);
    copy_tensor(values, index);
  }
  const int64_t* p = values.data<int64_t>();
  int64_t lo = p[0], hi = p[0];
#pragma omp parallel for reduction(min : lo) reduction(max : hi) if (n > kCopyGrain)
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, p[i]);
    hi = std::max(hi, p[i]);
  }
  const int64_t lower = allow_negative ? -size : 0;
  const int64_t bad = lo < lower ? lo : hi;
  XPORT_CHECK(lo >= lower && hi < size, InvalidInput, op, ": index ", bad,
              " is out of range for dim ", dim, " of size ", size, "; valid indices are ",
              range_str(size, allow_negative));
  if (lo < 0) {
    std::vector<int64_t> owned(p, p + n);
    parallel_for(0, n, kCopyGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        if (owned[i] < 0) owned[i] += size;
    });
    return IndexValues(std::move(owned));
  }
  return IndexValues(std::move(values));
}

void index_select_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out,
                      std::string_view op) {
  const int64_t es = self.element_size();
  if (self.dim() == 0) {
    checked_indices(index, 1, false, op, dim);
    std::memcpy(data_of(out), data_of(self), static_cast<size_t>(es));
    return;
  }
  const std::vector<int64_t> sizes = self.int_sizes(), st = self.int_strides();
  const IndexValues idx = checked_indices(index, sizes[dim], false, op, dim);
  const int64_t n = idx.size();
  const std::vector<int64_t> inner_sizes(sizes.begin() + dim + 1, sizes.end());
  const std::vector<int64_t> inner_st(st.begin() + dim + 1, st.end());
  const StridedLoop<2> inner(
      inner_sizes, {nullptr, nullptr},
      {to_bytes(contiguous_strides(inner_sizes), es), to_bytes(inner_st, es)});
  const int64_t inner_numel = inner.numel();
  if (inner_numel == 0) return;
  const std::vector<int64_t> outer_sizes(sizes.begin(), sizes.begin() + dim);
  const int64_t outer = product(outer_sizes);
  char* dst = data_of(out);
  const char* src = data_of(self);
  parallel_for(0, outer * n, std::max<int64_t>(1, kCopyGrain / inner_numel),
               [&](int64_t b, int64_t e) {
                 for (int64_t t = b; t < e; ++t) {
                   int64_t o = t / n, off = idx[t % n] * st[dim];
                   for (int64_t d = dim - 1; d >= 0; --d) {
                     off += (o % sizes[d]) * st[d];
                     o /= sizes[d];
                   }
                   copy_block(inner, dst + t * inner_numel * es, src + off * es, es);
                 }
               });
}

void gather_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out,
                std::string_view op) {
  const Layout s = nonempty_layout(self), ix = nonempty_layout(index), o = nonempty_layout(out);
  const IndexValues idx = checked_indices(index, s.sizes[dim], false, op, dim);
  const std::vector<int64_t> ist = contiguous_strides(ix.sizes);
  const int64_t n = ix.sizes[dim];
  const int64_t rows = n == 0 ? 0 : product(ix.sizes) / n;
  const int64_t es = self.element_size();
  char* dst = data_of(out);
  const char* src = data_of(self);
  visit_element_size(es, [&](auto tag) {
    using U = decltype(tag);
    parallel_for(
        0, rows, std::max<int64_t>(1, kCopyGrain / std::max<int64_t>(n, 1)),
        [&](int64_t b, int64_t e) {
          const int64_t s_step = s.strides[dim], o_step = o.strides[dim], i_step = ist[dim];
          for (int64_t r = b; r < e; ++r) {
            const auto off = row_offsets<3>(ix.sizes, dim, r, {&s.strides, &o.strides, &ist});
            const U* from = reinterpret_cast<const U*>(src) + off[0];
            U* to = reinterpret_cast<U*>(dst) + off[1];
            const int64_t* row = &idx[off[2]];
            for (int64_t j = 0; j < n; ++j) to[j * o_step] = from[row[j * i_step] * s_step];
          }
        });
  });
}

namespace {

bool is_half(DType dtype) { return dtype == DType::Float16 || dtype == DType::BFloat16; }

// Runs `reduce(self, src, out)` in float32 and rounds into out once: ATen accumulates half
// types in float (1 + 4 x 0.0004 sums to 1.0019 in float16, not 1).
template <class Reduce>
void in_float(const Tensor& self, const Tensor& src, const Tensor& out, const Reduce& reduce) {
  const Tensor wide = Tensor::empty_contiguous(out.int_sizes(), DType::Float32);
  reduce(contiguous_as(self, DType::Float32), contiguous_as(src, DType::Float32), wide);
  copy_into(out, wide);
}

// Calls visit(o, s) for each element of index: o the offset in out it targets (its position
// with position[dim] = its index), s the offset of its src element. Rows differ outside `dim`,
// so they reach disjoint places of out and run in parallel.
template <class Visit>
void for_each_scatter(const Layout& o, const Layout& ix, const Layout& sl, const IndexValues& idx,
                      int64_t dim, const Visit& visit) {
  const std::vector<int64_t> ist = contiguous_strides(ix.sizes);
  const int64_t n = ix.sizes[dim];
  const int64_t rows = n == 0 ? 0 : product(ix.sizes) / n;
  parallel_for(0, rows, std::max<int64_t>(1, kCopyGrain / std::max<int64_t>(n, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t r = b; r < e; ++r) {
                   const auto off =
                       row_offsets<3>(ix.sizes, dim, r, {&o.strides, &sl.strides, &ist});
                   for (int64_t j = 0; j < n; ++j) {
                     visit(off[0] + idx[off[2] + j * ist[dim]] * o.strides[dim],
                           off[1] + j * sl.strides[dim]);
                   }
                 }
               });
}

}  // namespace

void scatter_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                 const Scalar& value, ScatterMode mode, const Tensor& out, std::string_view op) {
  if (mode == ScatterMode::Add && is_half(out.dtype())) {
    return in_float(self, src, out, [&](const Tensor& s, const Tensor& from, const Tensor& o) {
      scatter_out(s, dim, index, from, value, mode, o, op);
    });
  }
  copy_tensor(out, self);
  const Layout o = nonempty_layout(out), ix = nonempty_layout(index);
  const Layout sl = src.defined() ? nonempty_layout(src)
                                  : Layout{ix.sizes, std::vector<int64_t>(ix.sizes.size(), 0)};
  const IndexValues idx = checked_indices(index, o.sizes[dim], false, op, dim);
  const int64_t es = out.element_size();
  char* dst = data_of(out);
  // A value is read from a one-element tensor of out's dtype (with stride 0
  // above).
  const Tensor value_tensor = src.defined() ? Tensor() : scalar_tensor(value, out.dtype());
  const char* from = src.defined() ? data_of(src) : data_of(value_tensor);
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for_each_scatter(o, ix, sl, idx, dim, [&](int64_t at, int64_t s) {
      if (mode == ScatterMode::Add)
        add_into<T>(dst + at * es, from + s * es);
      else
        std::memcpy(dst + at * es, from + s * es, sizeof(T));
    });
  });
}

namespace {

// a combined with b by a reduction of scatter_reduce (half types run in float32).
template <class T>
T reduce_pair(ScatterMode mode, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return mode == ScatterMode::Prod || mode == ScatterMode::Amin ? a && b : a || b;
  } else {
    switch (mode) {
      case ScatterMode::Prod:
        return static_cast<T>(a * b);
      case ScatterMode::Amax:
        return b != b || b > a ? b : a;  // b != b: NaN, which wins
      case ScatterMode::Amin:
        return b != b || b < a ? b : a;
      default:
        return static_cast<T>(a + b);
    }
  }
}

template <class T>
T reduce_identity(ScatterMode mode) {
  if constexpr (std::is_same_v<T, bool>) {
    return mode == ScatterMode::Prod || mode == ScatterMode::Amin;
  } else {
    using limits = std::numeric_limits<T>;
    switch (mode) {
      case ScatterMode::Prod:
        return T(1);
      case ScatterMode::Amax:
        return limits::has_infinity ? -limits::infinity() : limits::lowest();
      case ScatterMode::Amin:
        return limits::has_infinity ? limits::infinity() : limits::max();
      default:
        return T(0);
    }
  }
}

}  // namespace

void scatter_reduce_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                        ScatterMode mode, bool include_self, const Tensor& out,
                        std::string_view op) {
  if (is_half(out.dtype())) {
    return in_float(self, src, out, [&](const Tensor& s, const Tensor& from, const Tensor& o) {
      scatter_reduce_out(s, dim, index, from, mode, include_self, o, op);
    });
  }
  copy_tensor(out, self);
  const Layout o = nonempty_layout(out), ix = nonempty_layout(index), sl = nonempty_layout(src);
  const IndexValues idx = checked_indices(index, o.sizes[dim], false, op, dim);
  // How many src values each place of out took (out is contiguous: its offsets index this).
  std::vector<int64_t> counts(static_cast<size_t>(std::max<int64_t>(out.int_numel(), 1)), 0);
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    // Half types ran in float above.
    if constexpr (!std::is_same_v<T, Half> && !std::is_same_v<T, BFloat16>) {
      T* dst = reinterpret_cast<T*>(data_of(out));
      const T* from = reinterpret_cast<const T*>(data_of(src));
      for_each_scatter(o, ix, sl, idx, dim, [&](int64_t at, int64_t s) {
        if (counts[at]++ == 0 && !include_self) dst[at] = reduce_identity<T>(mode);
        dst[at] = reduce_pair<T>(mode, dst[at], from[s]);
      });
      if (mode != ScatterMode::Mean) return;
      for (int64_t at = 0; at < out.int_numel(); ++at) {
        const int64_t c = counts[at] + (include_self ? 1 : 0);
        if (counts[at] == 0 || c == 1) continue;
        if constexpr (std::is_same_v<T, bool>) {
          continue;
        } else if constexpr (std::is_integral_v<T>) {
          const int64_t q = static_cast<int64_t>(dst[at]) / c;
          dst[at] = static_cast<T>(q * c > static_cast<int64_t>(dst[at]) ? q - 1 : q);  // floor
        } else {
          dst[at] = static_cast<T>(dst[at] / static_cast<T>(c));
        }
      }
    }
  });
}

void masked_scatter_out(const Tensor& self, const Tensor& mask, const Tensor& source,
                        const Tensor& out, std::string_view op) {
  copy_into(out, self);  // broadcasts
  const Tensor m = Tensor::empty_contiguous(out.int_sizes(), DType::Bool);
  copy_into(m, mask);
  const Tensor from = contiguous_as(source, source.dtype());
  const bool* chosen = m.data<bool>();
  const int64_t n = out.int_numel();
  const int64_t wanted = std::count(chosen, chosen + n, true);
  XPORT_CHECK(wanted <= from.int_numel(), InvalidInput, op, ": the mask has ", wanted,
              " true places but source only ", from.int_numel(),
              " elements; give a source with at least as many elements as the mask has trues");
  const int64_t es = out.element_size();
  char* dst = data_of(out);
  const char* src = data_of(from);
  for (int64_t i = 0, k = 0; i < n; ++i) {
    if (chosen[i]) std::memcpy(dst + i * es, src + (k++) * es, static_cast<size_t>(es));
  }
}

std::vector<Tensor> expand_masks(const std::vector<Tensor>& indices) {
  std::vector<Tensor> out;
  for (const Tensor& t : indices) {
    if (!t.defined() || (t.dtype() != DType::Bool && t.dtype() != DType::UInt8)) {
      out.push_back(t);
      continue;
    }
    const Tensor nz = nonzero(t);
    const int64_t count = nz.int_size(0), k = t.dim();
    for (int64_t j = 0; j < k; ++j) out.push_back(strided_view(nz, {count}, {k}, j));
  }
  return out;
}

void index_out(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& out,
               std::string_view op) {
  const IndexPlan plan = plan_index(self.int_sizes(), self.int_strides(), indices, op);
  XPORT_CHECK(out.is_contiguous() && out.int_sizes() == plan.result_sizes, InvalidInput, op,
              ": the result is ", sizes_str(plan.result_sizes), ", out is ",
              sizes_str(out.int_sizes()), out.is_contiguous() ? "" : " (not contiguous)",
              "; pass a contiguous out of the result's sizes");
  const int64_t es = self.element_size();
  if (plan.outer_numel == 0 || plan.inner_numel == 0) return;
  const StridedLoop<2> inner(
      plan.inner_sizes, {nullptr, nullptr},
      {to_bytes(contiguous_strides(plan.inner_sizes), es), to_bytes(plan.inner_strides, es)});
  char* dst = data_of(out);
  const char* src = data_of(self);
  parallel_for(0, plan.outer_numel, std::max<int64_t>(1, kCopyGrain / plan.inner_numel),
               [&](int64_t b, int64_t e) {
                 for (int64_t o = b; o < e; ++o) {
                   copy_block(inner, dst + o * plan.inner_numel * es,
                              src + outer_offset(plan, o) * es, es);
                 }
               });
}

void index_copy_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    const Tensor& out, std::string_view op) {
  const bool in_place = out.storage() == self.storage() &&
                        out.storage_offset().maybe_int() == self.storage_offset().maybe_int() &&
                        out.int_strides() == self.int_strides();
  if (!in_place) copy_tensor(out, self);
  if (self.dim() == 0) {
    if (index.int_numel() > 0) copy_tensor(out, source);
    return;
  }
  const IndexValues idx = checked_indices(index, out.int_size(dim), false, op, dim);
  // The slice at `i` along dim, as a strided view.
  auto slice = [dim](const Tensor& t, int64_t i) {
    std::vector<int64_t> sizes = t.int_sizes(), strides = t.int_strides();
    const int64_t offset = *t.storage_offset().maybe_int() + i * strides[static_cast<size_t>(dim)];
    sizes.erase(sizes.begin() + dim);
    strides.erase(strides.begin() + dim);
    return strided_view(t, sizes, strides, offset);
  };
  for (int64_t i = 0; i < idx.size(); ++i) {
    copy_tensor(slice(out, idx[i]), source.dim() == 0 ? source : slice(source, i));
  }
}

void index_put_out(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                   bool accumulate, const Tensor& out, std::string_view op) {
  copy_tensor(out, self);
  const IndexPlan plan = plan_index(out.int_sizes(), out.int_strides(), indices, op);
  const std::vector<int64_t> vs = values.int_sizes();
  const std::vector<int64_t>& rs = plan.result_sizes;
  bool broadcasts = vs.size() <= rs.size();
  for (size_t i = 0; broadcasts && i < vs.size(); ++i) {
    const int64_t r = rs[rs.size() - vs.size() + i];
    broadcasts = vs[i] == r || vs[i] == 1;
  }
  XPORT_CHECK(broadcasts, InvalidInput, op, ": shape mismatch: value tensor of shape ",
              sizes_str(vs), " cannot be broadcast to indexing result of shape ", sizes_str(rs));
  if (plan.outer_numel == 0 || plan.inner_numel == 0) return;
  Tensor v = values;
  if (vs != rs || !values.is_contiguous()) {
    v = Tensor::empty_contiguous(rs, out.dtype());
    copy_tensor(v, values);
  }
  const int64_t es = out.element_size();
  char* dst = data_of(out);
  const char* src = data_of(v);
  const int64_t in_n = plan.inner_numel;
  if (accumulate) {
    // Repeated indices add up: one thread, in order.
    const std::vector<int64_t> cs = contiguous_strides(plan.inner_sizes);
    visit_dtype(out.dtype(), [&](auto tag) {
      using T = decltype(tag);
      for (int64_t o = 0; o < plan.outer_numel; ++o) {
        const int64_t base = outer_offset(plan, o);
        for (int64_t i = 0; i < in_n; ++i) {
          int64_t rest = i, off = base;
          for (int64_t d = static_cast<int64_t>(cs.size()) - 1; d >= 0; --d) {
            off += (rest % plan.inner_sizes[d]) * plan.inner_strides[d];
            rest /= plan.inner_sizes[d];
          }
          add_into<T>(dst + off * es, src + (o * in_n + i) * es);
        }
      }
    });
    return;
  }
  const StridedLoop<2> inner(
      plan.inner_sizes, {nullptr, nullptr},
      {to_bytes(plan.inner_strides, es), to_bytes(contiguous_strides(plan.inner_sizes), es)});
  parallel_for(0, plan.outer_numel, std::max<int64_t>(1, kCopyGrain / in_n),
               [&](int64_t b, int64_t e) {
                 for (int64_t o = b; o < e; ++o) {
                   copy_block(inner, dst + outer_offset(plan, o) * es, src + o * in_n * es, es);
                 }
               });
}

Tensor nonzero(const Tensor& self) {
  const std::vector<int64_t> sizes = self.int_sizes();
  const int64_t ndim = self.dim();
  const int64_t numel = self.int_numel();
  const int64_t es = self.element_size();
  if (numel == 0) return Tensor::empty_contiguous({0, ndim}, DType::Int64);
  const StridedLoop<1> loop(sizes, {data_of(self)}, {to_bytes(self.int_strides(), es)});
  const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(num_threads(), numel / kCopyGrain));
  auto chunk_begin = [&](int64_t c) { return numel * c / chunks; };
  std::vector<int64_t> counts(chunks + 1, 0);
  Tensor out;
  visit_dtype(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        int64_t count = 0;
        loop.run(chunk_begin(c), chunk_begin(c + 1),
                 [&](const std::array<char*, 1>& p, int64_t n, const std::array<int64_t, 1>& st) {
                   for (int64_t i = 0; i < n; ++i) count += is_nonzero<T>(p[0] + i * st[0]);
                 });
        counts[c + 1] = count;
      }
    });
    for (int64_t c = 0; c < chunks; ++c) counts[c + 1] += counts[c];
    out = Tensor::empty_contiguous({counts[chunks], ndim}, DType::Int64);
    if (counts[chunks] == 0 || ndim == 0) return;
    int64_t* coords = out.mutable_data<int64_t>();
    parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        int64_t pos = chunk_begin(c);
        int64_t* w = coords + counts[c] * ndim;
        loop.run(chunk_begin(c), chunk_begin(c + 1),
                 [&](const std::array<char*, 1>& p, int64_t n, const std::array<int64_t, 1>& st) {
                   for (int64_t i = 0; i < n; ++i, ++pos) {
                     if (!is_nonzero<T>(p[0] + i * st[0])) continue;
                     int64_t rest = pos;
                     for (int64_t d = ndim - 1; d >= 0; --d) {
                       w[d] = rest % sizes[d];
                       rest /= sizes[d];
                     }
                     w += ndim;
                   }
                 });
      }
    });
  });
  return out;
}

}  // namespace xport::kernels::cpu
