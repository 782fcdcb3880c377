// One harness for every op: each sample in the op table runs eagerly and is compared with
// PyTorch 2.13 (tests/ops/torch_oracle.py), with the op's meta function, with its
// decomposition, and with its program exported, saved and run in the runtime.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <variant>

#include "listed_reasons.h"
#include "ops/op_table.h"
#include "ops/op_table_harness.h"
#include "xport/runtime.h"

namespace xport::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct CaseRun {
  std::vector<Value> args;      // as the sample made them (before our op ran)
  std::vector<Tensor> outputs;  // ours
  std::string error;            // ours, when the op refused
  bool ran = false;
};

// Holds every case's run and PyTorch's results; computed once for the whole table.
struct Oracle {
  fs::path dir;
  std::vector<CaseRun> runs;
  json results;
  std::string failure;  // set when PyTorch itself could not be run
};

Oracle& oracle() {
  static Oracle o = [] {
    Oracle o;
    o.dir = fs::temp_directory_path() / ("xport_op_table_" + std::to_string(::getpid()));
    fs::create_directories(o.dir);
    const auto& table = op_table();
    json cases = json::array();
    for (size_t i = 0; i < table.size(); ++i) {
      const OpSample& s = table[i];
      Gen gen(s.seed());
      CaseRun run;
      try {
        run.args = s.make(gen);
      } catch (const std::exception& e) {
        run.error = std::string("making the sample failed: ") + e.what();
      }
      // Write the inputs before our op runs (in-place ops change them).
      json c = {{"id", i}, {"op", s.op}, {"args", json::array()}, {"kwargs", json::object()}};
      const OpDef* op = try_find_op(s.op);
      for (size_t a = 0; op && a < run.args.size(); ++a) {
        const std::string name = "c" + std::to_string(i) + "_a" + std::to_string(a) + ".npy";
        const Argument& param = op->parsed.arguments.at(a);
        if (param.kwarg_only)
          c["kwargs"][param.name] = encode(run.args[a], o.dir, name);
        else
          c["args"].push_back(encode(run.args[a], o.dir, name));
      }
      cases.push_back(c);
      if (op && run.error.empty()) {
        try {
          run.outputs = call_tensors(*op, run.args);
          run.ran = true;
        } catch (const Error& e) {
          run.error = e.what();
        }
      }
      o.runs.push_back(std::move(run));
    }
    std::ofstream(o.dir / "cases.json") << json{{"cases", cases}}.dump();
    const std::string command = std::string(XPORT_PYTHON) + " " + XPORT_TORCH_ORACLE + " " +
                                o.dir.string() + " 2>" + (o.dir / "oracle.log").string();
    if (std::system(command.c_str()) != 0) {
      std::ifstream log(o.dir / "oracle.log");
      o.failure = "PyTorch oracle failed (is the test environment made? run `make venv`): " +
                  std::string(std::istreambuf_iterator<char>(log), {});
    } else {
      std::ifstream(o.dir / "results.json") >> o.results;
    }
    return o;
  }();
  return o;
}

std::string shape_of(const Tensor& t) {
  std::ostringstream out;
  out << dtype_name(t.dtype()) << "[";
  for (int64_t d = 0; d < t.dim(); ++d) out << (d ? ", " : "") << t.sizes()[d];
  out << "]";
  return out.str();
}

class OpTable : public ::testing::TestWithParam<size_t> {};

