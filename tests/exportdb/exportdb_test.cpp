// Runs every ExportDB case: a failing case must fail with its error kind (and name a case that
// exists); an exporting case must agree with eager execution on every valid input, refuse every
// invalid one, print, verify, and survive an archive round trip.
#include "xport/exportdb/exportdb.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "serde/round_trip.h"
#include "xport/xport.h"

namespace xport {
namespace {

using exportdb::all_cases;
using exportdb::find_case;

// Cases that show a bug in xport, not in the catalogue, with the bug: they keep their correct
// expectation and are skipped, not run (a crash would take the test down), until the bug is
// fixed and the entry removed.
const std::map<std::string, std::string, std::less<>> kKnownFailures = {};

std::string describe(const std::vector<Value>& inputs) {
  std::string out = "(";
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i > 0) out += ", ";
    if (inputs[i].is_list()) {
      out += "[";
      for (size_t e = 0; e < inputs[i].to_tensor_list().size(); ++e) {
        out += (e > 0 ? ", " : "") + Value(inputs[i].to_tensor_list()[e]).str();
      }
      out += "]";
    } else {
      out += inputs[i].str();
    }
  }
  return out + ")";
}

using exportdb::export_case;

// What is wrong with one input inside the contract: the exported program must agree with the
// eager program on every output.
void check_valid(const exportdb::Case& c, const ExportedProgram& p,
                 const std::vector<Value>& inputs, std::vector<std::string>& problems) {
  const std::string where = "on valid input " + describe(inputs) + ": ";
  std::vector<Tensor> expected, actual;
  // The program holds the module's own buffers: eager runs on them, and they are put back
  // before the program runs, so that both start from the same state.
  std::map<std::string, Tensor> before, eager_after;
  if (c.module) {
    for (const auto& [name, t] : c.module->named_buffers()) before[name] = t.clone();
  }
  // Copies, which the programs may update in place; the exported program gets the inputs
  // themselves (views included) unless it updates them.
  const std::vector<Value> eager_inputs = test_support::copy_inputs(inputs);
  bool updates_inputs = false;
  for (const OutputSpec& o : p.signature().outputs) {
    updates_inputs = updates_inputs || o.kind == OutputSpec::Kind::UserInputMutation;
  }
  const std::vector<Value> run_inputs = updates_inputs ? test_support::copy_inputs(inputs) : inputs;
  try {
    expected = c.fn(eager_inputs);
  } catch (const Error& e) {
    problems.push_back(where + "the eager program failed (the case is wrong): " + e.what());
    return;
  }
  if (c.module) {
    for (const auto& [name, t] : c.module->named_buffers()) {
      eager_after[name] = t.clone();
      Tensor(t).copy_(before.at(name));
    }
  }
  try {
    actual = p.run(run_inputs);
  } catch (const Error& e) {
    problems.push_back(where + "run() threw " + to_string(e.kind()) + ": " + e.what());
    return;
  }
  // In-place updates of inputs and buffers must leave what eager leaves.
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].is_tensor() &&
        !allclose(run_inputs[i].to_tensor(), eager_inputs[i].to_tensor(), 1e-4, 1e-5)) {
      problems.push_back(where + "input " + std::to_string(i) + " after the call is " +
                         run_inputs[i].str() + ", eager leaves " + eager_inputs[i].str());
    }
  }
  for (const auto& [name, want] : eager_after) {
    if (!allclose(p.state().at(name), want, 1e-4, 1e-5)) {
      problems.push_back(where + "buffer " + name + " after the call is " +
                         Value(p.state().at(name)).str() + ", eager leaves " + Value(want).str());
    }
  }
  if (actual.size() != expected.size()) {
    problems.push_back(where + "run() returned " + std::to_string(actual.size()) +
                       " outputs, eager " + std::to_string(expected.size()));
    return;
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    std::ostringstream mismatch;
    if (actual[i].dtype() != expected[i].dtype() ||
        actual[i].int_sizes() != expected[i].int_sizes()) {
      mismatch << "output " << i << " is " << Value(actual[i]).str() << ", eager gives "
               << Value(expected[i]).str();
    } else if (!allclose(actual[i], expected[i], 1e-4, 1e-5)) {
      mismatch << "output " << i << " differs from eager:\nexported " << actual[i] << "\neager "
               << expected[i];
    }
    if (!mismatch.str().empty()) problems.push_back(where + mismatch.str());
  }
}

void check_invalid(const ExportedProgram& p, const std::vector<Value>& inputs,
                   std::vector<std::string>& problems) {
  const std::string where = "on invalid input " + describe(inputs) + ": ";
  try {
    p.run(inputs);
    problems.push_back(where + "run() accepted it; it must throw InvalidInput");
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::InvalidInput) {
      problems.push_back(where + "run() threw " + to_string(e.kind()) +
                         ", not InvalidInput: " + e.what());
    }
  }
}

