#include "program_generator.h"

#include "xport/aten.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

namespace xport::soundness {
namespace {

using Rng = std::mt19937_64;

int64_t uniform(Rng& rng, int64_t lo, int64_t hi) {  // in [lo, hi]
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}
bool chance(Rng& rng, double p) { return std::bernoulli_distribution(p)(rng); }

// Builds one program step by step, keeping each value's shape.
class Builder {
 public:
  Builder(ProgramSpec& spec, Rng& rng) : spec_(spec), rng_(rng) {
    for (const Shape& s : spec.inputs) {
      shapes_.push_back(s);
      bounds_.push_back(max_numel(s, 0));
    }
  }

  void add_step() {
    for (int attempt = 0; attempt < 20; ++attempt) {
      Step step;
      step.kind = pick_kind();
      // Recent values more often: chains, not just a fan of the inputs.
      const int n = static_cast<int>(shapes_.size());
      step.a = chance(rng_, 0.6) ? n - 1 : static_cast<int>(uniform(rng_, 0, n - 1));
      if (auto shape = plan(step)) {
        // Values stay small at every size the spec allows: broadcasting a flattened value
        // against itself would otherwise reach billions of elements at the ranges' ends.
        const double bound = max_numel(*shape, operand_bound(step));
        if (bound > kMaxElements) continue;
        spec_.steps.push_back(step);
        shapes_.push_back(*shape);
        bounds_.push_back(bound);
        return;
      }
    }
  }

  const std::vector<Shape>& shapes() const { return shapes_; }

 private:
  ProgramSpec& spec_;
  Rng& rng_;
  std::vector<Shape> shapes_;
  std::vector<double> bounds_;  // the most elements each value can have
  int64_t next_opaque_ = 1;
  static constexpr double kMaxElements = 1e6;

  // The most elements a shape can have; an opaque dim (a slice, a flattening, a data-dependent
  // count) has at most `opaque` (the operands' bound).
  double max_numel(const Shape& shape, double opaque) const {
    double n = 1;
    for (const DimTerm& t : shape) {
      if (t.root >= 0) {
        n *= static_cast<double>(t.coefficient * spec_.dims[static_cast<size_t>(t.root)].max);
      } else {
        n *= t.opaque ? opaque : static_cast<double>(t.size);
      }
    }
    return n;
  }

  double operand_bound(const Step& s) const {
    double b = bounds_[static_cast<size_t>(s.a)];
    if (s.kind == StepKind::Binary) b = std::max(b, bounds_[static_cast<size_t>(s.b)]);
    return std::max(b, 1.0);
  }

  StepKind pick_kind() {
    // Pointwise and shape ops most often; control flow and data-dependent steps now and then.
    static const std::vector<std::pair<StepKind, int>> kAllWeights = {
        {StepKind::Unary, 6},     {StepKind::Binary, 10},    {StepKind::Scalar, 4},
        {StepKind::Reduce, 5},    {StepKind::Transpose, 3},  {StepKind::Unsqueeze, 3},
        {StepKind::Flatten, 2},   {StepKind::Slice, 3},      {StepKind::MatmulSelf, 2},
        {StepKind::CatSelf, 2},   {StepKind::ShapeIf, 2},    {StepKind::CondData, 2},
        {StepKind::CondShape, 2}, {StepKind::Map, 1},        {StepKind::WhileLoop, 1},
        {StepKind::ItemNarrow, 1}, {StepKind::Nonzero, 1},   {StepKind::InplaceInput, 1},
        {StepKind::BufferUpdate, 1}, {StepKind::IntBool, 2}};
    // Version 1 had no IntBool steps (the last entry).
    const std::vector<std::pair<StepKind, int>> kWeights(
        kAllWeights.begin(), spec_.version >= 2 ? kAllWeights.end() : kAllWeights.end() - 1);
    int total = 0;
    for (const auto& [k, w] : kWeights) total += w;
    int64_t r = uniform(rng_, 0, total - 1);
    for (const auto& [k, w] : kWeights) {
      if (r < w) return k;
      r -= w;
    }
    return StepKind::Unary;
  }

  DimTerm opaque() { return DimTerm{-1, 1, 0, next_opaque_++}; }

  bool has_opaque(const Shape& s) const {
    return std::any_of(s.begin(), s.end(), [](const DimTerm& t) { return t.opaque != 0; });
  }

  // The smallest size a dim can take.
  int64_t min_size(const DimTerm& t) const {
    if (t.root >= 0) return t.coefficient * spec_.dims[static_cast<size_t>(t.root)].min;
    return t.opaque ? 0 : t.size;
  }

