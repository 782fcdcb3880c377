// Values read from tensor data while tracing: not known until the program runs.
#include <vector>

#include "exportdb/cases.h"
#include "xport/xport.h"

namespace xport::exportdb {

void add_data_dependent_cases(std::vector<Case>& cases) {
  add(cases,
      {
          .name = "data_dependent_item",
          .tags = {"data-dependent"},
          .description =
              "Reading a tensor's value into C++ (x.sum().item<double>()) while tracing: the "
              "tracer runs on fake tensors that have shapes but no data, so the value does not "
              "exist yet and export fails with DataDependent at that line. Keep the value a "
              "tensor (x * x.sum() broadcasts a 0-dim tensor), so the graph computes it when the "
              "program runs.",
          .fn = adapt([](const Tensor& x) { return x * x.sum().item<double>(); }),
          .example_inputs = {randn({2, 3}, 0)},
          .expected_error = ErrorKind::DataDependent,
          .fix = "data_dependent_item_fixed",
      });

  add(cases,
      {
          .name = "data_dependent_item_fixed",
          .tags = {"data-dependent"},
          .description =
              "The program of data_dependent_item with the value kept a tensor: x * x.sum() "
              "broadcasts the 0-dim sum, so the graph computes it when the program runs.",
          .fn = adapt([](const Tensor& x) { return x * x.sum(); }),
          .example_inputs = {randn({2, 3}, 0)},
          .valid_inputs = {{randn({2, 3}, 1)}},
      });

  add(cases,
      {
          .name = "data_dependent_branch",
          .tags = {"data-dependent", "control-flow"},
          .description =
              "A C++ `if` on a tensor's value (`if (x.sum().item<double>() > 0)`) cannot be "
              "captured: which branch runs depends on data the tracer does not have, so export "
              "fails with DataDependent. Write it with cond() (see cond_closed_over_variable), which "
              "keeps both branches and picks one when the program runs, or, when both branches "
              "are cheap, compute both and select with where() (see data_dependent_where).",
          .fn = adapt([](const Tensor& x) {
            if (x.sum().item<double>() > 0) return x * 2.0;
            return -x;
          }),
          .example_inputs = {randn({2, 3}, 0)},
          .expected_error = ErrorKind::DataDependent,
          .fix = "data_dependent_where",
      });

  add(cases, {
                 .name = "data_dependent_where",
                 .tags = {"data-dependent", "control-flow"},
                 .description =
                     "The branch of data_dependent_branch written as data: both sides are "
                     "computed and where() picks per element by a condition tensor, so the choice "
                     "is made when the program runs and the program exports. Valid inputs take "
                     "either side.",
                 .fn = adapt([](const Tensor& x) { return where(x.sum().gt(0.0), x * 2.0, -x); }),
                 .example_inputs = {randn({2, 3}, 0)},
                 .options = spec({{{0, Dim("batch")}}}),
                 .valid_inputs = {{ones({2, 3})}, {-ones({5, 3})}, {randn({4, 3}, 1)}},
             });

  add(cases,
      {
          .name = "data_dependent_nonzero",
          .tags = {"data-dependent"},
          .description =
              "nonzero() returns one row per nonzero element, so its output size depends on the "
              "input's values, not just its shape. Under capture the row count is an unbacked "
              "symbol (u0, in [0, numel]) that the node binds when the program runs; later ops "
              "use it like any size.",
          .fn = adapt([](const Tensor& x) { return nonzero(x).to(DType::Float32) + 1.0; }),
          .example_inputs = {randn({4}, 0)},
          .valid_inputs = {{zeros({4})}, {ones({4})}},
      });

  add(cases,
      {
          .name = "data_dependent_masked_select",
          .tags = {"data-dependent"},
          .description =
              "masked_select() and indexing with a bool mask (x[mask]) keep the elements where "
              "the mask holds: how many only the data decides, so the length is an unbacked "
              "symbol.",
          .fn = adapt([](const Tensor& x) {
            const Tensor mask = x.gt(0.0);
            return std::vector<Tensor>{masked_select(x, mask), index(x, {mask}).sum()};
          }),
          .example_inputs = {randn({3, 4}, 0)},
          .valid_inputs = {{-ones({3, 4})}, {randn({3, 4}, 1)}},
      });

  add(cases,
      {
          .name = "constrain_as_size_example",
          .tags = {"data-dependent", "escape-hatch"},
          .description =
              "A tensor's value used as a size: item_int() gives an unbacked symbol u0, which "
              "has no example value, so export cannot decide `u0 >= 0` (needed to make a tensor "
              "of u0 rows) by tracing. check(a >= 0) and check(a <= 5) (or "
              "constrain_as_size(a, 0, 5)) state what holds: export decides with them, and the "
              "program asserts them when it runs (aten::_assert_scalar), refusing a value "
              "outside them.",
          .fn = adapt([](const Tensor& x) {
            const SymInt a = x.item_int();
            check(a >= 0);
            check(a <= 5);
            return zeros({a, 5});
          }),
          .example_inputs = {full({}, 4, DType::Int64)},
          .valid_inputs = {{full({}, 0, DType::Int64)}, {full({}, 5, DType::Int64)}},
          .invalid_inputs = {{full({}, 6, DType::Int64)}, {full({}, -1, DType::Int64)}},
      });

  add(cases,
      {
          .name = "constrain_as_value_example",
          .tags = {"data-dependent", "escape-hatch"},
          .description =
              "A C++ `if` on a data-dependent value is decided by its facts: with 0 <= a <= 5 "
              "known, `a < 6` always holds, so only the sin branch is traced (and the facts are "
              "asserted when the program runs).",
          .fn = adapt([](const Tensor& x, const Tensor& y) {
            const SymInt a = x.item_int();
            constrain_as_value(a, 0, 5);
            if (a < 6) return sin(y);
            return cos(y);
          }),
          .example_inputs = {full({}, 4, DType::Int64), randn({5, 5}, 0)},
          .valid_inputs = {{full({}, 0, DType::Int64), randn({5, 5}, 1)}},
          .invalid_inputs = {{full({}, 9, DType::Int64), randn({5, 5}, 2)}},
      });

  add(cases,
      {
          .name = "data_dependent_guard",
          .tags = {"data-dependent"},
          .description =
              "A shape decision on a data-dependent value that nothing decides: zeros(u0, 5) "
              "needs u0 >= 0, and item_int() says nothing about its sign. Export fails with "
              "DataDependent, naming the line, the condition and the facts that would decide "
              "it; add check(u0 >= 0) or constrain_as_size(u0) before (see "
              "constrain_as_size_example).",
          .fn = adapt([](const Tensor& x) { return zeros({x.item_int(), 5}); }),
          .example_inputs = {full({}, 4, DType::Int64)},
          .expected_error = ErrorKind::DataDependent,
          .fix = "constrain_as_size_example",
      });

  add(cases,
      {
          .name = "constraints_example4",
          .tags = {"data-dependent", "dynamic-shape"},
          .description =
              "A data-dependent length related to a dynamic size (the export tutorial's "
              "constraints examples): constrain_as_size(k) and check(k <= x.size(0)) let "
              "narrow(0, 0, k) trace; both are asserted when the program runs.",
          .fn = adapt([](const Tensor& x, const Tensor& k) {
            const SymInt n = k.item_int();
            constrain_as_size(n);
            check(n <= x.size(0));
            return x.narrow(0, 0, n) * 2.0;
          }),
          .example_inputs = {randn({6, 3}, 0), full({}, 2, DType::Int64)},
          .options = spec({{{0, Dim("rows")}}, {}}),
          .valid_inputs = {{randn({9, 3}, 1), full({}, 9, DType::Int64)},
                           {randn({2, 3}, 2), full({}, 0, DType::Int64)}},
          .invalid_inputs = {{randn({4, 3}, 3), full({}, 5, DType::Int64)}},
      });

  add(cases,
      {
          .name = "constraints_example5",
          .tags = {"data-dependent"},
          .description =
              "Two data-dependent values, one bounded by the other: check(lo <= hi) after "
              "constrain_as_size on both makes hi - lo a size (the export tutorial's "
              "constraints examples).",
          .fn = adapt([](const Tensor& bounds, const Tensor& y) {
            const SymInt lo = bounds.select(0, 0).item_int();
            const SymInt hi = bounds.select(0, 1).item_int();
            constrain_as_size(lo, 0, 8);
            constrain_as_size(hi, 0, 8);
            check(lo <= hi);
            return y.slice(0, lo, hi) + 1.0;
          }),
          .example_inputs = {from_vector<int64_t>({1, 5}, {2}), randn({8, 2}, 0)},
          .valid_inputs = {{from_vector<int64_t>({0, 8}, {2}), randn({8, 2}, 1)},
                           {from_vector<int64_t>({3, 3}, {2}), randn({8, 2}, 2)}},
          .invalid_inputs = {{from_vector<int64_t>({5, 2}, {2}), randn({8, 2}, 3)}},
      });

  add(cases,
      {
          .name = "item_float_argument",
          .tags = {"data-dependent"},
          .description =
              "A tensor's float value used as a number: under capture item_float() gives a "
              "symbolic float (%item), which ops take as their Scalar argument (x * s, "
              "full({3}, shift)) and which arithmetic (s * 0.5 + 1.0, -s) computes in the graph "
              "as PyTorch's graphs do (_operator.mul, _operator.add). The values are known only "
              "when the program runs; deciding on one in C++ is item_float_decision.",
          .fn = adapt([](const Tensor& x, const Tensor& scale) {
            const SymFloat s = scale.item_float();
            const SymFloat shift = s * 0.5 + 1.0;
            return (x * s + full({3}, shift)) / (-s);
          }),
          .example_inputs = {randn({3}, 0), full({}, 2.5)},
          .valid_inputs = {{randn({3}, 1), full({}, -0.75)}, {randn({3}, 2), full({}, 1e-3)}},
      });

  add(cases,
      {
          .name = "item_float_decision",
          .tags = {"data-dependent", "control-flow"},
          .description =
              "A C++ `if` on item_float()'s value cannot be captured: the value is known only "
              "when the program runs, so export fails with DataDependent at that line. Compare "
              "tensors and branch with cond() instead (cond(scale > 0, ...), see "
              "cond_closed_over_variable), or select with where() (data_dependent_where).",
          .fn = adapt([](const Tensor& x, const Tensor& scale) {
            if (static_cast<double>(scale.item_float()) > 0.0) return x * 2.0;
            return -x;
          }),
          .example_inputs = {randn({3}, 0), full({}, 2.5)},
          .expected_error = ErrorKind::DataDependent,
          .fix = "item_float_decision_fixed",
      });

  add(cases,
      {
          .name = "item_float_decision_fixed",
          .tags = {"data-dependent"},
          .description =
              "The program of item_float_decision with the decision made on tensors: "
              "scale.gt(0.0) is a bool tensor, and where() picks x * 2.0 or -x by it when the "
              "program runs.",
          .fn = adapt([](const Tensor& x, const Tensor& scale) {
            return where(scale.gt(0.0), x * 2.0, -x);
          }),
          .example_inputs = {randn({3}, 0), full({}, 2.5)},
          .valid_inputs = {{randn({3}, 1), full({}, -1.0)}},
      });

  add(cases,
      {
          .name = "scalar_output",
          .tags = {"dynamic-shape"},
          .description =
              "A program may return a size (a SymInt): here x.size(1) + 1 of a dynamic dim. The "
              "exported program returns it as an int64 0-dim tensor computed from the input's "
              "sizes (aten::scalar_tensor); PyTorch's archives that return one load the same "
              "way.",
          .fn = adapt([](const Tensor& x) { return x.size(1) + 1; }),
          .example_inputs = {randn({3, 2}, 0)},
          .options = spec({{{1, Dim("dim1_x")}}}),
          .valid_inputs = {{randn({3, 7}, 1)}},
      });

  add(cases,
      {
          .name = "unsupported_operator",
          .tags = {"operator"},
          .description =
              "sym_min / sym_max on sizes (PyTorch's torch.sym_min case): with static sizes the "
              "result is a plain integer, folded into the graph.",
          .fn = adapt([](const Tensor& x) {
            return x.sum() + static_cast<double>(sym_min(x.size(0), 100).guard_int());
          }),
          .example_inputs = {randn({3, 2}, 0)},
      });

  add(cases,
      {
          .name = "dynamic_shape_assert",
          .tags = {"assert"},
          .description =
              "C++ checks on sizes: check(x.size(0) > 2, message) with static sizes holds at "
              "once (and would fail at once when false); on dynamic sizes it is a guard like "
              "any other.",
          .fn = adapt([](const Tensor& x) {
            check(x.size(0) > 2, "x.size(0) is greater than 2");
            check(x.size(0) > 1);
            return x;
          }),
          .example_inputs = {randn({3, 2}, 0)},
      });

  add(cases,
      {
          .name = "list_contains",
          .tags = {"assert", "dynamic-shape"},
          .description =
              "Membership tests on sizes, written as SymBool expressions: the last dim is 6 or "
              "2, the first is not 4, 5 or 6.",
          .fn = adapt([](const Tensor& x) {
            check(x.size(-1) == 6 || x.size(-1) == 2);
            check(x.size(0) != 4 && x.size(0) != 5 && x.size(0) != 6);
            return x + x;
          }),
          .example_inputs = {randn({3, 2}, 0)},
      });
}

}  // namespace xport::exportdb