TEST_P(OpTable, MatchesPyTorchMetaAndDecomposition) {
  const size_t i = GetParam();
  const OpSample& s = op_table()[i];
  Oracle& o = oracle();
  ASSERT_TRUE(o.failure.empty()) << o.failure;
  const CaseRun& run = o.runs[i];
  SCOPED_TRACE(s.op + " [" + s.label + "]");
  ASSERT_NE(try_find_op(s.op), nullptr) << "no op named " << s.op;
  const json& r = o.results.at(std::to_string(i));

  if (s.expect_error) {
    EXPECT_FALSE(r.at("ok").get<bool>()) << "PyTorch accepted inputs the sample expects refused";
    EXPECT_FALSE(run.ran) << "xport accepted inputs the sample expects refused";
    return;
  }
  ASSERT_TRUE(r.at("ok").get<bool>()) << "PyTorch refused: " << r.value("error", "");
  ASSERT_TRUE(run.ran) << "xport refused: " << run.error;
  const json& outs = r.at("outputs");
  ASSERT_EQ(run.outputs.size(), outs.size()) << "number of outputs";
  for (size_t k = 0; k < outs.size(); ++k) {
    const Tensor& ours = run.outputs[k];
    if (outs[k].contains("none")) {
      EXPECT_FALSE(ours.defined()) << "output " << k << " is None in PyTorch";
      continue;
    }
    ASSERT_TRUE(ours.defined()) << "output " << k << " is None here, a tensor in PyTorch";
    const DType torch_dtype = parse_dtype(outs[k].at("dtype").get<std::string>());
    EXPECT_EQ(dtype_name(ours.dtype()), dtype_name(torch_dtype)) << "output " << k << " dtype";
    const Tensor expected = load_npy((o.dir / outs[k].at("file").get<std::string>()).string());
    ASSERT_EQ(ours.int_sizes(), expected.int_sizes())
        << "output " << k << " shape: xport " << shape_of(ours);
    if (!s.compare_values) continue;
    auto [rtol, atol] = default_tolerance(ours.dtype());
    if (s.rtol >= 0) rtol = s.rtol;
    if (s.atol >= 0) atol = s.atol;
    const std::string diff = compare(ours, expected, rtol, atol);
    EXPECT_TRUE(diff.empty()) << "output " << k << " vs PyTorch (rtol " << rtol << ", atol " << atol
                              << "): " << diff;
  }
}

TEST_P(OpTable, MetaFunctionAgreesWithEagerOutput) {
  const size_t i = GetParam();
  const OpSample& s = op_table()[i];
  const CaseRun& run = oracle().runs[i];
  if (!run.ran) return;  // refusals are judged above
  const OpDef& op = find_op(s.op);
  if (!op.meta) return;  // composite: runs as other ops, each checked on its own
  // Regenerate the inputs: in-place ops have changed the originals, not their shapes.
  Gen gen(s.seed());
  std::vector<TensorMeta> metas;
  try {
    metas = op.meta(bind_args(op, s.make(gen)));
  } catch (const Error& e) {
    // Output sizes that depend on data (a bool-mask index) cannot come from a meta function;
    // it must say so with DataDependent, not guess.
    ASSERT_EQ(e.kind(), ErrorKind::DataDependent) << e.what();
    return;
  }
  ASSERT_EQ(metas.size(), run.outputs.size());
  for (size_t k = 0; k < metas.size(); ++k) {
    ASSERT_EQ(metas[k].none, !run.outputs[k].defined()) << "output " << k << " None or not";
    if (metas[k].none) continue;
    EXPECT_EQ(dtype_name(metas[k].dtype), dtype_name(run.outputs[k].dtype()));
    ASSERT_EQ(metas[k].sizes.size(), static_cast<size_t>(run.outputs[k].dim()));
    for (size_t d = 0; d < metas[k].sizes.size(); ++d) {
      EXPECT_TRUE(metas[k].sizes[d].is_same(run.outputs[k].sizes()[d]))
          << "output " << k << " dim " << d << ": meta " << metas[k].sizes[d] << " vs eager "
          << run.outputs[k].sizes()[d];
    }
  }
}

