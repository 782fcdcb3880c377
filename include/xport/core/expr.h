#pragma once
/// \file Symbolic integer and boolean expressions: immutable, hash-consed nodes (two equal
/// expressions are the same pointer), built in a canonical form by the constructors below.
///
/// Integer expressions are sums of products with integer coefficients over symbols (`s0`, `s1`,
/// ...), plus floor division, modulo, min and max. Boolean expressions are relations between
/// integer expressions and their and/or/not. Symbols are names only: what a symbol means (its
/// example value, its range, the input dim it came from) is kept by the shape environment that
/// made it. Nodes live for the life of the process; interning is thread-safe.
///
/// The canonical form is an expanded polynomial: products of sums are multiplied out, so a Mul's
/// args are atoms (Symbol, FloorDiv, Mod, Min, Max) and equal polynomials are the same node.
/// Arguments are sorted by a structural order (compare() below) that never depends on pointer
/// values, so printing and hashing are identical across runs. Constants and coefficients lie in
/// [-(2^63-1), 2^63-1]; constant arithmetic that leaves that range throws xport::Error
/// (InvalidInput). Constructors apply only rules that hold for every integer value: x//1 = x,
/// Mod(x, 1) = 0, (k*x + y + c)//k = x + c//k + (y + c mod k)//k, common factors of a constant
/// divisor cancel, (x//a)//b = x//(a*b) and Mod(Mod(x, a*k), k) = Mod(x, k) for constants
/// a, b, k > 0, a negative constant divisor is made positive, Min(x, x + 1) = x, absorption in
/// Min/Max and And/Or, x & ~x = False. One rule assumes what every symbol here stands for, a
/// size, is positive: a monomial dividing a symbolic divisor and every term of the dividend
/// cancels ((768*s0*s1)//(12*s0*s1) = 64, Mod(6*s0, 4*s0) = 2*s0). Value ranges are used only
/// by bound() and decide().

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace xport::sym {

enum class ExprKind : uint8_t {
  Integer,   // value()
  Symbol,    // name()
  Add,       // constant() + sum of coefficients()[i] * args()[i]; args are not Add or Integer
  Mul,       // product of args()[i] ^ exponents()[i]; no coefficient (that lives in an Add)
  FloorDiv,  // args()[0] // args()[1], rounding toward -infinity
  Mod,       // args()[0] mod args()[1], with the sign of the divisor (Python's %)
  Min,       // args() (2 or more, sorted)
  Max,
  True,
  False,
  Eq,   // args()[0] == 0   (relations compare one canonical integer expression with zero)
  Ne,   // args()[0] != 0
  Le,   // args()[0] <= 0  (a < b is stored as a - b + 1 <= 0)
  And,  // args() (sorted)
  Or,
  Not,
};

class Expr;
/// Expressions are compared by pointer.
using ExprPtr = const Expr*;

class Expr {
 public:
  ExprKind kind() const { return kind_; }
  bool is_bool() const;
  /// The constant of an Integer node, or of an Add node.
  int64_t value() const { return value_; }
  const std::string& name() const { return name_; }
  std::span<const ExprPtr> args() const { return args_; }
  /// One per arg: the coefficients of an Add, the exponents of a Mul; empty otherwise.
  std::span<const int64_t> coefficients() const { return coefficients_; }
  std::span<const int64_t> exponents() const { return coefficients_; }
  size_t hash() const { return hash_; }

  // Interning only; use the constructors below.
  Expr(ExprKind kind, int64_t value, std::string name, std::vector<ExprPtr> args,
       std::vector<int64_t> coefficients);

 private:
  ExprKind kind_;
  int64_t value_;
  std::string name_;
  std::vector<ExprPtr> args_;
  std::vector<int64_t> coefficients_;
  size_t hash_;
};

// ---- constructors: each returns the canonical, simplified, interned node ----
/// Throws xport::Error(InvalidInput) for INT64_MIN (its negation would overflow).
ExprPtr integer(int64_t value);
/// A symbol; names are [a-z_][a-z0-9_]* (`s0`, `u3`).
ExprPtr symbol(std::string_view name);
ExprPtr add(ExprPtr a, ExprPtr b);
ExprPtr sub(ExprPtr a, ExprPtr b);
/// Expands products of sums; refuses (InvalidInput) a product of more than 65536 term pairs.
ExprPtr mul(ExprPtr a, ExprPtr b);
ExprPtr neg(ExprPtr a);
/// Throws xport::Error(InvalidInput) on a constant zero divisor.
ExprPtr floor_div(ExprPtr a, ExprPtr b);
/// Python's modulo: the result has the sign of the divisor. Throws like floor_div.
ExprPtr mod(ExprPtr a, ExprPtr b);
ExprPtr min(ExprPtr a, ExprPtr b);
ExprPtr max(ExprPtr a, ExprPtr b);
ExprPtr true_expr();
ExprPtr false_expr();
ExprPtr boolean(bool value);
/// Relations are stored as Eq/Ne/Le of a - b (lt as a - b + 1 <= 0, gt and ge swap the sides),
/// divided by the gcd of the coefficients (2*s0 <= 3 is s0 <= 1; 2*s0 == 3 is False); Eq and Ne
/// also make the first term's coefficient positive. Relations of constants fold to True/False.
ExprPtr eq(ExprPtr a, ExprPtr b);
ExprPtr ne(ExprPtr a, ExprPtr b);
ExprPtr lt(ExprPtr a, ExprPtr b);
ExprPtr le(ExprPtr a, ExprPtr b);
ExprPtr gt(ExprPtr a, ExprPtr b);
ExprPtr ge(ExprPtr a, ExprPtr b);
ExprPtr logical_and(ExprPtr a, ExprPtr b);
ExprPtr logical_or(ExprPtr a, ExprPtr b);
/// ~Eq is Ne, ~Ne is Eq, ~(e <= 0) is -e + 1 <= 0, ~~x is x; ~And and ~Or stay Not nodes.
ExprPtr logical_not(ExprPtr a);

/// The value of a constant integer / boolean expression.
std::optional<int64_t> as_int(ExprPtr e);
std::optional<bool> as_bool(ExprPtr e);

/// A total order on expressions that depends only on their structure (kind, then symbols in
/// natural name order, s2 before s10, then fields recursively); 0 only for the same node. Sort
/// by it wherever output must be deterministic.
int compare(ExprPtr a, ExprPtr b);

// ---- inspection and rewriting ----
/// Symbols occurring in `e`, in name order (s2 before s10).
std::vector<ExprPtr> free_symbols(ExprPtr e);
/// Replaces symbols by expressions (keys are Symbol nodes) and re-simplifies. Throws
/// (InvalidInput) when a divisor becomes the constant 0.
ExprPtr substitute(ExprPtr e, const std::unordered_map<ExprPtr, ExprPtr>& replacements);
/// The value of `e` with every symbol given a value by `value_of` (nullopt if some symbol has
/// none, or on division by zero). Booleans evaluate to 0 / 1; an And with a false arg is 0 (an Or
/// with a true arg is 1) even when another arg has no value. Throws xport::Error (InvalidInput)
/// when the values overflow 64-bit arithmetic.
std::optional<int64_t> evaluate(ExprPtr e,
                                const std::function<std::optional<int64_t>(ExprPtr)>& value_of);

// ---- value ranges ----
/// A closed interval of integers; kNegInf / kPosInf stand for unbounded ends.
struct Range {
  static constexpr int64_t kNegInf = INT64_MIN;
  static constexpr int64_t kPosInf = INT64_MAX;
  int64_t lo = kNegInf;
  int64_t hi = kPosInf;
  bool contains(int64_t v) const { return lo <= v && v <= hi; }
  bool is_point() const { return lo == hi; }
  std::string str() const;  // "[2, 1024]", "[2, oo]"
  bool operator==(const Range&) const = default;
};
/// An interval containing every value `e` takes when each symbol lies in its range
/// (saturating at the infinities; sound, not always tight).
Range bound(ExprPtr e, const std::function<Range(ExprPtr)>& range_of);
/// True / false when the ranges alone decide the boolean `e`; nullopt otherwise. Throws
/// (InvalidInput) when `e` is an integer expression.
std::optional<bool> decide(ExprPtr e, const std::function<Range(ExprPtr)>& range_of);

/// `e` with each Min and Max arg that another arg bounds for every value in the ranges dropped
/// (Max(0, s0) is s0 when s0 >= 0; Min(1, s0 + 1) is 1), then re-simplified.
ExprPtr simplify_min_max(ExprPtr e, const std::function<Range(ExprPtr)>& range_of);

/// For a linear equation Eq(e): a symbol with coefficient +-1 and the expression it equals
/// (`s1 - 2*s0 == 0` gives s1 := 2*s0), choosing the symbol that sorts last (the newest), so
/// newer symbols are replaced by older ones. nullopt if no symbol can be isolated (or `eq` is
/// not an Eq node). A symbol that also occurs inside another term is not isolated.
std::optional<std::pair<ExprPtr, ExprPtr>> solve_for_symbol(ExprPtr eq);

/// e as a * symbol + b with constants a != 0 and b (`2*s0 + 1`, `s0`, `3 - s0`); nullopt for
/// anything else (constants, several symbols, products, floor division...).
struct Affine {
  ExprPtr symbol;
  int64_t a;
  int64_t b;
};
std::optional<Affine> as_affine(ExprPtr e);

// ---- text ----
/// Printed as PyTorch's sympy printer does for sizes (`2*s0 + 1`, `s0*s1`, `(s0//2)`,
/// `Mod(s0, 2)`, `Min(s0, s1)`), relations as `s0 <= 16`, `s1 == 2*s0`, `s0 != 1`, and booleans
/// with `&`, `|`, `~`. `rename` (optional) prints a symbol under another name, e.g. the input
/// dim it came from (`x.size(0)`).
///
/// A sum prints its positive terms, then its negative ones (each in canonical order: sympy's lex
/// order, `s0**2 + s0*s1 + s0 + s1`), then the constant: `s0*s1 - s0 - 1`; when every term is
/// negative a positive constant leads (`3 - s0`). A relation moves terms so both sides have
/// positive coefficients and puts the constant on the side where it is positive (`s0 <= 16`,
/// `s0 >= 2`, `2*s0 == s1`, `s0 + 1 == s1`); Le with terms on both sides and a positive constant
/// prints as strict (`s0 < s1`). And/Or parenthesize relations as sympy does:
/// `(s0 >= 2) & (s0 <= 16)`.
std::string str(ExprPtr e, const std::function<std::string(ExprPtr)>& rename = nullptr);
/// Parses what str() prints (and sympy's `FloorDiv(a, b)` spelling, `a % b`, `Min`/`Max` of more
/// than two args, `**` with a constant exponent), and sympy's srepr of such expressions as
/// PyTorch 2.13 writes them in archives (`Mul(Integer(2), Symbol('s0', integer=True))`, `Add`,
/// `Pow`, `PythonMod`); parse(str(e)) == e. Python's precedence, except
/// that comparisons bind tighter than `&` and `|`. Throws xport::Error (InvalidInput) naming the
/// position of a syntax error and the text.
ExprPtr parse(std::string_view text);

}  // namespace xport::sym
