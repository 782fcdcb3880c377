// Every op's derivative rule on the op table's samples: against torch.autograd (the oracle,
// tests/ops/torch_gradients.py) and against finite differences in float64.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "listed_reasons.h"
#include "ops/op_table.h"
#include "ops/op_table_harness.h"
#include "xport/ops/derivative.h"

namespace xport::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

bool float32_or_64(DType d) { return d == DType::Float32 || d == DType::Float64; }

bool all_finite(const Tensor& t) {
  if (!is_floating(t.dtype())) return true;
  for (double v : t.to_vector<double>()) {
    if (!std::isfinite(v)) return false;
  }
  return true;
}

// A sample the gradient checks take: its op has a derivative rule, it runs, its floating
// arguments are float32 or float64 (the dtypes PyTorch's tolerances below are for), and it has
// a floating argument and a floating result.
struct GradCase {
  size_t sample = 0;
  std::vector<Value> args;
  std::vector<Tensor> outputs;
  std::vector<Tensor> grad_outputs;  // undefined for non-floating results
  std::vector<bool> needs;           // per schema argument
};

// Whether `v` (a Tensor or Tensor[]) is a floating value to differentiate; false (and *ok
// false) when it holds a floating dtype these checks leave out.
bool differentiable(const Value& v, bool* ok) {
  std::vector<Tensor> ts;
  if (v.is_tensor()) ts = {v.to_tensor()};
  if (v.is_list()) ts = v.to_tensor_list();
  bool any = false;
  for (const Tensor& t : ts) {
    if (!t.defined() || !is_floating(t.dtype())) continue;
    if (!float32_or_64(t.dtype())) *ok = false;
    any = true;
  }
  return any;
}

std::optional<GradCase> make_case(size_t i) {
  const OpSample& s = op_table()[i];
  const OpDef* op = try_find_op(s.op);
  if (!op || !op->derivative || s.expect_error || !s.compare_values) return std::nullopt;
  if (has_tag(*op, Tag::NondeterministicSeeded)) return std::nullopt;  // dropout: random
  GradCase c;
  c.sample = i;
  Gen gen(s.seed());
  try {
    c.args = bind_args(*op, s.make(gen)).values();
    c.outputs = call_tensors(*op, c.args);
  } catch (const Error&) {
    return std::nullopt;  // a refusal, judged by the op table itself
  }
  bool ok = true, any_in = false, any_out = false;
  for (const Value& v : c.args) {
    c.needs.push_back(differentiable(v, &ok));
    any_in = any_in || c.needs.back();
  }
  Gen grads(s.seed() + 1);
  for (size_t k = 0; k < c.outputs.size(); ++k) {
    const Tensor& t = c.outputs[k];
    const bool carries = op->differentiable_results < 0 ||
                         static_cast<int>(k) < op->differentiable_results;
    const bool floating = carries && t.defined() && is_floating(t.dtype());
    if (floating && !float32_or_64(t.dtype())) ok = false;
    c.grad_outputs.push_back(floating ? grads.randn(t.sizes(), t.dtype()) : Tensor());
    any_out = any_out || floating;
  }
  if (!ok || !any_in || !any_out) return std::nullopt;
  return c;
}

const std::vector<GradCase>& grad_cases() {
  static const std::vector<GradCase> cases = [] {
    std::vector<GradCase> out;
    for (size_t i = 0; i < op_table().size(); ++i) {
      if (auto c = make_case(i)) out.push_back(std::move(*c));
    }
    return out;
  }();
  return cases;
}

// Our gradients of a case, by argument position (eager, on the sample's tensors).
std::vector<Value> our_gradients(const GradCase& c) {
  const OpDef& op = find_op(op_table()[c.sample].op);
  return run_derivative(OpArgs(op, c.args), c.outputs, c.grad_outputs, c.needs);
}

struct GradOracle {
  fs::path dir;
  json results;
  std::string failure;
};