TEST_P(OpTable, DecompositionAgreesWithKernel) {
  const size_t i = GetParam();
  const OpSample& s = op_table()[i];
  const CaseRun& run = oracle().runs[i];
  const OpDef& op = find_op(s.op);
  // Ops with a meta function ran their own kernel (or view) eagerly; composites ran the
  // decomposition.
  if (!run.ran || !op.decomp || !op.meta || !s.compare_values) return;
  Gen gen(s.seed());
  const std::vector<Tensor> decomposed = run_decomposition(bind_args(op, s.make(gen)));
  ASSERT_EQ(decomposed.size(), run.outputs.size());
  for (size_t k = 0; k < decomposed.size(); ++k) {
    ASSERT_EQ(decomposed[k].defined(), run.outputs[k].defined()) << "output " << k;
    if (!decomposed[k].defined()) continue;
    EXPECT_EQ(dtype_name(decomposed[k].dtype()), dtype_name(run.outputs[k].dtype()));
    auto [rtol, atol] = default_tolerance(decomposed[k].dtype());
    if (s.rtol >= 0) rtol = s.rtol;
    if (s.atol >= 0) atol = s.atol;
    const std::string diff = compare(decomposed[k], run.outputs[k], rtol, atol);
    EXPECT_TRUE(diff.empty()) << "decomposition vs kernel, output " << k << ": " << diff;
  }
}

// The samples whose whole way (below) xport cannot go yet, each with its reason, by
// "op [label]".
const std::map<std::string, std::string>& whole_way_exceptions() {
  static const std::map<std::string, std::string> listed =
      listed_reasons(std::string(XPORT_TESTS_DIR) + "/ops/whole_way_exceptions.txt");
  return listed;
}

// The results that are tensors: a None result (an unrequested gradient) cannot be a program's
// output; its node still holds it, and the archive writes it as PyTorch's as_none.
std::vector<Tensor> tensors_only(const std::vector<Tensor>& results) {
  std::vector<Tensor> out;
  for (const Tensor& t : results)
    if (t.defined()) out.push_back(t);
  return out;
}

// Exports the sample (its tensor arguments as the program's inputs, the other arguments as
// constants), saves it, loads it in the runtime (with its load-time fusion) and runs it there.
// The outputs, or the xport::Error that stopped it.
std::variant<std::vector<Tensor>, std::string> run_whole_way(size_t i) {
  const OpSample& s = op_table()[i];
  const OpDef& op = find_op(s.op);
  // Fresh inputs each time: the eager run, and the trace, may update them in place.
  auto make = [&] {
    Gen gen(s.seed());
    return s.make(gen);
  };
  const std::vector<Value> args = make();
  std::vector<size_t> positions;  // the arguments that become program inputs
  for (size_t a = 0; a < args.size(); ++a) {
    bool input = args[a].is_tensor() && args[a].to_tensor().defined();
    if (args[a].is_list() && !args[a].to_tensor_list().empty()) {
      const std::vector<Tensor>& list = args[a].to_tensor_list();
      input = std::all_of(list.begin(), list.end(), [](const Tensor& t) { return t.defined(); });
    }
    if (input) positions.push_back(a);
  }
  auto inputs_of = [&](const std::vector<Value>& from) {
    std::vector<Value> inputs;
    for (size_t a : positions) inputs.push_back(from[a]);
    return inputs;
  };
  const fs::path path = oracle().dir / ("whole_way_" + std::to_string(i) + ".pt2");
  std::string stage = "export";
  try {
    const ExportedProgram program = export_program(
        [&](const std::vector<Value>& inputs) {
          std::vector<Value> call = args;
          for (size_t k = 0; k < positions.size(); ++k) call[positions[k]] = inputs[k];
          return tensors_only(call_tensors(op, call));
        },
        inputs_of(make()));
    stage = "save";
    save(program, path.string());
    stage = "runtime";
    std::vector<Tensor> outputs =
        runtime::Program::load(path.string()).run_values(inputs_of(make()));
    fs::remove(path);
    return outputs;
  } catch (const Error& e) {
    return stage + ": " + e.what();
  }
}

