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
              "input's values, not just its shape. Export does not support data-dependent output "
              "sizes yet and fails with DataDependent. Where a fixed-size result works, use a "
              "mask instead (where(x != 0, x, 0), or a sum of the mask for a count).",
          .fn = adapt([](const Tensor& x) { return nonzero(x); }),
          .example_inputs = {randn({4}, 0)},
          .expected_error = ErrorKind::DataDependent,
      });
}

}  // namespace xport::exportdb
