#include "program/input_check.h"

#include <sstream>

#include "core/dtype_enumerator.h"

namespace xport {

const char* to_string(InputContract::Kind kind) {
  switch (kind) {
    case InputContract::Kind::Tensor:
      return "tensor";
    case InputContract::Kind::TensorList:
      return "tensor_list";
    case InputContract::Kind::Int:
      return "int";
    case InputContract::Kind::Float:
      return "float";
    case InputContract::Kind::Bool:
      return "bool";
  }
  return "?";
}
namespace {

std::string dim_name(const std::string& input, size_t d) {
  return input + ".size(" + std::to_string(d) + ")";
}

const SymbolSpec* find_symbol(const std::vector<SymbolSpec>& symbols, sym::ExprPtr s) {
  for (const SymbolSpec& spec : symbols) {
    if (spec.name == s->name()) return &spec;
  }
  return nullptr;
}

// One dim of an input against its expression. Its name is made only for a message: a call
// checks every dim, and most calls pass.
struct DimCheck {
  const std::string* input;
  size_t dim;
  sym::ExprPtr expr;
  int64_t size;
  std::string name() const { return dim_name(*input, dim); }  // x.size(0)
};

// Every tensor the contract describes, flattened, with the value that was passed.
void collect(const InputContract& c, const Tensor& t, std::vector<DimCheck>& dims,
             std::vector<Tensor>& tensors) {
  XPORT_CHECK(t.defined(), InvalidInput, "input ", c.name, ": expected a tensor, got none");
  XPORT_CHECK(!t.is_fake(), InvalidInput, "input ", c.name,
              ": is a fake tensor; pass a tensor with data");
  XPORT_CHECK(t.dtype() == c.dtype, InvalidInput, "input ", c.name, ": expected dtype ",
              dtype_name(c.dtype), ", got ", dtype_name(t.dtype()),
              "; convert it with .to(DType::", dtype_enumerator(c.dtype), ")");
  if (t.dim() != static_cast<int64_t>(c.sizes.size())) {
    std::ostringstream shape, expected;
    for (int64_t d = 0; d < t.dim(); ++d) shape << (d ? ", " : "") << t.int_size(d);
    for (size_t d = 0; d < c.sizes.size(); ++d) expected << (d ? ", " : "") << sym::str(c.sizes[d]);
    XPORT_FAIL(InvalidInput, "input ", c.name, ": expected ", c.sizes.size(), " dims [",
               expected.str(), "], got ", t.dim(), " dims [", shape.str(), "]");
  }
  for (size_t d = 0; d < c.sizes.size(); ++d) {
    dims.push_back({&c.name, d, c.sizes[d], t.int_size(static_cast<int64_t>(d))});
  }
  tensors.push_back(t);
}

}  // namespace

std::vector<Tensor> check_inputs(const std::vector<InputContract>& contract,
                                 const std::vector<SymbolSpec>& symbols,
                                 const std::vector<Value>& inputs,
                                 std::unordered_map<sym::ExprPtr, int64_t>& bindings) {
  if (inputs.size() != contract.size()) {
    std::ostringstream expected;
    for (size_t i = 0; i < contract.size(); ++i) expected << (i ? ", " : "") << contract[i].name;
    XPORT_FAIL(InvalidInput, "expected ", contract.size(), " inputs (", expected.str(), "), got ",
               inputs.size());
  }
  std::vector<DimCheck> dims;
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < contract.size(); ++i) {
    const InputContract& c = contract[i];
    const Value& v = inputs[i];
    switch (c.kind) {
      case InputContract::Kind::Tensor:
        XPORT_CHECK(v.is_tensor(), InvalidInput, "input ", c.name, ": expected a tensor, got ",
                    v.type_name());
        collect(c, v.to_tensor(), dims, tensors);
        break;
      case InputContract::Kind::TensorList: {
        XPORT_CHECK(v.is_list(), InvalidInput, "input ", c.name,
                    ": expected a list of tensors, got ", v.type_name());
        const auto& list = v.to_tensor_list();
        XPORT_CHECK(list.size() == c.elements.size(), InvalidInput, "input ", c.name,
                    ": expected a list of ", c.elements.size(), " tensors, got ", list.size());
        for (size_t e = 0; e < list.size(); ++e) collect(c.elements[e], list[e], dims, tensors);
        break;
      }
      case InputContract::Kind::Int:
      case InputContract::Kind::Bool:
        XPORT_CHECK((v.is_int() || v.is_bool()) && v.to_int() == c.int_value, InvalidInput,
                    "input ", c.name, ": the program was specialised to ", c.int_value, ", got ",
                    v.str(), "; export again with this value");
        break;
      case InputContract::Kind::Float:
        XPORT_CHECK(v.is_number() && v.to_double() == c.float_value, InvalidInput, "input ", c.name,
                    ": the program was specialised to ", c.float_value, ", got ", v.str(),
                    "; export again with this value");
        break;
    }
  }

