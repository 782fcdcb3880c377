// Rearranging copies: repeat, tile, flip, roll, triu, tril, constant_pad_nd,
// pad.
#include <algorithm>

#include "kernels/cpu/shape.h"
#include "ops/shape/shape_ops.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

std::vector<TensorMeta> repeat_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const std::vector<SymInt>& repeats = args.sym_ints("repeats");
  const int64_t n = static_cast<int64_t>(repeats.size());
  XPORT_CHECK(n >= self.dim(), InvalidInput, args.name(), ": repeats ", shape_str(repeats),
              " must have at least as many entries as self has dims (", self.dim(), ")");
  std::vector<SymInt> sizes;
  for (int64_t d = 0; d < n; ++d) {
    XPORT_CHECK(static_cast<bool>(repeats[d] >= 0), InvalidInput, args.name(),
                ": repeats must be non-negative, got ", shape_str(repeats));
    const int64_t sd = d - (n - self.dim());
    sizes.push_back(sd < 0 ? repeats[d] : self.sizes()[sd] * repeats[d]);
  }
  return {contiguous_meta(std::move(sizes), self.dtype())};
}

// flip's dims, wrapped and checked for repeats; none for a 0-dim tensor.
std::vector<int64_t> flip_dims(std::string_view op, const Tensor& self,
                               const std::vector<int64_t>& dims_arg) {
  std::vector<int64_t> dims;
  for (int64_t d : dims_arg) {
    const int64_t w = wrap_dim(op, d, self.dim());
    XPORT_CHECK(std::find(dims.begin(), dims.end(), w) == dims.end(), InvalidInput, op, ": dim ",
                w, " appears multiple times in the list of dims");
    dims.push_back(w);
  }
  if (self.dim() == 0) dims.clear();
  return dims;
}
std::vector<int64_t> flip_dims(const OpArgs& args) {
  return flip_dims(args.name(), args.tensor("self"), args.ints("dims"));
}

std::vector<TensorMeta> triangle_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  XPORT_CHECK(self.dim() >= 2, InvalidInput, args.name(),
              ": needs a tensor of at least 2 dims (a matrix or a batch of "
              "them), got shape ",
              shape_str(self.sizes()));
  return {contiguous_meta(self.sizes(), self.dtype())};
}

// triu/tril as where(col - row >= / <= diagonal, self, 0).
// 0, 1, ..., n - 1 as int64, from sizes only: arange's Scalar end would specialise a symbolic n
// under capture.
Tensor index_range(const SymInt& n) {
  const Tensor ones = call1(XPORT_OP("aten::ones"), {std::vector<SymInt>{n}, DType::Int64});
  return call1(XPORT_OP("aten::cumsum"), {ones, int64_t{0}}).sub(int64_t{1});
}

DecompFn triangle_decomp(bool upper) {
  return [upper](const OpArgs& args) {
    triangle_meta(args);
    const Tensor& self = args.tensor("self");
    const int64_t n = self.dim();
    const Tensor rows = index_range(self.sizes()[n - 2]).unsqueeze(-1);
    const Tensor cols = index_range(self.sizes()[n - 1]);
    const Tensor offset = call1(XPORT_OP("aten::sub.Tensor"), {cols, rows});
    const Tensor keep = call1(upper ? XPORT_OP("aten::ge.Scalar") : XPORT_OP("aten::le.Scalar"),
                              {offset, args["diagonal"]});
    const Tensor zero = call1(XPORT_OP("aten::scalar_tensor"), {int64_t{0}, self.dtype()});
    return call_tensors(XPORT_OP("aten::where.self"), {keep, self, zero});
  };
}

std::vector<TensorMeta> constant_pad_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const std::vector<SymInt>& pad = args.sym_ints("pad");
  const int64_t n = static_cast<int64_t>(pad.size());
  XPORT_CHECK(n % 2 == 0, InvalidInput, args.name(), ": the pad list must have even length, got ",
              n, " entries");
  XPORT_CHECK(n / 2 <= self.dim(), InvalidInput, args.name(), ": the pad list ", shape_str(pad),
              " pads ", n / 2, " dims, but self has only ", self.dim());
  std::vector<SymInt> sizes = self.sizes();
  for (int64_t i = 0; i < n / 2; ++i) {
    const int64_t d = self.dim() - 1 - i;
    const SymInt size = sizes[d] + pad[2 * i] + pad[2 * i + 1];
    XPORT_CHECK(static_cast<bool>(size >= 0), InvalidInput, args.name(), ": the size ", sizes[d],
                " of dim ", d, " plus padding ", pad[2 * i], " and ", pad[2 * i + 1],
                " is negative (", size, ")");
    sizes[d] = size;
  }
  return {contiguous_meta(std::move(sizes), self.dtype())};
}

