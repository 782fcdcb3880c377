// range_constraints, sym_int_values and tensor_values: the symbols and tensor metadata of a
// PT2 archive's program, checked as they are read.

#include <string>

#include "serde/program_reader.h"
#include "serde/pt2_format.h"
#include "xport/core/error.h"

namespace xport::serde {

namespace {

constexpr size_t kMaxRank = 64;
constexpr size_t kMaxExprChars = 512;

}  // namespace

sym::ExprPtr SymbolTable::parse_expr(const Field& f) {
  const std::string& text = f.to_string();
  if (text.size() > kMaxExprChars) {
    f.fail("expression of " + std::to_string(text.size()) + " characters (at most " +
           std::to_string(kMaxExprChars) + ")");
  }
  // Powers of sums would be expanded term by term; no writer prints them.
  if (text.find(")**") != std::string::npos) f.fail("a power of a parenthesized expression");
  sym::ExprPtr e = nullptr;
  try {
    e = sym::parse(text);
  } catch (const Error& err) {
    f.fail(std::string("cannot parse the expression: ") + err.what());
  }
  if (e->is_bool()) f.fail("'" + text + "' is a boolean, expected an integer expression");
  for (sym::ExprPtr s : sym::free_symbols(e)) {
    if (!ranges.count(s->name())) {
      f.fail("symbol " + s->name() + " in '" + text + "' has no entry in range_constraints");
    }
  }
  return e;
}

void SymbolTable::read_ranges(const Field& constraints) {
  constraints.for_each_member([&](const std::string& name, const Field& r) {
    sym::ExprPtr s = nullptr;
    try {
      s = sym::parse(name);
    } catch (const Error&) {
    }
    if (s == nullptr || s->kind() != sym::ExprKind::Symbol)
      r.fail("'" + name + "' is not a symbol name");
    sym::Range range;
    if (auto lo = r.optional("min_val")) range.lo = lo->to_int();
    if (auto hi = r.optional("max_val")) range.hi = hi->to_int();
    if (range.lo > range.hi)
      r.fail("min_val " + std::to_string(range.lo) + " > max_val " + std::to_string(range.hi));
    ranges[name] = range;
  });
}

sym::ExprPtr SymbolTable::sym_int(const Field& f) {
  auto [kind, value] = f.to_union();
  if (kind == "as_int") return sym::integer(value.to_int());
  if (kind == "as_expr") return parse_expr(value["expr_str"]);
  value.fail("unknown SymInt kind '" + kind + "' (expected as_int or as_expr)");
}

void SymbolTable::read_sym_values(const Field& values) {
  values.for_each_member(
      [&](const std::string& name, const Field& v) { sym_values[name] = sym_int(v); });
}

std::vector<sym::ExprPtr> SymbolTable::sym_int_list(const Field& f) {
  if (f.size() > kMaxRank)
    f.fail("rank " + std::to_string(f.size()) + " (at most " + std::to_string(kMaxRank) + ")");
  std::vector<sym::ExprPtr> out;
  for (size_t i = 0; i < f.size(); ++i) out.push_back(sym_int(f.at(i)));
  return out;
}

DType SymbolTable::dtype(const Field& f) {
  const int64_t id = f.to_int();
  const auto d = dtype_of_scalar_type(id);
  if (!d)
    f.fail("ScalarType " + std::to_string(id) +
           " is not a dtype xport has (it reads 1-8, 12, 13: uint8 through float64, bool, "
           "bfloat16)");
  return *d;
}

ir::TensorSpec SymbolTable::tensor_spec(const Field& meta) {
  ir::TensorSpec spec;
  spec.dtype = dtype(meta["dtype"]);
  spec.sizes = sym_int_list(meta["sizes"]);
  spec.strides = sym_int_list(meta["strides"]);
  if (spec.strides.size() != spec.sizes.size()) {
    meta["strides"].fail(std::to_string(spec.strides.size()) + " strides for " +
                         std::to_string(spec.sizes.size()) + " sizes");
  }
  for (size_t d = 0; d < spec.sizes.size(); ++d) {
    auto v = sym::as_int(spec.sizes[d]);
    if (v && *v < 0) meta["sizes"].at(d).fail("negative size " + std::to_string(*v));
    auto st = sym::as_int(spec.strides[d]);
    if (st && *st < 0) meta["strides"].at(d).fail("negative stride " + std::to_string(*st));
  }
  spec.storage_offset = sym_int(meta["storage_offset"]);
  if (auto off = sym::as_int(spec.storage_offset); off && *off < 0) {
    meta["storage_offset"].fail("negative storage offset");
  }
  if (auto layout = meta.optional("layout"); layout && layout->to_int() != kLayoutStrided) {
    layout->fail("layout " + std::to_string(layout->to_int()) +
                 "; xport reads strided tensors (7) only");
  }
  if (auto device = meta.optional("device"); device && (*device)["type"].to_string() != "cpu") {
    (*device)["type"].fail("device '" + (*device)["type"].to_string() +
                           "'; xport runs on the CPU");
  }
  if (sym::as_int(spec.storage_offset) == 0) spec.storage_offset = nullptr;
  return spec;
}

void SymbolTable::read_tensor_values(const Field& values) {
  values.for_each_member(
      [&](const std::string& name, const Field& meta) { specs[name] = tensor_spec(meta); });
}

const ir::TensorSpec& SymbolTable::spec_of(const Field& name_field) {
  const std::string& name = name_field.to_string();
  auto it = specs.find(name);
  if (it == specs.end()) name_field.fail("value '" + name + "' has no entry in tensor_values");
  return it->second;
}

}  // namespace xport::serde
