// The FFT ops: ATen's core _fft_r2c / _fft_c2r and _fft_c2c, torch.fft's rfft / irfft, which
// decompose into them, and view_as_real / view_as_complex, which turn a complex tensor into its
// (real, imaginary) pairs and back without a copy.
#include <cmath>

#include "kernels/cpu/fft.h"
#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

// The transformed dims, wrapped, in the order given (the last one is the one-sided one).
std::vector<int64_t> ordered_dims(std::string_view op, const std::vector<int64_t>& given,
                                  int64_t ndim) {
  std::vector<int64_t> dims;
  for (int64_t d : given) dims.push_back(wrap_dim(op, d, ndim));
  return dims;
}

// The same, checked: at least one, each once.
std::vector<int64_t> fft_dims(const OpArgs& args, const Tensor& self) {
  const std::vector<int64_t> dims = ordered_dims(args.name(), args.ints("dim"), self.dim());
  XPORT_CHECK(!dims.empty(), InvalidInput, args.name(), ": dim must name at least one dim");
  for (size_t i = 0; i < dims.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      XPORT_CHECK(dims[i] != dims[j], InvalidInput, args.name(), ": dim ", dims[i],
                  " appears twice in dim");
    }
  }
  return dims;
}

// ATen's fft_norm_mode: 0 none, 1 by 1 / sqrt(n), 2 by 1 / n.
void check_norm_mode(const OpArgs& args) {
  const int64_t mode = args.integer("normalization");
  XPORT_CHECK(mode >= 0 && mode <= 2, InvalidInput, args.name(), ": normalization must be 0 "
              "(none), 1 (1 / sqrt(n)) or 2 (1 / n), got ", mode);
}

// The factor of norm mode `mode` for a signal of the sizes of `t` along `dims`.
double norm_scale(int64_t mode, const Tensor& t, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= t.int_size(d);
  if (mode == 0 || n == 0) return 1.0;
  return mode == 1 ? 1.0 / std::sqrt(static_cast<double>(n)) : 1.0 / static_cast<double>(n);
}

void check_real_input(const OpArgs& args, const Tensor& self) {
  XPORT_CHECK(self.dtype() == DType::Float32 || self.dtype() == DType::Float64, InvalidInput,
              args.name(), ": needs a float32 or float64 tensor, got ", dtype_name(self.dtype()));
}

void check_complex_input(const OpArgs& args, const Tensor& self) {
  XPORT_CHECK(is_complex(self.dtype()), InvalidInput, args.name(),
              ": needs a complex tensor, got ", dtype_name(self.dtype()));
}

// _fft_r2c(self, dim, normalization, onesided): complex; the last of dim keeps n / 2 + 1
// entries when onesided.
std::vector<TensorMeta> fft_r2c_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  check_real_input(args, self);
  check_norm_mode(args);
  const std::vector<int64_t> dims = fft_dims(args, self);
  std::vector<SymInt> sizes = self.sizes();
  if (args.boolean("onesided")) sizes[dims.back()] = sizes[dims.back()] / 2 + 1;
  return {contiguous_meta(sizes, complex_of(self.dtype()))};
}

std::vector<TensorMeta> fft_c2c_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  check_complex_input(args, self);
  check_norm_mode(args);
  fft_dims(args, self);
  return {contiguous_meta(self.sizes(), self.dtype())};
}

// _fft_c2r(self, dim, normalization, last_dim_size): real, last_dim_size long along the last of
// dim, whose first last_dim_size / 2 + 1 entries self must hold.
std::vector<TensorMeta> fft_c2r_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  check_complex_input(args, self);
  check_norm_mode(args);
  const std::vector<int64_t> dims = fft_dims(args, self);
  const SymInt& n = args.sym_int("last_dim_size");
  XPORT_CHECK(static_cast<bool>(n >= 1), InvalidInput, args.name(),
              ": last_dim_size must be at least 1, got ", n);
  XPORT_CHECK(static_cast<bool>(self.size(dims.back()) >= n / 2 + 1), InvalidInput, args.name(),
              ": a signal of ", n, " values needs ", n / 2 + 1, " entries in dim ", dims.back(),
              ", got ", self.size(dims.back()));
  std::vector<SymInt> sizes = self.sizes();
  sizes[dims.back()] = n;
  return {contiguous_meta(sizes, complex_part(self.dtype()))};
}

// view_as_real(self): complex [..] -> its parts [.., 2], sharing memory.
std::vector<TensorMeta> view_as_real_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  check_complex_input(args, self);
  return {complex_as_real(self.meta())};
}

// view_as_complex(self): float [.., 2] with the pairs adjacent -> complex [..], sharing memory.
std::vector<TensorMeta> view_as_complex_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  XPORT_CHECK(self.dtype() == DType::Float32 || self.dtype() == DType::Float64, InvalidInput,
              args.name(), ": needs a float32 or float64 tensor, got ", dtype_name(self.dtype()));
  XPORT_CHECK(self.dim() >= 1 && static_cast<bool>(self.size(-1) == 2), InvalidInput,
              args.name(), ": needs a last dim of size 2, got ", shape_str(self.sizes()));
  XPORT_CHECK(static_cast<bool>(self.stride(-1) == 1), InvalidInput, args.name(),
              ": needs a last dim of stride 1, got ", self.stride(-1));
  TensorMeta m;
  m.dtype = complex_of(self.dtype());
  for (int64_t d = 0; d + 1 < self.dim(); ++d) {
    XPORT_CHECK(static_cast<bool>(self.stride(d) % 2 == 0), InvalidInput, args.name(),
                ": needs even strides but in the last dim, got ", shape_str(self.strides()));
    m.sizes.push_back(self.size(d));
    m.strides.push_back(self.stride(d) / 2);
  }
  XPORT_CHECK(static_cast<bool>(self.storage_offset() % 2 == 0), InvalidInput, args.name(),
              ": needs an even storage offset, got ", self.storage_offset());
  m.storage_offset = self.storage_offset() / 2;
  return {m};
}

