#include "xport/tensor/tensor.h"

#include <algorithm>
#include <atomic>

#include "tensor/user_location.h"

#include <cstring>

namespace xport {

namespace {
// What to write instead of reading data under capture.
constexpr const char* kFakeDataAdvice =
    "cannot read tensor data while capturing a graph: the data is not known until the program "
    "runs. Keep the value a tensor (x * s instead of x * s.item<double>(): a 0-dim tensor "
    "broadcasts); to branch on a value, write xport::cond(x.sum() > 0, true_fn, false_fn, "
    "operands), which keeps both branches; to use a value as a size, read it with item_int() "
    "(an unbacked symbol) and say what it can be with check() / constrain_as_size()";
}  // namespace

namespace detail {
namespace {
std::atomic<UserLocationFn> g_user_location{nullptr};
}  // namespace
void set_user_location_fn(UserLocationFn fn) { g_user_location.store(fn); }
std::string at_user_location() {
  const UserLocationFn fn = g_user_location.load();
  if (fn == nullptr) return "";
  const std::string where = fn();
  return where.empty() ? "" : " at " + where;
}
}  // namespace detail

std::vector<SymInt> contiguous_strides(const std::vector<SymInt>& sizes) {
  std::vector<SymInt> strides(sizes.size());
  SymInt running = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    if (i == 0) break;  // the first dim's size scales no stride (and may overflow if it did)
    // Like ATen, a size-0 dim does not zero the strides of the dims before it.
    const auto s = sizes[i].maybe_int();
    running = (s && *s <= 1) ? running : running * sizes[i];
  }
  return strides;
}

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t running = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    if (i == 0) break;  // as above
    running *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

SymInt numel_of(const std::vector<SymInt>& sizes) {
  SymInt n = 1;
  for (const SymInt& s : sizes) n = n * s;
  return n;
}

int64_t storage_bytes(const TensorMeta& meta) {
  if (meta.none) return 0;
  int64_t extent = 1;
  for (size_t i = 0; i < meta.sizes.size(); ++i) {
    const auto size = meta.sizes[i].maybe_int();
    const auto stride = meta.strides[i].maybe_int();
    XPORT_CHECK(size && stride, Internal, "storage_bytes: the layout is symbolic");
    if (*size == 0) return 0;
    extent += (*size - 1) * *stride;
  }
  const auto offset = meta.storage_offset.maybe_int();
  XPORT_CHECK(offset.has_value(), Internal, "storage_bytes: the storage offset is symbolic");
  return (*offset + extent) * element_size(meta.dtype);
}

TensorMeta complex_as_real(const TensorMeta& meta) {
  TensorMeta real = meta;
  real.dtype = complex_part(meta.dtype);
  for (SymInt& s : real.strides) s = s * 2;
  real.storage_offset = meta.storage_offset * 2;
  real.sizes.emplace_back(2);
  real.strides.emplace_back(1);
  return real;
}

bool nothing_to_write(const std::vector<TensorMeta>& metas) {
  if (metas.empty()) return false;
  return std::all_of(metas.begin(), metas.end(), [](const TensorMeta& m) {
    return m.none || std::any_of(m.sizes.begin(), m.sizes.end(), [](const SymInt& s) {
             return s.maybe_int() == std::optional<int64_t>(0);
           });
  });
}

namespace {
std::vector<int64_t> to_ints(const std::vector<SymInt>& v, const char* what) {
  std::vector<int64_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    XPORT_CHECK(!v[i].is_symbolic(), DataDependent, "tensor ", what,
                " are symbolic here; this code path needs concrete ", what);
    out[i] = v[i].as_int_unchecked();
  }
  return out;
}
}  // namespace

Tensor Tensor::make(std::shared_ptr<Storage> storage, TensorMeta meta) {
  auto impl = std::make_shared<TensorImpl>();
  impl->meta = std::move(meta);
  impl->storage = std::move(storage);
  return Tensor(std::move(impl));
}

Tensor Tensor::empty_contiguous(const std::vector<int64_t>& sizes, DType dtype) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    XPORT_CHECK(s >= 0, InvalidInput, "cannot create a tensor with negative size ", s);
    n *= s;
  }
  TensorMeta meta;
  meta.sizes.assign(sizes.begin(), sizes.end());
  const std::vector<int64_t> strides = contiguous_strides(sizes);
  meta.strides.assign(strides.begin(), strides.end());
  meta.dtype = dtype;
  return make(Storage::allocate(n * xport::element_size(dtype)), std::move(meta));
}

const TensorMeta& Tensor::meta() const {
  XPORT_CHECK(impl_ != nullptr, InvalidInput,
              "this Tensor is undefined (default-constructed); give it a value first");
  return impl_->meta;
}

static int64_t wrap_dim_for(const Tensor& t, int64_t d) {
  const int64_t n = t.dim();
  XPORT_CHECK(d >= -n && d < n, InvalidInput, "dimension ", d, " is out of range for a tensor of ",
              n, " dims (expected ", -n, " to ", n - 1, ")");
  return d < 0 ? d + n : d;
}

