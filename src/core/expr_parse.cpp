// Parsing what str() prints: a recursive-descent parser with Python's precedence
// (| < & < ~ < comparisons < + - < * // % < unary - < **).

#include "core/expr_internal.h"
#include "xport/core/error.h"

namespace xport::sym {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  ExprPtr parse() {
    ExprPtr e = parse_or();
    skip_space();
    if (pos_ < text_.size()) fail(std::string("unexpected '") + text_[pos_] + "'", pos_);
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& what, size_t at) const {
    XPORT_FAIL(InvalidInput, "sym::parse: ", what, " at position ", at, " in \"", text_,
               "\"; expected an expression as str() prints it, such as 2*s0 + 1 or s0 <= 16");
  }

  size_t here() {
    skip_space();
    return pos_;
  }
  void skip_space() {
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  }
  bool peek(std::string_view token) {
    skip_space();
    return text_.substr(pos_).starts_with(token);
  }
  bool accept(std::string_view token) {
    if (!peek(token)) return false;
    pos_ += token.size();
    return true;
  }
  void expect(std::string_view token) {
    if (!accept(token)) fail("expected '" + std::string(token) + "'", here());
  }

  ExprPtr as_int_expr(ExprPtr e, size_t at) const {
    if (e->is_bool()) fail("expected an integer expression, got the boolean " + str(e), at);
    return e;
  }
  ExprPtr as_bool_expr(ExprPtr e, size_t at) const {
    if (!e->is_bool()) fail("expected a boolean expression, got the integer " + str(e), at);
    return e;
  }

  // Limits recursion so hostile text gives an error, not a stack overflow.
  class Nested {
   public:
    Nested(Parser& p, size_t at) : p_(p) {
      if (++p_.depth_ > kMaxDepth) p_.fail("expression nested too deeply", at);
    }
    ~Nested() { --p_.depth_; }

   private:
    Parser& p_;
  };
  static constexpr int kMaxDepth = 256;

  // Runs a constructor, adding the position to its errors (division by zero, overflow).
  template <class F>
  ExprPtr build(size_t at, F f) const {
    try {
      return f();
    } catch (const Error& e) {
      XPORT_FAIL(InvalidInput, "sym::parse: at position ", at, " in \"", text_, "\": ", e.what());
    }
  }

  ExprPtr parse_or() {
    size_t at = here();
    Nested nested(*this, at);
    ExprPtr e = parse_and();
    while (!peek("||") && accept("|")) {
      size_t rhs_at = here();
      ExprPtr rhs = as_bool_expr(parse_and(), rhs_at);
      e = logical_or(as_bool_expr(e, at), rhs);
    }
    return e;
  }

  ExprPtr parse_and() {
    size_t at = here();
    ExprPtr e = parse_not();
    while (!peek("&&") && accept("&")) {
      size_t rhs_at = here();
      ExprPtr rhs = as_bool_expr(parse_not(), rhs_at);
      e = logical_and(as_bool_expr(e, at), rhs);
    }
    return e;
  }

  ExprPtr parse_not() {
    if (accept("~")) {
      size_t at = here();
      Nested nested(*this, at);
      return logical_not(as_bool_expr(parse_not(), at));
    }
    return parse_relation();
  }

  ExprPtr parse_relation() {
    size_t at = here();
    ExprPtr lhs = parse_sum();
    static constexpr std::pair<std::string_view, ExprPtr (*)(ExprPtr, ExprPtr)> kOps[] = {
        {"==", &eq}, {"!=", &ne}, {"<=", &le}, {">=", &ge}, {"<", &lt}, {">", &gt}};
    for (const auto& [token, make] : kOps) {
      if (!accept(token)) continue;
      size_t rhs_at = here();
      ExprPtr rhs = as_int_expr(parse_sum(), rhs_at);
      as_int_expr(lhs, at);
      // `make` is captured by name: clang < 16 cannot capture a structured binding implicitly.
      ExprPtr e = build(at, [&, make = make] { return make(lhs, rhs); });
      for (const auto& [next, unused] : kOps) {
        if (peek(next)) fail("chained comparisons are not supported; use &", here());
      }
      return e;
    }
    return lhs;
  }

  ExprPtr parse_sum() {
    size_t at = here();
    ExprPtr e = parse_product();
    for (;;) {
      bool plus = accept("+");
      if (!plus && !accept("-")) return e;
      size_t rhs_at = here();
      ExprPtr rhs = as_int_expr(parse_product(), rhs_at);
      as_int_expr(e, at);
      e = build(at, [&] { return plus ? add(e, rhs) : sub(e, rhs); });
    }
  }

  ExprPtr parse_product() {
    size_t at = here();
    ExprPtr e = parse_unary();
    for (;;) {
      ExprPtr (*make)(ExprPtr, ExprPtr) = nullptr;
      if (accept("//")) {
        make = &floor_div;
      } else if (accept("%")) {
        make = &mod;
      } else if (accept("*")) {
        make = &mul;
      } else {
        return e;
      }
      size_t rhs_at = here();
      ExprPtr rhs = as_int_expr(parse_unary(), rhs_at);
      as_int_expr(e, at);
      e = build(at, [&] { return make(e, rhs); });
    }
  }

  ExprPtr parse_unary() {
    size_t at = here();
    if (accept("-")) {
      size_t operand_at = here();
      Nested nested(*this, operand_at);
      ExprPtr e = as_int_expr(parse_unary(), operand_at);
      return build(at, [&] { return neg(e); });
    }
    if (accept("+")) {
      size_t operand_at = here();
      Nested nested(*this, operand_at);
      return as_int_expr(parse_unary(), operand_at);
    }
    return parse_power();
  }

