#pragma once
// The shape environment of one export: the symbols made for dynamic input dims (each with its
// example value, the "hint", and its range), the guards recorded when a symbolic comparison was
// turned into a C++ bool or a symbolic size into a C++ integer, and the replacements those
// guards imply (after `s1 == 2*s0` holds, every later expression uses 2*s0 for s1).

#include <memory>
#include <mutex>
#include <source_location>
#include <string>
#include <unordered_map>
#include <vector>

#include "xport/core/expr.h"
#include "xport/core/sym.h"

namespace xport::capture {

struct SymbolInfo {
  sym::ExprPtr symbol = nullptr;
  int64_t hint = 0;
  sym::Range declared;   // from the user's Dim (dynamic dims start at 2)
  sym::Range range;      // the declared range narrowed by guards recorded so far
  std::string source;    // the input dim it was made for: "x.size(0)"; for an unbacked
                         // symbol, what made it: "item() at model.cpp:12"
  std::string dim_name;  // the user's Dim name: "batch"
  bool unbacked = false;  // made by a data-dependent value: no hint, decided by facts only
};

/// A decision the traced program took about shapes: `expr` held on the hints.
struct Guard {
  sym::ExprPtr expr = nullptr;         // a boolean expression over symbols
  std::string source;                  // the user's file:line, or xport's when unknown
  bool specialization = false;         // from turning a symbolic integer into a C++ integer
  sym::ExprPtr specialized = nullptr;  // the integer expression that was specialised
  int64_t value = 0;                   // ... and the value it took
};

class ShapeEnv : public std::enable_shared_from_this<ShapeEnv> {
 public:
  static std::shared_ptr<ShapeEnv> create();

  /// A fresh backed symbol for an input dim, named `name` or else the next of `s0`, `s1`, ...
  sym::ExprPtr create_symbol(int64_t hint, sym::Range declared, std::string source,
                             std::string dim_name, const std::string& name = "");
  /// A fresh unbacked symbol (`u0`, `u1`, ...) in `range`, for a value only the data decides;
  /// `name` keeps a given name (re-tracing a program).
  sym::ExprPtr create_unbacked(sym::Range range, std::string source, const std::string& name = "");
  /// Learns `fact` (check(), constrain_as_size()): it narrows ranges and decides later
  /// comparisons; it is not a guard (the program asserts it when it runs).
  void add_fact(sym::ExprPtr fact);
  const std::vector<SymbolInfo>& symbols() const { return symbols_; }
  /// Whether `e` uses an unbacked symbol.
  bool uses_unbacked(sym::ExprPtr e) const;
  const SymbolInfo& info(sym::ExprPtr symbol) const;

  /// Wraps an expression into a SymInt / SymBool of this environment (plain when constant).
  SymInt make_int(sym::ExprPtr e);
  SymBool make_bool(sym::ExprPtr e);

  /// `e` with the current replacements applied.
  sym::ExprPtr simplify(sym::ExprPtr e) const;
  /// The value of `e` on the hints.
  int64_t hint(sym::ExprPtr e) const;
  /// The range of a symbol, as narrowed so far.
  sym::Range range(sym::ExprPtr symbol) const;

  /// Turns a symbolic bool into a C++ bool: decided by the ranges when they can (no guard);
  /// otherwise evaluated on the hints and recorded as a guard.
  bool evaluate_bool(sym::ExprPtr e, const std::source_location& where);
  /// `e` decided by the ranges and the guards taken so far; nullopt when only a new guard (or
  /// the data) could decide it. Records nothing.
  std::optional<bool> decide_without_guard(sym::ExprPtr e) const;
  /// `e` decided by the ranges with every size symbol (one whose range starts at 0 or more)
  /// taken to be at least 2; nullopt when they do not decide it. Records nothing.
  std::optional<bool> decide_size_oblivious(sym::ExprPtr e) const;
  /// Turns a symbolic integer into a C++ integer: specialises it to its hint with an equality
  /// guard.
  int64_t evaluate_int(sym::ExprPtr e, const std::source_location& where);

  const std::vector<Guard>& guards() const { return guards_; }
  const std::unordered_map<sym::ExprPtr, sym::ExprPtr>& replacements() const {
    return replacements_;
  }

  /// How a symbol is shown to the user: its input dim (`x.size(0)`), for error messages.
  std::string describe(sym::ExprPtr e) const;
  /// `e` in the user's Dim names (`k1 == k2`); empty when no symbol of it has one.
  std::string describe_in_dims(sym::ExprPtr e) const;

 private:
  ShapeEnv() = default;
  void record(sym::ExprPtr guard, const std::source_location& where, bool specialization,
              sym::ExprPtr specialized, int64_t value);
  // Throws DataDependent when `e` uses an unbacked symbol: `what` could not be done with it.
  void refuse_unbacked(sym::ExprPtr e, const std::string& what) const;
  int unbacked_count_ = 0;
  void narrow(sym::ExprPtr fact);
  void add_replacement(sym::ExprPtr symbol, sym::ExprPtr value);
  SymbolInfo& mutable_info(sym::ExprPtr symbol);

  std::vector<SymbolInfo> symbols_;
  std::unordered_map<sym::ExprPtr, size_t> index_;
  std::vector<Guard> guards_;
  std::unordered_map<sym::ExprPtr, bool> known_;  // guarded expressions and their values
  std::unordered_map<sym::ExprPtr, sym::ExprPtr> replacements_;
};

/// Whether XPORT_LOGS (a comma-separated list) names `topic` ("dynamic", "guards").
bool log_enabled(const char* topic);

}  // namespace xport::capture
