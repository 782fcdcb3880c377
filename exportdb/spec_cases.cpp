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
        });
  }

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
             });
}

}  // namespace xport::exportdb
