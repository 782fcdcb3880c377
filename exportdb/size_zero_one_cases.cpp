// Dynamic dims whose range includes 0 or 1: the program is the same for those sizes (exported,
// and run at them), or a decision differs there and export says which, with the range to use.
#include <vector>

#include "exportdb/cases.h"
#include "xport/xport.h"

namespace xport::exportdb {

void add_size_zero_one_cases(std::vector<Case>& cases) {
  add(cases, {
                 .name = "size_one_batch",
                 .tags = {"dynamic-shape", "size-0-1"},
                 .description =
                     "Dim(\"batch\", 1, 64) keeps batch 1 in the contract: nothing in a linear "
                     "layer, a GELU or a reshape of a contiguous tensor decides differently at "
                     "batch 1, so one program serves batch 1 and batch 64. (PyTorch's export "
                     "starts such ranges at 2.) An example of batch 1 works too: it is traced "
                     "as the general case.",
                 .fn = adapt([](const Tensor& x) {
                   return gelu(x.matmul(full({8, 4}, 0.25)) + 1.0).reshape({-1, 2, 2});
                 }),
                 .example_inputs = {randn({1, 8}, 0)},
                 .options = spec({{{0, Dim("batch", 1, 64)}}}),
                 .valid_inputs = {{randn({1, 8}, 1)}, {randn({64, 8}, 2)}, {randn({5, 8}, 3)}},
                 .invalid_inputs = {{randn({0, 8}, 4)}, {randn({65, 8}, 5)}},
             });

  add(cases, {
                 .name = "size_one_broadcast",
                 .tags = {"dynamic-shape", "size-0-1"},
                 .description =
                     "x + y with both lengths dynamic from 1: at length 1 an operand would "
                     "broadcast, which the general program does not do, so export fails with "
                     "ConstraintViolation naming the decision (n >= 2) and the spec that holds "
                     "(Dim n(\"n\", 2, 8) shared by both). To keep 1, make the program the same "
                     "for it: expand() the operand that may be 1 to the other's size.",
                 .fn = adapt([](const Tensor& x, const Tensor& y) { return x + y; }),
                 .example_inputs = {randn({4}, 0), randn({4}, 1)},
                 .options = spec({{{0, Dim("n", 1, 8)}}, {{0, Dim("m", 1, 8)}}}),
                 .expected_error = ErrorKind::ConstraintViolation,
                 .fix = "size_one_broadcast_fixed",
             });

  {
    const Dim n("n", 2, 8);
    add(cases,
        {
            .name = "size_one_broadcast_fixed",
            .tags = {"size-0-1", "dynamic-shape"},
            .description =
                "The program of size_one_broadcast with the spec export suggested: one "
                "Dim n(\"n\", 2, 8) shared by both inputs, so neither operand can be 1 and "
                "broadcast.",
            .fn = adapt([](const Tensor& x, const Tensor& y) { return x + y; }),
            .example_inputs = {randn({4}, 0), randn({4}, 1)},
            .options = spec({{{0, n}}, {{0, n}}}),
        });
  }

  add(cases, {
                 .name = "size_one_squeeze",
                 .tags = {"dynamic-shape", "size-0-1"},
                 .description =
                     "squeeze(0) drops dim 0 only when it is 1, so its result's rank depends on "
                     "a dim declared dynamic from 1: ConstraintViolation (n >= 2). Squeeze a "
                     "static dim, or index it (x.select(0, 0)) when it is meant to be 1.",
                 .fn = adapt([](const Tensor& x) { return x.squeeze(0) * 2.0; }),
                 .example_inputs = {randn({4, 3}, 0)},
                 .options = spec({{{0, Dim("n", 1, 8)}}}),
                 .expected_error = ErrorKind::ConstraintViolation,
                 .fix = "size_one_squeeze_fixed",
             });

  add(cases,
      {
          .name = "size_one_squeeze_fixed",
          .tags = {"size-0-1"},
          .description =
              "The program of size_one_squeeze with the squeezed dim static: x is [1, 3] and "
              "stays so, so squeeze(0) always drops it and the result's rank is fixed.",
          .fn = adapt([](const Tensor& x) { return x.squeeze(0) * 2.0; }),
          .example_inputs = {randn({1, 3}, 0)},
          .valid_inputs = {{randn({1, 3}, 1)}},
          .invalid_inputs = {{randn({2, 3}, 2)}},
      });

  const Dim n("n", 0, 8);
  add(cases, {
                 .name = "size_zero_empty_sum",
                 .tags = {"dynamic-shape", "size-0-1"},
                 .description =
                     "Dim(\"n\", 0, 8): a sum over an empty dim is zeros, and so is a matmul "
                     "whose inner dim is empty, so one program runs n = 0 as eager does.",
                 .fn = adapt([](const Tensor& x, const Tensor& w) {
                   return x.sum({0}) + w.matmul(x).sum({0});
                 }),
                 .example_inputs = {randn({4, 3}, 0), randn({2, 4}, 1)},
                 .options = spec({{{0, n}}, {{1, n}}}),
                 .valid_inputs = {{randn({0, 3}, 2), randn({2, 0}, 3)},
                                  {randn({8, 3}, 4), randn({2, 8}, 5)}},
                 .invalid_inputs = {{randn({9, 3}, 6), randn({2, 9}, 7)}},
             });

  add(cases, {
                 .name = "size_zero_empty_max",
                 .tags = {"dynamic-shape", "size-0-1"},
                 .description =
                     "max over a dim has no value when the dim is empty, so the program is not "
                     "valid at n = 0: ConstraintViolation (n >= 1). Start the range at 1: an "
                     "empty input has no maximum.",
                 .fn = adapt([](const Tensor& x) { return x.max(0).first; }),
                 .example_inputs = {randn({4, 3}, 0)},
                 .options = spec({{{0, Dim("n", 0, 8)}}}),
                 .expected_error = ErrorKind::ConstraintViolation,
                 .fix = "size_zero_empty_max_fixed",
             });

  add(cases,
      {
          .name = "size_zero_empty_max_fixed",
          .tags = {"size-0-1", "dynamic-shape"},
          .description =
              "The program of size_zero_empty_max with the range starting at 1 (Dim(\"n\", 1, "
              "8)): every input has a maximum, and an empty one is refused before the program "
              "runs.",
          .fn = adapt([](const Tensor& x) { return x.max(0).first; }),
          .example_inputs = {randn({4, 3}, 0)},
          .options = spec({{{0, Dim("n", 1, 8)}}}),
          .valid_inputs = {{randn({1, 3}, 1)}, {randn({8, 3}, 2)}},
          .invalid_inputs = {{randn({0, 3}, 3)}},
      });
}

}  // namespace xport::exportdb
