// What a program may take and return: tensor lists, plain values, tuples, inputs as outputs.
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "exportdb/cases.h"
#include "xport/xport.h"

namespace xport::exportdb {

void add_input_output_cases(std::vector<Case>& cases) {
  {
    auto list = [](int64_t rows, uint64_t seed) {
      return std::vector<Tensor>{randn({2, 3}, seed), randn({rows, 3}, seed + 1)};
    };
    add(cases, {
                   .name = "list_inputs",
                   .tags = {"inputs"},
                   .description =
                       "An input that is a std::vector<Tensor>: each element becomes its own "
                       "graph input (xs_0, xs_1), and the contract fixes the list's length and "
                       "each element's shape and dtype. A list of another length, or an element "
                       "of another shape, is refused at run time. Element dims are static.",
                   .fn = adapt([](const std::vector<Tensor>& xs, const Tensor& y) {
                     return cat(xs, 0).sum({0}) * y;
                   }),
                   .example_inputs = {list(1, 0), randn({3}, 2)},
                   .options = spec({}, {"xs", "y"}),
                   .valid_inputs = {{list(1, 3), randn({3}, 5)}},
                   .invalid_inputs = {{std::vector<Tensor>{randn({2, 3}, 6)}, randn({3}, 7)},
                                      {list(2, 8), randn({3}, 10)}},
               });
  }

  add(cases,
      {
          .name = "int_argument",
          .tags = {"inputs"},
          .description =
              "A plain int64_t argument is not a tensor: the program is traced with its example "
              "value and specialised to it (x * 3.0 here), and the contract records that value, "
              "so calling the exported program with another int is refused with InvalidInput "
              "rather than silently computing with 3. Pass a value that changes per call as a "
              "tensor, or export one program per value.",
          .fn = adapt([](const Tensor& x, int64_t k) { return x * static_cast<double>(k); }),
          .example_inputs = {randn({2, 3}, 0), int64_t{3}},
          .options = spec({}, {"x", "k"}),
          .valid_inputs = {{randn({2, 3}, 1), int64_t{3}}},
          .invalid_inputs = {{randn({2, 3}, 2), int64_t{4}}},
      });

  add(cases,
      {
          .name = "float_and_bool_arguments",
          .tags = {"inputs"},
          .description =
              "double and bool arguments are specialised like ints: `scale` is baked into the "
              "graph and the `if (use_relu)` branch is decided while tracing. Both values are in "
              "the contract, so other values are refused at run time.",
          .fn = adapt([](const Tensor& x, double scale, bool use_relu) {
            const Tensor y = x * scale;
            return use_relu ? y.relu() : y;
          }),
          .example_inputs = {randn({4}, 0), 0.5, true},
          .options = spec({}, {"x", "scale", "use_relu"}),
          .valid_inputs = {{randn({4}, 1), 0.5, true}},
          .invalid_inputs = {{randn({4}, 2), 0.25, true}, {randn({4}, 3), 0.5, false}},
      });

  add(cases,
      {
          .name = "output_is_input",
          .tags = {"outputs"},
          .description = "A program may return one of its inputs unchanged next to computed "
                         "outputs: the graph's output names the input's placeholder directly, and "
                         "run() returns the tensor passed in for it.",
          .fn = adapt([](const Tensor& x, const Tensor& y) {
            return std::make_tuple(x, x.matmul(y).relu());
          }),
          .example_inputs = {randn({3, 4}, 0), randn({4, 2}, 1)},
          .options = spec({{{0, Dim("batch")}}, {}}, {"x", "y"}),
          .valid_inputs = {{randn({5, 4}, 2), randn({4, 2}, 3)}},
          .invalid_inputs = {{randn({5, 4}, 4), randn({4, 3}, 5)}},
      });

  add(cases,
      {
          .name = "multiple_outputs_tuple",
          .tags = {"outputs"},
          .description =
              "A program returning a std::tuple or std::pair, nested or not, has its outputs "
              "flattened in order: here a pair of (values, indices) of a max over dim 1 and of the "
              "softmax and the row sums gives four graph outputs. Integer outputs (the indices) "
              "keep their dtype.",
          .fn = adapt([](const Tensor& x) {
            const auto [values, indices] = x.max(1, false);
            return std::make_pair(std::make_tuple(values, indices),
                                  std::make_pair(x.softmax(1), x.sum({1})));
          }),
          .example_inputs = {randn({3, 5}, 0)},
          .options = spec({{{0, Dim("batch")}, {1, Dim("n")}}}),
          .valid_inputs = {{randn({2, 2}, 1)}, {randn({6, 11}, 2)}},
      });

  add(cases,
      {
          .name = "unused_input",
          .tags = {"inputs"},
          .description = "An input the program never reads is still part of its signature: run() "
                         "takes it and checks it against the contract (here its shape is static), "
                         "even though no node uses it.",
          .fn = adapt([](const Tensor& x, const Tensor&) { return x * 2.0; }),
          .example_inputs = {randn({3}, 0), randn({2}, 1)},
          .options = spec({}, {"x", "unused"}),
          .valid_inputs = {{randn({3}, 2), randn({2}, 3)}},
          .invalid_inputs = {{randn({3}, 4), randn({5}, 5)}},
      });

  add(cases,
      {
          .name = "output_repeated",
          .tags = {"outputs"},
          .description = "The same tensor returned twice is two outputs naming one graph value; "
                         "run() returns it in both places.",
          .fn = adapt([](const Tensor& x) {
            const Tensor y = x.exp();
            return std::make_tuple(y, x, y);
          }),
          .example_inputs = {randn({2, 3}, 0)},
          .valid_inputs = {{randn({2, 3}, 1)}},
      });

  add(cases,
      {
          .name = "output_view_of_input",
          .tags = {"outputs", "view"},
          .description = "Returning a view of an input (a transpose and a row) gives outputs "
                         "computed by view ops on the input's placeholder; their values and shapes "
                         "match the eager views.",
          .fn = adapt(
              [](const Tensor& x) { return std::make_tuple(x.transpose(0, 1), x.select(0, 1)); }),
          .example_inputs = {randn({3, 4}, 0)},
          .options = spec({{{0, Dim("batch")}, {1, Dim("n")}}}),
          .valid_inputs = {{randn({2, 2}, 1)}, {randn({5, 7}, 2)}},
      });

  add(cases,
      {
          .name = "scalar_and_bool_outputs",
          .tags = {"outputs"},
          .description =
              "0-dim and bool outputs: a full reduction gives a 0-dim tensor, a comparison a "
              "bool tensor; both keep their shape and dtype through export.",
          .fn = adapt([](const Tensor& x) { return std::make_tuple(x.sum(), x.gt(0.0)); }),
          .example_inputs = {randn({4, 3}, 0)},
          .options = spec({{{0, Dim("batch")}}}),
          .valid_inputs = {{randn({2, 3}, 1)}},
      });

  add(cases,
      {
          .name = "int_argument_as_size",
          .tags = {"inputs"},
          .description = "An int argument used as a size (x.reshape({k, -1})) is specialised like "
                         "any int argument: the graph uses its example value, and run() refuses "
                         "other values.",
          .fn = adapt([](const Tensor& x, int64_t k) {
            return x.reshape({k, -1});
          }),
          .example_inputs = {randn({12}, 0), int64_t{3}},
          .options = spec({}, {"x", "k"}),
          .valid_inputs = {{randn({12}, 1), int64_t{3}}},
          .invalid_inputs = {{randn({12}, 2), int64_t{4}}},
      });
}

}  // namespace xport::exportdb
