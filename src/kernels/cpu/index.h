#pragma once
// Index-taking kernels: index_select, gather, scatter, advanced indexing (index
// / index_put) and nonzero. Every kernel checks all index values before any
// parallel work and names the op
// (`op`), the bad index and the valid range in its error.

#include <cstdint>
#include <string_view>
#include <vector>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// The values of an integer index tensor in row-major order, checked and
/// wrapped: a view of the index's own data when it is contiguous int64 with
/// nothing to wrap, else a copy.
class IndexValues {
 public:
  IndexValues() = default;
  IndexValues(const int64_t* data, int64_t n) : data_(data), n_(n) {}
  /// Views the data of `keep` (contiguous int64), which it keeps alive.
  explicit IndexValues(Tensor keep)
      : keep_(std::move(keep)), data_(keep_.data<int64_t>()), n_(keep_.int_numel()) {}
  explicit IndexValues(std::vector<int64_t> owned)
      : owned_(std::move(owned)), data_(owned_.data()), n_(static_cast<int64_t>(owned_.size())) {}
  IndexValues(IndexValues&& other) noexcept { *this = std::move(other); }
  IndexValues& operator=(IndexValues&& other) noexcept {
    const bool own = other.data_ == other.owned_.data();
    owned_ = std::move(other.owned_);
    keep_ = std::move(other.keep_);
    data_ = own ? owned_.data() : other.data_;
    n_ = other.n_;
    return *this;
  }
  const int64_t& operator[](int64_t i) const { return data_[i]; }
  int64_t size() const { return n_; }

 private:
  std::vector<int64_t> owned_;
  Tensor keep_;
  const int64_t* data_ = nullptr;
  int64_t n_ = 0;
};

/// Checks every value of `index` against [0, size) (or [-size, size) with
/// `allow_negative`, negative ones wrapped); throws InvalidInput naming `op`,
/// the bad index and the range.
IndexValues checked_indices(const Tensor& index, int64_t size, bool allow_negative,
                            std::string_view op, int64_t dim);

/// out = self, then out's slice index[i] along dim = source's slice i (in order; a repeated
/// index keeps the last). Skips the copy when out is self (the in-place op).
void index_copy_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    const Tensor& out, std::string_view op);
/// out = self indexed by the 1-D (or 0-D) `index` along dim.
void index_select_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out,
                      std::string_view op);
/// out[p] = self[p with p[dim] = index[p]], over index's shape.
void gather_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out,
                std::string_view op);

enum class ScatterMode { Assign, Add, Prod, Mean, Amax, Amin };
/// out = self, then out[p with p[dim] = index[p]] = src[p] (or += with Add)
/// over index's shape; an undefined src writes `value` instead. Assign or Add only.
void scatter_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                 const Scalar& value, ScatterMode mode, const Tensor& out, std::string_view op);
/// scatter_reduce: out = self, then each out[p with p[dim] = index[p]] combined with src[p] by
/// `mode` (Add, Prod, Mean, Amax, Amin; NaN wins amax and amin). Without include_self, a place
/// written starts from the reduction's identity instead of self's value. Mean divides by the
/// number of values combined there (flooring for integers).
void scatter_reduce_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                        ScatterMode mode, bool include_self, const Tensor& out,
                        std::string_view op);

/// masked_scatter: out = self broadcast to out's shape, then the places where `mask` (bool,
/// broadcast likewise) is true take source's elements in row-major order. Refuses a source
/// with fewer elements than the mask has true places.
void masked_scatter_out(const Tensor& self, const Tensor& mask, const Tensor& source,
                        const Tensor& out, std::string_view op);

/// Replaces each bool/uint8 mask in `indices` by one int64 index tensor per
/// mask dim (the columns of its nonzero()). Mask shapes must already match
/// self's.
std::vector<Tensor> expand_masks(const std::vector<Tensor>& indices);
/// out = self[indices] (advanced indexing; undefined entries take the whole
/// dim). `indices` hold integer tensors only (see expand_masks); out has the
/// indexing result's shape.
void index_out(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& out,
               std::string_view op);
/// out = self with out[indices] = values (or += with accumulate); values
/// broadcast to the indexing result's shape.
void index_put_out(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                   bool accumulate, const Tensor& out, std::string_view op);

/// The coordinates of self's nonzero elements, row-major: an int64 tensor
/// [count, self.dim()].
Tensor nonzero(const Tensor& self);

}  // namespace xport::kernels::cpu