  ExprPtr parse_power() {
    size_t at = here();
    ExprPtr base = parse_primary();
    if (!accept("**")) return base;
    size_t exponent_at = here();
    Nested nested(*this, exponent_at);
    ExprPtr exponent = parse_unary();  // right-associative, as in Python
    std::optional<int64_t> n = as_int(exponent);
    if (!n || *n < 0) fail("the exponent must be a non-negative integer constant", exponent_at);
    as_int_expr(base, at);
    return build(at, [&] { return detail::pow_expr(base, *n); });
  }

  ExprPtr parse_primary() {
    size_t at = here();
    if (pos_ == text_.size()) fail("unexpected end of input", at);
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      ExprPtr e = parse_or();
      expect(")");
      return e;
    }
    if (is_digit(c)) return parse_number();
    if (!is_name_start(c)) fail(std::string("unexpected '") + c + "'", at);
    size_t end = pos_;
    while (end < text_.size() && is_name_char(text_[end])) ++end;
    std::string_view name = text_.substr(pos_, end - pos_);
    pos_ = end;
    if (name == "True") return true_expr();
    if (name == "False") return false_expr();
    if (name == "Symbol") return parse_srepr_symbol(at);
    if (name == "Integer") {
      std::vector<ExprPtr> args = parse_call_args(name, at);
      if (args.size() != 1 || !as_int(args[0])) fail("Integer takes one integer literal", at);
      return args[0];
    }
    // sympy's srepr spellings (PyTorch 2.13 writes expr_str this way): Add(...), Mul(...),
    // Pow(base, Integer(n)), PythonMod(a, b).
    if (name == "Add" || name == "Mul") {
      std::vector<ExprPtr> args = parse_call_args(name, at);
      ExprPtr e = args[0];
      for (size_t i = 1; i < args.size(); ++i)
        e = build(at, [&] { return name == "Add" ? add(e, args[i]) : mul(e, args[i]); });
      return e;
    }
    if (name == "Pow") {
      std::vector<ExprPtr> args = parse_call_args(name, at);
      std::optional<int64_t> n = args.size() == 2 ? as_int(args[1]) : std::nullopt;
      if (!n || *n < 0) fail("Pow takes a base and a non-negative integer constant exponent", at);
      return build(at, [&] { return detail::pow_expr(args[0], *n); });
    }
    if (name == "PythonMod") name = "Mod";
    if (name == "Mod" || name == "FloorDiv") {
      std::vector<ExprPtr> args = parse_call_args(name, at);
      if (args.size() != 2) fail(std::string(name) + " takes 2 arguments", at);
      return build(
          at, [&] { return name == "Mod" ? mod(args[0], args[1]) : floor_div(args[0], args[1]); });
    }
    if (name == "Min" || name == "Max") {
      std::vector<ExprPtr> args = parse_call_args(name, at);
      ExprPtr e = args[0];
      for (size_t i = 1; i < args.size(); ++i) {
        e = build(at, [&] { return name == "Min" ? min(e, args[i]) : max(e, args[i]); });
      }
      return e;
    }
    for (char ch : name) {
      if (ch >= 'A' && ch <= 'Z') {
        fail("unknown name '" + std::string(name) + "' (symbols are lower case)", at);
      }
    }
    return symbol(name);
  }

  // sympy's srepr of a symbol: Symbol('s0', positive=True, integer=True). The assumptions add
  // nothing the range constraints do not say, so they are read and dropped.
  ExprPtr parse_srepr_symbol(size_t at) {
    expect("(");
    skip_space();
    const char quote = pos_ < text_.size() ? text_[pos_] : '\0';
    if (quote != '\'' && quote != '"') fail("Symbol takes a quoted name", here());
    const size_t start = ++pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) ++pos_;
    if (pos_ == text_.size()) fail("unterminated symbol name", start);
    const std::string_view symbol_name = text_.substr(start, pos_ - start);
    ++pos_;
    for (char ch : symbol_name) {
      if (!is_name_char(ch) || (ch >= 'A' && ch <= 'Z'))
        fail("symbol names are lower-case identifiers, got '" + std::string(symbol_name) + "'", at);
    }
    while (accept(",")) {  // assumption=True|False
      skip_space();
      while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
      expect("=");
      if (!accept("True")) expect("False");
    }
    expect(")");
    return symbol(symbol_name);
  }

  std::vector<ExprPtr> parse_call_args(std::string_view name, size_t at) {
    if (!accept("(")) fail("expected '(' after " + std::string(name), here());
    std::vector<ExprPtr> args;
    do {
      size_t arg_at = here();
      args.push_back(as_int_expr(parse_or(), arg_at));
    } while (accept(","));
    expect(")");
    if (args.empty()) fail(std::string(name) + " needs arguments", at);
    return args;
  }

  ExprPtr parse_number() {
    size_t at = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && is_digit(text_[pos_])) {
      int64_t digit = text_[pos_] - '0';
      if (__builtin_mul_overflow(value, 10, &value) ||
          __builtin_add_overflow(value, digit, &value)) {
        fail("integer literal out of range", at);
      }
      ++pos_;
    }
    if (pos_ < text_.size() && is_name_char(text_[pos_]))
      fail("unexpected character after number", pos_);
    return integer(value);
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

ExprPtr parse(std::string_view text) { return Parser(text).parse(); }

}  // namespace xport::sym