GradOracle& grad_oracle() {
  static GradOracle o = [] {
    GradOracle o;
    o.dir = fs::temp_directory_path() / ("xport_op_gradients_" + std::to_string(::getpid()));
    fs::create_directories(o.dir);
    json cases = json::array();
    for (size_t n = 0; n < grad_cases().size(); ++n) {
      const GradCase& c = grad_cases()[n];
      const OpSample& s = op_table()[c.sample];
      const OpDef& op = find_op(s.op);
      json j = {{"id", n}, {"op", s.op}, {"args", json::array()}, {"kwargs", json::object()},
                {"grad_outputs", json::array()}, {"wrt", json::array()}};
      const std::string prefix = "d" + std::to_string(n);
      for (size_t a = 0; a < c.args.size(); ++a) {
        const Argument& param = op.parsed.arguments.at(a);
        const json v = encode(c.args[a], o.dir, prefix + "_a" + std::to_string(a) + ".npy");
        if (param.kwarg_only)
          j["kwargs"][param.name] = v;
        else
          j["args"].push_back(v);
        if (c.needs[a]) {
          j["wrt"].push_back({{"pos", a}, {"name", param.name}, {"kw", param.kwarg_only}});
        }
      }
      for (size_t k = 0; k < c.grad_outputs.size(); ++k) {
        j["grad_outputs"].push_back(
            c.grad_outputs[k].defined()
                ? encode(c.grad_outputs[k], o.dir, prefix + "_g" + std::to_string(k) + ".npy")
                : json());
      }
      cases.push_back(j);
    }
    std::ofstream(o.dir / "grad_cases.json") << json{{"cases", cases}}.dump();
    const std::string command = std::string(XPORT_PYTHON) + " " + XPORT_TORCH_GRADIENTS + " " +
                                o.dir.string() + " 2>" + (o.dir / "gradients.log").string();
    if (std::system(command.c_str()) != 0) {
      std::ifstream log(o.dir / "gradients.log");
      o.failure = "torch.autograd oracle failed (is the test environment made? run `make "
                  "venv`): " + std::string(std::istreambuf_iterator<char>(log), {});
    } else {
      std::ifstream(o.dir / "grad_results.json") >> o.results;
    }
    return o;
  }();
  return o;
}

// Whether every floating argument and result of the case is float64.
bool all_float64(const GradCase& c) {
  bool all = true;
  const auto check = [&](const Tensor& t) {
    if (t.defined() && is_floating(t.dtype()) && t.dtype() != DType::Float64) all = false;
  };
  for (const Value& v : c.args) {
    if (v.is_tensor()) check(v.to_tensor());
    if (v.is_list())
      for (const Tensor& t : v.to_tensor_list()) check(t);
  }
  for (const Tensor& t : c.outputs) check(t);
  return all;
}

// Samples whose check cannot hold, each with its reason ("torch op [label]" for the
// comparison with torch.autograd, "fd op [label]" for finite differences).
const std::map<std::string, std::string>& gradient_exceptions() {
  static const std::map<std::string, std::string> listed =
      listed_reasons(std::string(XPORT_TESTS_DIR) + "/ops/gradient_exceptions.txt");
  return listed;
}

bool listed(const char* check, const OpSample& s) {
  return gradient_exceptions().count(std::string(check) + " " + s.op + " [" + s.label + "]") > 0;
}

// The gradients (rtol 1e-5, or 1e-10 where everything is float64, relative to the largest
// magnitude of PyTorch's): one tensor, or zeros where PyTorch gives none.
std::string compare_gradient(const Tensor& ours, const Tensor& theirs, double rtol) {
  double scale = 1;
  for (double v : theirs.to_vector<double>()) {
    if (std::isfinite(v)) scale = std::max(scale, std::fabs(v));
  }
  return compare(ours, theirs, rtol, rtol * scale);
}

// `grad` with zeros where the argument `input` is NaN or infinite: the derivative is undefined
// there, and PyTorch's own kernels disagree across instruction sets (elu's at NaN is the gradient
// on AVX-512 and NaN on AVX2), so those elements are not compared.
Tensor at_finite_inputs(const Tensor& grad, const Tensor& input) {
  const Tensor non_finite = logical_or(input.ne(input), input.abs().eq(INFINITY));
  return where(non_finite, zeros_like(grad), grad);
}

class OpGradients : public ::testing::TestWithParam<size_t> {};

