#include <algorithm>

#include "xport/ops/op_registry.h"

namespace xport {
namespace {

thread_local DispatchInterceptor* t_interceptor = nullptr;

[[noreturn]] void bad_argument(const OpDef& op, const Argument& param, size_t index,
                               const Value& got) {
  XPORT_FAIL(InvalidInput, op.qualified_name, ": argument '", param.name, "' (position ", index + 1,
             ") must be ", param.type.str(), ", got ", got.type_name(), "\n  schema: ", op.schema);
}

// An `int[N]` / `SymInt[N]` argument: one int for the whole list, or a list of N values (or
// any length for N <= 1, ATen's convention).
Value coerce_int_list(const OpDef& op, const Argument& param, size_t index, Value v) {
  const ArgType& t = param.type;
  if (v.is_int()) return std::vector<SymInt>(t.fixed_size > 0 ? t.fixed_size : 1, v.to_sym_int());
  if (!v.is_int_list()) bad_argument(op, param, index, v);
  const size_t n = v.to_sym_int_list().size();
  // An empty list is allowed where the schema's own default is empty (`int[2] stride=[]`: the
  // op derives the value).
  if (n == 0 && param.default_value && param.default_value->is_int_list() &&
      param.default_value->to_sym_int_list().empty()) {
    return v;
  }
  XPORT_CHECK(t.fixed_size <= 1 || n == 1 || static_cast<int64_t>(n) == t.fixed_size,
              InvalidInput, op.qualified_name, ": argument '", param.name, "' needs ",
              t.fixed_size, " values, got ", n);
  if (t.fixed_size > 1 && n == 1) return std::vector<SymInt>(t.fixed_size, v.to_sym_int_list()[0]);
  return v;
}

Value coerce_list(const OpDef& op, const Argument& param, size_t index, Value v) {
  const ArgType& t = param.type;
  switch (t.base) {
    case BaseType::Tensor:
      if (!v.is_list()) bad_argument(op, param, index, v);
      if (!t.element_optional) {
        for (const Tensor& e : v.to_tensor_list()) {
          XPORT_CHECK(e.defined(), InvalidInput, op.qualified_name, ": argument '", param.name,
                      "' holds an undefined tensor");
        }
      }
      return v;
    case BaseType::Int:
    case BaseType::SymInt:
      return coerce_int_list(op, param, index, std::move(v));
    case BaseType::Float:
      if (v.is_int_list()) {
        std::vector<double> d;
        for (int64_t i : v.to_int_list()) d.push_back(static_cast<double>(i));
        return d;
      }
      if (!v.is_double_list()) bad_argument(op, param, index, v);
      return v;
    case BaseType::Bool:
      if (!v.is_bool_list()) bad_argument(op, param, index, v);
      XPORT_CHECK(t.fixed_size == 0 ||
                      static_cast<int64_t>(v.to_bool_list().size()) == t.fixed_size,
                  InvalidInput, op.qualified_name, ": argument '", param.name, "' needs ",
                  t.fixed_size, " values, got ", v.to_bool_list().size());
      return v;
    default:
      bad_argument(op, param, index, v);
  }
}

// Whether `v` has the kind a single (not list) argument of type `base` takes, as given.
bool takes_as_is(BaseType base, const Value& v) {
  switch (base) {
    case BaseType::Tensor: return v.is_tensor();
    case BaseType::Int:
    case BaseType::SymInt: return v.is_int();
    case BaseType::Float: return v.is_double();
    case BaseType::Bool: return v.is_bool();
    case BaseType::Scalar: return v.is_number();
    case BaseType::ScalarType: return v.is_dtype();
    case BaseType::Str:
    case BaseType::Layout:
    case BaseType::Device:
    case BaseType::MemoryFormat: return v.is_string();
    case BaseType::Generator: return false;
    case BaseType::Graph: return v.is_graph();
    case BaseType::Any: return !v.is_graph();
  }
  return true;
}

// Checks one argument against its declared type, converting where ATen does implicitly
// (an int where a float is expected, one int for an `int[2]`).
Value coerce(const OpDef& op, const Argument& param, size_t index, Value v) {
  const ArgType& t = param.type;
  if (v.is_none()) {
    const bool none_ok = t.optional || t.base == BaseType::Layout || t.base == BaseType::Device ||
                         t.base == BaseType::MemoryFormat || t.base == BaseType::Generator;
    if (!none_ok) bad_argument(op, param, index, v);
    return v;
  }
  if (t.list) return coerce_list(op, param, index, std::move(v));
  if (t.base == BaseType::Float && v.is_int()) return Value(static_cast<double>(v.to_int()));
  if (!takes_as_is(t.base, v)) bad_argument(op, param, index, v);
  if (t.base == BaseType::Tensor && !v.to_tensor().defined() && !t.optional) {
    XPORT_FAIL(InvalidInput, op.qualified_name, ": argument '", param.name,
               "' is an undefined tensor");
  }
  return v;
}

// Allocates a fresh output for `meta`; storage covers every element the strides reach. A None
// result is an undefined tensor.
Tensor allocate_output(const OpDef& op, const TensorMeta& meta) {
  if (meta.none) return Tensor();
  for (const SymInt& s : meta.sizes) {
    XPORT_CHECK(!s.is_symbolic(), Internal, op.qualified_name,
                ": eager execution got symbolic output sizes from the meta function");
  }
  return Tensor::make(Storage::allocate(storage_bytes(meta)), meta);
}

// Few kernels handle complex tensors (OpDef::takes_complex): the rest would read their pairs
// of floats as something else, so a complex argument is refused before any of them runs.
void refuse_complex(const OpDef& op, const std::vector<Value>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const auto refuse = [&](const Tensor& t) {
      if (!t.defined() || !is_complex(t.dtype())) return;
      XPORT_FAIL(UnsupportedOp, op.qualified_name, ": argument '", op.parsed.arguments[i].name,
                 "' is ", dtype_name(t.dtype()), ", which this op does not take; complex tensors "
                 "go into the FFT ops, view_as_real, clone and copies (view_as_real(x) gives the "
                 "real and imaginary parts as a float tensor)");
    };
    if (args[i].is_tensor()) refuse(args[i].to_tensor());
    if (args[i].is_list()) {
      for (const Tensor& t : args[i].to_tensor_list()) refuse(t);
    }
  }
}

}  // namespace

