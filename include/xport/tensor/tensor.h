#pragma once
/// \file Tensor: a shared handle to sizes, strides and (unless fake) storage.

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <source_location>
#include <string>
#include <vector>

#include "xport/core/dtype.h"
#include "xport/core/error.h"
#include "xport/core/scalar.h"
#include "xport/core/sym.h"

namespace xport {

/// A block of memory, aligned to 64 bytes, shared by a tensor and its views.
class Storage {
 public:
  /// Allocates `nbytes` (uninitialised), 64-byte aligned.
  static std::shared_ptr<Storage> allocate(int64_t nbytes);
  /// Wraps memory owned elsewhere (e.g. a memory-mapped file); `owner` keeps it alive.
  static std::shared_ptr<Storage> wrap(void* data, int64_t nbytes, std::shared_ptr<void> owner);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  int64_t nbytes() const { return nbytes_; }

 private:
  Storage(void* data, int64_t nbytes, std::shared_ptr<void> owner)
      : data_(data), nbytes_(nbytes), owner_(std::move(owner)) {}
  void* data_;
  int64_t nbytes_;
  std::shared_ptr<void> owner_;  // null: data_ was allocated by allocate() and is freed here
};

/// A list of sizes that may be symbolic; accepts {2, 3}, std::vector<int64_t> and
/// std::vector<SymInt>.
class SymIntList {
 public:
  SymIntList(std::initializer_list<SymInt> values) : values_(values) {}     // NOLINT
  SymIntList(const std::vector<SymInt>& values) : values_(values) {}        // NOLINT
  SymIntList(std::vector<SymInt>&& values) : values_(std::move(values)) {}  // NOLINT
  SymIntList(const std::vector<int64_t>& values)                            // NOLINT
      : values_(values.begin(), values.end()) {}
  const std::vector<SymInt>& vec() const { return values_; }
  operator const std::vector<SymInt>&() const { return values_; }  // NOLINT

 private:
  std::vector<SymInt> values_;
};

/// Sizes, strides and offset (in elements) and dtype; all a meta function needs of a tensor.
struct TensorMeta {
  std::vector<SymInt> sizes;
  std::vector<SymInt> strides;
  SymInt storage_offset = 0;
  DType dtype = DType::Float32;
  /// A result that is None, not a tensor: a backward op's gradient its output_mask did not ask
  /// for. The op's kernel gets an undefined Tensor in its place and writes nothing there.
  bool none = false;

  static TensorMeta none_result() {
    TensorMeta m;
    m.none = true;
    return m;
  }
};

/// Contiguous (row-major) strides for `sizes`.
std::vector<SymInt> contiguous_strides(const std::vector<SymInt>& sizes);
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes);
/// Product of sizes.
SymInt numel_of(const std::vector<SymInt>& sizes);
/// Bytes a storage needs for every element `meta` reaches, its storage offset included (0 when
/// a size is 0, or for a None result). Throws Internal when the layout is symbolic.
int64_t storage_bytes(const TensorMeta& meta);
/// Whether a kernel has nothing to write into these results: each is None or has a 0 dim.
bool nothing_to_write(const std::vector<TensorMeta>& metas);
/// A complex tensor's layout seen as its real and imaginary parts: a last dim of 2 (stride 1),
/// the other strides and the offset doubled, the parts' dtype (view_as_real's layout).
TensorMeta complex_as_real(const TensorMeta& meta);

struct TensorImpl {
  TensorMeta meta;
  std::shared_ptr<Storage> storage;  // null for a fake tensor (capture: sizes but no data)
  /// Set by the capture layer to link a fake tensor to its graph value.
  std::shared_ptr<void> capture_info;
};

class Tensor;
std::ostream& operator<<(std::ostream& out, const Tensor& t);

