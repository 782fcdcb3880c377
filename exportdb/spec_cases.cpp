// Specs that cannot be right, whatever the program: refused before tracing with InvalidSpec.
#include <vector>

#include "exportdb/cases.h"
#include "xport/xport.h"

namespace xport::exportdb {
namespace {

Tensor add_one(const Tensor& x) { return x + 1.0; }

}  // namespace

void add_spec_cases(std::vector<Case>& cases) {
  add(cases,
      {
          .name = "dynamic_shape_example_zero_one",
          .tags = {"dynamic-shape", "spec"},
          .description =
              "A dynamic dim whose example size is 1 (or 0) under Dim(\"batch\"), whose range "
              "starts at 2: the example is outside its own spec, and export refuses with "
              "InvalidSpec. Declare Dim(\"batch\", 1) to include batch 1: export traces the "
              "general case and proves that no decision differs at 1 (see size_one_batch), or "
              "fails naming the one that does (size_one_broadcast).",
          .fn = adapt(add_one),
          .example_inputs = {randn({1, 3}, 0)},
          .options = spec({{{0, Dim("batch")}}}),
          .expected_error = ErrorKind::InvalidSpec,
          .fix = "dynamic_shape_example_zero_one_fixed",
      });

  add(cases,
      {
          .name = "dynamic_shape_example_zero_one_fixed",
          .tags = {"spec", "size-0-1"},
          .description =
              "The program of dynamic_shape_example_zero_one with Dim(\"batch\", 1): the example "
              "of batch 1 is inside the range, export traces the general case and the program "
              "runs batch 1.",
          .fn = adapt(add_one),
          .example_inputs = {randn({1, 3}, 0)},
          .options = spec({{{0, Dim("batch", 1)}}}),
          .valid_inputs = {{randn({1, 3}, 1)}, {randn({6, 3}, 2)}},
      });

  {
    const Dim n("n");
    add(cases,
        {
            .name = "conflicting_spec",
            .tags = {"dynamic-shape", "spec"},
            .description =
                "One Dim object on two dims declares them equal, but the example has them "
                "different (4 and 3), so the spec contradicts its own example and export refuses "
                "with InvalidSpec. Use two Dims when the dims vary independently, or fix the "
                "example when they really are equal.",
            .fn = adapt(add_one),
            .example_inputs = {randn({4, 3}, 0)},
            .options = spec({{{0, n}, {1, n}}}),
            .expected_error = ErrorKind::InvalidSpec,
            .fix = "conflicting_spec_fixed",
        });
  }

  add(cases,
      {
          .name = "conflicting_spec_fixed",
          .tags = {"spec"},
          .description =
              "The program of conflicting_spec with two Dims for the two dims, which vary "
              "independently in the example (4 and 3).",
          .fn = adapt(add_one),
          .example_inputs = {randn({4, 3}, 0)},
          .options = spec({{{0, Dim("rows")}, {1, Dim("cols")}}}),
          .valid_inputs = {{randn({2, 7}, 1)}},
      });

  add(cases,
      {
          .name = "spec_range_excludes_example",
          .tags = {"dynamic-shape", "spec"},
          .description =
              "A Dim's range must contain the example's size: Dim(\"batch\", 2, 4) with an "
              "example batch of 8 is refused with InvalidSpec, because the trace would describe "
              "a size the contract does not allow. Widen the range or pick an example inside it.",
          .fn = adapt(add_one),
          .example_inputs = {randn({8, 3}, 0)},
          .options = spec({{{0, Dim("batch", 2, 4)}}}),
          .expected_error = ErrorKind::InvalidSpec,
          .fix = "spec_range_excludes_example_fixed",
      });

  add(cases,
      {
          .name = "spec_range_excludes_example_fixed",
          .tags = {"spec"},
          .description =
              "The program of spec_range_excludes_example with the range widened to hold the "
              "example: Dim(\"batch\", 2, 16) and a batch of 8.",
          .fn = adapt(add_one),
          .example_inputs = {randn({8, 3}, 0)},
          .options = spec({{{0, Dim("batch", 2, 16)}}}),
          .valid_inputs = {{randn({16, 3}, 1)}},
          .invalid_inputs = {{randn({17, 3}, 2)}},
      });

  add(cases, {
                 .name = "spec_dim_out_of_rank",
                 .tags = {"spec"},
                 .description =
                     "A spec entry for a dim the input does not have (dim 2 of a 2-D tensor) is "
                     "refused with InvalidSpec naming the input and the dim. Dim indices count "
                     "from 0 and must be below the input's rank.",
                 .fn = adapt(add_one),
                 .example_inputs = {randn({4, 3}, 0)},
                 .options = spec({{{2, Dim("batch")}}}),
                 .expected_error = ErrorKind::InvalidSpec,
                 .fix = "spec_dim_out_of_rank_fixed",
             });

  add(cases,
      {
          .name = "spec_dim_out_of_rank_fixed",
          .tags = {"spec"},
          .description =
              "The program of spec_dim_out_of_rank with the spec naming a dim the input has: "
              "dim 0 of the 2-D input.",
          .fn = adapt(add_one),
          .example_inputs = {randn({4, 3}, 0)},
          .options = spec({{{0, Dim("batch")}}}),
          .valid_inputs = {{randn({9, 3}, 1)}},
      });

  add(cases, {
                 .name = "spec_wrong_input_count",
                 .tags = {"spec", "inputs"},
                 .description =
                     "options.dynamic_shapes has one entry per positional input (an empty map "
                     "for an input with no dynamic dim). A spec with two entries for a function "
                     "of one input is refused with InvalidSpec; write `{}` for static inputs "
                     "rather than leaving entries out.",
                 .fn = adapt(add_one),
                 .example_inputs = {randn({4, 3}, 0)},
                 .options = spec({{{0, Dim("batch")}}, {}}),
                 .expected_error = ErrorKind::InvalidSpec,
                 .fix = "spec_wrong_input_count_fixed",
             });

  add(cases,
      {
          .name = "spec_wrong_input_count_fixed",
          .tags = {"spec"},
          .description =
              "The program of spec_wrong_input_count with one spec entry for its one input.",
          .fn = adapt(add_one),
          .example_inputs = {randn({4, 3}, 0)},
          .options = spec({{{0, Dim("batch")}}}),
          .valid_inputs = {{randn({9, 3}, 1)}},
      });
}

}  // namespace xport::exportdb
