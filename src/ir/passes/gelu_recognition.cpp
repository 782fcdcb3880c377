#include "ir/passes/gelu_recognition.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <optional>
#include <utility>
#include <vector>

#include "ir/ir_util.h"

namespace xport::ir::passes {
namespace {

using detail::ref_of;

// A polynomial in x and t (t: the tanh or erf call's value): coefficient by (power of x, power
// of t). Reading a candidate's ops into one makes every order of its adds and products, and
// every way of writing its constants, compare the same.
using Poly = std::map<std::pair<int, int>, double>;

constexpr int kMaxPowerOfX = 6;
constexpr int kMaxOpsRead = 16;  // a GELU written out takes about 8

Poly constant_poly(double c) { return {{{0, 0}, c}}; }

Poly sum(const Poly& a, const Poly& b, double scale_b) {
  Poly out = a;
  for (const auto& [power, c] : b) out[power] += scale_b * c;
  return out;
}

std::optional<Poly> product(const Poly& a, const Poly& b) {
  Poly out;
  for (const auto& [pa, ca] : a) {
    for (const auto& [pb, cb] : b) {
      const std::pair<int, int> power{pa.first + pb.first, pa.second + pb.second};
      if (power.first > kMaxPowerOfX || power.second > 1) return std::nullopt;
      out[power] += ca * cb;
    }
  }
  return out;
}

std::optional<double> constant_of(const Poly& p) {
  double c = 0;
  for (const auto& [power, coefficient] : p) {
    if (coefficient == 0) continue;
    if (power != std::pair<int, int>{0, 0}) return std::nullopt;
    c = coefficient;
  }
  return c;
}

// Same monomials, each coefficient within 1e-6 of the other's (relative).
bool agrees(const Poly& got, const Poly& want) {
  for (const auto& [power, c] : got) {
    if (c != 0 && !want.count(power)) return false;
  }
  for (const auto& [power, w] : want) {
    const auto it = got.find(power);
    if (it == got.end() || std::abs(it->second - w) > 1e-6 * std::abs(w)) return false;
  }
  return true;
}

struct KnownOps {
  const OpDef& add = find_op("aten::add.Tensor");
  const OpDef& add_scalar = find_op("aten::add.Scalar");
  const OpDef& sub = find_op("aten::sub.Tensor");
  const OpDef& sub_scalar = find_op("aten::sub.Scalar");
  const OpDef& mul = find_op("aten::mul.Tensor");
  const OpDef& mul_scalar = find_op("aten::mul.Scalar");
  const OpDef& div = find_op("aten::div.Tensor");
  const OpDef& div_scalar = find_op("aten::div.Scalar");
  const OpDef& pow = find_op("aten::pow.Tensor_Scalar");
  const OpDef& neg = find_op("aten::neg");
  const OpDef& tanh = find_op("aten::tanh");
  const OpDef& erf = find_op("aten::erf");
  const OpDef& gelu = find_op("aten::gelu");
};

// Reads the float32 arithmetic behind a value as a polynomial in x (and t), through add, sub,
// mul, div by a constant, integer pow and neg of values with x's sizes; anything else behind
// it (another value, a broadcast, a dtype change) and it is not one.
class PolyReader {
 public:
  PolyReader(const ConstantGraph& g, const KnownOps& ops, ValueRef x, const Node* t)
      : g_(g), ops_(ops), x_(x), t_(t), sizes_(x.node->outputs()[x.index].sizes) {}

  std::optional<Poly> read(const Argument& arg) {
    if (const auto* d = std::get_if<double>(&arg.value)) return constant_poly(*d);
    if (const auto* e = std::get_if<sym::ExprPtr>(&arg.value)) {
      const std::optional<int64_t> v = sym::as_int(*e);
      if (!v) return std::nullopt;
      return constant_poly(static_cast<double>(*v));
    }
    const ValueRef* ref = ref_of(arg);
    if (ref == nullptr) return std::nullopt;
    if (*ref == x_) return Poly{{{1, 0}, 1.0}};
    if (ref->node == t_) return Poly{{{0, 1}, 1.0}};
    const Tensor c = g_.constant(arg);
    if (c.defined()) {
      if (c.dim() != 0 || !is_floating(c.dtype())) return std::nullopt;
      return constant_poly(c.to(DType::Float64).item<double>());
    }
    const Node& node = *ref->node;
    const TensorSpec& spec = node.outputs()[0];
    if (node.kind() != NodeKind::Call || ref->index != 0 || spec.dtype != DType::Float32 ||
        spec.sizes != sizes_ || ++ops_read_ > kMaxOpsRead) {
      return std::nullopt;
    }
    return read_call(node);
  }

 private:
  const ConstantGraph& g_;
  const KnownOps& ops_;
  ValueRef x_;
  const Node* t_;
  const std::vector<sym::ExprPtr>& sizes_;
  int ops_read_ = 0;

  std::optional<double> scalar(const Argument& arg) {
    const std::optional<Poly> p = read(arg);
    return p ? constant_of(*p) : std::nullopt;
  }

