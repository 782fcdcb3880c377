// Library: custom ops defined by users. Their OpFns are adapted to the registry's kernel, meta
// and decomposition functions, so everything downstream treats them as any other op.
#include "xport/ops/library.h"

#include <cctype>
#include <map>
#include <set>

#include "kernels/cpu/elementwise.h"
#include "ops/op_util.h"
#include "xport/core/error.h"
#include "xport/ops/functions.h"
#include "xport/ops/op_registry.h"

namespace xport {
namespace {

// Inside a custom op's meta function every op computes shapes only: its meta function gives
// tensors with no storage, so `empty_like(x)` or `conv2d(x, w)` costs nothing and works on
// symbolic sizes. Data-dependent sizes go to the interceptor outside (export's tracer).
class MetaMode final : public DispatchInterceptor {
 public:
  MetaMode() : outer_(current_interceptor()) {}
  std::vector<Tensor> intercept(const OpArgs& args) override {
    const OpDef& op = args.op();
    if (op.kind == OpKind::Composite) return run_decomposition(args);
    std::vector<Tensor> outs;
    for (TensorMeta& m : op.meta(args)) outs.push_back(Tensor::make(nullptr, std::move(m)));
    return outs;
  }
  SymInt new_data_dependent_size(const OpArgs& args, int64_t lo, int64_t hi) override {
    if (outer_ != nullptr) return outer_->new_data_dependent_size(args, lo, hi);
    return DispatchInterceptor::new_data_dependent_size(args, lo, hi);
  }

