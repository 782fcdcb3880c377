#pragma once
/// \file Op schemas in ATen's schema language, e.g.
/// `aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`.

#include <optional>
#include <string>
#include <vector>

#include "xport/tensor/value.h"

namespace xport {

/// The base of an argument type; `optional`, `list` and a fixed list size refine it.
enum class BaseType {
  Tensor,
  Int,
  SymInt,
  Float,
  Bool,
  Scalar,
  ScalarType,
  Str,
  Layout,
  Device,
  MemoryFormat,
  Generator,
  Graph,  ///< `GraphModule`: a subgraph of a higher-order op (cond's branches)
  Any,    ///< `Any`: whatever the op takes (cond's predicate: a bool tensor or a SymBool)
};

struct ArgType {
  BaseType base = BaseType::Tensor;
  bool optional = false;          // `T?`
  bool list = false;              // `T[]` or `T[N]`
  int64_t fixed_size = 0;         // N of `int[N]`; 0 when not fixed
  bool element_optional = false;  // `Tensor?[]`
  std::string str() const;
};

struct Argument {
  std::string name;
  ArgType type;
  std::optional<Value> default_value;  // set when the schema gives `=default`
  bool kwarg_only = false;             // after `*`
  std::string alias_set;               // "a" of `Tensor(a)` / `Tensor(a!)`
  bool is_write = false;               // `!`: the op mutates this argument
  bool alias_elements = false;         // `(a -> *)`: outputs alias the list's elements
  std::string default_text;            // the default as written, for printing
};

struct Schema {
  std::string ns;        // "aten"
  std::string name;      // "add"
  std::string overload;  // "Tensor"; empty for the default overload
  std::vector<Argument> arguments;
  std::vector<Argument> returns;
  bool returns_list = false;  // `-> Tensor[]`

  /// "aten::add.Tensor" (or "aten::add" when there is no overload name).
  std::string qualified_name() const;
  /// The schema printed back in ATen's form.
  std::string str() const;
  /// Index of the argument an output aliases, or -1.
  int aliased_argument(size_t output) const;
  bool is_mutating() const;
};

/// Parses one schema; throws InvalidSpec naming the position of a syntax error.
Schema parse_schema(const std::string& text);

}  // namespace xport
