// Expression nodes: hashing, interning, the structural order, leaves and checked arithmetic.

#include "xport/core/expr.h"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "core/expr_internal.h"
#include "xport/core/error.h"

namespace xport::sym {

namespace {

size_t mix(size_t h, uint64_t v) {
  v *= 0x9E3779B97F4A7C15ull;
  v ^= v >> 29;
  return h ^ (v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2));
}

// FNV-1a: std::hash is not promised to be the same across runs or libraries.
uint64_t hash_name(const std::string& name) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
  return h;
}

// Children are interned, so comparing them by pointer is structural equality.
bool same_fields(const Expr* a, const Expr* b) {
  return a->kind() == b->kind() && a->value() == b->value() && a->name() == b->name() &&
         std::ranges::equal(a->args(), b->args()) &&
         std::ranges::equal(a->coefficients(), b->coefficients());
}

// One shard of the intern table: open addressing with the hash stored beside the pointer, so a
// lookup touches one slot (and the node only when the hashes match).
struct Shard {
  struct Slot {
    size_t hash = 0;
    const Expr* node = nullptr;
  };
  std::mutex mutex;
  std::vector<Slot> slots = std::vector<Slot>(256);  // a power of two, at most half full
  size_t size = 0;

  const Expr* find_or_insert(Expr&& probe) {
    size_t mask = slots.size() - 1, i = probe.hash() & mask;
    for (; slots[i].node != nullptr; i = (i + 1) & mask) {
      if (slots[i].hash == probe.hash() && same_fields(slots[i].node, &probe)) return slots[i].node;
    }
    const Expr* node = new Expr(std::move(probe));
    slots[i] = {node->hash(), node};
    if (++size * 2 > slots.size()) grow();
    return node;
  }

  void grow() {
    std::vector<Slot> old = std::exchange(slots, std::vector<Slot>(slots.size() * 2));
    size_t mask = slots.size() - 1;
    for (const Slot& slot : old) {
      if (slot.node == nullptr) continue;
      size_t i = slot.hash & mask;
      while (slots[i].node != nullptr) i = (i + 1) & mask;
      slots[i] = slot;
    }
  }
};
constexpr size_t kShards = 16;

// Never destroyed: nodes live for the life of the process, and stay reachable for leak checkers.
Shard* shards() {
  static Shard* table = new Shard[kShards];
  return table;
}

int three_way(int64_t a, int64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The factors of a monomial term: (atom, exponent) pairs.
struct Factors {
  ExprPtr single;
  std::span<const ExprPtr> atoms;
  std::span<const int64_t> exponents;
  explicit Factors(ExprPtr t) : single(t) {
    if (t->kind() == ExprKind::Mul) {
      atoms = t->args();
      exponents = t->exponents();
    } else {
      atoms = std::span<const ExprPtr>(&single, 1);
    }
  }
  size_t size() const { return atoms.size(); }
  int64_t exponent(size_t i) const { return exponents.empty() ? 1 : exponents[i]; }
};

}  // namespace

Expr::Expr(ExprKind kind, int64_t value, std::string name, std::vector<ExprPtr> args,
           std::vector<int64_t> coefficients)
    : kind_(kind),
      value_(value),
      name_(std::move(name)),
      args_(std::move(args)),
      coefficients_(std::move(coefficients)) {
  size_t h = mix(static_cast<size_t>(kind_) + 1, static_cast<uint64_t>(value_));
  h = mix(h, hash_name(name_));
  for (ExprPtr arg : args_) h = mix(h, arg->hash());
  for (int64_t c : coefficients_) h = mix(h, static_cast<uint64_t>(c));
  hash_ = h;
}

bool Expr::is_bool() const { return kind_ >= ExprKind::True; }

namespace detail {

ExprPtr intern(ExprKind kind, int64_t value, std::string name, std::vector<ExprPtr> args,
               std::vector<int64_t> coefficients) {
  Expr probe(kind, value, std::move(name), std::move(args), std::move(coefficients));
  // The shard comes from high bits; slots within it from low bits.
  Shard& shard = shards()[(probe.hash() >> 48) % kShards];
  std::lock_guard<std::mutex> lock(shard.mutex);
  return shard.find_or_insert(std::move(probe));
}

int compare_names(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      size_t i_end = i, j_end = j;
      while (i_end < a.size() && is_digit(a[i_end])) ++i_end;
      while (j_end < b.size() && is_digit(b[j_end])) ++j_end;
      size_t i_nz = i, j_nz = j;  // skip leading zeros
      while (i_nz + 1 < i_end && a[i_nz] == '0') ++i_nz;
      while (j_nz + 1 < j_end && b[j_nz] == '0') ++j_nz;
      std::string_view da = a.substr(i_nz, i_end - i_nz), db = b.substr(j_nz, j_end - j_nz);
      if (da.size() != db.size()) return da.size() < db.size() ? -1 : 1;
      if (int c = da.compare(db); c != 0) return c < 0 ? -1 : 1;
      // Same number: fewer leading zeros first, so the order stays total.
      if (i_end - i != j_end - j) return i_end - i < j_end - j ? -1 : 1;
      i = i_end;
      j = j_end;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j] ? -1 : 1;
    ++i;
    ++j;
  }
  return three_way(static_cast<int64_t>(a.size() - i), static_cast<int64_t>(b.size() - j));
}