TEST_P(OpGradients, MatchTorchAutograd) {
  const GradCase& c = grad_cases()[GetParam()];
  const OpSample& s = op_table()[c.sample];
  SCOPED_TRACE(s.op + " [" + s.label + "]");
  GradOracle& o = grad_oracle();
  ASSERT_TRUE(o.failure.empty()) << o.failure;
  const json& r = o.results.at(std::to_string(GetParam()));
  if (listed("torch", s)) {
    EXPECT_FALSE(r.at("ok").get<bool>())
        << "listed in gradient_exceptions.txt, but torch.autograd takes it now: remove the line";
    return;
  }
  ASSERT_TRUE(r.at("ok").get<bool>()) << "torch.autograd refused: " << r.value("error", "");
  const std::vector<Value> ours = our_gradients(c);
  const double rtol = all_float64(c) ? 1e-10 : 1e-5;
  const std::set<std::string> skipped = r.at("skipped").get<std::set<std::string>>();
  size_t w = 0;
  for (size_t a = 0; a < c.args.size(); ++a) {
    if (!c.needs[a]) continue;
    const json& files = r.at("grads").at(w++);
    const std::string& arg_name = find_op(s.op).parsed.arguments[a].name;
    if (skipped.count(arg_name)) {  // PyTorch does not differentiate it: neither may we
      EXPECT_TRUE(ours[a].is_none()) << arg_name << " has a gradient, which PyTorch refuses";
      continue;
    }
    const std::vector<Tensor> inputs =
        c.args[a].is_tensor() ? std::vector<Tensor>{c.args[a].to_tensor()}
                              : c.args[a].to_tensor_list();
    std::vector<Tensor> mine;
    if (ours[a].is_tensor()) mine = {ours[a].to_tensor()};
    if (ours[a].is_list()) mine = ours[a].to_tensor_list();
    for (size_t k = 0; k < inputs.size(); ++k) {
      const Tensor& input = inputs[k];
      if (!input.defined() || !is_floating(input.dtype())) continue;
      const std::string name = find_op(s.op).parsed.arguments[a].name +
                               (c.args[a].is_list() ? "[" + std::to_string(k) + "]" : "");
      const json& f = files.at(k);
      const Tensor theirs = f.contains("none")
                                ? zeros_like(input).contiguous()
                                : load_npy((o.dir / f.at("file").get<std::string>()).string());
      const Tensor got = k < mine.size() && mine[k].defined() ? mine[k] : zeros_like(input);
      ASSERT_EQ(got.int_sizes(), theirs.int_sizes()) << "gradient of " << name << ": shape";
      EXPECT_EQ(dtype_name(got.dtype()), dtype_name(input.dtype())) << "gradient of " << name;
      const std::string diff = compare_gradient(at_finite_inputs(got, input),
                                                at_finite_inputs(theirs.to(got.dtype()), input),
                                                rtol);
      EXPECT_TRUE(diff.empty()) << "gradient of " << name << " vs torch.autograd: " << diff;
    }
  }
}

// sum over the differentiable results of (result * its gradient): the scalar whose
// derivative the rule computes; `magnitude` gets the sum of the terms' magnitudes (what
// rounding in the sum scales with).
double weighted_sum(const OpDef& op, const std::vector<Value>& args,
                    const std::vector<Tensor>& grad_outputs, double* magnitude) {
  const std::vector<Tensor> outs = call_tensors(op, args);
  double total = 0;
  *magnitude = 0;
  for (size_t k = 0; k < outs.size(); ++k) {
    if (!grad_outputs[k].defined()) continue;
    const std::vector<double> y = outs[k].contiguous().to_vector<double>();
    const std::vector<double> g = grad_outputs[k].contiguous().to_vector<double>();
    for (size_t e = 0; e < y.size(); ++e) {
      total += y[e] * g[e];
      *magnitude += std::fabs(y[e] * g[e]);
    }
  }
  return total;
}

// The case in float64 (its float32 tensors converted), as fresh contiguous copies.
GradCase in_float64(const GradCase& c) {
  const auto widen = [](const Tensor& t) {
    if (!t.defined()) return t;
    const Tensor wide = is_floating(t.dtype()) ? t.to(DType::Float64) : t;
    return wide.contiguous().clone();
  };
  GradCase d = c;
  for (Value& v : d.args) {
    if (v.is_tensor()) v = widen(v.to_tensor());
    if (v.is_list()) {
      std::vector<Tensor> list = v.to_tensor_list();
      for (Tensor& t : list) t = widen(t);
      v = list;
    }
  }
  for (Tensor& g : d.grad_outputs) g = widen(g);
  const OpDef& op = find_op(op_table()[c.sample].op);
  d.outputs = call_tensors(op, d.args);
  return d;
}

