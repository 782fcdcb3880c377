// Ops over dynamic dims: views, slices, derived dims, concatenation, broadcasting, attention.
#include <cstdint>
#include <vector>

#include "exportdb/cases.h"
#include "xport/xport.h"

namespace xport::exportdb {

void add_dynamic_shape_op_cases(std::vector<Case>& cases) {
  add(cases,
      {
          .name = "dynamic_shape_view_reshape",
          .tags = {"dynamic-shape", "view"},
          .description =
              "view, reshape and flatten over dynamic dims: sizes computed from other sizes "
              "(x.size(0)), an inferred -1, and flatten of two dynamic dims all stay symbolic, so "
              "the graph records the size expressions (s0*s1) instead of the example's numbers "
              "and runs on any batch and sequence length.",
          .fn = adapt([](const Tensor& x) {
            const Tensor rows = x.view({-1, 4});                  // [b*t, 4]
            const Tensor per_batch = x.reshape({x.size(0), -1});  // [b, t*4]
            const Tensor flat = x.flatten(0, 1);                  // [b*t, 4]
            return std::make_tuple(rows * 2.0 + flat, per_batch.sum({1}));
          }),
          .example_inputs = {randn({3, 5, 4}, 0)},
          .options = spec({{{0, Dim("batch")}, {1, Dim("seq")}}}),
          .valid_inputs = {{randn({2, 2, 4}, 1)}, {randn({7, 3, 4}, 2)}},
          .invalid_inputs = {{randn({3, 5, 3}, 3)}},
      });

  add(cases,
      {
          .name = "dynamic_shape_slicing",
          .tags = {"dynamic-shape", "view"},
          .description =
              "slice and narrow with bounds computed from dynamic sizes: dropping the first and "
              "last rows (x.slice(0, 1, n - 1)), and the differences of neighbouring columns "
              "from x.narrow(1, 1, m - 1) and x.slice(1, 0, -1), where the negative end counts "
              "from the end as usual. The bounds are symbolic expressions in the graph, so each "
              "input gets its own slices. Dim(\"n\", 3) keeps at least one inner row.",
          .fn = adapt([](const Tensor& x) {
            const SymInt n = x.size(0), m = x.size(1);
            const Tensor inner = x.slice(0, 1, n - 1);  // [n - 2, m]
            const Tensor tail = x.narrow(1, 1, m - 1);  // [n, m - 1]: columns 1 ..
            const Tensor head = x.slice(1, 0, -1);      // [n, m - 1]: columns .. m - 2
            return std::make_tuple(inner * 2.0, tail - head);
          }),
          .example_inputs = {randn({6, 8}, 0)},
          .options = spec({{{0, Dim("n", 3)}, {1, Dim("m")}}}),
          .valid_inputs = {{randn({3, 2}, 1)}, {randn({10, 7}, 2)}},
          .invalid_inputs = {{randn({2, 8}, 3)}},
      });

  add(cases,
      {
          .name = "dynamic_shape_narrow_half",
          .tags = {"dynamic-shape", "view"},
          .description =
              "A length computed by floor division of a dynamic size: x.narrow(1, 0, m / 2) "
              "takes the first half of the columns, [n, m // 2]. narrow checks that the slice "
              "fits (0 + m // 2 <= m), which holds for every m >= 0, so the check is implied "
              "and the program exports for every m.",
          .fn = adapt([](const Tensor& x) { return x.narrow(1, 0, x.size(1) / 2) * 2.0; }),
          .example_inputs = {randn({3, 8}, 0)},
          .options = spec({{{1, Dim("m")}}}),
          .valid_inputs = {{randn({3, 2}, 1)}, {randn({3, 7}, 2)}},
          .invalid_inputs = {{randn({4, 8}, 3)}},
      });

  {
    const Dim d("d");
    add(cases,
        {
            .name = "derived_dims",
            .tags = {"dynamic-shape", "spec", "derived-dim"},
            .description =
                "A derived dim states a relation between inputs: x has 2*d elements and y "
                "has d. The program reshapes x to [2, d] and adds y, which is only valid "
                "under that relation; declaring x's dim as `2 * d` lets it export with one "
                "symbol, and inputs that break the relation are refused at run time.",
            .fn = adapt([](const Tensor& x, const Tensor& y) {
              return x.reshape({2, y.size(0)}) + y;
            }),
            .example_inputs = {randn({8}, 0), randn({4}, 1)},
            .options = spec({{{0, 2 * d}}, {{0, d}}}, {"x", "y"}),
            .valid_inputs = {{randn({14}, 2), randn({7}, 3)}, {randn({4}, 4), randn({2}, 5)}},
            .invalid_inputs = {{randn({14}, 6), randn({6}, 7)}, {randn({15}, 8), randn({7}, 9)}},
        });
  }

  {
    const Dim d("d", 2, 10);
    add(cases,
        {
            .name = "derived_dim_offset",
            .tags = {"dynamic-shape", "spec", "derived-dim"},
            .description =
                "A derived dim with an offset: x has d + 1 rows and y has d, as with a "
                "sequence and its shifted-by-one targets. x.slice(0, 1) has d rows, so it "
                "adds to y; the spec `d + 1` on x and `d` on y states exactly that, and "
                "the program exports with one symbol. The range Dim(\"d\", 2, 10) bounds y's "
                "rows, and through the relation x's rows to [3, 11].",
            .fn = adapt([](const Tensor& x, const Tensor& y) { return x.slice(0, 1) + y; }),
            .example_inputs = {randn({5, 3}, 0), randn({4, 3}, 1)},
            .options = spec({{{0, d + 1}}, {{0, d}}}, {"x", "y"}),
            .valid_inputs = {{randn({3, 3}, 2), randn({2, 3}, 3)},
                             {randn({11, 3}, 4), randn({10, 3}, 5)},
                             {randn({10, 3}, 4).slice(0, 1), randn({8, 3}, 5)}},
            .invalid_inputs = {{randn({5, 3}, 6), randn({5, 3}, 7)},
                               {randn({12, 3}, 8), randn({11, 3}, 9)},
                               {randn({2, 3}, 10), randn({1, 3}, 11)}},
        });
  }

  {
    const Dim batch("batch");
    add(cases,
        {
            .name = "cat_dynamic_inputs",
            .tags = {"dynamic-shape"},
            .description = "cat along a dim whose sizes are two independent dynamic dims gives a "
                           "symbolic sum (s1 + s2); the other dims must agree, which one shared "
                           "Dim `batch` on both inputs declares. Inputs with different batches are "
                           "refused at run time.",
            .fn = adapt([](const Tensor& x, const Tensor& y) {
              const Tensor xy = cat({x, y}, 1);
              return xy.softmax(1);
            }),
            .example_inputs = {randn({3, 4}, 0), randn({3, 5}, 1)},
            .options = spec({{{0, batch}, {1, Dim("n")}}, {{0, batch}, {1, Dim("m")}}}, {"x", "y"}),
            .valid_inputs = {{randn({2, 2}, 2), randn({2, 9}, 3)},
                             {randn({6, 7}, 4), randn({6, 2}, 5)}},
            .invalid_inputs = {{randn({3, 4}, 6), randn({4, 5}, 7)}},
        });
  }

  add(cases,
      {
          .name = "broadcast_dynamic_against_one",
          .tags = {"dynamic-shape", "broadcast"},
          .description =
              "Broadcasting a dynamic dim against a static 1: y's dim 0 is 1, so it stretches to "
              "x's batch whatever that is. This is why dynamic dims are never 0 or 1: a dynamic "
              "size of 1 would itself broadcast, and the graph could not tell which way.",
          .fn = adapt([](const Tensor& x, const Tensor& y) { return x * y + y; }),
          .example_inputs = {randn({4, 3}, 0), randn({1, 3}, 1)},
          .options = spec({{{0, Dim("batch")}}, {}}, {"x", "y"}),
          .valid_inputs = {{randn({2, 3}, 2), randn({1, 3}, 3)},
                           {randn({33, 3}, 4), randn({1, 3}, 5)}},
          .invalid_inputs = {{randn({4, 3}, 6), randn({4, 3}, 7)}},
      });

  {
    const Dim batch("batch"), seq("seq");
    const DimSpec dims = {{0, batch}, {2, seq}};
    auto qkv = [](int64_t n, int64_t t, uint64_t seed) {
      return std::vector<Value>{randn({n, 2, t, 8}, seed), randn({n, 2, t, 8}, seed + 1),
                                randn({n, 2, t, 8}, seed + 2)};
    };
    add(cases,
        {
            .name = "dynamic_sequence_attention",
            .tags = {"dynamic-shape", "attention"},
            .description =
                "Scaled dot-product attention with a causal mask over a dynamic batch and "
                "sequence length: the [T, T] score matrix, the mask and the softmax are all sized "
                "by the symbolic T, so one exported program serves every sequence length. q, k "
                "and v share the Dims `batch` and `seq`.",
            .fn = adapt([](const Tensor& q, const Tensor& k, const Tensor& v) {
              return scaled_dot_product_attention(q, k, v, Tensor(), 0.0, /*is_causal=*/true);
            }),
            .example_inputs = qkv(2, 6, 0),
            .options = spec({dims, dims, dims}, {"q", "k", "v"}),
            .valid_inputs = {qkv(3, 2, 10), qkv(2, 17, 20)},
            .invalid_inputs = {{randn({2, 2, 6, 8}, 30), randn({2, 2, 5, 8}, 31),
                                randn({2, 2, 6, 8}, 32)}},
        });
  }

  {
    const Dim d("d");
    add(cases,
        {
            .name = "derived_dim_only",
            .tags = {"dynamic-shape", "spec", "derived-dim"},
            .description = "A derived dim whose root is used nowhere else: `2 * d` on x's only dim "
                           "says its size is even. The program splits x into two halves; odd sizes "
                           "are outside the contract and refused at run time.",
            .fn = adapt([](const Tensor& x) {
              const Tensor halves = x.reshape({2, -1});
              return halves.select(0, 0) * halves.select(0, 1);
            }),
            .example_inputs = {randn({8}, 0)},
            .options = spec({{{0, 2 * d}}}),
            .valid_inputs = {{randn({4}, 1)}, {randn({30}, 2)}},
            .invalid_inputs = {{randn({7}, 3)}, {randn({2}, 4)}},
        });
  }

  {
    const Dim d("d", 2, 50);
    add(cases,
        {
            .name = "derived_dim_guard_implied",
            .tags = {"dynamic-shape", "spec", "derived-dim", "control-flow"},
            .description =
                "Guards that follow from a derived dim and a range are dropped: with x of d + 1 "
                "rows, y of d and d in [2, 50], `x.size(0) > y.size(0)` and "
                "`x.size(0) + y.size(0) <= 101` hold for every input in the contract, so the "
                "branch adds no constraint and the program exports.",
            .fn = adapt([](const Tensor& x, const Tensor& y) {
              if (x.size(0) > y.size(0) && x.size(0) + y.size(0) <= 101) {
                return x.slice(0, 0, y.size(0)) * y;
              }
              return y;
            }),
            .example_inputs = {randn({5, 3}, 0), randn({4, 3}, 1)},
            .options = spec({{{0, d + 1}}, {{0, d}}}, {"x", "y"}),
            .valid_inputs = {{randn({3, 3}, 2), randn({2, 3}, 3)},
                             {randn({51, 3}, 4), randn({50, 3}, 5)}},
            .invalid_inputs = {{randn({52, 3}, 6), randn({51, 3}, 7)}},
        });
  }
}

}  // namespace xport::exportdb
