// Programs whose shapes are all static: what export does with no dynamic dims.
#include <vector>

#include "exportdb/cases.h"
#include "xport/xport.h"

namespace xport::exportdb {

void add_static_cases(std::vector<Case>& cases) {
  add(cases, {
                 .name = "static_export",
                 .tags = {"basic"},
                 .description =
                     "The simplest export: a function of one tensor with no dynamic dims. Every "
                     "dim is static, so the program accepts exactly the example's shape and dtype "
                     "and refuses any other with InvalidInput before a kernel runs; new values of "
                     "that shape give the same result as the eager function.",
                 .fn = adapt([](const Tensor& x) { return relu(x) * 2.0 + 1.0; }),
                 .example_inputs = {randn({2, 3}, 0)},
                 // Non-contiguous inputs: a transpose and a broadcast (stride 0) view.
                 .valid_inputs = {{randn({2, 3}, 1)},
                                  {randn({3, 2}, 2).t()},
                                  {randn({1, 3}, 6).expand({2, 3})}},
                 .invalid_inputs =
                     {{randn({3, 3}, 3)}, {randn({2, 3}, 4, DType::Float64)}, {randn({6}, 5)}, {}},
             });

  add(cases,
      {
          .name = "static_shape_branch",
          .tags = {"control-flow", "dynamic-shape"},
          .description =
              "A C++ `if` on a static size is ordinary code: the size is a plain integer, so the "
              "branch is decided once while tracing and adds no guard, even when other dims of "
              "the same tensor are dynamic. Only the taken branch is in the graph; because the "
              "size is static, no input the contract accepts could take the other one.",
          .fn = adapt([](const Tensor& x) {
            if (x.size(1) == 4) return x.softmax(1);  // x.size(1) is static: no guard
            return x.relu();
          }),
          .example_inputs = {randn({3, 4}, 0)},
          .options = spec({{{0, Dim("batch")}}}),
          .valid_inputs = {{randn({2, 4}, 1)}, {randn({9, 4}, 2)}},
          .invalid_inputs = {{randn({3, 5}, 3)}},
      });

  {
    // A real tensor from the enclosing scope, not an input or a module's parameter.
    const Tensor scale = randn({3}, 5);
    const Tensor shift = from_vector<float>({1.0f, -2.0f, 0.5f}, {3});
    add(cases,
        {
            .name = "closure_constant",
            .tags = {"constants"},
            .description = "A tensor captured by the lambda from the enclosing scope is neither an "
                           "input nor a parameter: export lifts it into the program as a constant "
                           "(`c_lifted_tensor_0` in the signature), stored with the program, so "
                           "the exported program does not depend on the closure staying alive. "
                           "Changing the captured tensor after export does not change the program.",
            .fn = adapt([scale, shift](const Tensor& x) { return x * scale + shift; }),
            .example_inputs = {randn({2, 3}, 0)},
            .options = spec({{{0, Dim("batch")}}}),
            .valid_inputs = {{randn({2, 3}, 1)}, {randn({7, 3}, 2)}},
            .invalid_inputs = {{randn({2, 4}, 3)}},
        });
  }

  add(cases,
      {
          .name = "tensor_created_in_program",
          .tags = {"constants"},
          .description = "A tensor built inside the program from C++ data (from_vector) has no "
                         "input behind it: export records it as a constant of the program, like a "
                         "captured tensor, and the exported program gives the same result.",
          .fn = adapt([](const Tensor& x) {
            const Tensor bias = from_vector<float>({0.5f, -0.5f, 1.5f}, {3});
            return x + bias;
          }),
          .example_inputs = {randn({2, 3}, 0)},
          .options = spec({{{0, Dim("batch")}}}),
          .valid_inputs = {{randn({6, 3}, 1)}},
      });
}

}  // namespace xport::exportdb