  std::optional<Poly> read_call(const Node& node) {
    const OpDef* op = node.op();
    const bool adds = op == &ops_.add || op == &ops_.add_scalar;
    const bool subtracts = op == &ops_.sub || op == &ops_.sub_scalar;
    const bool multiplies = op == &ops_.mul || op == &ops_.mul_scalar;
    const bool divides = op == &ops_.div || op == &ops_.div_scalar;
    if (!adds && !subtracts && !multiplies && !divides && op != &ops_.pow && op != &ops_.neg) {
      return std::nullopt;
    }
    const std::optional<Poly> self = read(node.arg("self"));
    if (!self) return std::nullopt;
    if (op == &ops_.neg) return sum(Poly{}, *self, -1.0);
    if (op == &ops_.pow) {
      const std::optional<double> e = scalar(node.arg("exponent"));
      if (!e || *e < 1 || *e > kMaxPowerOfX || *e != std::floor(*e)) return std::nullopt;
      std::optional<Poly> out = self;
      for (int i = 1; out && i < static_cast<int>(*e); ++i) out = product(*out, *self);
      return out;
    }
    if (adds || subtracts) {
      const std::optional<Poly> other = read(node.arg("other"));
      const std::optional<double> alpha = scalar(node.arg("alpha"));
      if (!other || !alpha) return std::nullopt;
      return sum(*self, *other, subtracts ? -*alpha : *alpha);
    }
    if (multiplies) {
      const std::optional<Poly> other = read(node.arg("other"));
      return other ? product(*self, *other) : std::nullopt;
    }
    const std::optional<double> divisor = scalar(node.arg("other"));
    if (!divisor || *divisor == 0) return std::nullopt;
    return sum(Poly{}, *self, 1.0 / *divisor);
  }
};

class Recognizer {
 public:
  explicit Recognizer(ConstantGraph& g) : g_(g) {}

  int run() {
    int found = 0;
    std::vector<Node*> candidates = g_.graph.find_nodes(ops_.tanh);
    const std::vector<Node*> erfs = g_.graph.find_nodes(ops_.erf);
    candidates.insert(candidates.end(), erfs.begin(), erfs.end());
    for (const Node* node : candidates) found += replace(*node) ? 1 : 0;
    return found;
  }

 private:
  ConstantGraph& g_;
  KnownOps ops_;

  // The argument of each GELU and the polynomials that make it, with t its tanh or erf.
  static Poly inner_of(bool tanh) {
    const double sqrt_2_over_pi = std::sqrt(2.0 / std::numbers::pi);
    if (tanh) return {{{1, 0}, sqrt_2_over_pi}, {{3, 0}, sqrt_2_over_pi * 0.044715}};
    return {{{1, 0}, 1.0 / std::sqrt(2.0)}};
  }
  static Poly outer() { return {{{1, 0}, 0.5}, {{1, 1}, 0.5}}; }

  bool replace(const Node& t) {
    const bool tanh = t.op() == &ops_.tanh;
    const ValueRef* arg = ref_of(t.arg("self"));
    if (arg == nullptr || t.outputs()[0].dtype != DType::Float32) return false;
    const std::optional<ValueRef> x = input_of(t, *arg, inner_of(tanh));
    if (!x) return false;
    const TensorSpec& x_spec = x->node->outputs()[x->index];
    // Up the chain of t's users to the value that is the whole GELU.
    const Node* node = &t;
    for (int step = 0; step < 4; ++step) {
      node = detail::sole_user(g_.graph, *node);
      if (node == nullptr) return false;
      PolyReader reader(g_, ops_, *x, &t);
      const std::optional<Poly> p = reader.read(node->out(0));
      if (!p || !agrees(*p, outer())) continue;
      // aten::gelu lays its result out as x is: the one recorded must agree. It reads x where
      // the formula ends, so nothing in between may update memory (PyTorch's training IR
      // keeps in-place ops).
      if (node->outputs()[0].strides != x_spec.strides ||
          detail::updates_between(g_.graph, *x->node, *node)) {
        return false;
      }
      Node* gelu =
          g_.graph.insert_call(node->position(), ops_.gelu, {Argument(*x), tanh ? "tanh" : "none"},
                               {node->outputs()[0]}, node->meta());
      g_.graph.replace_all_uses(node->out(0), gelu->out(0));
      return true;
    }
    return false;
  }

  // The value x for which `arg` is inner(x): tried from `arg` itself back through the
  // arithmetic behind it, nearest first (so x is the last value outside the formula).
  std::optional<ValueRef> input_of(const Node& t, ValueRef arg, const Poly& inner) {
    std::vector<ValueRef> tried{arg};
    for (size_t i = 0; i < tried.size() && tried.size() < kMaxOpsRead; ++i) {
      const TensorSpec& spec = tried[i].node->outputs()[tried[i].index];
      if (spec.dtype != DType::Float32 || spec.sizes != t.outputs()[0].sizes) continue;
      PolyReader reader(g_, ops_, tried[i], nullptr);
      const std::optional<Poly> p = reader.read(Argument(arg));
      if (p && agrees(*p, inner)) return tried[i];
      if (tried[i].node->kind() != NodeKind::Call) continue;
      for (const Argument& a : tried[i].node->args()) {
        const ValueRef* ref = ref_of(a);
        if (ref != nullptr && std::find(tried.begin(), tried.end(), *ref) == tried.end()) {
          tried.push_back(*ref);
        }
      }
    }
    return std::nullopt;
  }
};

}  // namespace

int recognize_gelu(ConstantGraph& g) { return Recognizer(g).run(); }

}  // namespace xport::ir::passes
