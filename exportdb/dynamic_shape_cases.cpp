// Dynamic dims: declaring them, and the guards that code over them records.
#include <cstdint>
#include <vector>

#include "exportdb/cases.h"
#include "xport/xport.h"

namespace xport::exportdb {
namespace {

Tensor if_guard(const Tensor& x) {
  if (x.size(0) <= 16) return x * 2.0;  // a guard on a dynamic dim
  return x;
}

Tensor matmul(const Tensor& x, const Tensor& y) { return x.matmul(y); }

}  // namespace

void add_dynamic_shape_cases(std::vector<Case>& cases) {
  add(cases, {
                 .name = "dynamic_batch",
                 .tags = {"dynamic-shape", "basic"},
                 .description =
                     "Marks dim 0 of x dynamic with Dim(\"batch\"): the graph is traced once "
                     "with a symbolic batch size and runs on any batch of 2 or more. Dims not "
                     "named in the spec stay static, so x.size(1) must still be 4. Sizes 0 and 1 "
                     "are outside every dynamic dim's range, because they broadcast differently.",
                 .fn = adapt([](const Tensor& x) { return (x - x.mean({1}, true)) * 2.0; }),
                 .example_inputs = {randn({8, 4}, 0)},
                 .options = spec({{{0, Dim("batch")}}}),
                 .valid_inputs = {{randn({2, 4}, 1)}, {randn({3, 4}, 2)}, {randn({100, 4}, 3)}},
                 .invalid_inputs = {{randn({1, 4}, 4)}, {randn({8, 5}, 5)}},
             });

  add(cases,
      {
          .name = "dynamic_dim_range",
          .tags = {"dynamic-shape", "spec"},
          .description =
              "A dynamic dim with a range: Dim(\"dx\", 4, 18) says x.size(0) is in (3, 18], "
              "as in PyTorch's torch.export tutorial. The program branches on the size, but both "
              "conditions hold for every size in the declared range, so the guards are implied "
              "by the spec and dropped. The bounds are inclusive: 4 and 18 run, 3 and 19 are "
              "refused before any kernel runs.",
          .fn = adapt([](const Tensor& x) {
            if (x.size(0) > 3 && x.size(0) <= 18) return x.sum({0}) + 1.0;  // implied
            return x.sum({0});
          }),
          .example_inputs = {randn({8, 3}, 0)},
          .options = spec({{{0, Dim("dx", 4, 18)}}}),
          .valid_inputs = {{randn({4, 3}, 1)}, {randn({18, 3}, 2)}},
          .invalid_inputs = {{randn({3, 3}, 3)}, {randn({19, 3}, 4)}},
      });

  add(cases,
      {
          .name = "dynamic_shape_if_guard",
          .tags = {"dynamic-shape", "control-flow", "spec"},
          .description =
              "A C++ `if` on a dynamic size (`if (x.size(0) <= 16)`) is decided by the example "
              "and recorded as a guard. The spec says the batch is anything in [2, 1024], but the "
              "graph is only right for batches up to 16, so export fails with a "
              "ConstraintViolation that names the guard, its source line, and a corrected spec "
              "to paste: Dim batch(\"batch\", 2, 16). Either narrow the range like that (see "
              "dynamic_shape_if_guard_fixed), or remove the branch on the size.",
          .fn = adapt(if_guard),
          .example_inputs = {randn({8, 3}, 0)},
          .options = spec({{{0, Dim("batch", 2, 1024)}}}),
          .expected_error = ErrorKind::ConstraintViolation,
          .fix = "dynamic_shape_if_guard_fixed",
      });

  add(cases, {
                 .name = "dynamic_shape_if_guard_fixed",
                 .tags = {"dynamic-shape", "control-flow", "spec"},
                 .description =
                     "The program of dynamic_shape_if_guard with the spec that export suggested: "
                     "Dim(\"batch\", 2, 16). The guard `x.size(0) <= 16` now follows from the "
                     "range, so it is dropped and the program exports; a batch of 17 is outside "
                     "the contract and refused at run time instead of taking the wrong branch.",
                 .fn = adapt(if_guard),
                 .example_inputs = {randn({8, 3}, 0)},
                 .options = spec({{{0, Dim("batch", 2, 16)}}}),
                 .valid_inputs = {{randn({2, 3}, 1)}, {randn({16, 3}, 2)}},
                 .invalid_inputs = {{randn({17, 3}, 3)}},
             });

  add(cases,
      {
          .name = "dynamic_shape_matmul_equal_dims",
          .tags = {"dynamic-shape", "spec"},
          .description =
              "x.matmul(y) needs x.size(1) == y.size(0). Declaring those two dims with separate "
              "Dims (k1, k2) says they vary independently, which the program cannot honour, so "
              "export fails with a ConstraintViolation naming the equality and suggesting a spec "
              "with one Dim for both. Use the same Dim object on both dims (see "
              "dynamic_shape_matmul_shared_dim).",
          .fn = adapt(matmul),
          .example_inputs = {randn({4, 6}, 0), randn({6, 3}, 1)},
          .options = spec({{{0, Dim("m")}, {1, Dim("k1")}}, {{0, Dim("k2")}}}, {"x", "y"}),
          .expected_error = ErrorKind::ConstraintViolation,
          .fix = "dynamic_shape_matmul_shared_dim",
      });

  {
    const Dim k("k");
    add(cases, {
                   .name = "dynamic_shape_matmul_shared_dim",
                   .tags = {"dynamic-shape", "spec"},
                   .description =
                       "One Dim object on two input dims declares them equal: x.size(1) and "
                       "y.size(0) are both `k`, which is what matmul needs, so the program exports "
                       "with one symbol for both. At run time inputs whose inner dims differ are "
                       "refused with an error naming both dims.",
                   .fn = adapt(matmul),
                   .example_inputs = {randn({4, 6}, 0), randn({6, 3}, 1)},
                   .options = spec({{{0, Dim("m")}, {1, k}}, {{0, k}}}, {"x", "y"}),
                   .valid_inputs = {{randn({5, 9}, 2), randn({9, 3}, 3)},
                                    {randn({2, 2}, 4), randn({2, 3}, 5)}},
                   .invalid_inputs = {{randn({5, 9}, 6), randn({8, 3}, 7)},
                                      {randn({5, 9}, 8), randn({9, 4}, 9)}},
               });
  }

  add(cases,
      {
          .name = "dynamic_shape_specialized_int",
          .tags = {"dynamic-shape", "spec"},
          .description =
              "Converting a dynamic size to a C++ integer (static_cast<int64_t>(x.size(0))) "
              "fixes it to the example's value: the graph built from it is only right for that "
              "size, so export refuses with a ConstraintViolation saying the dim was specialised. "
              "Keep sizes as SymInt (auto n = x.size(0); x.reshape({n * 3})), or drop the dim "
              "from the spec if it really is static.",
          .fn = adapt([](const Tensor& x) {
            const auto n = static_cast<int64_t>(x.size(0));  // specialises the batch
            return x.reshape({n * 3});
          }),
          .example_inputs = {randn({8, 3}, 0)},
          .options = spec({{{0, Dim("batch")}}}),
          .expected_error = ErrorKind::ConstraintViolation,
          .fix = "dynamic_shape_specialized_int_fixed",
      });

  add(cases,
      {
          .name = "dynamic_shape_specialized_int_fixed",
          .tags = {"dynamic-shape", "spec"},
          .description =
              "The program of dynamic_shape_specialized_int with the size kept a SymInt: n * 3 "
              "is an expression of the batch symbol, so the reshape follows every batch.",
          .fn = adapt([](const Tensor& x) {
            const SymInt n = x.size(0);  // stays symbolic
            return x.reshape({n * 3});
          }),
          .example_inputs = {randn({8, 3}, 0)},
          .options = spec({{{0, Dim("batch")}}}),
          .valid_inputs = {{randn({2, 3}, 1)}, {randn({5, 3}, 2)}},
      });

  add(cases,
      {
          .name = "dynamic_dim_specialized_by_broadcast",
          .tags = {"dynamic-shape", "spec", "broadcast"},
          .description =
              "Adding a weight of 4 elements to x forces x.size(0) == 4 (a dim of 4 only "
              "broadcasts with 4 or 1, and dynamic dims are never 1), so the dim declared "
              "dynamic can only ever be 4. Export fails with a ConstraintViolation and suggests "
              "the static spec; declare the dim static, or make the weight follow the batch.",
          .fn = adapt([w = from_vector<float>({1.0f, 2.0f, 3.0f, 4.0f}, {4})](const Tensor& x) {
            return x + w;
          }),
          .example_inputs = {randn({4}, 0)},
          .options = spec({{{0, Dim("batch")}}}),
          .expected_error = ErrorKind::ConstraintViolation,
          .fix = "dynamic_dim_specialized_by_broadcast_fixed",
      });

  add(cases,
      {
          .name = "dynamic_dim_specialized_by_broadcast_fixed",
          .tags = {"dynamic-shape", "spec"},
          .description =
              "The program of dynamic_dim_specialized_by_broadcast with the dim declared static "
              "(no spec): the program only works for 4 elements, and now the contract says so, "
              "refusing any other size before a kernel runs.",
          .fn = adapt([w = from_vector<float>({1.0f, 2.0f, 3.0f, 4.0f}, {4})](const Tensor& x) {
            return x + w;
          }),
          .example_inputs = {randn({4}, 0)},
          .valid_inputs = {{randn({4}, 1)}},
          .invalid_inputs = {{randn({5}, 2)}},
      });

  add(cases,
      {
          .name = "dynamic_shape_inexpressible_guard",
          .tags = {"dynamic-shape", "control-flow", "spec"},
          .description =
              "A branch on a property of a dynamic size that no range or equality of dims can "
              "state (`x.size(0) % 2 == 0`): the guard narrows the contract to even sizes, which "
              "a spec cannot express, so export fails with a ConstraintViolation that marks the "
              "guard [*]. Compute both results and select between them as data, or make the "
              "dim static.",
          .fn = adapt([](const Tensor& x) {
            if (x.size(0) % 2 == 0) return x.reshape({2, -1});
            return x.unsqueeze(0);
          }),
          .example_inputs = {randn({8}, 0)},
          .options = spec({{{0, Dim("n")}}}),
          .expected_error = ErrorKind::ConstraintViolation,
          .fix = "dynamic_shape_inexpressible_guard_fixed",
      });

  add(cases,
      {
          .name = "dynamic_shape_inexpressible_guard_fixed",
          .tags = {"dynamic-shape", "spec"},
          .description =
              "The program of dynamic_shape_inexpressible_guard with the dim static: its two "
              "branches give different shapes, so no data select can join them; exported for 8 "
              "elements, the program takes the even branch and refuses other sizes.",
          .fn = adapt([](const Tensor& x) {
            if (x.size(0) % 2 == 0) return x.reshape({2, -1});
            return x.unsqueeze(0);
          }),
          .example_inputs = {randn({8}, 0)},
          .valid_inputs = {{randn({8}, 1)}},
          .invalid_inputs = {{randn({7}, 2)}},
      });

  add(cases, {
                 .name = "dynamic_reduction",
                 .tags = {"dynamic-shape"},
                 .description =
                     "Reductions over a dynamic dim: the mean divides by the symbolic count and "
                     "var's correction uses it too, so the graph is right for every batch size; "
                     "softmax over the dynamic dim normalises over however many rows there are.",
                 .fn = adapt([](const Tensor& x) {
                   return std::make_tuple(x.mean({0}), var(x, {0}), x.softmax(0));
                 }),
                 .example_inputs = {randn({5, 3}, 0)},
                 .options = spec({{{0, Dim("batch")}}}),
                 .valid_inputs = {{randn({2, 3}, 1)}, {randn({64, 3}, 2)}},
             });

  add(cases,
      {
          .name = "dynamic_shape_factory",
          .tags = {"dynamic-shape"},
          .description =
              "Tensors created inside the program with a dynamic size (full({t}, 0.5), "
              "zeros({n, 2}) for padding) are graph ops with symbolic sizes, not constants, so "
              "they follow the input's shape at run time.",
          .fn = adapt([](const Tensor& x) {
            const SymInt n = x.size(0), t = x.size(1);
            const Tensor half = full({t}, 0.5);                // [t]
            const Tensor padded = cat({x, zeros({n, 2})}, 1);  // [n, t + 2]
            return std::make_tuple(x * half, padded);
          }),
          .example_inputs = {randn({3, 5}, 0)},
          .options = spec({{{0, Dim("n")}, {1, Dim("t")}}}),
          .valid_inputs = {{randn({2, 2}, 1)}, {randn({4, 9}, 2)}},
      });
}

}  // namespace xport::exportdb
