// Printing in PyTorch's style: tensor([[ 1.0000, -2.5000], ...], dtype=torch.float64).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "xport/tensor/tensor.h"

namespace xport {
namespace {

constexpr int64_t kSummarizeThreshold = 1000;
constexpr int64_t kEdgeItems = 3;

// Values of any dtype read as double (int64 beyond 2^53 loses digits; fine for display).
double element(const Tensor& t, int64_t linear_offset) {
  const char* base = static_cast<const char*>(t.raw_data());
  return visit_dtype(t.dtype(), [&](auto tag) -> double {
    using T = decltype(tag);
    const T v = *reinterpret_cast<const T*>(base + linear_offset * sizeof(T));
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
      return static_cast<float>(v);
    else
      return static_cast<double>(v);
  });
}

struct Formatter {
  DType dtype;
  bool int_mode = false;
  bool sci_mode = false;
  size_t width = 1;

  std::string format(double v) const {
    char buf[64];
    if (dtype == DType::Bool) return v != 0 ? "True" : "False";
    if (!is_floating(dtype)) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    } else if (std::isnan(v)) {
      return "nan";
    } else if (std::isinf(v)) {
      return v > 0 ? "inf" : "-inf";
    } else if (sci_mode) {
      std::snprintf(buf, sizeof buf, "%.4e", v);
    } else if (int_mode) {
      std::snprintf(buf, sizeof buf, "%.0f.", v);
    } else {
      std::snprintf(buf, sizeof buf, "%.4f", v);
    }
    return buf;
  }
};

void collect(const Tensor& t, int64_t dim, int64_t offset, bool summarize,
             std::vector<double>& out) {
  const std::vector<int64_t> sizes = t.int_sizes(), strides = t.int_strides();
  if (dim == t.dim()) {
    out.push_back(element(t, offset));
    return;
  }
  const int64_t n = sizes[dim];
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) i = n - kEdgeItems;
    collect(t, dim + 1, offset + i * strides[dim], summarize, out);
  }
}

Formatter make_formatter(DType dtype, const std::vector<double>& values) {
  Formatter f{dtype};
  if (is_floating(dtype)) {
    std::vector<double> finite;
    for (double v : values)
      if (std::isfinite(v)) finite.push_back(v);
    f.int_mode =
        std::all_of(finite.begin(), finite.end(), [](double v) { return v == std::ceil(v); });
    std::vector<double> nonzero;
    for (double v : finite)
      if (v != 0) nonzero.push_back(std::fabs(v));
    if (!nonzero.empty()) {
      const double mx = *std::max_element(nonzero.begin(), nonzero.end());
      const double mn = *std::min_element(nonzero.begin(), nonzero.end());
      f.sci_mode = mx / mn > 1000.0 || mx > 1.0e8 || (!f.int_mode && mn < 1.0e-4);
    }
  }
  for (double v : values) f.width = std::max(f.width, f.format(v).size());
  return f;
}

void print_rec(std::ostream& out, const Tensor& t, int64_t dim, int64_t offset, const Formatter& f,
               bool summarize, int indent) {
  const std::vector<int64_t> sizes = t.int_sizes(), strides = t.int_strides();
  if (dim == t.dim()) {
    std::string s = f.format(element(t, offset));
    out << std::string(f.width - s.size(), ' ') << s;
    return;
  }
  out << "[";
  const int64_t n = sizes[dim];
  const bool last = dim == t.dim() - 1;
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) {
      out << ",";
      if (last)
        out << " ";
      else
        out << std::string(t.dim() - dim - 1, '\n') << std::string(indent + dim + 1, ' ');
    }
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) {
      out << (last ? " ...," : "...,");  // PyTorch pads the innermost ellipsis like a value
      if (last)
        out << " ";
      else
        out << std::string(t.dim() - dim - 1, '\n') << std::string(indent + dim + 1, ' ');
      i = n - kEdgeItems;
    }
    print_rec(out, t, dim + 1, offset + i * strides[dim], f, summarize, indent);
  }
  out << "]";
}

}  // namespace

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  if (is_complex(dtype())) {
    // Its (real, imaginary) pairs, as view_as_real shows them.
    return "tensor(" + Tensor::make(storage(), complex_as_real(meta())).str() + " as (real, imag)"
           ", dtype=torch." + dtype_name(dtype()) + ")";
  }
  check_data_access(dtype(), "print");
  std::ostringstream out;
  out << "tensor(";
  const int64_t n = int_numel();
  const int64_t offset = storage_offset().as_int_unchecked();
  // element() indexes from the storage start, so walk a view of it with offset 0.
  const Tensor elem_tensor = Tensor::make(storage(), TensorMeta{sizes(), strides(), 0, dtype()});
  if (n == 0) {
    out << "[]";
    if (dim() != 1) {
      out << ", size=(";
      for (int64_t i = 0; i < dim(); ++i) out << (i ? ", " : "") << int_size(i);
      out << (dim() == 1 ? ",)" : ")");
    }
  } else {
    const bool summarize = n > kSummarizeThreshold;
    std::vector<double> values;
    collect(elem_tensor, 0, offset, summarize, values);
    const Formatter f = make_formatter(dtype(), values);
    print_rec(out, elem_tensor, 0, offset, f, summarize, 7);
  }
  if (dtype() != DType::Float32 && dtype() != DType::Int64 && dtype() != DType::Bool) {
    out << ", dtype=torch." << dtype_name(dtype());
  }
  out << ")";
  return out.str();
}

std::ostream& operator<<(std::ostream& out, const Tensor& t) { return out << t.str(); }

}  // namespace xport
