#include "capture/dynamic_spec.h"

#include <map>
#include <set>
#include <sstream>

namespace xport::capture {
namespace {

std::string dim_source(const TensorInput& in, int64_t d) {
  return in.name + ".size(" + std::to_string(d) + ")";
}

DimSymbol* find_root(std::vector<DimSymbol>& roots, const Dim& dim) {
  for (DimSymbol& r : roots) {
    if (r.root_id == dim.root_id()) return &r;
  }
  return nullptr;
}

// The root Dim of a (possibly derived) dim: the first root-form copy the spec holds.
Dim root_of(const Dim& dim, const std::vector<TensorInput>& inputs) {
  for (const TensorInput& in : inputs) {
    for (const auto& [d, candidate] : in.spec) {
      if (candidate.root_id() == dim.root_id() && !candidate.is_derived()) return candidate;
    }
  }
  return Dim(dim.name(), dim.min(), dim.max());  // a root only ever used derived
}

// A guard a spec can state: a bound on one symbol, or an equation that fixes a symbol.
bool is_expressible(sym::ExprPtr guard) {
  if (guard->kind() == sym::ExprKind::Eq) return sym::solve_for_symbol(guard).has_value();
  return guard->kind() == sym::ExprKind::Le && sym::as_affine(guard->args()[0]).has_value();
}

}  // namespace

std::vector<std::vector<sym::ExprPtr>> make_symbolic_sizes(ShapeEnv& env,
                                                           const std::vector<TensorInput>& inputs,
                                                           std::vector<DimSymbol>& roots) {
  // Validate each dim of the spec and work out its root's example value.
  struct Use {
    const TensorInput* input;
    int64_t d;
    Dim dim;
  };
  std::vector<Use> uses;
  for (const TensorInput& in : inputs) {
    for (const auto& [d, dim] : in.spec) {
      XPORT_CHECK(d >= 0 && d < in.example.dim(), InvalidSpec, "export_program: the spec for ",
                  in.name, " names dim ", d, ", but ", in.name, " has ", in.example.dim(),
                  " dims (",
                  in.example.dim() == 0 ? "a scalar"
                                        : "indices 0 to " + std::to_string(in.example.dim() - 1),
                  ")");
      uses.push_back({&in, d, dim});
    }
  }
  // Direct uses first, so a symbol is described by a dim that equals it (x.size(0), not a
  // derived one).
  std::stable_sort(uses.begin(), uses.end(), [](const Use& a, const Use& b) {
    return !a.dim.is_derived() && b.dim.is_derived();
  });
  for (const Use& u : uses) {
    const std::string source = dim_source(*u.input, u.d);
    const int64_t size = u.input->example.int_size(u.d);
    const int64_t c = u.dim.coefficient(), o = u.dim.offset();
    XPORT_CHECK((size - o) % c == 0, InvalidSpec, "export_program: ", source, " = ", size,
                " in the example, which is not ", u.dim.str(), " for any integer ", u.dim.name());
    const int64_t root_value = (size - o) / c;
    DimSymbol* root = find_root(roots, u.dim);
    if (root == nullptr) {
      const Dim r = root_of(u.dim, inputs);
      XPORT_CHECK_CASE(root_value >= r.min() || root_value >= 2, InvalidSpec,
                       "dynamic_shape_example_zero_one", "export_program: ", source, " = ", size,
                       " in the example gives ", r.name(), " = ", root_value, ", outside ",
                       r.str(), " ", sym::Range{r.min(), r.max()}.str(),
                       ": Dims start at 2 unless declared otherwise. Declare Dim(\"", r.name(),
                       "\", ", root_value, r.max() == sym::Range::kPosInf
                                                ? std::string()
                                                : ", " + std::to_string(r.max()),
                       ") to include size ", root_value,
                       " (export then checks that no decision differs there), or give an "
                       "example of size 2 or more");
      XPORT_CHECK(root_value >= r.min() && root_value <= r.max(), InvalidSpec,
                  "export_program: ", source, " = ", size, " in the example gives ", r.name(),
                  " = ", root_value, ", outside ", r.str(), " ", sym::Range{r.min(), r.max()}.str(),
                  "; widen the Dim's range or change the example");
      const std::string symbol_source = u.dim.is_derived() ? r.name() : source;
      // Sizes 0 and 1 broadcast and squeeze differently: an example of that size is traced as
      // the smallest size >= 2 in range, so the graph holds the general case, and every
      // decision that would differ at 0 or 1 is a guard checked against the declared range.
      const int64_t hint = root_value >= 2 ? root_value : std::min(std::max<int64_t>(2, r.min()),
                                                                   r.max());
      roots.push_back({u.dim.root_id(), r,
                       env.create_symbol(hint, {r.min(), r.max()}, symbol_source, r.name()),
                       root_value});
      root = &roots.back();
    }
    XPORT_CHECK_CASE(root->example == root_value, InvalidSpec, "conflicting_spec",
                     "export_program: ", source, " = ", size, " in the example, but ", u.dim.str(),
                     " was ", root->dim.name(), " = ", root->example,
                     " for another input: dims sharing a Dim must agree in the example");
  }
  std::vector<std::vector<sym::ExprPtr>> sizes;
  for (const TensorInput& in : inputs) {
    std::vector<sym::ExprPtr> s;
    for (int64_t d = 0; d < in.example.dim(); ++d) {
      auto it = in.spec.find(d);
      if (it == in.spec.end()) {
        s.push_back(sym::integer(in.example.int_size(d)));
        continue;
      }
      const DimSymbol* root = find_root(roots, it->second);
      s.push_back(sym::add(sym::mul(sym::integer(it->second.coefficient()), root->symbol),
                           sym::integer(it->second.offset())));
    }
    sizes.push_back(std::move(s));
  }
  return sizes;
}

void check_guards(const ShapeEnv& env, const std::vector<TensorInput>& inputs,
                  const std::vector<DimSymbol>& roots) {
  if (env.guards().empty()) return;
  std::ostringstream msg;
  msg << "export_program: the traced program is valid for fewer shapes than the spec declares. "
         "These decisions about shapes were taken while tracing:\n";
  bool inexpressible = false;
  for (const Guard& g : env.guards()) {
    if (g.specialization) {
      // Name the user's Dim too: `x.size(0) (Dim batch) was specialised to 8`.
      const std::string dim = env.describe_in_dims(g.specialized);
      msg << "  - " << env.describe(g.specialized) << (dim.empty() ? "" : " (Dim " + dim + ")")
          << " was specialised to " << g.value << " (used as a C++ integer)  (" << g.source
          << ")\n";
      continue;
    }
    const bool simple = is_expressible(g.expr);
    inexpressible = inexpressible || !simple;
    const std::string in_dims = env.describe_in_dims(g.expr);
    msg << "  - " << env.describe(g.expr) << (in_dims.empty() ? "" : ", i.e. " + in_dims)
        << (simple ? "" : "   [*]") << "  (" << g.source << ")\n";
  }
  // Dims match by object, not by name: `batch == batch` above is two Dims named alike.
  std::set<std::string> names, named_twice;
  for (const DimSymbol& r : roots) {
    if (!names.insert(r.dim.name()).second) named_twice.insert(r.dim.name());
  }
  for (const std::string& name : named_twice) {
    msg << "Two Dim objects are named \"" << name << "\": each is a size of its own, whatever "
           "its name. Give the inputs whose sizes must be equal one Dim object, as below.\n";
  }

  // The corrected spec: narrowed ranges, merged or derived dims, specialised dims made static.
  struct Fixed {
    bool is_static = false;
    const DimSymbol* base = nullptr;  // the root it is expressed in
    int64_t a = 1, b = 0;             // this root = a * base + b
  };
  std::map<const void*, Fixed> fixed;
  for (const DimSymbol& r : roots) {
    Fixed f{false, &r, 1, 0};
    auto it = env.replacements().find(r.symbol);
    if (it != env.replacements().end()) {
      const sym::ExprPtr value = it->second;
      if (sym::as_int(value)) {
        f.is_static = true;
      } else if (const auto affine = sym::as_affine(value)) {
        for (const DimSymbol& o : roots) {
          if (o.symbol == affine->symbol) f = {false, &o, affine->a, affine->b};
        }
      }
    }
    fixed[r.root_id] = f;
  }
  // Sizes 0 and 1 that the spec allows but a decision excludes: say why, beside the guards.
  std::string small_sizes;
  bool excludes_one = false;
  for (const DimSymbol& r : roots) {
    const SymbolInfo& info = env.info(r.symbol);
    if (info.declared.lo < 2 && info.range.lo > info.declared.lo) {
      small_sizes += (small_sizes.empty() ? "" : ", ") + r.dim.name();
      excludes_one = excludes_one || info.range.lo >= 2;
    }
  }
  if (!small_sizes.empty()) {
    msg << "The spec allows sizes below 2 for " << small_sizes
        << ", but the program takes a decision that differs there: broadcasting (a size-1 dim "
           "stretches), squeeze (drops a size-1 dim) or a reduction that an empty dim makes "
           "invalid. Start the range above those sizes as suggested, or make the program the "
           "same for them (e.g. expand() a size-1 operand explicitly, squeeze a static dim).\n";
  }
  msg << "Suggested spec (paste it in place of yours):\n";
  for (const DimSymbol& r : roots) {
    const Fixed& f = fixed[r.root_id];
    if (f.is_static || f.base != &r) continue;
    const sym::Range range = env.info(r.symbol).range;
    msg << "  Dim " << r.dim.name() << "(\"" << r.dim.name() << "\", " << range.lo;
    if (range.hi != sym::Range::kPosInf) msg << ", " << range.hi;
    msg << ");\n";
  }
  msg << "  options.dynamic_shapes = {\n";
  for (const TensorInput& in : inputs) {
    msg << "      {";
    bool first = true;
    for (const auto& [d, dim] : in.spec) {
      const Fixed& f = fixed[dim.root_id()];
      if (f.is_static) continue;
      // dim = c * root + o and root = a * base + b.
      const int64_t k = dim.coefficient() * f.a, off = dim.coefficient() * f.b + dim.offset();
      msg << (first ? "" : ", ") << "{" << d << ", ";
      if (k != 1) msg << k << " * ";
      msg << f.base->dim.name();
      if (off > 0) msg << " + " << off;
      if (off < 0) msg << " - " << -off;
      msg << "}";
      first = false;
    }
    msg << "},  // " << in.name << "\n";
  }
  msg << "  };";
  if (inexpressible) {
    msg << "\nGuards marked [*] are not a range or an equality of dims, so no spec can state "
           "them; rewrite the code that takes that decision (e.g. with cond()), or make the "
           "dims static.";
  }
  // The ExportDB case that shows the fix for the first guard's kind.
  const Guard& first = env.guards().front();
  const char* example = "dynamic_shape_if_guard";
  if (!small_sizes.empty()) {
    example = excludes_one ? "size_one_broadcast" : "size_zero_empty_max";
  } else if (first.specialization) {
    example = "dynamic_shape_specialized_int";
  } else if (!is_expressible(first.expr)) {
    example = "dynamic_shape_inexpressible_guard";
  } else if (first.expr->kind() == sym::ExprKind::Eq) {
    const auto solved = sym::solve_for_symbol(first.expr);
    example = sym::as_int(solved->second) ? "dynamic_dim_specialized_by_broadcast"
                                          : "dynamic_shape_matmul_equal_dims";
  }
  detail::throw_error_with_case(ErrorKind::ConstraintViolation, msg.str(), example);
}

}  // namespace xport::capture