  static bool is_one(const DimTerm& t) { return t.is_static() && t.size == 1; }

  // Whether b broadcasts against a at every size the spec allows, and the result.
  static std::optional<Shape> broadcast(const Shape& a, const Shape& b) {
    const size_t n = std::max(a.size(), b.size());
    Shape out(n);
    for (size_t i = 0; i < n; ++i) {
      const DimTerm* ta = i < a.size() ? &a[a.size() - 1 - i] : nullptr;
      const DimTerm* tb = i < b.size() ? &b[b.size() - 1 - i] : nullptr;
      if (!ta || !tb) {
        out[n - 1 - i] = ta ? *ta : *tb;
      } else if (*ta == *tb || is_one(*tb)) {
        out[n - 1 - i] = *ta;
      } else if (is_one(*ta)) {
        out[n - 1 - i] = *tb;
      } else {
        return std::nullopt;
      }
    }
    return out;
  }

  std::optional<Shape> plan(Step& s) {
    const Shape a = shapes_[static_cast<size_t>(s.a)];
    const auto rank = static_cast<int64_t>(a.size());
    switch (s.kind) {
      case StepKind::Unary:
        s.variant = static_cast<int>(uniform(rng_, 0, 5));
        return a;
      case StepKind::Scalar:
        s.variant = static_cast<int>(uniform(rng_, 0, 2));
        return a;
      case StepKind::Binary: {
        s.variant = static_cast<int>(uniform(rng_, 0, 3));
        std::vector<int> partners;
        for (size_t v = 0; v < shapes_.size(); ++v) {
          if (broadcast(a, shapes_[v])) partners.push_back(static_cast<int>(v));
        }
        const int64_t last = static_cast<int64_t>(partners.size()) - 1;
        s.b = partners[static_cast<size_t>(uniform(rng_, 0, last))];
        return broadcast(a, shapes_[static_cast<size_t>(s.b)]);
      }
      case StepKind::Reduce: {
        if (rank == 0) return std::nullopt;
        s.variant = static_cast<int>(uniform(rng_, 0, 2));
        if (s.variant == 2 && has_opaque(a)) return std::nullopt;  // amax of a maybe-empty dim
        s.p = uniform(rng_, 0, rank - 1);
        s.q = chance(rng_, 0.5);
        Shape out = a;
        if (s.q) {
          out[static_cast<size_t>(s.p)] = DimTerm{-1, 1, 1, 0};
        } else {
          out.erase(out.begin() + s.p);
        }
        return out;
      }
      case StepKind::Transpose: {
        if (rank < 2) return std::nullopt;
        s.p = uniform(rng_, 0, rank - 1);
        do {
          s.q = uniform(rng_, 0, rank - 1);
        } while (s.q == s.p);
        Shape out = a;
        std::swap(out[static_cast<size_t>(s.p)], out[static_cast<size_t>(s.q)]);
        return out;
      }
      case StepKind::Unsqueeze: {
        if (rank >= 4) return std::nullopt;
        s.p = uniform(rng_, 0, rank);
        Shape out = a;
        out.insert(out.begin() + s.p, DimTerm{-1, 1, 1, 0});
        return out;
      }
      case StepKind::Flatten: {
        if (rank < 2) return std::nullopt;
        int64_t product = 1;
        int symbolic = 0;
        DimTerm root;
        for (const DimTerm& t : a) {
          if (t.opaque) return Shape{opaque()};
          if (t.root >= 0) {
            ++symbolic;
            root = t;
          } else {
            product *= t.size;
          }
        }
        if (symbolic == 0) return Shape{DimTerm{-1, 1, product, 0}};
        if (symbolic == 1) return Shape{DimTerm{root.root, root.coefficient * product, 1, 0}};
        return Shape{opaque()};
      }
      case StepKind::Slice: {
        if (rank == 0) return std::nullopt;
        s.p = uniform(rng_, 0, rank - 1);
        s.q = uniform(rng_, 1, 3);
        Shape out = a;
        DimTerm& t = out[static_cast<size_t>(s.p)];
        if (t.is_static()) {
          t.size = std::min(t.size, s.q);
        } else if (min_size(t) >= s.q) {
          t = DimTerm{-1, 1, s.q, 0};
        } else {
          t = opaque();
        }
        return out;
      }
      case StepKind::MatmulSelf: {
        if (rank < 2) return std::nullopt;
        Shape out = a;
        out.back() = a[a.size() - 2];
        return out;
      }
      case StepKind::CatSelf: {
        if (rank == 0) return std::nullopt;
        s.p = uniform(rng_, 0, rank - 1);
        Shape out = a;
        DimTerm& t = out[static_cast<size_t>(s.p)];
        if (t.root >= 0) {
          t.coefficient *= 2;
        } else if (t.opaque) {
          t = opaque();
        } else {
          t.size *= 2;
        }
        return out;
      }
      case StepKind::ShapeIf:
      case StepKind::CondShape: {
        std::vector<int64_t> symbolic;
        for (int64_t d = 0; d < rank; ++d) {
          if (a[static_cast<size_t>(d)].root >= 0) symbolic.push_back(d);
        }
        if (symbolic.empty()) return std::nullopt;
        const int64_t last = static_cast<int64_t>(symbolic.size()) - 1;
        s.p = symbolic[static_cast<size_t>(uniform(rng_, 0, last))];
        const DimTerm& t = a[static_cast<size_t>(s.p)];
        const DimRange& r = spec_.dims[static_cast<size_t>(t.root)];
        // A threshold inside the range splits it (an if then narrows the contract: export refuses,
        // naming the Dim); below it, the condition holds at every size.
        s.q = chance(rng_, 0.5) ? t.coefficient * uniform(rng_, r.min, r.max)
                                : t.coefficient * r.min - 1;
        s.splits_range = s.kind == StepKind::ShapeIf && s.q >= t.coefficient * r.min &&
                         s.q < t.coefficient * r.max;
        s.variant = static_cast<int>(uniform(rng_, 0, 1));
        return a;
      }
      case StepKind::CondData:
      case StepKind::WhileLoop:
        s.variant = static_cast<int>(uniform(rng_, 0, 1));
        return a;
      case StepKind::IntBool:
        return a;
      case StepKind::Map:
        if (rank < 1 || a[0].opaque) return std::nullopt;
        return a;
      case StepKind::ItemNarrow:
        return Shape{opaque()};
      case StepKind::Nonzero:
        return Shape{opaque(), DimTerm{-1, 1, std::max<int64_t>(rank, 1), 0}};
      case StepKind::BufferUpdate:
        return Shape{DimTerm{-1, 1, 3, 0}};
      case StepKind::InplaceInput:
        if (spec_.inputs.empty()) return std::nullopt;
        s.a = static_cast<int>(uniform(rng_, 0, static_cast<int64_t>(spec_.inputs.size()) - 1));
        return shapes_[static_cast<size_t>(s.a)];
    }
    return std::nullopt;
  }
};

std::string shape_text(const ProgramSpec& spec, const Shape& s) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out << ", ";
    const DimTerm& t = s[i];
    if (t.root >= 0) {
      if (t.coefficient != 1) out << t.coefficient << "*";
      out << spec.dims[static_cast<size_t>(t.root)].name;
    } else if (t.opaque) {
      out << "?";
    } else {
      out << t.size;
    }
  }
  return out.str() + "]";
}