 private:
  DispatchInterceptor* outer_;
};

// The tensors an OpFn returned, checked against the schema's results.
std::vector<Tensor> results_of(const OpDef& op, const Value& v, const char* what) {
  std::vector<Tensor> out;
  if (v.is_tensor()) {
    out.push_back(v.to_tensor());
  } else if (v.is_list()) {
    out = v.to_tensor_list();
  } else {
    XPORT_CHECK(v.is_none(), InvalidInput, op.qualified_name, ": its ", what, " returned ",
                v.type_name(), "; return a Tensor, a std::vector<Tensor>, or nothing (Value())");
  }
  const Schema& s = op.parsed;
  XPORT_CHECK(s.returns_list || out.size() == s.returns.size(), InvalidInput, op.qualified_name,
              ": its ", what, " returned ", out.size(), " tensors; the schema says ",
              s.returns.size(), "\n  schema: ", op.schema);
  for (size_t i = 0; i < out.size(); ++i) {
    XPORT_CHECK(out[i].defined(), InvalidInput, op.qualified_name, ": its ", what,
                " returned an undefined tensor as result ", i);
  }
  return out;
}

MetaFn meta_from(OpFn fn) {
  return [fn = std::move(fn)](const OpArgs& args) {
    std::vector<Tensor> outs;
    {
      MetaMode mode;
      InterceptorGuard guard(&mode);
      outs = results_of(args.op(), fn(args.values()), "meta function");
    }
    std::vector<TensorMeta> metas;
    metas.reserve(outs.size());
    for (const Tensor& t : outs) metas.push_back(t.meta());
    return metas;
  };
}

std::string spec_str(const Tensor& t) {
  return dtype_short_name(t.dtype()) + ops::shape_str(t.sizes());
}

// The user's kernel allocates its results; the registry's kernels write outputs sized by the
// meta function (which the runtime plans), so the results are checked against them and copied
// (a kernel that updates its argument in place and returns it costs no copy).
KernelFn kernel_from(OpFn fn) {
  return [fn = std::move(fn)](const OpArgs& args, std::vector<Tensor>& outs) {
    const OpDef& op = args.op();
    const std::vector<Tensor> got = results_of(op, fn(args.values()), "kernel");
    XPORT_CHECK(got.size() == outs.size(), InvalidInput, op.qualified_name,
                ": its kernel returned ", got.size(), " tensors, its meta function ", outs.size());
    for (size_t i = 0; i < got.size(); ++i) {
      XPORT_CHECK(got[i].dtype() == outs[i].dtype() && got[i].int_sizes() == outs[i].int_sizes(),
                  InvalidInput, op.qualified_name, ": its kernel returned ", spec_str(got[i]),
                  " as result ", i, ", its meta function says ", spec_str(outs[i]),
                  "; make the two agree");
      if (got[i].impl() != outs[i].impl()) kernels::cpu::copy_into(outs[i], got[i]);
    }
  };
}

DecompFn decomposition_from(OpFn fn) {
  return [fn = std::move(fn)](const OpArgs& args) {
    return results_of(args.op(), fn(args.values()), "decomposition");
  };
}

// What a custom op was given, kept to derive its functional form's functions from.
struct UserFns {
  OpFn kernel, meta, decomposition;
};

std::map<std::string, UserFns>& user_fns() {
  static std::map<std::string, UserFns> fns;
  return fns;
}

// The functional form of a mutating op: the same arguments, unannotated; its fresh results,
// then the new value of each updated argument.
Schema functional_schema(const Schema& mutating) {
  Schema f = mutating;
  const bool trailing = !f.name.empty() && f.name.back() == '_';
  f.name = trailing ? f.name.substr(0, f.name.size() - 1) : f.name + "_functional";
  f.returns.clear();
  f.returns_list = false;
  for (size_t r = 0; r < mutating.returns.size(); ++r) {
    if (mutating.aliased_argument(r) < 0) f.returns.push_back(mutating.returns[r]);
  }
  for (Argument& a : f.arguments) {
    if (a.is_write) {
      Argument result;
      result.type = a.type;
      f.returns.push_back(result);
    }
    a.alias_set.clear();
    a.is_write = false;
    a.alias_elements = false;
  }
  return f;
}

std::vector<size_t> written_arguments(const Schema& s) {
  std::vector<size_t> written;
  for (size_t i = 0; i < s.arguments.size(); ++i) {
    if (s.arguments[i].is_write) written.push_back(i);
  }
  return written;
}

// `fn` of the mutating op run the functional way: updated arguments are copies (made by
// `copy`: clone() for the kernel, empty_like() for the meta function), returned after the
// op's fresh results.
OpFn functional_fn(const OpDef& mutating, const OpFn& fn,
                   std::function<Tensor(const Tensor&)> copy) {
  return [&mutating, fn, copy = std::move(copy)](const std::vector<Value>& args) -> Value {
    const Schema& s = mutating.parsed;
    std::vector<Value> values = args;
    const std::vector<size_t> written = written_arguments(s);
    for (size_t w : written) values[w] = copy(values[w].to_tensor());
    const std::vector<Tensor> results = results_of(mutating, fn(values), "function");
    std::vector<Tensor> out;
    for (size_t r = 0; r < results.size(); ++r) {
      if (s.aliased_argument(r) < 0) out.push_back(results[r]);
    }
    for (size_t w : written) out.push_back(values[w].to_tensor());
    if (out.size() == 1) return out[0];
    return out;
  };
}

// Sets what `fns` gives on `op` (and on its functional form, for a mutating op).
void install(const OpDef& op, const UserFns& fns) {
  detail::update_op(op.qualified_name, [&](OpDef& def) {
    def.meta = fns.meta ? meta_from(fns.meta) : MetaFn();
    // Without a meta function eager runs the kernel as it allocates; with one, the kernel's
    // results are checked against it (and the runtime plans their memory).
    def.kernel.fn = fns.kernel && fns.meta ? kernel_from(fns.kernel) : KernelFn();
    def.cpu_alloc = fns.kernel && !fns.meta ? AllocKernelFn([k = fns.kernel](const OpArgs& a) {
      return results_of(a.op(), k(a.values()), "kernel");
    })
                                            : AllocKernelFn();
    def.decomp = fns.decomposition ? decomposition_from(fns.decomposition) : DecompFn();
  });
  if (!op.parsed.is_mutating()) return;
  const OpDef* functional = functional_variant(op);
  if (functional == nullptr || !functional->user_defined) return;
  UserFns f;
  if (fns.kernel) {
    f.kernel = functional_fn(op, fns.kernel, [](const Tensor& t) { return t.clone(); });
  }
  if (fns.meta) {
    f.meta = functional_fn(op, fns.meta, [](const Tensor& t) { return empty_like(t); });
  }
  install(*functional, f);
}

const std::set<std::string>& reserved_namespaces() {
  static const std::set<std::string> names = {"aten", "prims", "higher_order", "xport"};
  return names;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

Library::Library(std::string ns) : ns_(std::move(ns)) {
  XPORT_CHECK(is_identifier(ns_), InvalidSpec, "Library(\"", ns_,
              "\"): a namespace is an identifier, like \"mylib\"");
  XPORT_CHECK(reserved_namespaces().count(ns_) == 0, InvalidSpec, "Library(\"", ns_,
              "\"): the namespace belongs to xport's own ops; define yours in a namespace of "
              "your own, like \"mylib\"");
}

std::string Library::qualified(const std::string& name, const char* caller) const {
  std::string local = name;
  if (const size_t sep = name.find("::"); sep != std::string::npos) {
    XPORT_CHECK(name.substr(0, sep) == ns_, InvalidSpec, "Library(\"", ns_, "\").", caller, "(\"",
                name, "\"): the op is in another namespace; this library defines ", ns_, "::");
    local = name.substr(sep + 2);
  }
  return ns_ + "::" + local;
}

Library& Library::define(const std::string& schema) {
  const size_t paren = schema.find('(');
  const std::string head = schema.substr(0, paren);
  const std::string text =
      head.find("::") == std::string::npos ? ns_ + "::" + schema
                                           : qualified(head, "define") + schema.substr(paren);
  OpDef def;
  def.schema = text;
  def.user_defined = true;
  const OpDef& op = register_op(std::move(def));
  user_fns()[op.qualified_name] = {};
  if (op.parsed.is_mutating() && functional_variant(op) == nullptr) {
    for (size_t w : written_arguments(op.parsed)) {
      XPORT_CHECK(op.parsed.arguments[w].type.base == BaseType::Tensor &&
                      !op.parsed.arguments[w].type.list,
                  InvalidSpec, op.qualified_name, ": argument '", op.parsed.arguments[w].name,
                  "' is updated in place; custom ops may update Tensor arguments only");
    }
    OpDef f;
    f.schema = functional_schema(op.parsed).str();
    f.user_defined = true;
    user_fns()[register_op(std::move(f)).qualified_name] = {};
  }
  return *this;
}

namespace {

// The op `qualified` names, which must have been defined through a Library.
const OpDef& defined_op(const std::string& qualified, const std::string& ns, const char* caller) {
  const OpDef* op = try_find_op(qualified);
  XPORT_CHECK(op != nullptr && op->user_defined, InvalidSpec, "Library(\"", ns, "\").", caller,
              ": no op ", qualified, " was defined; call define(\"",
              qualified.substr(ns.size() + 2), "(...) -> ...\") first");
  return *op;
}

Library& set_fn(Library& lib, const std::string& qualified, const char* caller, OpFn fn,
                OpFn UserFns::*slot) {
  const OpDef& op = defined_op(qualified, lib.ns(), caller);
  XPORT_CHECK(fn != nullptr, InvalidSpec, "Library(\"", lib.ns(), "\").", caller, "(\"",
              op.qualified_name, "\"): the function is empty");
  UserFns& fns = user_fns()[op.qualified_name];
  fns.*slot = std::move(fn);
  install(op, fns);
  return lib;
}

}  // namespace

Library& Library::impl(const std::string& name, OpFn kernel) {
  return set_fn(*this, qualified(name, "impl"), "impl", std::move(kernel), &UserFns::kernel);
}

Library& Library::impl_meta(const std::string& name, OpFn meta) {
  return set_fn(*this, qualified(name, "impl_meta"), "impl_meta", std::move(meta),
                &UserFns::meta);
}

Library& Library::impl_decomposition(const std::string& name, OpFn decomposition) {
  return set_fn(*this, qualified(name, "impl_decomposition"), "impl_decomposition",
                std::move(decomposition), &UserFns::decomposition);
}

}  // namespace xport