/// A tensor handle. Copies share the same tensor; views share storage with their base.
/// A default-constructed Tensor is undefined (ATen's `Tensor?` none).
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  /// A tensor over `storage` with the given layout.
  static Tensor make(std::shared_ptr<Storage> storage, TensorMeta meta);
  /// A fresh contiguous tensor with uninitialised data.
  static Tensor empty_contiguous(const std::vector<int64_t>& sizes, DType dtype);

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  /// True when both handles refer to the same tensor.
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }

  // ---- layout ----
  int64_t dim() const { return static_cast<int64_t>(meta().sizes.size()); }
  SymInt size(int64_t d) const;
  SymInt stride(int64_t d) const;
  const std::vector<SymInt>& sizes() const { return meta().sizes; }
  const std::vector<SymInt>& strides() const { return meta().strides; }
  SymInt storage_offset() const { return meta().storage_offset; }
  SymInt numel() const { return numel_of(meta().sizes); }
  DType dtype() const { return meta().dtype; }
  int64_t element_size() const { return xport::element_size(dtype()); }
  const TensorMeta& meta() const;
  /// Sizes/strides as plain integers; throws if symbolic (fake tensors under capture).
  std::vector<int64_t> int_sizes() const;
  std::vector<int64_t> int_strides() const;
  int64_t int_numel() const;
  int64_t int_size(int64_t d) const;
  bool is_contiguous() const;
  /// True when the tensor has no data (a fake tensor made during capture).
  bool is_fake() const { return impl_ && !impl_->storage; }
  const std::shared_ptr<Storage>& storage() const { return impl_->storage; }

  // ---- data (eager only) ----
  void* raw_data() const;
  template <class T>
  const T* data() const {
    check_data_access(dtype_v<T>, "data");
    return static_cast<const T*>(raw_data());
  }
  template <class T>
  T* mutable_data() const {
    check_data_access(dtype_v<T>, "mutable_data");
    return static_cast<T*>(raw_data());
  }
  /// The value of a one-element tensor, converted to T.
  template <class T>
  T item() const {
    return item_scalar().to<T>();
  }
  Scalar item_scalar() const;
  SymInt item_int() const;
  SymFloat item_float() const;
  SymBool item_bool() const;
  /// Copies the elements out in row-major order, converted to T.
  template <class T>
  std::vector<T> to_vector() const;

  // ---- views ----
  Tensor view(SymIntList shape) const;
  Tensor reshape(SymIntList shape) const;
  Tensor permute(std::vector<int64_t> dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor slice(int64_t dim, std::optional<SymInt> start = std::nullopt,
               std::optional<SymInt> end = std::nullopt, SymInt step = 1) const;
  Tensor select(int64_t dim, SymInt index) const;
  Tensor narrow(int64_t dim, SymInt start, SymInt length) const;
  Tensor expand(SymIntList shape) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, SymIntList sizes) const;
  Tensor as_strided(SymIntList sizes, SymIntList strides,
                    std::optional<SymInt> storage_offset = std::nullopt) const;
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor contiguous() const;

  // ---- conversion and copies ----
  Tensor to(DType dtype) const;
  Tensor clone() const;
  Tensor& copy_(const Tensor& src);
  Tensor& fill_(const Scalar& value);
  Tensor& zero_();
  /// self[indices] = values (or += with `accumulate`), in place; see index_put().
  Tensor& index_put_(const std::vector<Tensor>& indices, const Tensor& values,
                     bool accumulate = false);
  /// Writes source's slices i at index[i] along dim, in place (a KV cache's update).
  Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source);

  // ---- arithmetic (ATen names) ----
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& other) const;
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& other) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(const Scalar& other) const;
  Tensor div(const Tensor& other) const;
  Tensor div(const Scalar& other) const;
  Tensor pow(const Scalar& exponent) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor neg() const;
  Tensor abs() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor tanh() const;
  Tensor sigmoid() const;
  Tensor relu() const;
  Tensor matmul(const Tensor& other) const;
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& add_(const Scalar& other);
  Tensor& sub_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& sub_(const Scalar& other);
  Tensor& mul_(const Tensor& other);
  Tensor& mul_(const Scalar& other);
  Tensor& div_(const Tensor& other);
  Tensor& div_(const Scalar& other);

  // ---- comparisons ----
  Tensor eq(const Tensor& other) const;
  Tensor eq(const Scalar& other) const;
  Tensor ne(const Tensor& other) const;
  Tensor ne(const Scalar& other) const;
  Tensor lt(const Tensor& other) const;
  Tensor lt(const Scalar& other) const;
  Tensor le(const Tensor& other) const;
  Tensor le(const Scalar& other) const;
  Tensor gt(const Tensor& other) const;
  Tensor gt(const Scalar& other) const;
  Tensor ge(const Tensor& other) const;
  Tensor ge(const Scalar& other) const;

  // ---- reductions ----
  Tensor sum(std::optional<DType> dtype = std::nullopt) const;
  Tensor sum(std::vector<int64_t> dims, bool keepdim = false) const;
  Tensor mean() const;
  Tensor mean(std::vector<int64_t> dims, bool keepdim = false) const;
  Tensor max() const;
  /// Values and indices of the maximum along `dim`.
  std::pair<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor amax(std::vector<int64_t> dims, bool keepdim = false) const;
  /// libtorch's single-dim spellings: `x.sum(1)`, `x.mean(-1, true)`, `x.amax(0)`. Templates, so
  /// that a braced list (`x.sum({1})`) still means the list overload.
  template <class I>
    requires(std::integral<I> && !std::same_as<I, bool>)
  Tensor sum(I dim, bool keepdim = false) const {
    return sum(std::vector<int64_t>{static_cast<int64_t>(dim)}, keepdim);
  }
  template <class I>
    requires(std::integral<I> && !std::same_as<I, bool>)
  Tensor mean(I dim, bool keepdim = false) const {
    return mean(std::vector<int64_t>{static_cast<int64_t>(dim)}, keepdim);
  }
  template <class I>
    requires(std::integral<I> && !std::same_as<I, bool>)
  Tensor amax(I dim, bool keepdim = false) const {
    return amax(std::vector<int64_t>{static_cast<int64_t>(dim)}, keepdim);
  }
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor softmax(int64_t dim) const;

  std::string str() const;

 private:
  void check_data_access(DType expected, const char* what) const;
  std::shared_ptr<TensorImpl> impl_;
};