Tensor unary(int variant, const Tensor& x) {
  switch (variant) {
    case 0:
      return x.relu();
    case 1:
      return x.tanh();
    case 2:
      return x.sigmoid();
    case 3:
      return x.neg();
    case 4:
      return x.abs();
    default:
      return sin(x);
  }
}

Tensor binary(int variant, const Tensor& a, const Tensor& b) {
  switch (variant) {
    case 0:
      return a + b;
    case 1:
      return a - b;
    case 2:
      return a * b;
    default:
      return maximum(a, b);
  }
}

}  // namespace

ProgramSpec generate(uint64_t seed, int version) {
  XPORT_CHECK(version >= 1 && version <= kGeneratorVersion, InvalidSpec,
              "the soundness fuzzer's generator has versions 1 to ", kGeneratorVersion,
              ", not ", version);
  Rng rng(seed);
  ProgramSpec spec;
  spec.seed = seed;
  spec.version = version;
  const int64_t dims = uniform(rng, 1, 2);
  for (int64_t d = 0; d < dims; ++d) {
    DimRange r;
    r.name = d == 0 ? "n" : "m";
    // Ranges start at 0 now and then: empty tensors, and the decisions that differ at 0.
    r.min = version >= 2 && chance(rng, 0.2) ? 0 : uniform(rng, 1, 2);
    r.max = r.min + uniform(rng, 2, 30);
    spec.dims.push_back(r);
  }
  const int64_t inputs = uniform(rng, 1, version >= 3 ? 4 : 3);
  bool any_dynamic = false;
  for (int64_t i = 0; i < inputs; ++i) {
    Shape s;
    const int64_t rank = uniform(rng, 1, 3);
    for (int64_t d = 0; d < rank; ++d) {
      if (chance(rng, 0.5)) {
        s.push_back(DimTerm{static_cast<int>(uniform(rng, 0, dims - 1)),
                            chance(rng, 0.15) ? 2 : 1, 1, 0});
        any_dynamic = true;
      } else {
        s.push_back(DimTerm{-1, 1, uniform(rng, 1, 5), 0});
      }
    }
    spec.inputs.push_back(s);
  }
  if (!any_dynamic) spec.inputs[0][0] = DimTerm{0, 1, 1, 0};
  Builder builder(spec, rng);
  const int64_t steps = uniform(rng, 1, 8);
  for (int64_t k = 0; k < steps; ++k) builder.add_step();
  const int values = static_cast<int>(builder.shapes().size());
  spec.outputs.push_back(values - 1);
  if (values > 1 && chance(rng, 0.4)) {
    const int other = static_cast<int>(uniform(rng, 0, values - 2));
    spec.outputs.push_back(other);
  }
  return spec;
}

