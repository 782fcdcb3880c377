#include "capture/shape_env.h"

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "capture/call_site.h"
#include "capture/expr_node.h"
#include "xport/core/error.h"

namespace xport::capture {
namespace {

// Where a guard was taken: the user's line from the debug info; else the line the
// source_location names, unless that is inside xport (the default argument of
// SymBool::operator bool); else the user's function, with what would give the line.
std::string guard_source(const std::source_location& where) {
  const CallSite site = capture_call_site();
  std::string source = user_source(site);
  if (!source.empty()) return source;
  if (!is_xport_file(where.file_name())) {
    std::string file = where.file_name();
    const size_t slash = file.find_last_of('/');
    if (slash != std::string::npos) file = file.substr(slash + 1);
    return file + ":" + std::to_string(where.line());
  }
  const std::string function = user_function(site);
  return (function.empty() ? std::string("no line information") : "in " + function) +
         "; build your code with -g1 to see the line";
}

}  // namespace

bool log_enabled(const char* topic) {
  // Read each time (symbols and guards are few), so a program can switch logs on and off.
  const char* env = std::getenv("XPORT_LOGS");
  if (env == nullptr) return false;
  return ("," + std::string(env) + ",").find("," + std::string(topic) + ",") != std::string::npos;
}

std::shared_ptr<ShapeEnv> ShapeEnv::create() { return std::shared_ptr<ShapeEnv>(new ShapeEnv()); }

sym::ExprPtr ShapeEnv::create_symbol(int64_t hint, sym::Range declared, std::string source,
                                     std::string dim_name, const std::string& name) {
  const sym::ExprPtr s = sym::symbol(
      name.empty() ? "s" + std::to_string(symbols_.size() - unbacked_count_) : name);
  XPORT_CHECK(!index_.count(s), Internal, "shape environment: symbol ", s->name(), " exists");
  index_[s] = symbols_.size();
  symbols_.push_back(
      {s, hint, declared, declared, std::move(source), std::move(dim_name), false});
  if (log_enabled("dynamic")) {
    const SymbolInfo& i = symbols_.back();
    std::cerr << "[xport dynamic] " << s->name() << " = " << i.source
              << (i.dim_name.empty() ? "" : " (" + i.dim_name + ")") << " in " << declared.str()
              << ", example " << hint << "\n";
  }
  return s;
}

sym::ExprPtr ShapeEnv::create_unbacked(sym::Range range, std::string source,
                                       const std::string& name) {
  const sym::ExprPtr u = sym::symbol(name.empty() ? "u" + std::to_string(unbacked_count_) : name);
  ++unbacked_count_;
  XPORT_CHECK(!index_.count(u), Internal, "shape environment: symbol ", u->name(), " exists");
  index_[u] = symbols_.size();
  SymbolInfo info{u, 0, range, range, std::move(source), "", true};
  symbols_.push_back(std::move(info));
  if (log_enabled("dynamic")) {
    std::cerr << "[xport dynamic] " << u->name() << " = " << symbols_.back().source << " in "
              << range.str() << " (unbacked)\n";
  }
  return u;
}

void ShapeEnv::add_fact(sym::ExprPtr fact) {
  fact = simplify(fact);
  if (sym::as_bool(fact)) return;
  known_[fact] = true;
  narrow(fact);
}

bool ShapeEnv::uses_unbacked(sym::ExprPtr e) const {
  for (sym::ExprPtr s : sym::free_symbols(e)) {
    auto it = index_.find(s);
    if (it != index_.end() && symbols_[it->second].unbacked) return true;
  }
  return false;
}

void ShapeEnv::refuse_unbacked(sym::ExprPtr e, const std::string& what) const {
  for (sym::ExprPtr s : sym::free_symbols(e)) {
    auto it = index_.find(s);
    if (it == index_.end() || !symbols_[it->second].unbacked) continue;
    const SymbolInfo& u = symbols_[it->second];
    const std::string line = user_source(capture_call_site());
    // Which way the decision should go is the user's to say: both forms are offered.
    const std::string suggestion =
        e->is_bool() ? "check(" + sym::str(sym::logical_not(e)) + ") or check(" + sym::str(e) +
                           "), whichever always holds,"
                     : "constrain_as_value(" + u.symbol->name() + ", min, max)";
    xport::detail::throw_error_with_case(
        ErrorKind::DataDependent,
        xport::detail::concat(what, " ", sym::str(e), line.empty() ? "" : " (" + line + ")",
                       ": it depends on ", u.symbol->name(), ", the value of ", u.source,
                       ", which only the data decides (its range so far is ", u.range.str(),
                       "). Say what holds before this line: ", suggestion,
                       " or constrain_as_size(", u.symbol->name(),
                       ") / constrain_as_value(", u.symbol->name(),
                       ", min, max) to bound it; the program checks these when it runs"),
        "constrain_as_size_example");
  }
}

const SymbolInfo& ShapeEnv::info(sym::ExprPtr symbol) const {
  auto it = index_.find(symbol);
  XPORT_CHECK(it != index_.end(), Internal, "shape environment: unknown symbol ", sym::str(symbol));
  return symbols_[it->second];
}

SymbolInfo& ShapeEnv::mutable_info(sym::ExprPtr symbol) { return symbols_[index_.at(symbol)]; }

SymInt ShapeEnv::make_int(sym::ExprPtr e) {
  if (auto v = sym::as_int(e)) return SymInt(*v);
  return SymInt(std::make_shared<ExprNode>(shared_from_this(), e));
}

SymBool ShapeEnv::make_bool(sym::ExprPtr e) {
  if (auto v = sym::as_bool(e)) return SymBool(*v);
  return SymBool(std::make_shared<ExprNode>(shared_from_this(), e));
}

sym::ExprPtr ShapeEnv::simplify(sym::ExprPtr e) const {
  if (replacements_.empty()) return e;
  return sym::substitute(e, replacements_);
}

int64_t ShapeEnv::hint(sym::ExprPtr e) const {
  const auto v = sym::evaluate(e, [this](sym::ExprPtr s) -> std::optional<int64_t> {
    auto it = index_.find(s);
    if (it == index_.end()) return std::nullopt;
    return symbols_[it->second].hint;
  });
  XPORT_CHECK(v.has_value(), Internal, "shape environment: cannot evaluate ", sym::str(e),
              " on the example values");
  return *v;
}

sym::Range ShapeEnv::range(sym::ExprPtr symbol) const {
  auto it = index_.find(symbol);
  return it == index_.end() ? sym::Range{} : symbols_[it->second].range;
}

std::optional<bool> ShapeEnv::decide_size_oblivious(sym::ExprPtr e) const {
  e = simplify(e);
  if (auto v = sym::as_bool(e)) return v;
  return sym::decide(e, [this](sym::ExprPtr s) {
    sym::Range r = range(s);
    if (r.lo >= 0 && r.hi >= 2) r.lo = std::max<int64_t>(r.lo, 2);
    return r;
  });
}

std::optional<bool> ShapeEnv::decide_without_guard(sym::ExprPtr e) const {
  e = simplify(e);
  if (auto v = sym::as_bool(e)) return v;
  if (auto v = sym::decide(e, [this](sym::ExprPtr s) { return range(s); })) return v;
  if (auto it = known_.find(e); it != known_.end()) return it->second;  // guarded already
  if (auto it = known_.find(sym::logical_not(e)); it != known_.end()) return !it->second;
  return std::nullopt;
}

bool ShapeEnv::evaluate_bool(sym::ExprPtr e, const std::source_location& where) {
  e = simplify(e);
  if (auto v = decide_without_guard(e)) return *v;
  refuse_unbacked(e, "could not decide");
  const bool value = hint(e) != 0;
  known_[e] = value;
  record(value ? e : sym::logical_not(e), where, false, nullptr, 0);
  return value;
}

int64_t ShapeEnv::evaluate_int(sym::ExprPtr e, const std::source_location& where) {
  e = simplify(e);
  if (auto v = sym::as_int(e)) return *v;
  refuse_unbacked(e, "cannot turn into a C++ integer");
  const int64_t value = hint(e);
  record(sym::eq(e, sym::integer(value)), where, true, e, value);
  return value;
}

void ShapeEnv::record(sym::ExprPtr guard, const std::source_location& where, bool specialization,
                      sym::ExprPtr specialized, int64_t value) {
  const std::string source = guard_source(where);
  // `s != k` at an end of s's range is a bound (s != 1 with s in [1, 8] is s >= 2): kept in that
  // form, it narrows the range and a corrected spec can state it.
  if (guard->kind() == sym::ExprKind::Ne) {
    const auto f = sym::as_affine(guard->args()[0]);
    if (f && (f->a == 1 || f->a == -1) && index_.count(f->symbol)) {
      const int64_t k = -f->b * f->a;  // a*s + b != 0 with a = +-1: s != -b/a
      const sym::Range& r = info(f->symbol).range;
      if (k == r.lo) guard = sym::ge(f->symbol, sym::integer(k + 1));
      if (k == r.hi) guard = sym::le(f->symbol, sym::integer(k - 1));
    }
  }
  guards_.push_back({guard, source, specialization, specialized, value});
  if (log_enabled("guards")) {
    std::cerr << "[xport guards] " << describe(guard) << "  (" << source << ")\n";
  }
  narrow(guard);
}

// Learns from a fact that now holds: bounds on one symbol narrow its range, and an equality
// that isolates a symbol becomes a replacement.
void ShapeEnv::narrow(sym::ExprPtr fact) {
  if (fact->kind() == sym::ExprKind::And) {
    for (sym::ExprPtr part : fact->args()) narrow(part);
    return;
  }
  if (fact->kind() == sym::ExprKind::Eq) {
    if (auto solved = sym::solve_for_symbol(fact)) add_replacement(solved->first, solved->second);
    return;
  }
  if (fact->kind() != sym::ExprKind::Le) return;
  // a*s + c <= 0 for one symbol s.
  const auto f = sym::as_affine(fact->args()[0]);
  if (!f || !index_.count(f->symbol)) return;
  sym::Range& r = mutable_info(f->symbol).range;
  if (f->a > 0) {
    r.hi = std::min(r.hi, floor_div(-f->b, f->a));  // s <= -c / a, rounded down
  } else {
    r.lo = std::max(r.lo, -floor_div(-f->b, -f->a));  // s >= c / -a, rounded up
  }
}

void ShapeEnv::add_replacement(sym::ExprPtr symbol, sym::ExprPtr value) {
  value = simplify(value);
  if (value == symbol) return;
  for (auto& [s, v] : replacements_) v = sym::substitute(v, {{symbol, value}});
  replacements_[symbol] = value;
  if (auto point = sym::as_int(value); point && index_.count(symbol)) {
    mutable_info(symbol).range = {*point, *point};
  }
}

std::string ShapeEnv::describe_in_dims(sym::ExprPtr e) const {
  bool named = false;
  std::string text = sym::str(e, [&](sym::ExprPtr s) {
    auto it = index_.find(s);
    if (it == index_.end() || symbols_[it->second].dim_name.empty()) return s->name();
    named = true;
    return symbols_[it->second].dim_name;
  });
  return named ? text : std::string();
}

std::string ShapeEnv::describe(sym::ExprPtr e) const {
  return sym::str(e, [this](sym::ExprPtr s) {
    auto it = index_.find(s);
    return it == index_.end() ? s->name() : symbols_[it->second].source;
  });
}

}  // namespace xport::capture
