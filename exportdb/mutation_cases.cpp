// In-place updates: captured as functional ops where that is sound, refused where it is not yet.
#include <vector>

#include "exportdb/cases.h"
#include "xport/xport.h"

namespace xport::exportdb {

void add_mutation_cases(std::vector<Case>& cases) {
  add(cases,
      {
          .name = "inplace_intermediate",
          .tags = {"mutation"},
          .description =
              "In-place ops (add_, mul_) on a tensor the program computed itself are fine: "
              "nothing outside the program can see the update, so export records the functional "
              "op (aten::add.Tensor for add_) and rebinds the name to its result. The exported "
              "graph has no in-place ops.",
          .fn = adapt([](const Tensor& x) {
            Tensor y = x * 2.0;
            y.add_(1.0);
            y.mul_(x);
            return y;
          }),
          .example_inputs = {randn({4, 3}, 0)},
          .options = spec({{{0, Dim("batch")}}}),
          .valid_inputs = {{randn({2, 3}, 1)}, {randn({9, 3}, 2)}},
      });

  add(cases,
      {
          .name = "inplace_update_input",
          .tags = {"mutation"},
          .description =
              "Updating an input in place (x.add_(1.0)) changes the caller's tensor, which a "
              "functional graph cannot express yet, so export fails with UnsupportedOp. Compute "
              "a new tensor instead (y = x + 1.0) and return it; the same holds for parameters, "
              "buffers and captured tensors.",
          .fn = adapt([](const Tensor& x) {
            Tensor y = x;
            y.add_(1.0);
            return y;
          }),
          .example_inputs = {randn({3}, 0)},
          .expected_error = ErrorKind::UnsupportedOp,
      });

  add(cases, {
                 .name = "inplace_after_view",
                 .tags = {"mutation", "view"},
                 .description =
                     "An in-place update of a tensor while a view shares its memory would have "
                     "to update the view too; export does not track that yet and refuses with "
                     "UnsupportedOp. clone() the tensor before updating it, or compute a new one.",
                 .fn = adapt([](const Tensor& x) {
                   Tensor y = x * 2.0;
                   const Tensor row = y.select(0, 0);
                   y.add_(1.0);
                   return row + y.sum({0});
                 }),
                 .example_inputs = {randn({3, 4}, 0)},
                 .expected_error = ErrorKind::UnsupportedOp,
             });
}

}  // namespace xport::exportdb