// reflection_pad{1,2,3}d / replication_pad{1,2,3}d: self is [C, *] or [N, C, *] with `dims`
// padded trailing dims, which must not be empty; reflection pads less than each dim's size.
MetaFn mode_pad_meta(int64_t dims, bool reflect) {
  return [dims, reflect](const OpArgs& args) {
    const Tensor& self = args.tensor("self");
    const std::vector<SymInt>& pad = args.sym_ints("padding");
    XPORT_CHECK(self.dim() == dims + 1 || self.dim() == dims + 2, InvalidInput, args.name(),
                ": expected a ", dims + 1, "-d or ", dims + 2, "-d (batch mode) input, got ",
                self.dim(), " dims");
    for (int64_t d = self.dim() == dims + 2 ? 1 : 0; d < self.dim(); ++d) {
      XPORT_CHECK(static_cast<bool>(self.size(d) != 0), InvalidInput, args.name(),
                  ": every dim but the batch must be non-empty, got sizes ",
                  shape_str(self.sizes()));
    }
    std::vector<SymInt> sizes = self.sizes();
    for (int64_t i = 0; i < dims; ++i) {
      const int64_t d = self.dim() - 1 - i;
      const SymInt &left = pad[2 * i], &right = pad[2 * i + 1];
      if (reflect) {
        XPORT_CHECK(static_cast<bool>(left < sizes[d]) && static_cast<bool>(right < sizes[d]),
                    InvalidInput, args.name(), ": padding ", left, " and ", right, " of dim ", d,
                    " must be less than its size ", sizes[d], " (reflection repeats no edge)");
      }
      const SymInt size = sizes[d] + left + right;
      XPORT_CHECK(static_cast<bool>(size >= 1), InvalidInput, args.name(), ": dim ", d,
                  " of size ", sizes[d], " padded by ", left, " and ", right, " leaves ", size,
                  " elements; the output needs at least 1");
      sizes[d] = size;
    }
    return std::vector<TensorMeta>{contiguous_meta(std::move(sizes), self.dtype())};
  };
}

// diff: n times the difference of neighbours along dim (logical xor for bool), after joining
// prepend and append; n past the length gives an empty dim, as in ATen.
std::vector<Tensor> diff_decomp(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const int64_t n = args.integer("n");
  XPORT_CHECK(self.dim() >= 1, InvalidInput, args.name(),
              ": needs a tensor with at least one dim, got a 0-dim tensor");
  XPORT_CHECK(n >= 0, InvalidInput, args.name(), ": order n must be non-negative, got ", n);
  const int64_t dim = wrap_dim(args, args.integer("dim"), self.dim());
  std::vector<Tensor> parts;
  if (const Tensor prepend = args.optional_tensor("prepend"); prepend.defined())
    parts.push_back(prepend);
  parts.push_back(self);
  if (const Tensor append = args.optional_tensor("append"); append.defined())
    parts.push_back(append);
  Tensor t = parts.size() == 1 ? self : call1(XPORT_OP("aten::cat"), {parts, dim});
  for (int64_t i = 0; i < n; ++i) {
    const SymInt length = t.size(dim);
    const SymInt shorter = sym_max(length - 1, SymInt(0));
    const Tensor later = t.slice(dim, sym_min(SymInt(1), length), length);
    const Tensor earlier = t.slice(dim, SymInt(0), shorter);
    t = t.dtype() == DType::Bool ? later.ne(earlier) : later - earlier;
  }
  return {n == 0 ? t.clone() : t};
}

}  // namespace