OpArgs bind_args(const OpDef& op, std::vector<Value> args) {
  const std::vector<Argument>& params = op.parsed.arguments;
  XPORT_CHECK(args.size() <= params.size(), InvalidInput, op.qualified_name, ": takes at most ",
              params.size(), " arguments, got ", args.size(), "\n  schema: ", op.schema);
  std::vector<Value> bound;
  bound.reserve(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    if (i < args.size()) {
      bound.push_back(coerce(op, params[i], i, std::move(args[i])));
    } else if (params[i].default_value) {
      bound.push_back(*params[i].default_value);
    } else {
      XPORT_FAIL(InvalidInput, op.qualified_name, ": missing argument '", params[i].name,
                 "' (position ", i + 1, ")\n  schema: ", op.schema);
    }
  }
  if (!op.takes_complex && op.kind != OpKind::View && !op.user_defined) refuse_complex(op, bound);
  return OpArgs(op, std::move(bound));
}

std::vector<Tensor> run_decomposition(const OpArgs& args) {
  const OpDef& op = args.op();
  XPORT_CHECK(op.decomp != nullptr, UnsupportedOp, op.qualified_name, " has no decomposition");
  return op.decomp(args);
}

std::vector<Tensor> run_eager(const OpArgs& args) {
  const OpDef& op = args.op();
  if (op.cpu_alloc) return op.cpu_alloc(args);
  // Composite ops (reshape, flatten, ...) run as their decomposition.
  if (op.kind == OpKind::Composite && op.decomp) return op.decomp(args);
  if (op.kind == OpKind::View) {
    // A view: the output shares the input's storage with the layout the meta function gives.
    const Tensor& base = args[static_cast<size_t>(op.aliased_arg)].to_tensor();
    std::vector<Tensor> outs;
    for (TensorMeta& m : op.meta(args)) outs.push_back(Tensor::make(base.storage(), std::move(m)));
    return outs;
  }
  if (op.kernel) {
    std::vector<TensorMeta> metas = op.meta(args);
    std::vector<Tensor> outs;
    if (op.kind == OpKind::InPlace && op.aliased_arg >= 0) {
      // In place: the kernel writes into the mutated argument (its meta was checked above).
      outs.push_back(args[static_cast<size_t>(op.aliased_arg)].to_tensor());
    } else {
      outs.reserve(metas.size());
      for (const TensorMeta& m : metas) outs.push_back(allocate_output(op, m));
    }
    if (!nothing_to_write(metas)) op.kernel.fn(args, outs);
    return outs;
  }
  if (op.decomp) return op.decomp(args);
  XPORT_FAIL(UnsupportedOp, op.qualified_name, " has no CPU kernel and no decomposition");
}

std::vector<Tensor> call_tensors(const OpDef& op, std::vector<Value> args) {
  OpArgs bound = bind_args(op, std::move(args));
  if (t_interceptor != nullptr) return t_interceptor->intercept(bound);
  return run_eager(bound);
}

Value call(const OpDef& op, std::vector<Value> args) {
  std::vector<Tensor> outs = call_tensors(op, std::move(args));
  if (op.parsed.returns.size() == 1 && !op.parsed.returns_list) {
    XPORT_CHECK(outs.size() == 1, Internal, op.qualified_name, " returned ", outs.size(),
                " tensors, its schema says 1");
    return Value(std::move(outs[0]));
  }
  return Value(std::move(outs));
}

Value call_op(const std::string& qualified_name, std::vector<Value> args) {
  return call(find_op(qualified_name), std::move(args));
}

DispatchInterceptor* current_interceptor() { return t_interceptor; }

SymInt DispatchInterceptor::new_data_dependent_size(const OpArgs& args, int64_t, int64_t) {
  detail::throw_error_with_case(
      ErrorKind::DataDependent,
      detail::concat(args.name(), ": the size of its output depends on the input's values"),
      "data_dependent_nonzero");
}

SymInt DispatchInterceptor::item_int(const Tensor&) {
  detail::throw_error_with_case(ErrorKind::DataDependent,
                                "item_int(): the tensor's value is not known here",
                                "data_dependent_item");
}

SymFloat DispatchInterceptor::item_float(const Tensor&) {
  detail::throw_error_with_case(ErrorKind::DataDependent,
                                "item_float(): the tensor's value is not known here",
                                "data_dependent_item");
}

SymInt data_dependent_size(const OpArgs& args, int64_t lo, int64_t hi) {
  if (t_interceptor != nullptr) return t_interceptor->new_data_dependent_size(args, lo, hi);
  detail::throw_error_with_case(
      ErrorKind::DataDependent,
      detail::concat(args.name(),
                     ": the size of its output depends on the input's values; only capture gives "
                     "it a symbol (eager execution runs the kernel, which sizes it)"),
      "data_dependent_nonzero");
}

InterceptorGuard::InterceptorGuard(DispatchInterceptor* interceptor) : previous_(t_interceptor) {
  t_interceptor = interceptor;
}
InterceptorGuard::~InterceptorGuard() { t_interceptor = previous_; }

}  // namespace xport