  // Bind each symbol from the first dim that is exactly that symbol, checking its range; then
  // solve dims that are a linear function of one still-unbound symbol (derived dims); then every
  // dim must equal its expression.
  auto value_of = [&](sym::ExprPtr s) -> std::optional<int64_t> {
    auto it = bindings.find(s);
    if (it == bindings.end()) return std::nullopt;
    return it->second;
  };
  auto bind = [&](sym::ExprPtr s, int64_t value, const DimCheck& from) {
    const SymbolSpec* spec = find_symbol(symbols, s);
    XPORT_CHECK(spec != nullptr, Internal, "input check: unknown symbol ", s->name());
    XPORT_CHECK(spec->range.contains(value), InvalidInput, from.name(), " = ", from.size,
                " is outside the range ", spec->range.str(), " of Dim '", spec->dim_name, "'",
                spec->range.lo == 2 && value < 2
                    ? " (Dims start at 2 unless declared otherwise: export with Dim(\"" +
                          spec->dim_name + "\", " + std::to_string(value) +
                          ", ...) to allow this size)"
                    : "");
    bindings[s] = value;
  };
  for (const DimCheck& d : dims) {
    if (d.expr->kind() == sym::ExprKind::Symbol && !bindings.count(d.expr)) {
      bind(d.expr, d.size, d);
    }
  }
  for (const DimCheck& d : dims) {
    // expr = a * s + b: s = (size - b) / a.
    const auto f = sym::as_affine(d.expr);
    if (!f || f->a <= 0 || bindings.count(f->symbol)) continue;
    XPORT_CHECK((d.size - f->b) % f->a == 0, InvalidInput, d.name(), " = ", d.size, " must be ",
                sym::str(d.expr), " for an integer ", f->symbol->name(), " (Dim '",
                find_symbol(symbols, f->symbol)->dim_name, "')");
    bind(f->symbol, (d.size - f->b) / f->a, d);
  }
  for (const DimCheck& d : dims) {
    const auto expected_size = sym::evaluate(d.expr, value_of);
    XPORT_CHECK(expected_size.has_value(), InvalidInput, d.name(), " = ", d.size,
                ": cannot be checked against ", sym::str(d.expr));
    if (*expected_size == d.size) continue;
    if (sym::as_int(d.expr)) {
      XPORT_FAIL(InvalidInput, d.name(), " = ", d.size, ", but the program was exported with ",
                 d.name(), " = ", *expected_size,
                 " as a static dim; mark it dynamic with a Dim in dynamic_shapes to allow other "
                 "sizes");
    }
    // Name the dim that fixed the symbol's value.
    std::string because;
    for (const DimCheck& other : dims) {
      if (&other != &d && sym::free_symbols(other.expr) == sym::free_symbols(d.expr)) {
        because = " (from " + other.name() + " = " + std::to_string(other.size) + ")";
        break;
      }
    }
    // The expression in the user's Dim names (`k`, `2*d`) where the symbols have them.
    const std::string expr = sym::str(d.expr, [&](sym::ExprPtr s) {
      const SymbolSpec* spec = find_symbol(symbols, s);
      return spec != nullptr && !spec->dim_name.empty() ? spec->dim_name : s->name();
    });
    XPORT_FAIL(InvalidInput, d.name(), " = ", d.size, ", but the contract requires ", d.name(),
               " == ", expr, " = ", *expected_size, because);
  }
  return tensors;
}

}  // namespace xport