std::vector<Tensor> run_program(const ProgramSpec& spec, const std::vector<Tensor>& inputs,
                                FuzzModule& module) {
  nn::ModuleScope scope(module);
  std::vector<Tensor> v(inputs.begin(), inputs.end());
  for (const Step& s : spec.steps) {
    const Tensor& a = v[static_cast<size_t>(s.a)];
    if (s.disabled) {
      v.push_back(a);
      continue;
    }
    switch (s.kind) {
      case StepKind::Unary:
        if (s.variant == 5 && module.watch_rounding && a.int_numel() > 0) {
          module.sin_argument_scale =
              std::max(module.sin_argument_scale, a.abs().amax({}).item<double>());
        }
        v.push_back(unary(s.variant, a));
        break;
      case StepKind::Binary:
        v.push_back(binary(s.variant, a, v[static_cast<size_t>(s.b)]));
        break;
      case StepKind::Scalar:
        v.push_back(s.variant == 0 ? a * 0.5 : s.variant == 1 ? a + 1.0 : a - 2.0);
        break;
      case StepKind::Reduce:
        if (s.variant == 0) {
          v.push_back(a.sum(s.p, s.q != 0));
        } else if (s.variant == 1) {
          v.push_back(a.mean(s.p, s.q != 0));
        } else {
          v.push_back(a.amax(s.p, s.q != 0));
        }
        break;
      case StepKind::Transpose:
        v.push_back(a.transpose(s.p, s.q));
        break;
      case StepKind::Unsqueeze:
        v.push_back(a.unsqueeze(s.p));
        break;
      case StepKind::Flatten:
        v.push_back(a.reshape({-1}));
        break;
      case StepKind::Slice:
        v.push_back(a.slice(s.p, 0, s.q));
        break;
      case StepKind::MatmulSelf:
        v.push_back(a.matmul(a.transpose(-1, -2)));
        break;
      case StepKind::CatSelf:
        v.push_back(cat({a, a * 2.0}, s.p));
        break;
      case StepKind::ShapeIf:
        // A C++ if on a size: a guard under capture.
        if (static_cast<bool>(a.size(s.p) > s.q)) {
          v.push_back(a * 2.0);
        } else {
          v.push_back(a - 1.0);
        }
        break;
      case StepKind::CondData:
      case StepKind::CondShape: {
        auto twice = [](const std::vector<Tensor>& o) { return std::vector{o[0].relu() * 2.0}; };
        auto less = [](const std::vector<Tensor>& o) { return std::vector{o[0] - 1.0}; };
        // Whether `value` is within float rounding of `threshold`, `scale` the sum (or mean) of
        // the magnitudes it was computed from (eager runs only: under capture there is no value).
        auto watch = [&module](const Tensor& value, const Tensor& scale, double threshold) {
          if (!module.watch_rounding) return;
          const double margin = std::abs(value.item<double>() - threshold);
          module.near_threshold |= margin < 1e-5 * scale.item<double>();
        };
        // Variant 1: a cond inside the true branch.
        auto nested = [&](const std::vector<Tensor>& o) {
          watch(o[0].mean(), o[0].abs().mean(), 0.5);
          return cond(o[0].mean().gt(0.5), twice, less, {o[0]});
        };
        if (s.kind == StepKind::CondData) watch(a.sum(), a.abs().sum(), 0.0);
        if (s.kind == StepKind::CondData && s.variant == 1 && spec.version >= 2) {
          v.push_back(cond(a.sum().gt(0.0), nested, less, {a}).at(0));
        } else if (s.kind == StepKind::CondData) {
          v.push_back(cond(a.sum().gt(0.0), twice, less, {a}).at(0));
        } else {
          v.push_back(cond(a.size(s.p) > s.q, twice, less, {a}).at(0));
        }
        break;
      }
      case StepKind::Map:
        v.push_back(map([](const Tensor& row, const std::vector<Tensor>&) {
                          return std::vector{row.tanh() + 1.0};
                        },
                        a)
                        .at(0));
        break;
      case StepKind::WhileLoop: {
        const std::vector<Tensor> out = while_loop(
            [](const std::vector<Tensor>& c) { return c[0].lt(3); },
            [](const std::vector<Tensor>& c) {
              return std::vector{c[0] + 1, c[1].tanh() * 1.5};
            },
            {zeros({}, DType::Int64), a});
        v.push_back(out.at(1));
        break;
      }
      case StepKind::ItemNarrow: {
        const Tensor flat = a.reshape({-1});
        const SymInt u = a.gt(0.0).sum().item_int();
        constrain_as_size(u);
        check(u <= flat.size(0));
        v.push_back(flat.narrow(0, 0, u));
        break;
      }
      case StepKind::Nonzero:
        v.push_back(aten::nonzero(a.dim() == 0 ? a.reshape({1}).gt(0.0) : a.gt(0.0))
                        .to(DType::Float32));
        break;
      case StepKind::InplaceInput:
        v[static_cast<size_t>(s.a)].mul_(1.5);
        v.push_back(v[static_cast<size_t>(s.a)]);
        break;
      case StepKind::BufferUpdate:
        module.state.add_(a.mean());
        v.push_back(module.state);
        break;
      case StepKind::IntBool: {
        // From v4 NaN reads as 0 and the rest is clamped: converting NaN or a float past int64's
        // range to an integer is undefined, and engines rightly differ there.
        const Tensor x = spec.version >= 4 ? clamp(where(isnan(a), zeros({}), a), -1e9, 1e9) : a;
        const Tensor i = (x * 4.0).to(DType::Int64);
        const Tensor three = full({}, 3, DType::Int64);
        const Tensor m = remainder(i, three) + div(i, three, "floor");
        v.push_back(where(a.gt(-0.5), m, -m).to(DType::Float32));
        break;
      }
    }
  }
  std::vector<Tensor> out;
  for (int i : spec.outputs) out.push_back(v[static_cast<size_t>(i)]);
  return out;
}

