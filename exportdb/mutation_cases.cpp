// In-place updates: captured as functional ops (and, for inputs, as mutation outputs), views of
// an updated tensor taken again from its new value; updates export cannot express yet refused.
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

  const Dim n("n");
  add(cases,
      {
          .name = "inplace_update_input",
          .tags = {"mutation"},
          .description =
              "Updating an input in place (y.mul_(2.0)) changes the caller's tensor. The graph "
              "stays functional: it computes the new value, and the signature lists it as a "
              "`user input mutation` output, which ExportedProgram::run, the runtime and "
              "PyTorch (user_inputs_to_mutate) write back into the caller's tensor after the "
              "call, as the eager program would have.",
          .fn = adapt([](const Tensor& x, const Tensor& y) {
            Tensor updated = y;
            updated.mul_(2.0);
            return x + updated;
          }),
          .example_inputs = {randn({4}, 0), randn({4}, 1)},
          .options = spec({{{0, n}}, {{0, n}}}),
          .valid_inputs = {{randn({7}, 2), randn({7}, 3)}},
      });
  add(cases, {
                 .name = "inplace_after_view",
                 .tags = {"mutation", "view"},
                 .description =
                     "A view taken before an in-place update of its base (row = y.select(0, 0); "
                     "y.add_(1.0)) shows the update, as it does in eager: export takes the view "
                     "again from the updated value (an aten::select of the add's result), as "
                     "PyTorch's functionalization does, so the graph reads the new row.",
                 .fn = adapt([](const Tensor& x) {
                   Tensor y = x * 2.0;
                   const Tensor row = y.select(0, 0);
                   y.add_(1.0);
                   return row + y.sum({0});
                 }),
                 .example_inputs = {randn({3, 4}, 0)},
                 .valid_inputs = {{randn({3, 4}, 1)}},
             });

  add(cases, {
                 .name = "inplace_view_update",
                 .tags = {"mutation", "view"},
                 .description =
                     "Updating a view in place (y.select(0, 0).fill_(0.0)) also updates the "
                     "tensor it views, which export does not express yet: UnsupportedOp. Write "
                     "the whole tensor instead: y.index_copy_(0, index, rows), y.index_put_, or "
                     "a new tensor from select_scatter / slice_scatter.",
                 .fn = adapt([](const Tensor& x) {
                   Tensor y = x * 2.0;
                   y.select(0, 0).fill_(0.0);
                   return y;
                 }),
                 .example_inputs = {randn({3, 4}, 0)},
                 .expected_error = ErrorKind::UnsupportedOp,
                 .fix = "inplace_view_update_fixed",
             });

  add(cases,
      {
          .name = "inplace_view_update_fixed",
          .tags = {"mutation"},
          .description =
              "The program of inplace_view_update writing the whole tensor: select_scatter puts "
              "a row of zeros at row 0 of a new tensor, which is what filling the view meant.",
          .fn = adapt([](const Tensor& x) {
            const Tensor y = x * 2.0;
            return select_scatter(y, zeros({4}), 0, 0);
          }),
          .example_inputs = {randn({3, 4}, 0)},
          .valid_inputs = {{randn({3, 4}, 1)}},
      });
}

}  // namespace xport::exportdb
