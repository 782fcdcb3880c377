// The FFT ops on ONNX's DFT (opset 17). A complex value is, in the ONNX graph, a real tensor of
// its component dtype with a trailing dim of 2 (real, imaginary): DFT's own layout, and
// view_as_real's, so view_as_real and view_as_complex are the value itself.
#include <limits>

#include "onnx/lowering.h"

namespace xport::onnx {
namespace {

std::vector<int64_t> wrapped_dims(NodeLowering& n, const char* name, size_t rank) {
  std::vector<int64_t> dims = n.integers(name);
  for (int64_t& d : dims) d = d < 0 ? d + static_cast<int64_t>(rank) : d;
  return dims;
}

// The number of elements a transform over `dims` of `sizes` sums.
sym::ExprPtr signal_size(const std::vector<sym::ExprPtr>& sizes, const std::vector<int64_t>& dims) {
  sym::ExprPtr n = sym::integer(1);
  for (int64_t d : dims) n = sym::mul(n, sizes.at(static_cast<size_t>(d)));
  return n;
}

// `y` scaled as PyTorch's `normalization` says (0: none, 1: 1/sqrt(n), 2: 1/n), after undoing
// the 1/n ONNX's inverse DFT applies when `inverse`.
std::string normalized(NodeLowering& n, const std::string& y, sym::ExprPtr size, bool inverse) {
  const int64_t mode = n.integer("normalization");
  if (mode < 0 || mode > 2) n.refuse("an unknown normalization");
  GraphBuilder& g = n.g;
  const DType out = n.out_dtype();
  const DType t = is_complex(out) ? complex_part(out) : out;  // the graph's component dtype
  // Exponent of n in the scale: inverse undoes -1, then by_root_n -1/2, by_n -1.
  const double power = (inverse ? 1.0 : 0.0) - (mode == 1 ? 0.5 : mode == 2 ? 1.0 : 0.0);
  if (power == 0) return y;
  const std::string count = g.cast(g.sym_scalar(size),
                                   DType::Int64, t);
  return g.add("Mul", {y, g.add("Pow", {count, g.scalar(t, power)})});
}

void fft_r2c(NodeLowering& n) {
  const ir::TensorSpec& self = n.spec("self");
  const std::vector<int64_t> dims = wrapped_dims(n, "dim", self.sizes.size());
  if (dims.empty()) n.refuse("a transform over no dims");
  GraphBuilder& g = n.g;
  std::string y = g.add("Unsqueeze", {n.tensor("self"), g.ints({-1})});
  // The last dim first, one-sided when asked (its input is real); then the others, complex.
  y = g.add("DFT", {y}, {attr("axis", dims.back()),
                         attr("onesided", static_cast<int64_t>(n.flag("onesided")))});
  for (size_t i = 0; i + 1 < dims.size(); ++i) y = g.add("DFT", {y}, {attr("axis", dims[i])});
  n.set(g.add("Identity", {normalized(n, y, signal_size(self.sizes, dims), false)}, {},
              n.node().name()));
}

void fft_c2c(NodeLowering& n) {
  const ir::TensorSpec& self = n.spec("self");
  const std::vector<int64_t> dims = wrapped_dims(n, "dim", self.sizes.size());
  const bool inverse = !n.flag("forward");
  GraphBuilder& g = n.g;
  std::string y = n.tensor("self");
  for (int64_t d : dims) {
    y = g.add("DFT", {y}, {attr("axis", d), attr("inverse", static_cast<int64_t>(inverse))});
  }
  n.set(g.add("Identity", {normalized(n, y, signal_size(self.sizes, dims), inverse)}, {},
              n.node().name()));
}

// c2r: the other dims are transformed back first; then each row along the last dim is the
// one-sided spectrum of a real signal, completed by Hermitian symmetry (bins N/2+1 .. N-1 are the
// conjugates of bins (N-1)/2 .. 1) and transformed back; the real part is kept.
void fft_c2r(NodeLowering& n) {
  const ir::TensorSpec& self = n.spec("self");
  const std::vector<int64_t> dims = wrapped_dims(n, "dim", self.sizes.size());
  if (dims.empty()) n.refuse("a transform over no dims");
  GraphBuilder& g = n.g;
  const int64_t last = dims.back();
  const sym::ExprPtr length = n.size("last_dim_size");
  const sym::ExprPtr half = sym::floor_div(length, sym::integer(2));
  const sym::ExprPtr mirrored = sym::floor_div(sym::sub(length, sym::integer(1)), sym::integer(2));
  std::string x = n.tensor("self");
  for (size_t i = 0; i + 1 < dims.size(); ++i) {
    x = g.add("DFT", {x}, {attr("axis", dims[i]), attr("inverse", int64_t{1})});
  }
  const std::string axis = g.ints({last});
  const std::string head =
      g.add("Slice", {x, g.ints({0}), g.sym_int(sym::add(half, sym::integer(1))), axis});
  std::string tail =
      g.add("Slice", {x, g.ints({1}), g.sym_int(sym::add(mirrored, sym::integer(1))), axis});
  tail = g.add("Slice", {tail, g.ints({-1}), g.ints({std::numeric_limits<int64_t>::min()}), axis,
                         g.ints({-1})});
  const DType part = complex_part(self.dtype);
  tail = g.add("Mul", {tail, g.constant(part, {1, -1}, {2})});  // the conjugate
  std::string y = g.add("Concat", {head, tail}, {attr("axis", last)});
  y = g.add("DFT", {y}, {attr("axis", last), attr("inverse", int64_t{1})});
  std::vector<int64_t> starts(1, 0), ends(1, 1);
  const std::string real = g.add("Slice", {y, g.ints(starts), g.ints(ends), g.ints({-1})});
  const std::string flat = g.add("Reshape", {real, g.shape(n.out_spec().sizes)});
  n.set(g.add("Identity", {normalized(n, flat, signal_size(n.out_spec().sizes, dims), true)}, {},
              n.node().name()));
}

void same_value(NodeLowering& n) { n.emit("Identity", {n.tensor("self")}); }

}  // namespace

LoweringList spectral_lowerings() {
  return {
      {"aten::_fft_r2c", fft_r2c},
      {"aten::_fft_c2c", fft_c2c},
      {"aten::_fft_c2r", fft_c2r},
      {"aten::view_as_real", same_value},
      {"aten::view_as_complex", same_value},
  };
}

}  // namespace xport::onnx