ExportOptions export_options(const ProgramSpec& spec) {
  std::vector<Dim> dims;
  for (const DimRange& r : spec.dims) dims.emplace_back(r.name, r.min, r.max);
  ExportOptions options;
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    DimSpec ds;
    for (size_t d = 0; d < spec.inputs[i].size(); ++d) {
      const DimTerm& t = spec.inputs[i][d];
      if (t.root < 0) continue;
      const Dim& root = dims[static_cast<size_t>(t.root)];
      ds.emplace(static_cast<int64_t>(d), t.coefficient == 1 ? root : t.coefficient * root);
    }
    options.dynamic_shapes.push_back(ds);
    options.input_names.push_back("x" + std::to_string(i));
  }
  return options;
}

std::vector<std::vector<int64_t>> input_sizes(const ProgramSpec& spec,
                                              const std::vector<int64_t>& values) {
  std::vector<std::vector<int64_t>> out;
  for (const Shape& s : spec.inputs) {
    std::vector<int64_t> sizes;
    for (const DimTerm& t : s) {
      sizes.push_back(t.root >= 0 ? t.coefficient * values[static_cast<size_t>(t.root)] : t.size);
    }
    out.push_back(sizes);
  }
  return out;
}

const char* kind_name(StepKind kind) {
  static const char* const kNames[] = {
      "pointwise", "broadcast", "scalar", "reduction", "transpose", "unsqueeze",
      "reshape", "slice", "matmul", "cat", "shape if", "cond (data)", "cond (shape)",
      "map", "while_loop", "item_int + check", "nonzero", "in-place input", "buffer update",
      "int64 and bool"};
  return kNames[static_cast<int>(kind)];
}