void flip_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out) {
  cpu::flip_out(self, flip_dims("aten::flip", self, dims), out);
}
void reflection_pad_out(const Tensor& self, const std::vector<int64_t>& padding,
                        const Tensor& out) {
  cpu::mode_pad_out(self, padding, /*reflect=*/true, out);
}
void replication_pad_out(const Tensor& self, const std::vector<int64_t>& padding,
                         const Tensor& out) {
  cpu::mode_pad_out(self, padding, /*reflect=*/false, out);
}
void triu_out(const Tensor& self, int64_t diagonal, const Tensor& out) {
  cpu::triangle_out(self, diagonal, true, out);
}
void tril_out(const Tensor& self, int64_t diagonal, const Tensor& out) {
  cpu::triangle_out(self, diagonal, false, out);
}

void register_layout_ops() {
  // x.repeat_interleave(n, dim): each element n times in a row, x.unsqueeze(dim + 1) expanded n
  // wide and flattened back; without a dim, over x flattened.
  register_op({
      .schema = "aten::repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, "
                "SymInt? output_size=None) -> Tensor",
      .decomp =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            const SymInt repeats = args.sym_int("repeats");
            XPORT_CHECK(static_cast<bool>(repeats >= 0), InvalidInput, args.name(),
                        ": repeats can not be negative, got ", repeats);
            const std::optional<int64_t> dim = args.optional_int("dim");
            const Tensor x = dim && self.dim() > 0 ? self : self.reshape({-1});
            const int64_t d = dim ? wrap_dim(args, *dim, x.dim()) : 0;
            std::vector<SymInt> expanded = x.sizes();
            expanded.insert(expanded.begin() + d + 1, repeats);
            std::vector<SymInt> sizes = x.sizes();
            sizes[static_cast<size_t>(d)] = sizes[static_cast<size_t>(d)] * repeats;
            if (const std::optional<SymInt> given = args.optional_sym_int("output_size")) {
              XPORT_CHECK(static_cast<bool>(*given == sizes[static_cast<size_t>(d)]),
                          InvalidInput, args.name(), ": output_size ", *given,
                          " differs from the ", sizes[static_cast<size_t>(d)],
                          " elements repeating gives");
            }
            return single(x.unsqueeze(d + 1).expand(expanded).reshape(sizes));
          },
  });
  register_op({
      .schema = "aten::diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, "
                "Tensor? append=None) -> Tensor",
      .decomp = diff_decomp,
  });
  register_op({
      .schema = "aten::repeat(Tensor self, SymInt[] repeats) -> Tensor",
      .meta = repeat_meta,
      .kernel = XPORT_KERNEL(cpu::repeat_out),
      .core = true,
  });
  register_op({
      .schema = "aten::tile(Tensor self, SymInt[] dims) -> Tensor",
      .decomp =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            std::vector<SymInt> reps = args.sym_ints("dims");
            if (static_cast<int64_t>(reps.size()) < self.dim())
              reps.insert(reps.begin(), self.dim() - reps.size(), SymInt(1));
            return call_tensors(XPORT_OP("aten::repeat"), {self, reps});
          },
  });
  register_op({
      .schema = "aten::flip(Tensor self, int[] dims) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            flip_dims(args);
            const Tensor& self = args.tensor("self");
            return std::vector<TensorMeta>{contiguous_meta(self.sizes(), self.dtype())};
          },
      .kernel = XPORT_OP_KERNEL(flip_out),
      .core = true,
  });
  // roll: per dim, the last `shift` elements move to the front (a cat of two
  // slices).
  register_op({
      .schema = "aten::roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor",
      .decomp =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            const std::vector<SymInt>& shifts = args.sym_ints("shifts");
            const std::vector<int64_t> dims = args.ints("dims");
            if (dims.empty()) {
              XPORT_CHECK(shifts.size() == 1, InvalidInput, args.name(),
                          ": without dims, shifts must have one entry (the "
                          "flattened tensor "
                          "rolls), got ",
                          shifts.size());
              const Tensor flat = self.reshape({self.numel()});
              return single(call1(XPORT_OP("aten::roll"), {flat, shifts, std::vector<int64_t>{0}})
                                .view(self.sizes()));
            }
            XPORT_CHECK(shifts.size() == dims.size(), InvalidInput, args.name(),
                        ": shifts and dims must align, got ", shifts.size(), " shifts and ",
                        dims.size(), " dims");
            XPORT_CHECK(self.dim() > 0, InvalidInput, args.name(),
                        ": a 0-dim tensor has no dims to roll; leave dims empty");
            Tensor result = self;
            for (size_t i = 0; i < dims.size(); ++i) {
              const int64_t d = wrap_dim(args, dims[i], self.dim());
              const int64_t size = static_cast<int64_t>(self.sizes()[d]);
              if (size == 0) continue;
              const int64_t s = python_mod(static_cast<int64_t>(shifts[i]), size);
              if (s == 0) continue;
              result =
                  call1(XPORT_OP("aten::cat"), {std::vector<Tensor>{result.slice(d, size - s, size),
                                                                    result.slice(d, 0, size - s)},
                                                d});
            }
            // Always a new tensor, never an alias of self.
            return single(result.is_same(self) ? self.clone() : result);
          },
  });
  register_op({
      .schema = "aten::triu(Tensor self, SymInt diagonal=0) -> Tensor",
      .meta = triangle_meta,
      .kernel = XPORT_OP_KERNEL(triu_out),
      .decomp = triangle_decomp(true),
  });
  register_op({
      .schema = "aten::tril(Tensor self, SymInt diagonal=0) -> Tensor",
      .meta = triangle_meta,
      .kernel = XPORT_OP_KERNEL(tril_out),
      .decomp = triangle_decomp(false),
  });
  register_op({
      .schema = "aten::constant_pad_nd(Tensor self, SymInt[] pad, Scalar "
                "value=0) -> Tensor",
      .meta = constant_pad_meta,
      .kernel = XPORT_KERNEL(cpu::constant_pad_out),
      .core = true,
  });
  for (const char* dims : {"1", "2", "3"}) {
    const int64_t n = dims[0] - '0';
    const std::string padding = "(Tensor self, SymInt[" + std::to_string(2 * n) + "] padding)";
    register_op({
        .schema = "aten::reflection_pad" + std::string(dims) + "d" + padding + " -> Tensor",
        .meta = mode_pad_meta(n, true),
        .kernel = XPORT_OP_KERNEL(reflection_pad_out),
        .core = true,
    });
    // replication_pad1d is not core: it is the 2-d op over an inserted dim.
    register_op({
        .schema = "aten::replication_pad" + std::string(dims) + "d" + padding + " -> Tensor",
        .meta = mode_pad_meta(n, false),
        .kernel = XPORT_OP_KERNEL(replication_pad_out),
        .decomp = n == 1 ? DecompFn([](const OpArgs& args) {
          std::vector<SymInt> pad = args.sym_ints("padding");
          pad.insert(pad.end(), {SymInt(0), SymInt(0)});
          const Tensor padded = call1(XPORT_OP("aten::replication_pad2d"),
                                      {args.tensor("self").unsqueeze(-2), pad});
          return std::vector<Tensor>{padded.squeeze(-2)};
        })
                         : DecompFn(),
        .core = n > 1,
    });
  }
  register_op({
      .schema = "aten::pad(Tensor self, SymInt[] pad, str mode=\"constant\", "
                "float? value=None) -> Tensor",
      .decomp =
          [](const OpArgs& args) {
            const std::string& mode = args.str("mode");
            if (mode == "reflect" || mode == "replicate") {
              const std::vector<SymInt>& pad = args.sym_ints("pad");
              XPORT_CHECK(pad.size() == 2 || pad.size() == 4 || pad.size() == 6, InvalidInput,
                          args.name(), ": mode '", mode, "' pads 1, 2 or 3 trailing dims (a pad "
                          "list of 2, 4 or 6 entries), got ", pad.size(), " entries");
              const std::string op = std::string(mode == "reflect" ? "aten::reflection_pad"
                                                                   : "aten::replication_pad") +
                                     std::to_string(pad.size() / 2) + "d";
              XPORT_CHECK(!args.optional_real("value"), InvalidInput, args.name(),
                          ": padding mode '", mode, "' takes no fill value");
              return call_tensors(find_op(op), {args.tensor("self"), pad});
            }
            XPORT_CHECK(mode == "constant", UnsupportedOp, args.name(), ": mode '", mode,
                        "' is not supported; 'constant', 'reflect' and 'replicate' are "
                        "(circular padding can be written with cat of slices)");
            const std::optional<double> value = args.optional_real("value");
            return call_tensors(
                XPORT_OP("aten::constant_pad_nd"),
                {args.tensor("self"), args["pad"], value ? Value(*value) : Value(int64_t{0})});
          },
  });
}

}  // namespace xport::ops