// Every sample goes the whole way a deployed op goes, and the runtime gives the eager outputs.
TEST_P(OpTable, ExportedSavedLoadedAndRunInTheRuntime) {
  const size_t i = GetParam();
  const OpSample& s = op_table()[i];
  const CaseRun& run = oracle().runs[i];
  if (!run.ran || !s.compare_values) return;
  SCOPED_TRACE(s.op + " [" + s.label + "]");
  const auto result = run_whole_way(i);
  const auto listed = whole_way_exceptions().find(s.op + " [" + s.label + "]");
  if (listed != whole_way_exceptions().end()) {
    EXPECT_TRUE(std::holds_alternative<std::string>(result))
        << "listed in whole_way_exceptions.txt (" << listed->second
        << ") but goes the whole way now: remove the line";
    return;
  }
  ASSERT_TRUE(std::holds_alternative<std::vector<Tensor>>(result))
      << std::get<std::string>(result);
  const std::vector<Tensor>& outputs = std::get<std::vector<Tensor>>(result);
  const std::vector<Tensor> eager = tensors_only(run.outputs);
  ASSERT_EQ(outputs.size(), eager.size()) << "number of outputs";
  for (size_t k = 0; k < outputs.size(); ++k) {
    EXPECT_EQ(dtype_name(outputs[k].dtype()), dtype_name(eager[k].dtype())) << "output " << k;
    auto [rtol, atol] = default_tolerance(outputs[k].dtype());
    if (s.rtol >= 0) rtol = s.rtol;
    if (s.atol >= 0) atol = s.atol;
    const std::string diff = compare(outputs[k], eager[k], rtol, atol);
    EXPECT_TRUE(diff.empty()) << "runtime vs eager, output " << k << ": " << diff;
  }
}

TEST(OpTableCoverage, EveryWholeWayExceptionIsASample) {
  std::set<std::string> samples;
  for (const OpSample& s : op_table()) samples.insert(s.op + " [" + s.label + "]");
  for (const auto& [name, reason] : whole_way_exceptions())
    EXPECT_TRUE(samples.count(name)) << name << " is listed in whole_way_exceptions.txt but is no "
                                     << "sample";
}

std::string case_name(const ::testing::TestParamInfo<size_t>& info) {
  std::string name = op_table()[info.param].op + "_" + std::to_string(info.param);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpTable, ::testing::Range<size_t>(0, op_table().size()),
                         case_name);

// Removes the oracle's scratch folder unless XPORT_KEEP_ORACLE_DIR is set (for debugging).
class OracleCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    if (std::getenv("XPORT_KEEP_ORACLE_DIR") == nullptr) {
      std::error_code ignored;
      fs::remove_all(oracle().dir, ignored);
    }
  }
};
const auto* const kCleanup = ::testing::AddGlobalTestEnvironment(new OracleCleanup);

TEST(OpTableCoverage, EveryRegisteredOpHasSamples) {
  std::set<std::string> covered;
  for (const OpSample& s : op_table()) covered.insert(find_op(s.op).qualified_name);
  for (const OpDef* op : all_ops()) {
    // Higher-order ops take functions, which a sample cannot hold: tests/capture/
    // control_flow_test.cpp and the PyTorch archive tests run them.
    if (op->higher_order) continue;
    EXPECT_TRUE(covered.count(op->qualified_name))
        << op->qualified_name << " has no sample in the op table";
  }
}

TEST(OpTableCoverage, EveryNonCoreOpHasADecomposition) {
  for (const OpDef* op : all_ops()) {
    // copy_ is the one mutation everything else is written in terms of; functionalization, not
    // a decomposition, removes it from graphs.
    if (op->core || op->qualified_name == "aten::copy_") continue;
    EXPECT_TRUE(op->decomp != nullptr)
        << op->qualified_name << " is not core and has no decomposition";
  }
}

}  // namespace
}  // namespace xport::testing
