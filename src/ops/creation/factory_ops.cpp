// Factory ops: tensors made from sizes and values (empty, full, zeros, arange, linspace, eye).
#include <cmath>
#include <string_view>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/pointwise.h"
#include "kernels/cpu/random.h"
#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;
constexpr const char* kFactoryOptions =
    "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None";

std::string factory_schema(const std::string& head) {
  return head + std::string(kFactoryOptions) + ") -> Tensor";
}

void check_sizes(const OpArgs& args, const std::vector<SymInt>& sizes) {
  for (const SymInt& s : sizes) {
    XPORT_CHECK(!static_cast<bool>(s < 0), InvalidInput, args.name(),
                ": sizes must be non-negative, got ", shape_str(sizes));
  }
}

// The dtype a fill value implies when none is given: bool, int64, or the default float.
DType dtype_of_scalar(const Scalar& s) {
  return s.is_bool() ? DType::Bool : s.is_int() ? DType::Int64 : kDefaultFloat;
}

struct ArangeParams {
  double start, end, step;
  int64_t length;
};

// `op` names the op in errors.
ArangeParams arange_params(std::string_view op, const Scalar& start, const Scalar& end,
                           const Scalar& step) {
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  XPORT_CHECK(st != 0, InvalidInput, op, ": step must be nonzero");
  XPORT_CHECK(std::isfinite(s) && std::isfinite(e), InvalidInput, op, ": unsupported range ", s,
              " -> ", e);
  XPORT_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), InvalidInput, op,
              ": upper bound and larger bound inconsistent with step sign (start ", s, ", end ", e,
              ", step ", st, ")");
  int64_t length;
  if (start.is_float() || end.is_float() || step.is_float()) {
    length = static_cast<int64_t>(std::ceil((e - s) / st));
  } else {
    // Integer ranges: exact arithmetic, no rounding through double.
    const int64_t si = start.to_int(), ei = end.to_int(), sti = step.to_int();
    length = sti > 0 ? (ei - si + sti - 1) / sti : (si - ei - sti - 1) / -sti;
  }
  return {s, e, st, length};
}

// arange's dtype: `dtype` when given, else float when any of the arguments `values` names is a
// float, else int64. Read from the values, so a symbolic integer end is not specialised.
DType arange_dtype(const OpArgs& args, std::initializer_list<const char*> values) {
  if (auto d = args.optional_dtype("dtype")) return *d;
  for (const char* v : values)
    if (args[v].is_double()) return kDefaultFloat;
  return DType::Int64;
}

// arange's length. Symbolic when start or end is a symbolic integer (positions
// `arange(0, seq_len)` in a program with a dynamic sequence length), so tracing an archive that
// holds one does not specialise it; a symbolic step specialises.
SymInt arange_length(const OpArgs& args) {
  const Value &start = args["start"], &end = args["end"], &step = args["step"];
  const bool symbolic = start.is_int() && end.is_int() && step.is_int() &&
                        (start.to_sym_int().is_symbolic() || end.to_sym_int().is_symbolic());
  if (!symbolic) {
    return arange_params(args.name(), args.scalar("start"), args.scalar("end"),
                         args.scalar("step"))
        .length;
  }
  const int64_t st = step.to_int();
  const SymInt &s = start.to_sym_int(), &e = end.to_sym_int();
  XPORT_CHECK(st != 0, InvalidInput, args.name(), ": step must be nonzero");
  XPORT_CHECK(static_cast<bool>(st > 0 ? e >= s : e <= s), InvalidInput, args.name(),
              ": upper bound and larger bound inconsistent with step sign (start ", s, ", end ",
              e, ", step ", st, ")");
  return st > 0 ? (e - s + (st - 1)) / st : (s - e + (-st - 1)) / -st;
}

}  // namespace

// Uninitialised by definition.
void empty_memory_format_out(const std::vector<int64_t>&, std::optional<DType>,
                             const std::optional<std::string>&,
                             const std::optional<std::string>&, std::optional<bool>,
                             const std::optional<std::string>&, const Tensor&) {}
// Values unspecified, as empty's: the storage the strides reach is allocated, not written.
void empty_strided_out(const std::vector<int64_t>&, const std::vector<int64_t>&,
                       std::optional<DType>, const std::optional<std::string>&,
                       const std::optional<std::string>&, std::optional<bool>, const Tensor&) {}