// Central differences in float64 on up to 12 elements of each differentiable tensor.
TEST_P(OpGradients, MatchFiniteDifferencesInFloat64) {
  const GradCase& c32 = grad_cases()[GetParam()];
  const OpSample& s = op_table()[c32.sample];
  SCOPED_TRACE(s.op + " [" + s.label + "]");
  const OpDef& op = find_op(s.op);
  if (listed("fd", s)) return;  // a point where the op has no derivative (the file says which)
  GradCase c;
  try {
    c = in_float64(c32);
  } catch (const Error&) {
    return;  // an op with no float64 kernel for these arguments (none of its derivative's doing)
  }
  for (const Value& v : c.args) {
    if (v.is_tensor() && !all_finite(v.to_tensor())) return;  // edge values: no derivative
  }
  for (const Tensor& t : c.outputs) {
    if (t.defined() && !all_finite(t)) return;
  }
  const std::vector<Value> analytic = our_gradients(c);
  for (size_t a = 0; a < c.args.size(); ++a) {
    // Lists are checked against PyTorch; an argument the rule gives no gradient (batch norm's
    // running statistics) is held to PyTorch's refusal there.
    if (!c.needs[a] || !c.args[a].is_tensor() || analytic[a].is_none()) continue;
    const Tensor& x = c.args[a].to_tensor();
    const std::vector<double> want = analytic[a].to_tensor().contiguous().to_vector<double>();
    double* data = x.mutable_data<double>();
    const int64_t n = std::min<int64_t>(x.int_numel(), 12);
    for (int64_t e = 0; e < n; ++e) {
      const double saved = data[e];
      const double h = 1e-6 * std::max(1.0, std::fabs(saved));
      double magnitude = 0;
      data[e] = saved + h;
      const double up = weighted_sum(op, c.args, c.grad_outputs, &magnitude);
      data[e] = saved - h;
      const double down = weighted_sum(op, c.args, c.grad_outputs, &magnitude);
      data[e] = saved;
      const double numeric = (up - down) / (2 * h);
      // Truncation (h^2) and the rounding of two sums of `magnitude`, divided by 2h.
      const double tolerance =
          1e-6 * std::max(1.0, std::fabs(numeric)) + 8 * DBL_EPSILON * magnitude / h;
      EXPECT_NEAR(want[e], numeric, tolerance)
          << "argument " << op.parsed.arguments[a].name << ", element " << e;
    }
  }
}

std::string grad_case_name(const ::testing::TestParamInfo<size_t>& info) {
  std::string name = op_table()[grad_cases()[info.param].sample].op + "_" +
                     std::to_string(grad_cases()[info.param].sample);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Rules, OpGradients, ::testing::Range<size_t>(0, grad_cases().size()),
                         grad_case_name);

class GradOracleCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    if (std::getenv("XPORT_KEEP_ORACLE_DIR") == nullptr) {
      std::error_code ignored;
      fs::remove_all(grad_oracle().dir, ignored);
    }
  }
};
const auto* const kGradCleanup = ::testing::AddGlobalTestEnvironment(new GradOracleCleanup);

TEST(OpGradientCoverage, EveryListedExceptionIsAGradientCase) {
  std::set<std::string> cases;
  for (const GradCase& c : grad_cases()) {
    const OpSample& s = op_table()[c.sample];
    cases.insert("torch " + s.op + " [" + s.label + "]");
    cases.insert("fd " + s.op + " [" + s.label + "]");
  }
  for (const auto& [name, reason] : gradient_exceptions())
    EXPECT_TRUE(cases.count(name)) << name << " (gradient_exceptions.txt) is no gradient case";
}

// Each op with a derivative rule is checked on at least one sample.
TEST(OpGradientCoverage, EveryRuleIsChecked) {
  std::set<std::string> checked;
  for (const GradCase& c : grad_cases()) {
    checked.insert(find_op(op_table()[c.sample].op).qualified_name);
  }
  for (const OpDef* op : all_ops()) {
    // Random ops: their rule is checked on a fixed mask (tests/train/grad_test.cpp).
    if (!op->derivative || has_tag(*op, Tag::NondeterministicSeeded)) continue;
    EXPECT_TRUE(checked.count(op->qualified_name))
        << op->qualified_name << " has a derivative rule that no float32/64 sample checks";
  }
}

}  // namespace
}  // namespace xport::testing