// ---- operators ----
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a);
/// In place, as in libtorch (`y += x`): add_, sub_, mul_ and div_ of `a`.
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Scalar& b);
Tensor& operator-=(Tensor& a, const Scalar& b);
Tensor& operator*=(Tensor& a, const Scalar& b);
Tensor& operator/=(Tensor& a, const Scalar& b);
/// Elementwise comparisons, as in libtorch (`x > 0`, `a == b`): bool tensors, never a C++ bool.
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Scalar& b);
Tensor operator!=(const Tensor& a, const Scalar& b);
Tensor operator<(const Tensor& a, const Scalar& b);
Tensor operator<=(const Tensor& a, const Scalar& b);
Tensor operator>(const Tensor& a, const Scalar& b);
Tensor operator>=(const Tensor& a, const Scalar& b);
Tensor operator==(const Scalar& a, const Tensor& b);
Tensor operator!=(const Scalar& a, const Tensor& b);
Tensor operator<(const Scalar& a, const Tensor& b);
Tensor operator<=(const Scalar& a, const Tensor& b);
Tensor operator>(const Scalar& a, const Tensor& b);
Tensor operator>=(const Scalar& a, const Tensor& b);

/// Elementwise |a - b| <= atol + rtol * |b| on every element (NaNs in the same places count equal
/// only when both are NaN), after broadcasting; false if shapes do not broadcast.
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);

}  // namespace xport