std::vector<StepKind> kinds_used(const ProgramSpec& spec) {
  std::vector<StepKind> out;
  for (const Step& s : spec.steps) {
    if (!s.disabled && std::find(out.begin(), out.end(), s.kind) == out.end()) {
      out.push_back(s.kind);
    }
  }
  return out;
}

std::string ProgramSpec::str() const {
  std::ostringstream out;
  out << "program " << seed << " (generator v" << version << "):";
  for (const DimRange& r : dims) {
    out << " Dim(\"" << r.name << "\", " << r.min << ", " << r.max << ")";
  }
  out << "\n";
  std::vector<Shape> shapes = inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    out << "  v" << i << " = x" << i << " " << shape_text(*this, inputs[i]) << "\n";
  }
  static const char* const kUnary[] = {"relu", "tanh", "sigmoid", "neg", "abs", "sin"};
  static const char* const kBinary[] = {"+", "-", "*", "maximum"};
  static const char* const kReduce[] = {"sum", "mean", "amax"};
  size_t value = inputs.size();
  for (const Step& s : steps) {
    out << "  v" << value++ << " = ";
    const std::string a = "v" + std::to_string(s.a);
    if (s.disabled) {
      out << a << "  // step removed\n";
      continue;
    }
    switch (s.kind) {
      case StepKind::Unary:
        out << kUnary[s.variant] << "(" << a << ")";
        break;
      case StepKind::Binary:
        out << kBinary[s.variant] << "(" << a << ", v" << s.b << ")";
        break;
      case StepKind::Scalar:
        out << a << (s.variant == 0 ? " * 0.5" : s.variant == 1 ? " + 1" : " - 2");
        break;
      case StepKind::Reduce:
        out << a << "." << kReduce[s.variant] << "(" << s.p << (s.q ? ", keepdim" : "") << ")";
        break;
      case StepKind::Transpose:
        out << a << ".transpose(" << s.p << ", " << s.q << ")";
        break;
      case StepKind::Unsqueeze:
        out << a << ".unsqueeze(" << s.p << ")";
        break;
      case StepKind::Flatten:
        out << a << ".reshape({-1})";
        break;
      case StepKind::Slice:
        out << a << ".slice(" << s.p << ", 0, " << s.q << ")";
        break;
      case StepKind::MatmulSelf:
        out << a << ".matmul(" << a << ".transpose(-1, -2))";
        break;
      case StepKind::CatSelf:
        out << "cat({" << a << ", " << a << " * 2}, " << s.p << ")";
        break;
      case StepKind::ShapeIf:
        out << "if (" << a << ".size(" << s.p << ") > " << s.q << ") " << a << " * 2 else " << a
            << " - 1";
        break;
      case StepKind::CondData:
        out << "cond(" << a << ".sum() > 0, "
            << (s.variant == 1 && version >= 2
                    ? "o -> cond(o.mean() > 0.5, relu * 2, minus 1, {o})"
                    : "relu * 2")
            << ", minus 1, {" << a << "})";
        break;
      case StepKind::CondShape:
        out << "cond(" << a << ".size(" << s.p << ") > " << s.q << ", relu * 2, minus 1, {" << a
            << "})";
        break;
      case StepKind::Map:
        out << "map(row -> tanh(row) + 1, " << a << ")";
        break;
      case StepKind::WhileLoop:
        out << "while_loop(i < 3: {i + 1, tanh(v) * 1.5}, {0, " << a << "})[1]";
        break;
      case StepKind::ItemNarrow:
        out << a << ".reshape({-1}).narrow(0, 0, u = (" << a
            << " > 0).sum().item_int())  // constrain_as_size(u), check(u <= numel)";
        break;
      case StepKind::Nonzero:
        out << "nonzero(" << a << " > 0).to(float32)";
        break;
      case StepKind::InplaceInput:
        out << a << ".mul_(1.5)  // x" << s.a << " updated in place";
        break;
      case StepKind::BufferUpdate:
        out << "state.add_(" << a << ".mean())  // the module's buffer updated in place";
        break;
      case StepKind::IntBool:
        out << "where(" << a << " > -0.5, m, -m).to(float32)  // i = ("
            << (version >= 4 ? "clamp(nan_to_0(" + a + "), -1e9, 1e9)" : a)
            << " * 4).to(int64), m = i % 3 + i // 3";
        break;
    }
    out << "\n";
  }
  out << "  return";
  for (int i : outputs) out << " v" << i;
  out << "\n";
  return out.str();
}

}  // namespace xport::soundness