// A failing case: the error's kind, and the ExportDB case it names.
void check_error(const exportdb::Case& c, std::vector<std::string>& problems) {
  try {
    export_case(c);
    problems.push_back(std::string("export_program succeeded; expected ") +
                       to_string(*c.expected_error));
    return;
  } catch (const Error& e) {
    if (e.kind() != *c.expected_error) {
      problems.push_back(std::string("export_program threw ") + to_string(e.kind()) +
                         ", expected " + to_string(*c.expected_error) + ": " + e.what());
    }
    if (!e.exportdb_case().empty()) {
      const std::string suffix = "see ExportDB case '" + e.exportdb_case() + "' (" +
                                 exportdb::case_page(e.exportdb_case()) +
                                 " in the site `xport exportdb OUT_DIR` writes)";
      if (find_case(e.exportdb_case()) == nullptr) {
        problems.push_back("the error names ExportDB case '" + e.exportdb_case() +
                           "', which is not in the catalogue: " + e.what());
      }
      if (!std::string_view(e.what()).ends_with(suffix)) {
        problems.push_back("the error names ExportDB case '" + e.exportdb_case() +
                           "' but its message does not end with \"" + suffix + "\": " + e.what());
      }
    }
  }
  // The program itself is fine eagerly: it is capture that refuses it.
  try {
    c.fn(test_support::copy_inputs(c.example_inputs));
  } catch (const Error& e) {
    problems.push_back(std::string("the eager program fails on the example (the case is wrong): ") +
                       e.what());
  }
}

// Everything wrong with the case, as messages; empty when it behaves as catalogued.
std::vector<std::string> check_case(const exportdb::Case& c) {
  std::vector<std::string> problems;
  if (c.expected_error) {
    check_error(c, problems);
    return problems;
  }
  try {
    const ExportedProgram p = export_case(c);
    check_valid(c, p, c.example_inputs, problems);
    for (const std::vector<Value>& inputs : c.valid_inputs) check_valid(c, p, inputs, problems);
    for (const std::vector<Value>& inputs : c.invalid_inputs) check_invalid(p, inputs, problems);
    if (p.to_string().empty()) problems.push_back("to_string() is empty");
    std::vector<std::vector<Value>> inputs = c.valid_inputs;
    inputs.push_back(c.example_inputs);
    for (const std::string& s : test_support::round_trip_problems(p, inputs, c.name)) {
      problems.push_back("archive round trip: " + s);
    }
    try {
      p.graph().verify();
    } catch (const Error& e) {
      problems.push_back(std::string("graph().verify() failed: ") + e.what());
    }
  } catch (const Error& e) {
    problems.push_back(std::string("export_program threw ") + to_string(e.kind()) + ": " +
                       e.what());
  }
  return problems;
}

class Case : public testing::TestWithParam<const exportdb::Case*> {};

TEST_P(Case, Runs) {
  const exportdb::Case& c = *GetParam();
  SCOPED_TRACE(c.file + ":" + std::to_string(c.line) + ": ExportDB case '" + c.name + "'");
  if (auto known = kKnownFailures.find(c.name); known != kKnownFailures.end()) {
    GTEST_SKIP() << "known failure (kKnownFailures): " << known->second;
  }
  const std::vector<std::string> problems = check_case(c);
  for (const std::string& p : problems) ADD_FAILURE() << p;
}

std::vector<const exportdb::Case*> case_pointers() {
  std::vector<const exportdb::Case*> out;
  for (const exportdb::Case& c : all_cases()) out.push_back(&c);
  return out;
}

INSTANTIATE_TEST_SUITE_P(ExportDB, Case, testing::ValuesIn(case_pointers()),
                         [](const testing::TestParamInfo<const exportdb::Case*>& info) {
                           return info.param->name;
                         });

TEST(ExportDBCatalogue, NamesAreUniqueAndEveryCaseIsDescribedAndTagged) {
  std::set<std::string> names;
  for (const exportdb::Case& c : all_cases()) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case name '" << c.name << "'";
    EXPECT_FALSE(c.name.empty());
    // Test names: gtest allows only letters, digits and underscores.
    EXPECT_TRUE(std::all_of(
        c.name.begin(), c.name.end(),
        [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }))
        << "'" << c.name << "' must be a C++-style identifier";
    EXPECT_FALSE(c.description.empty()) << c.name;
    EXPECT_FALSE(c.tags.empty()) << c.name;
    EXPECT_TRUE(c.fn) << c.name;
    EXPECT_TRUE(c.file.starts_with("exportdb/") && c.line > 0)
        << c.name << ": " << c.file << ":" << c.line;
    if (c.expected_error) {
      EXPECT_TRUE(c.valid_inputs.empty() && c.invalid_inputs.empty())
          << c.name << ": a failing case has no program to run inputs on";
    }
    EXPECT_EQ(find_case(c.name), &c);
  }
  EXPECT_EQ(find_case("no_such_case"), nullptr);
  for (const auto& [name, bug] : kKnownFailures) {
    EXPECT_NE(find_case(name), nullptr) << "kKnownFailures names '" << name << "', not a case";
  }
}

// The cases that error messages refer to by name.
TEST(ExportDBCatalogue, HasTheCasesThatErrorsName) {
  for (const char* name : {"dynamic_shape_if_guard", "dynamic_shape_matmul_equal_dims",
                           "dynamic_shape_specialized_int", "dynamic_shape_example_zero_one",
                           "conflicting_spec", "data_dependent_item", "inplace_update_input",
                           "cond_branch_mismatch", "cond_mutates_input", "cond_leaked_tensor",
                           "size_one_broadcast", "size_zero_empty_max"}) {
    EXPECT_NE(find_case(name), nullptr) << name;
  }
}

}  // namespace
}  // namespace xport