void full_out(const std::vector<int64_t>&, const Scalar& fill_value, std::optional<DType>,
              const std::optional<std::string>&, const std::optional<std::string>&,
              std::optional<bool>, const Tensor& out) {
  cpu::fill_out(fill_value, out);
}
// The process-wide generator (manual_seed), a new stream per call.
void rand_out(const std::vector<int64_t>&, std::optional<DType>, const std::optional<std::string>&,
              const std::optional<std::string>&, std::optional<bool>, const Tensor& out) {
  cpu::uniform_out(out);
}
void randn_out(const std::vector<int64_t>&, std::optional<DType>, const std::optional<std::string>&,
               const std::optional<std::string>&, std::optional<bool>, const Tensor& out) {
  cpu::normal_out(out);
}
void randperm_out(int64_t, std::optional<DType>, const std::optional<std::string>&,
                  const std::optional<std::string>&, std::optional<bool>, const Tensor& out) {
  cpu::randperm_out(out);
}
void scalar_tensor_out(const Scalar& s, std::optional<DType>, const std::optional<std::string>&,
                       const std::optional<std::string>&, std::optional<bool>,
                       const Tensor& out) {
  cpu::fill_out(s, out);
}
void arange_start_step_out(const Scalar& start, const Scalar& end, const Scalar& step,
                           std::optional<DType>, const std::optional<std::string>&,
                           const std::optional<std::string>&, std::optional<bool>,
                           const Tensor& out) {
  const ArangeParams p = arange_params("aten::arange.start_step", start, end, step);
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* data = out.mutable_data<T>();
    const bool integral = !start.is_float() && !step.is_float();
    for (int64_t i = 0; i < p.length; ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        data[i] = (p.start + static_cast<double>(i) * p.step) != 0;
      } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
        data[i] = T(static_cast<float>(p.start + static_cast<double>(i) * p.step));
      } else if (integral) {
        data[i] = static_cast<T>(start.to_int() + i * step.to_int());
      } else {
        data[i] = static_cast<T>(p.start + static_cast<double>(i) * p.step);
      }
    }
  });
}