int compare_terms(ExprPtr a, ExprPtr b) {
  if (a == b) return 0;
  Factors fa(a), fb(b);
  for (size_t i = 0;; ++i) {
    if (i == fa.size() || i == fb.size()) {
      // A monomial sorts before its proper divisors (s0*s1 before s0).
      return fa.size() == fb.size() ? 0 : (i == fa.size() ? 1 : -1);
    }
    if (int c = structural_compare(fa.atoms[i], fb.atoms[i]); c != 0) return c;
    if (fa.exponent(i) != fb.exponent(i)) return fa.exponent(i) > fb.exponent(i) ? -1 : 1;
  }
}

int structural_compare(ExprPtr a, ExprPtr b) {
  if (a == b) return 0;
  if (a->kind() != b->kind()) return a->kind() < b->kind() ? -1 : 1;
  switch (a->kind()) {
    case ExprKind::Integer:
      return three_way(a->value(), b->value());
    case ExprKind::Symbol:
      return compare_names(a->name(), b->name());
    case ExprKind::Mul:
      return compare_terms(a, b);
    case ExprKind::Add: {
      size_t n = std::min(a->args().size(), b->args().size());
      for (size_t i = 0; i < n; ++i) {
        if (int c = compare_terms(a->args()[i], b->args()[i]); c != 0) return c;
        if (int c = three_way(a->coefficients()[i], b->coefficients()[i]); c != 0) return c;
      }
      if (a->args().size() != b->args().size()) {
        return a->args().size() < b->args().size() ? -1 : 1;
      }
      return three_way(a->value(), b->value());
    }
    default: {
      size_t n = std::min(a->args().size(), b->args().size());
      for (size_t i = 0; i < n; ++i) {
        if (int c = structural_compare(a->args()[i], b->args()[i]); c != 0) return c;
      }
      return three_way(static_cast<int64_t>(a->args().size()),
                       static_cast<int64_t>(b->args().size()));
    }
  }
}

int64_t checked_add(int64_t a, int64_t b, const char* op) {
  int64_t r = 0;
  bool overflow = __builtin_add_overflow(a, b, &r) || r == INT64_MIN;
  XPORT_CHECK(!overflow, InvalidInput, op, ": integer overflow computing ", a, " + ", b,
              "; symbolic sizes must stay within 64-bit integers");
  return r;
}

int64_t checked_mul(int64_t a, int64_t b, const char* op) {
  int64_t r = 0;
  bool overflow = __builtin_mul_overflow(a, b, &r) || r == INT64_MIN;
  XPORT_CHECK(!overflow, InvalidInput, op, ": integer overflow computing ", a, " * ", b,
              "; symbolic sizes must stay within 64-bit integers");
  return r;
}

int64_t checked_pow(int64_t base, int64_t n, const char* op) {
  int64_t result = 1;
  while (n > 0) {
    if (n & 1) result = checked_mul(result, base, op);
    n >>= 1;
    if (n > 0) base = checked_mul(base, base, op);
  }
  return result;
}

int64_t gcd(int64_t a, int64_t b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

void require_int(ExprPtr e, const char* op) {
  XPORT_CHECK(e != nullptr, InvalidInput, op, ": got a null expression");
  XPORT_CHECK(!e->is_bool(), InvalidInput, op, ": expected an integer expression, got the boolean ",
              str(e));
}

void require_bool(ExprPtr e, const char* op) {
  XPORT_CHECK(e != nullptr, InvalidInput, op, ": got a null expression");
  XPORT_CHECK(e->is_bool(), InvalidInput, op, ": expected a boolean expression, got the integer ",
              str(e));
}

}  // namespace detail

ExprPtr integer(int64_t value) {
  XPORT_CHECK(value != INT64_MIN, InvalidInput,
              "sym::integer: INT64_MIN is out of range (constants lie in [-(2^63-1), 2^63-1] so "
              "that negation cannot overflow)");
  return detail::intern(ExprKind::Integer, value, {}, {}, {});
}

ExprPtr symbol(std::string_view name) {
  bool ok = !name.empty() && (name[0] == '_' || (name[0] >= 'a' && name[0] <= 'z'));
  for (char c : name) ok = ok && (c == '_' || (c >= 'a' && c <= 'z') || is_digit(c));
  XPORT_CHECK(ok, InvalidInput, "sym::symbol: invalid name '", name,
              "'; expected [a-z_][a-z0-9_]* such as s0 or u3");
  return detail::intern(ExprKind::Symbol, 0, std::string(name), {}, {});
}

int compare(ExprPtr a, ExprPtr b) {
  XPORT_CHECK(a != nullptr && b != nullptr, InvalidInput, "sym::compare: got a null expression");
  return detail::structural_compare(a, b);
}

ExprPtr true_expr() {
  static const ExprPtr node = detail::intern(ExprKind::True, 0, {}, {}, {});
  return node;
}

ExprPtr false_expr() {
  static const ExprPtr node = detail::intern(ExprKind::False, 0, {}, {}, {});
  return node;
}

ExprPtr boolean(bool value) { return value ? true_expr() : false_expr(); }

std::optional<int64_t> as_int(ExprPtr e) {
  if (e != nullptr && e->kind() == ExprKind::Integer) return e->value();
  return std::nullopt;
}

std::optional<bool> as_bool(ExprPtr e) {
  if (e != nullptr && e->kind() == ExprKind::True) return true;
  if (e != nullptr && e->kind() == ExprKind::False) return false;
  return std::nullopt;
}

}  // namespace xport::sym