// torch.fft's norm: which fft_norm_mode the forward (or the inverse) transform takes.
int64_t norm_mode(const OpArgs& args, bool forward) {
  const std::optional<std::string> norm = args.optional_str("norm");
  if (!norm || *norm == "backward") return forward ? 0 : 2;
  if (*norm == "forward") return forward ? 2 : 0;
  XPORT_CHECK(*norm == "ortho", InvalidInput, args.name(), ": invalid normalization mode '",
              *norm, "'; expected \"forward\", \"backward\" or \"ortho\"");
  return 1;
}

// `t` cut or zero-padded to `n` along dim (torch.fft's n); a complex `t` is padded as its
// (real, imaginary) parts.
Tensor resized(const Tensor& t, int64_t dim, const SymInt& n) {
  const SymInt have = t.size(dim);
  if (static_cast<bool>(have == n)) return t;
  if (static_cast<bool>(have > n)) return t.narrow(dim, 0, n);
  const bool complex = is_complex(t.dtype());
  const Tensor real = complex ? call1(XPORT_OP("aten::view_as_real"), {t}) : t;
  std::vector<SymInt> pad(static_cast<size_t>(2 * (real.dim() - dim)), SymInt(0));
  pad[pad.size() - 1] = n - have;  // constant_pad_nd's order: the last dim first
  const Tensor padded = call1(XPORT_OP("aten::constant_pad_nd"), {real, pad, 0.0});
  return complex ? call1(XPORT_OP("aten::view_as_complex"), {padded}) : padded;
}

}  // namespace

// The typed kernels; the meta functions checked the arguments. The signal a norm counts is the
// real one: the input of r2c, the output of c2r.
void _fft_r2c_out(const Tensor& self, const std::vector<int64_t>& dim, int64_t normalization,
                  bool, const Tensor& out) {
  const std::vector<int64_t> dims = ordered_dims("aten::_fft_r2c", dim, self.dim());
  cpu::fft_r2c_out(self, dims, norm_scale(normalization, self, dims), out);
}
void _fft_c2c_out(const Tensor& self, const std::vector<int64_t>& dim, int64_t normalization,
                  bool forward, const Tensor& out) {
  const std::vector<int64_t> dims = ordered_dims("aten::_fft_c2c", dim, self.dim());
  cpu::fft_c2c_out(self, dims, norm_scale(normalization, self, dims), forward, out);
}
void _fft_c2r_out(const Tensor& self, const std::vector<int64_t>& dim, int64_t normalization,
                  int64_t, const Tensor& out) {
  const std::vector<int64_t> dims = ordered_dims("aten::_fft_c2r", dim, self.dim());
  cpu::fft_c2r_out(self, dims, norm_scale(normalization, out, dims), out);
}

// _fft_c2c, view_as_real and view_as_complex are not tagged core by PyTorch 2.13, but its
// run_decompositions() keeps them (nothing smaller expresses them): core here.
void register_fft_ops() {
  register_op({
      .schema = "aten::_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) "
                "-> Tensor",
      .meta = fft_r2c_meta,
      .kernel = XPORT_OP_KERNEL(_fft_r2c_out),
      .core = true,
  });
  register_op({
      .schema = "aten::_fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size) "
                "-> Tensor",
      .meta = fft_c2r_meta,
      .kernel = XPORT_OP_KERNEL(_fft_c2r_out),
      .core = true,
      .takes_complex = true,
  });
  register_op({
      .schema = "aten::_fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward) "
                "-> Tensor",
      .meta = fft_c2c_meta,
      .kernel = XPORT_OP_KERNEL(_fft_c2c_out),
      .core = true,
      .takes_complex = true,
  });
  register_op({
      .schema = "aten::view_as_real(Tensor(a) self) -> Tensor(a)",
      .meta = view_as_real_meta,
      .core = true,
  });
  register_op({
      .schema = "aten::view_as_complex(Tensor(a) self) -> Tensor(a)",
      .meta = view_as_complex_meta,
      .core = true,
  });
  // torch.fft.rfft / irfft in PyTorch's training IR; integers transform as float32.
  register_op({
      .schema = "aten::fft_rfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) "
                "-> Tensor",
      .decomp =
          [](const OpArgs& args) {
            Tensor self = args.tensor("self");
            if (!is_floating(self.dtype())) self = self.to(kDefaultFloat);
            const int64_t dim = wrap_dim(args, args.integer("dim"), self.dim());
            const std::optional<SymInt> n = args.optional_sym_int("n");
            return single(call1(XPORT_OP("aten::_fft_r2c"),
                                {resized(self, dim, n.value_or(self.size(dim))),
                                 std::vector<int64_t>{dim}, norm_mode(args, true), true}));
          },
  });
  register_op({
      .schema = "aten::fft_irfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) "
                "-> Tensor",
      .decomp =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            check_complex_input(args, self);
            const int64_t dim = wrap_dim(args, args.integer("dim"), self.dim());
            const SymInt n = args.optional_sym_int("n").value_or((self.size(dim) - 1) * 2);
            return single(call1(XPORT_OP("aten::_fft_c2r"),
                                {resized(self, dim, n / 2 + 1), std::vector<int64_t>{dim},
                                 norm_mode(args, false), n}));
          },
      .takes_complex = true,
  });
}

}  // namespace xport::ops