SymInt Tensor::size(int64_t d) const { return meta().sizes[wrap_dim_for(*this, d)]; }
SymInt Tensor::stride(int64_t d) const { return meta().strides[wrap_dim_for(*this, d)]; }
std::vector<int64_t> Tensor::int_sizes() const { return to_ints(meta().sizes, "sizes"); }
std::vector<int64_t> Tensor::int_strides() const { return to_ints(meta().strides, "strides"); }
int64_t Tensor::int_size(int64_t d) const {
  const SymInt s = size(d);
  XPORT_CHECK(!s.is_symbolic(), DataDependent, "size of dim ", d, " is symbolic (", s.str(),
              "); use size(", d, ") as a SymInt");
  return s.as_int_unchecked();
}
int64_t Tensor::int_numel() const {
  int64_t n = 1;
  for (int64_t s : int_sizes()) n *= s;
  return n;
}

bool Tensor::is_contiguous() const {
  const TensorMeta& m = meta();
  SymInt expected = 1;
  for (size_t i = m.sizes.size(); i-- > 0;) {
    const SymInt& size = m.sizes[i];
    if (size.maybe_int() == std::optional<int64_t>(1)) continue;
    if (size.maybe_int() == std::optional<int64_t>(0)) return true;
    // Symbolic strides count as contiguous only when they are the very same expression.
    if (!m.strides[i].is_same(expected)) return false;
    expected = expected * size;
  }
  return true;
}

void Tensor::check_data_access(DType expected, const char* what) const {
  XPORT_CHECK(defined(), InvalidInput, what, "(): the tensor is undefined");
  XPORT_CHECK_CASE(!is_fake(), DataDependent, "data_dependent_item", what, "()",
                   detail::at_user_location(), ": ", kFakeDataAdvice);
  XPORT_CHECK(expected == dtype(), InvalidInput, what, "<", dtype_name(expected),
              ">(): the tensor holds ", dtype_name(dtype()),
              "; convert it first with .to(DType::", dtype_name(dtype()),
              ") or read it as that type");
}

void* Tensor::raw_data() const {
  XPORT_CHECK_CASE(defined() && !is_fake(), DataDependent, "data_dependent_item", "raw_data()",
                   detail::at_user_location(),
                   ": the tensor has no data (undefined, or a fake tensor under capture)");
  return static_cast<char*>(impl_->storage->data()) +
         impl_->meta.storage_offset.as_int_unchecked() * element_size();
}

Scalar Tensor::item_scalar() const {
  XPORT_CHECK(defined(), InvalidInput, "item(): the tensor is undefined");
  XPORT_CHECK_CASE(!is_fake(), DataDependent, "data_dependent_item", "item()",
                   detail::at_user_location(), ": ", kFakeDataAdvice);
  XPORT_CHECK(int_numel() == 1, InvalidInput, "item(): a tensor with ", int_numel(),
              " elements cannot be converted to a scalar; it needs exactly one element");
  const void* p = raw_data();
  return visit_dtype(dtype(), [&](auto v) -> Scalar {
    using T = decltype(v);
    T value;
    std::memcpy(&value, p, sizeof(T));
    if constexpr (std::is_same_v<T, bool>)
      return Scalar(value);
    else if constexpr (std::is_integral_v<T>)
      return Scalar(static_cast<int64_t>(value));
    else if constexpr (std::is_same_v<T, double>)
      return Scalar(value);  // all of a float64's precision, as PyTorch's item() gives
    else
      return Scalar(static_cast<double>(static_cast<float>(value)));
  });
}

// Reads the elements in row-major order through the strides itself: the tensor layer calls no
// op (contiguous() is one).
template <class T>
std::vector<T> Tensor::to_vector() const {
  const std::vector<int64_t> sizes = int_sizes(), strides = int_strides();
  const int64_t n = int_numel();
  std::vector<T> out(static_cast<size_t>(n));
  visit_dtype(dtype(), [&](auto v) {
    using S = decltype(v);
    const S* src = static_cast<const S*>(raw_data());
    std::vector<int64_t> index(sizes.size(), 0);
    int64_t offset = 0;
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>) {
        out[i] = static_cast<T>(static_cast<float>(src[offset]));
      } else {
        out[i] = static_cast<T>(src[offset]);
      }
      // The next index, last dim fastest.
      for (size_t d = sizes.size(); d-- > 0;) {
        offset += strides[d];
        if (++index[d] < sizes[d]) break;
        offset -= strides[d] * sizes[d];
        index[d] = 0;
      }
    }
  });
  return out;
}
template std::vector<bool> Tensor::to_vector<bool>() const;
template std::vector<uint8_t> Tensor::to_vector<uint8_t>() const;
template std::vector<int8_t> Tensor::to_vector<int8_t>() const;
template std::vector<int16_t> Tensor::to_vector<int16_t>() const;
template std::vector<int32_t> Tensor::to_vector<int32_t>() const;
template std::vector<int64_t> Tensor::to_vector<int64_t>() const;
template std::vector<float> Tensor::to_vector<float>() const;
template std::vector<double> Tensor::to_vector<double>() const;

}  // namespace xport