void register_factory_ops() {
  register_op({
      .schema = "aten::empty.memory_format(SymInt[] size, *, " + std::string(kFactoryOptions) +
                ", MemoryFormat? memory_format=None) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            check_sizes(args, args.sym_ints("size"));
            return std::vector<TensorMeta>{
                contiguous_meta(args.sym_ints("size"),
                                args.optional_dtype("dtype").value_or(kDefaultFloat))};
          },
      .kernel = XPORT_OP_KERNEL(empty_memory_format_out),
      .core = true,
  });
  register_op({
      .schema = factory_schema("aten::empty_strided(SymInt[] size, SymInt[] stride, *, "),
      .meta =
          [](const OpArgs& args) {
            const std::vector<SymInt>& size = args.sym_ints("size");
            const std::vector<SymInt>& stride = args.sym_ints("stride");
            check_sizes(args, size);
            XPORT_CHECK(stride.size() == size.size(), InvalidInput, args.name(), ": ",
                        size.size(), " sizes need as many strides, got ", stride.size());
            for (const SymInt& s : stride) {
              XPORT_CHECK(!static_cast<bool>(s < 0), InvalidInput, args.name(),
                          ": strides must be non-negative, got ", shape_str(stride));
            }
            return std::vector<TensorMeta>{
                TensorMeta{size, stride, 0, args.optional_dtype("dtype").value_or(kDefaultFloat)}};
          },
      .kernel = XPORT_OP_KERNEL(empty_strided_out),
      .core = true,
  });
  register_op({
      .schema = factory_schema("aten::full(SymInt[] size, Scalar fill_value, *, "),
      .meta =
          [](const OpArgs& args) {
            check_sizes(args, args.sym_ints("size"));
            const DType dtype =
                args.optional_dtype("dtype").value_or(dtype_of_scalar(args.scalar("fill_value")));
            return std::vector<TensorMeta>{contiguous_meta(args.sym_ints("size"), dtype)};
          },
      .kernel = XPORT_OP_KERNEL(full_out),
      .core = true,
  });
  // Random factories: floating dtypes only, like ATen's CPU kernels.
  const std::pair<const char*, OpKernel> random_factories[] = {
      {"aten::rand(SymInt[] size, *, ", XPORT_OP_KERNEL(rand_out)},
      {"aten::randn(SymInt[] size, *, ", XPORT_OP_KERNEL(randn_out)},
  };
  for (const auto& [head, kernel] : random_factories) {
    register_op({
        .schema = factory_schema(head),
        .meta =
            [](const OpArgs& args) {
              check_sizes(args, args.sym_ints("size"));
              const DType dtype = args.optional_dtype("dtype").value_or(kDefaultFloat);
              XPORT_CHECK(is_floating(dtype), InvalidInput, args.name(),
                          ": draws floating point values, got dtype ", dtype_name(dtype),
                          "; use randint for integers");
              return std::vector<TensorMeta>{contiguous_meta(args.sym_ints("size"), dtype)};
            },
        .kernel = kernel,
        .core = true,
        .tags = {Tag::NondeterministicSeeded},
    });
  }
  register_op({
      .schema = "aten::randperm(SymInt n, *, ScalarType? dtype=4, Layout? layout=None, "
                "Device? device=None, bool? pin_memory=None) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const SymInt& n = args.sym_int("n");
            XPORT_CHECK(static_cast<bool>(n >= 0), InvalidInput, args.name(),
                        ": n must be non-negative, got ", n);
            const DType dtype = args.optional_dtype("dtype").value_or(DType::Int64);
            XPORT_CHECK(dtype != DType::Bool, InvalidInput, args.name(),
                        ": a permutation cannot be bool; use an integer or floating dtype");
            return std::vector<TensorMeta>{contiguous_meta({n}, dtype)};
          },
      .kernel = XPORT_OP_KERNEL(randperm_out),
      .core = true,
      .tags = {Tag::NondeterministicSeeded},
  });
  for (const char* name : {"zeros", "ones"}) {
    const bool one = std::string(name) == "ones";
    register_op({
        .schema = factory_schema(std::string("aten::") + name + "(SymInt[] size, *, "),
        .decomp =
            [one](const OpArgs& args) {
              return call_tensors(XPORT_OP("aten::full"),
                                  {args.sym_ints("size"),
                                   one ? Value(int64_t{1}) : Value(int64_t{0}),
                                   args.optional_dtype("dtype").value_or(kDefaultFloat)});
            },
    });
  }
  // *_like: the input's sizes, and its dtype unless one is given.
  const std::string like_options =
      std::string(kFactoryOptions) + ", MemoryFormat? memory_format=None) -> Tensor";
  register_op({
      .schema = "aten::full_like(Tensor self, Scalar fill_value, *, " + like_options,
      .decomp =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            return call_tensors(XPORT_OP("aten::full"),
                                {self.sizes(), args["fill_value"],
                                 args.optional_dtype("dtype").value_or(self.dtype())});
          },
  });
  for (const char* name : {"zeros_like", "ones_like", "empty_like"}) {
    const std::string n = name;
    register_op({
        .schema = "aten::" + n + "(Tensor self, *, " + like_options,
        .decomp =
            [n](const OpArgs& args) {
              const Tensor& self = args.tensor("self");
              const DType dtype = args.optional_dtype("dtype").value_or(self.dtype());
              if (n == "empty_like") {
                return call_tensors(XPORT_OP("aten::empty.memory_format"), {self.sizes(), dtype});
              }
              return call_tensors(XPORT_OP("aten::full"),
                                  {self.sizes(), Value(int64_t{n == "ones_like" ? 1 : 0}), dtype});
            },
    });
  }
  // new_*: the given sizes, and self's dtype unless one is given.
  for (const char* name : {"new_zeros", "new_ones", "new_empty", "new_full"}) {
    const std::string n = name;
    const bool full = n == "new_full";
    register_op({
        .schema = "aten::" + n + "(Tensor self, SymInt[] size, " +
                  (full ? "Scalar fill_value, " : "") + "*, " + kFactoryOptions + ") -> Tensor",
        .decomp =
            [n, full](const OpArgs& args) {
              const DType dtype =
                  args.optional_dtype("dtype").value_or(args.tensor("self").dtype());
              if (n == "new_empty")
                return call_tensors(XPORT_OP("aten::empty.memory_format"), {args["size"], dtype});
              const Value fill =
                  full ? args["fill_value"] : Value(int64_t{n == "new_ones" ? 1 : 0});
              return call_tensors(XPORT_OP("aten::full"), {args["size"], fill, dtype});
            },
    });
  }
  register_op({
      .schema = factory_schema("aten::scalar_tensor(Scalar s, *, "),
      .meta =
          [](const OpArgs& args) {
            return std::vector<TensorMeta>{
                contiguous_meta({}, args.optional_dtype("dtype").value_or(kDefaultFloat))};
          },
      .kernel = XPORT_OP_KERNEL(scalar_tensor_out),
      .core = true,
  });

  register_op({
      .schema =
          factory_schema("aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *, "),
      .meta =
          [](const OpArgs& args) {
            return std::vector<TensorMeta>{contiguous_meta(
                {arange_length(args)}, arange_dtype(args, {"start", "end", "step"}))};
          },
      .kernel = XPORT_OP_KERNEL(arange_start_step_out),
      .core = true,
  });
  register_op({
      .schema = factory_schema("aten::arange.start(Scalar start, Scalar end, *, "),
      .decomp =
          [](const OpArgs& args) {
            const DType dtype = arange_dtype(args, {"start", "end"});
            return call_tensors(XPORT_OP("aten::arange.start_step"),
                                {args["start"], args["end"], int64_t{1}, dtype});
          },
  });
  register_op({
      .schema = factory_schema("aten::arange(Scalar end, *, "),
      .decomp =
          [](const OpArgs& args) {
            const DType dtype = arange_dtype(args, {"end"});
            return call_tensors(XPORT_OP("aten::arange.start_step"),
                                {int64_t{0}, args["end"], int64_t{1}, dtype});
          },
  });

  // linspace: the first half counts up from start and the second half down from end, as
  // PyTorch does, so both ends are exact.
  register_op({
      .schema = factory_schema("aten::linspace(Scalar start, Scalar end, int steps, *, "),
      .meta =
          [](const OpArgs& args) {
            const int64_t steps = args.integer("steps");
            XPORT_CHECK(steps >= 0, InvalidInput, args.name(),
                        ": number of steps must be non-negative");
            return std::vector<TensorMeta>{
                contiguous_meta({steps}, args.optional_dtype("dtype").value_or(kDefaultFloat))};
          },
      .decomp =
          [](const OpArgs& args) {
            const int64_t steps = args.integer("steps");
            const DType dtype = args.optional_dtype("dtype").value_or(kDefaultFloat);
            if (steps == 1)
              return call_tensors(XPORT_OP("aten::full"),
                                  {std::vector<int64_t>{1}, args["start"], dtype});
            const double start = args.scalar("start").to_double(),
                         end = args.scalar("end").to_double();
            const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0.0;
            const DType compute = dtype == DType::Float64 ? DType::Float64 : DType::Float32;
            const Tensor i = call_tensors(XPORT_OP("aten::arange.start_step"),
                                          {int64_t{0}, steps, int64_t{1}, compute})[0];
            const Tensor up = i * step + start;
            const Tensor down = (i - static_cast<double>(steps - 1)) * step + end;
            const Tensor halfway =
                i.lt(cpu::scalar_tensor(static_cast<double>(steps / 2), compute));
            return call_tensors(
                XPORT_OP("aten::_to_copy"),
                {call_tensors(XPORT_OP("aten::where.self"), {halfway, up, down})[0], dtype});
          },
  });

  for (const char* schema : {"aten::eye(SymInt n, *, ", "aten::eye.m(SymInt n, SymInt m, *, "}) {
    const bool has_m = std::string(schema).find(".m") != std::string::npos;
    register_op({
        .schema = factory_schema(schema),
        .decomp =
            [has_m](const OpArgs& args) {
              const SymInt n = args.sym_int("n");
              const SymInt m = has_m ? args.sym_int("m") : n;
              const DType dtype = args.optional_dtype("dtype").value_or(kDefaultFloat);
              const Tensor rows = call_tensors(XPORT_OP("aten::arange.start_step"),
                                               {int64_t{0}, Value(n), int64_t{1}, DType::Int64})[0];
              const Tensor cols = call_tensors(XPORT_OP("aten::arange.start_step"),
                                               {int64_t{0}, Value(m), int64_t{1}, DType::Int64})[0];
              return single(rows.unsqueeze(1).eq(cols).to(dtype));
            },
    });
  }
}

}  // namespace xport::ops
