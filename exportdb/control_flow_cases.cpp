// Control flow that export keeps: cond, map and while_loop (PyTorch's ExportDB cases of the same
// names, written in C++), and the rules their functions must follow.
#include <memory>
#include <vector>

#include "exportdb/cases.h"
#include "xport/xport.h"

namespace xport::exportdb {
namespace {

using Tensors = std::vector<Tensor>;

class CosModule : public nn::Module {
 public:
  CosModule() : nn::Module("MySubModule") {}
  Tensor forward(const Tensor& x) override { return cos(x); }
};

// cond with a submodule's forward as one branch and a method as the other.
class CondBranchClassMethod : public nn::Module {
 public:
  CondBranchClassMethod() : nn::Module("CondBranchClassMethod") {
    subm = register_module("subm", std::make_shared<CosModule>());
  }
  Tensor bar(const Tensor& x) const { return sin(x); }
  Tensor forward(const Tensor& x) override {
    nn::ModuleScope scope(*this);
    return cond(
               x.size(0) <= 2, [this](const Tensors& ops) { return Tensors{subm->forward(ops[0])}; },
               [this](const Tensors& ops) { return Tensors{bar(ops[0])}; }, {x})
        .at(0);
  }
  std::shared_ptr<CosModule> subm;
};

// A tiny early-exit classifier: one layer, then a second only when the first is unsure.
class EarlyExit : public nn::Module {
 public:
  EarlyExit() : nn::Module("EarlyExit") {
    first = register_module("first", std::make_shared<nn::Linear>(4, 4));
    second = register_module("second", std::make_shared<nn::Linear>(4, 4));
  }
  Tensor forward(const Tensor& x) override {
    nn::ModuleScope scope(*this);
    const Tensor h = relu(first->forward(x));
    const Tensor confident = softmax(h, -1).amax(-1).mean().gt(0.5);
    return cond(
               confident, [](const Tensors& ops) { return Tensors{ops[0]}; },
               [this](const Tensors& ops) { return Tensors{second->forward(ops[0])}; }, {h})
        .at(0);
  }
  std::shared_ptr<nn::Linear> first, second;
};

}  // namespace

void add_control_flow_cases(std::vector<Case>& cases) {
  {
    auto m = std::make_shared<CondBranchClassMethod>();
    add(cases,
        {
            .name = "cond_branch_class_method",
            .tags = {"cond", "dynamic-shape", "module"},
            .description =
                "cond() keeps both branches of a test on a dynamic size: here a submodule's "
                "forward and a method of the module. Both take the operands and return one "
                "tensor of the same dtype and sizes. The predicate x.size(0) <= 2 is a SymBool: "
                "no guard is recorded, the program picks the branch when it runs.",
            .module = m,
            .fn = adapt([m](const Tensor& x) { return m->forward(x); }),
            .example_inputs = {randn({3}, 0)},
            .options = spec({{{0, Dim("n")}}}),
            .valid_inputs = {{randn({2}, 1)}, {randn({8}, 2)}},
        });
  }

  add(cases,
      {
          .name = "cond_branch_nested_function",
          .tags = {"cond", "dynamic-shape"},
          .description =
              "Branches may call nested functions (C++ lambdas) that close over the branch's own "
              "arguments; what they compute becomes the branch's subgraph.",
          .fn = adapt([](const Tensor& x) {
            auto true_fn = [](const Tensors& ops) {
              const Tensor& a = ops[0];
              auto inner = [&](const Tensor& y) { return a + y; };
              return Tensors{inner(a)};
            };
            auto false_fn = [](const Tensors& ops) {
              const Tensor& a = ops[0];
              auto inner = [&](const Tensor& y) { return a - y; };
              return Tensors{inner(a)};
            };
            return cond(x.size(0) < 10, true_fn, false_fn, {x});
          }),
          .example_inputs = {randn({3}, 0)},
          .options = spec({{{0, Dim("n", 2, 32)}}}),
          .valid_inputs = {{randn({12}, 1)}, {randn({9}, 2)}},
      });

  add(cases,
      {
          .name = "cond_branch_nonlocal_variables",
          .tags = {"cond", "dynamic-shape"},
          .description =
              "Values computed before the cond (a tensor, and a number made into a 0-dim "
              "tensor) passed as operands rather than closed over; both ways work, and "
              "operands make the data flow explicit.",
          .fn = adapt([](const Tensor& x) {
            const Tensor my_tensor_var = x + 100.0;
            const Tensor my_primitive_var = full({}, 3.14);
            return cond(
                x.size(0) > 5,
                [](const Tensors& o) { return Tensors{o[0] + o[1] + o[2]}; },
                [](const Tensors& o) { return Tensors{o[0] - o[1] - o[2]}; },
                {x, my_tensor_var, my_primitive_var});
          }),
          .example_inputs = {randn({6}, 0)},
          .options = spec({{{0, Dim("n")}}}),
          .valid_inputs = {{randn({3}, 1)}, {randn({9}, 2)}},
      });

  add(cases,
      {
          .name = "cond_closed_over_variable",
          .tags = {"cond", "closure"},
          .description =
              "A predicate from an input tensor, and branches that close over an input instead "
              "of taking it as an operand: the closed-over tensor becomes an extra operand of "
              "both subgraphs.",
          .fn = adapt([](const Tensor& pred, const Tensor& x) {
            return cond(
                pred, [&](const Tensors&) { return Tensors{x * 2.0}; },
                [&](const Tensors&) { return Tensors{x - 2.0}; }, {x + 1.0});
          }),
          .example_inputs = {full({}, true), randn({3, 2}, 0)},
          .valid_inputs = {{full({}, false), randn({3, 2}, 1)}},
      });

  add(cases,
      {
          .name = "cond_operands",
          .tags = {"cond", "dynamic-shape"},
          .description =
              "The operands of cond() are a list of tensors, passed to both branches in order; "
              "here a dynamic x and a static y.",
          .fn = adapt([](const Tensor& x, const Tensor& y) {
            return cond(
                x.size(0) > 2, [](const Tensors& o) { return Tensors{o[0] + o[1]}; },
                [](const Tensors& o) { return Tensors{o[0] - o[1]}; }, {x, y});
          }),
          .example_inputs = {randn({3, 2}, 0), randn({2}, 1)},
          .options = spec({{{0, Dim("dim0_x")}}, {}}),
          .valid_inputs = {{randn({2, 2}, 2), randn({2}, 3)}, {randn({7, 2}, 4), randn({2}, 5)}},
      });

  add(cases,
      {
          .name = "cond_predicate",
          .tags = {"cond", "dynamic-shape"},
          .description =
              "The predicate is a bool tensor with one element or a shape condition. A shape "
              "condition combines SymBools (x.dim() > 2 is a plain bool here, x.size(2) > 10 a "
              "SymBool).",
          .fn = adapt([](const Tensor& x) {
            const SymBool pred = SymBool(x.dim() > 2) && x.size(2) > 10;
            return cond(
                pred, [](const Tensors& o) { return Tensors{cos(o[0])}; },
                [](const Tensors& o) { return Tensors{sin(o[0])}; }, {x});
          }),
          .example_inputs = {randn({6, 4, 3}, 0)},
          .options = spec({{{2, Dim("d")}}}),
          .valid_inputs = {{randn({6, 4, 11}, 1)}, {randn({6, 4, 10}, 2)}},
      });

  add(cases,
      {
          .name = "bad1_fixed",
          .tags = {"cond"},
          .description =
              "The export tutorial's first failing program (an `if` on x.sum() > 0) fixed with "
              "cond(): both branches are traced, and the program picks one when it runs.",
          .fn = adapt([](const Tensor& x) {
            return cond(
                x.sum().gt(0.0), [](const Tensors& o) { return Tensors{sin(o[0])}; },
                [](const Tensors& o) { return Tensors{cos(o[0])}; }, {x});
          }),
          .example_inputs = {randn({3, 3}, 0)},
          .valid_inputs = {{ones({3, 3})}, {-ones({3, 3})}},
      });

  add(cases,
      {
          .name = "cond_unbacked_output",
          .tags = {"cond", "data-dependent"},
          .description =
              "Branches may disagree on a size: the output's size there is whichever branch "
              "ran, a new unbacked symbol (u0) the cond node binds, in the union of the two "
              "sizes' ranges. Later ops use it like any size.",
          .fn = adapt([](const Tensor& x) {
            const Tensor picked = cond(
                x.sum().gt(0.0), [](const Tensors& o) { return Tensors{o[0].narrow(0, 0, 2)}; },
                [](const Tensors& o) { return Tensors{o[0] * 2.0}; }, {x})[0];
            return Tensors{picked.sum(0), picked};
          }),
          .example_inputs = {ones({5, 3})},
          .valid_inputs = {{-ones({5, 3})}, {randn({5, 3}, 1)}},
      });

  add(cases,
      {
          .name = "cond_branch_mismatch",
          .tags = {"cond"},
          .description =
              "Both branches must return the same number of tensors with the same dtypes and "
              "sizes: the program after the cond is one graph whichever branch runs. Here one "
              "branch reduces and the other does not, so export fails with InvalidSpec; make "
              "both return the same shape (reduce in both, or in neither).",
          .fn = adapt([](const Tensor& x) {
            return cond(
                x.sum().gt(0.0), [](const Tensors& o) { return Tensors{o[0].sum(0)}; },
                [](const Tensors& o) { return Tensors{o[0]}; }, {x});
          }),
          .example_inputs = {randn({2, 3}, 0)},
          .expected_error = ErrorKind::InvalidSpec,
          .fix = "cond_branch_mismatch_fixed",
      });

  add(cases,
      {
          .name = "cond_branch_mismatch_fixed",
          .tags = {"control-flow", "cond"},
          .description =
              "The program of cond_branch_mismatch with both branches returning the same shape: "
              "each reduces over dim 0 and returns one f32[3], so the program after the cond is "
              "one graph whichever branch runs.",
          .fn = adapt([](const Tensor& x) {
            return cond(
                x.sum().gt(0.0), [](const Tensors& o) { return Tensors{o[0].sum(0)}; },
                [](const Tensors& o) { return Tensors{o[0].sum(0) * -1.0}; }, {x});
          }),
          .example_inputs = {randn({2, 3}, 0)},
          .valid_inputs = {{ones({2, 3})}, {-ones({2, 3})}},
      });

  add(cases,
      {
          .name = "cond_mutates_input",
          .tags = {"cond", "mutation"},
          .description =
              "A branch may not update its operands, or tensors from outside it, in place: the "
              "subgraph would change a value the rest of the program reads. Export fails with "
              "InvalidSpec naming the line; compute a new tensor and return it instead "
              "(return {x + 1}, not x.add_(1)).",
          .fn = adapt([](const Tensor& x) {
            return cond(
                x.sum().gt(0.0),
                [](const Tensors& o) {
                  Tensor t = o[0];
                  t.add_(1.0);
                  return Tensors{t};
                },
                [](const Tensors& o) { return Tensors{o[0] - 1.0}; }, {x});
          }),
          .example_inputs = {randn({2, 3}, 0)},
          .expected_error = ErrorKind::InvalidSpec,
          .fix = "cond_mutates_input_fixed",
      });

  add(cases,
      {
          .name = "cond_mutates_input_fixed",
          .tags = {"control-flow", "cond"},
          .description =
              "The program of cond_mutates_input with the branch computing a new tensor (o[0] + "
              "1.0) instead of updating its operand in place: the subgraph changes nothing "
              "outside it.",
          .fn = adapt([](const Tensor& x) {
            return cond(
                x.sum().gt(0.0), [](const Tensors& o) { return Tensors{o[0] + 1.0}; },
                [](const Tensors& o) { return Tensors{o[0] - 1.0}; }, {x});
          }),
          .example_inputs = {randn({2, 3}, 0)},
          .valid_inputs = {{ones({2, 3})}, {-ones({2, 3})}},
      });

  add(cases,
      {
          .name = "cond_leaked_tensor",
          .tags = {"cond"},
          .description =
              "A tensor made inside a branch exists only in that branch's subgraph: keeping it "
              "in an outer variable and using it after the cond fails with InvalidSpec. Return "
              "it from both branches instead.",
          .fn = adapt([](const Tensor& x) {
            Tensor kept = x;
            const Tensors out = cond(
                x.sum().gt(0.0),
                [&](const Tensors& o) {
                  kept = o[0] * 2.0;
                  return Tensors{o[0]};
                },
                [](const Tensors& o) { return Tensors{o[0]}; }, {x});
            return out[0] + kept;
          }),
          .example_inputs = {randn({2, 3}, 0)},
          .expected_error = ErrorKind::InvalidSpec,
          .fix = "cond_leaked_tensor_fixed",
      });

  add(cases,
      {
          .name = "cond_leaked_tensor_fixed",
          .tags = {"control-flow", "cond"},
          .description =
              "The program of cond_leaked_tensor with the tensor returned from both branches "
              "instead of kept in an outer variable: the cond has two results, and the second "
              "is what the false branch used to leave in `kept` (x itself).",
          .fn = adapt([](const Tensor& x) {
            const Tensors out = cond(
                x.sum().gt(0.0), [](const Tensors& o) { return Tensors{o[0], o[0] * 2.0}; },
                [](const Tensors& o) { return Tensors{o[0], o[0]}; }, {x});
            return out[0] + out[1];
          }),
          .example_inputs = {randn({2, 3}, 0)},
          .valid_inputs = {{ones({2, 3})}, {-ones({2, 3})}},
      });

  add(cases,
      {
          .name = "dynamic_shape_map",
          .tags = {"map", "dynamic-shape"},
          .description =
              "map() runs a function over the leading dim of xs (extra arguments passed whole) "
              "and stacks the results; the leading dim may be dynamic.",
          .fn = adapt([](const Tensor& xs, const Tensor& y) {
            return map([](const Tensor& x, const Tensors& args) { return Tensors{x + args[0]}; },
                       xs, {y});
          }),
          .example_inputs = {randn({3, 2}, 0), randn({2}, 1)},
          .options = spec({{{0, Dim("n")}}, {}}),
          .valid_inputs = {{randn({9, 2}, 2), randn({2}, 3)}},
      });

  add(cases,
      {
          .name = "map_example",
          .tags = {"map"},
          .description =
              "The export tutorial's map: a body that adds two 0-dim tensors to each row.",
          .fn = adapt([](const Tensor& xs, const Tensor& y, const Tensor& z) {
            return map(
                [](const Tensor& x, const Tensors& args) { return Tensors{x + args[0] + args[1]}; },
                xs, {y, z});
          }),
          .example_inputs = {ones({6, 4}), full({}, 5.0), full({}, 4.0)},
          .valid_inputs = {{randn({6, 4}, 1), full({}, -1.0), full({}, 2.0)}},
      });

  add(cases,
      {
          .name = "while_loop_counter",
          .tags = {"while_loop", "dynamic-shape"},
          .description =
              "while_loop() carries values through iterations until cond_fn is false; each "
              "carried value keeps its dtype and sizes. Here a counter and a tensor doubled "
              "until the counter reaches a limit given as an input: the number of iterations "
              "is data the program reads when it runs.",
          .fn = adapt([](const Tensor& x, const Tensor& limit) {
            return while_loop(
                [&](const Tensors& c) { return c[0].lt(limit); },
                [](const Tensors& c) { return Tensors{c[0] + 1, c[1] * 2.0}; },
                {zeros({}, DType::Int64), x});
          }),
          .example_inputs = {randn({2, 3}, 0), full({}, 3, DType::Int64)},
          .options = spec({{{0, Dim("rows")}}, {}}),
          .valid_inputs = {{randn({5, 3}, 1), full({}, 0, DType::Int64)},
                           {randn({4, 3}, 2), full({}, 7, DType::Int64)}},
      });

  add(cases,
      {
          .name = "while_loop_body_mismatch",
          .tags = {"while_loop"},
          .description =
              "while_loop's body must return one tensor per carried value, each with the dtype "
              "and sizes it had: the next iteration runs the same subgraph on them. A body that "
              "changes a shape (here by reducing) fails with InvalidSpec; keep the carried "
              "shapes fixed (pad, or carry the reduced value separately).",
          .fn = adapt([](const Tensor& x) {
            return while_loop([](const Tensors& c) { return c[0].sum().gt(0.0); },
                              [](const Tensors& c) { return Tensors{c[0].sum(0)}; }, {x});
          }),
          .example_inputs = {randn({2, 3}, 0)},
          .expected_error = ErrorKind::InvalidSpec,
          .fix = "while_loop_body_mismatch_fixed",
      });

  add(cases,
      {
          .name = "while_loop_body_mismatch_fixed",
          .tags = {"control-flow", "while_loop"},
          .description =
              "The program of while_loop_body_mismatch with a body that keeps the carried "
              "shape: it subtracts 1 from every element (f32[2, 3] in, f32[2, 3] out) until the "
              "sum is not positive, so every iteration runs the same subgraph.",
          .fn = adapt([](const Tensor& x) {
            return while_loop([](const Tensors& c) { return c[0].sum().gt(0.0); },
                              [](const Tensors& c) { return Tensors{c[0] - 1.0}; }, {x});
          }),
          .example_inputs = {randn({2, 3}, 0)},
          .valid_inputs = {{ones({2, 3})}, {-ones({2, 3})}},
      });

  {
    auto m = std::make_shared<EarlyExit>();
    add(cases,
        {
            .name = "cond_early_exit",
            .tags = {"cond", "module", "dynamic-shape"},
            .description =
                "An early-exit network: the second layer runs only when the first is unsure "
                "(its mean top probability is at most 0.5). The branch that skips it returns "
                "its operand; the parameters the other branch uses become operands of both "
                "subgraphs.",
            .module = m,
            .fn = adapt([m](const Tensor& x) { return m->forward(x); }),
            .example_inputs = {randn({2, 4}, 0)},
            .options = spec({{{0, Dim("batch")}}}),
            .valid_inputs = {{randn({5, 4}, 1) * 10.0}, {randn({3, 4}, 2) * 0.01}},
        });
  }
}

}  // namespace xport::exportdb
