// cond, map and while_loop: eager, captured as one node with subgraphs, run by the program,
// the runtime and run_decompositions, and the rules they enforce.
#include "xport/capture/control_flow.h"

#include <gtest/gtest.h>

#include "expect_error.h"
#include "serde/round_trip.h"
#include "xport/xport.h"

namespace xport {
namespace {

bool same(const Tensor& a, const Tensor& b) { return allclose(a, b, 1e-5, 1e-6); }

using test_support::expect_error;

// Eager result, ExportedProgram::run and the runtime agree on every input, and the program
// survives the archive round trip (save, load, runtime, save again).
void expect_runs_like_eager(const ExportedProgram& p, const TracedFn& eager,
                            const std::vector<std::vector<Value>>& inputs) {
  for (const std::string& problem : test_support::round_trip_problems(p, inputs, "control_flow")) {
    ADD_FAILURE() << problem;
  }
  const runtime::Program program = runtime::Program::from_exported(
      ExportedProgram(p.graph().clone(), p.signature(), p.contract(), p.symbols(), p.state()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    SCOPED_TRACE("input set " + std::to_string(i));
    const runtime::PlanStats stats = program.plan_stats(inputs[i]);
    EXPECT_TRUE(stats.planned) << "the runtime plans subgraphs, never falling back: "
                               << stats.unplanned_reason;
    const std::vector<Tensor> want = eager(inputs[i]);
    const std::vector<Tensor> got = p.run(inputs[i]);
    const std::vector<Tensor> runtime_got = program.run_values(inputs[i]);
    ASSERT_EQ(got.size(), want.size());
    ASSERT_EQ(runtime_got.size(), want.size());
    for (size_t o = 0; o < want.size(); ++o) {
      EXPECT_TRUE(same(got[o], want[o])) << "output " << o;
      EXPECT_TRUE(same(runtime_got[o], want[o])) << "runtime output " << o;
    }
  }
}

std::vector<Tensor> pick(const Tensor& x) {
  return cond(
      x.sum().gt(0.0), [](const std::vector<Tensor>& in) { return std::vector{cos(in[0])}; },
      [](const std::vector<Tensor>& in) { return std::vector{sin(in[0]) * 2.0}; }, {x});
}

TEST(Cond, RunsTheBranchThePredicateSelectsEagerly) {
  const Tensor x = ones({2, 3});
  EXPECT_TRUE(same(pick(x).at(0), cos(x)));
  EXPECT_TRUE(same(pick(-x).at(0), sin(-x) * 2.0));
  // A plain bool takes its branch without a node.
  const auto r = cond(
      SymBool(false), [](const std::vector<Tensor>& in) { return in; },
      [](const std::vector<Tensor>& in) { return std::vector{in[0] + 1.0}; }, {x});
  EXPECT_TRUE(same(r.at(0), x + 1.0));
}

TEST(Cond, ExportsBothBranchesAsSubgraphsAndPicksOneAtRunTime) {
  const TracedFn fn = [](const std::vector<Value>& in) { return pick(in[0].to_tensor()); };
  const ExportedProgram p =
      export_program(fn, {ones({2, 3})}, {.dynamic_shapes = {{{0, Dim("batch")}}}});
  const std::string text = p.to_string();
  EXPECT_NE(text.find("higher_order::cond(%gt, true_graph_0, false_graph_0, [%x])"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("true_graph_0:\n  graph(%x : f32[s0, 3]):\n    %cos = aten::cos.default(%x)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("false_graph_0:"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::sin.default"), std::string::npos) << text;
  EXPECT_EQ(p.range_constraints().at("s0").lo, 2);
  expect_runs_like_eager(p, fn, {{ones({2, 3})}, {-ones({5, 3})}, {randn({7, 3}, 3)}});
}

TEST(Cond, LiftsClosedOverTensorsAndParametersIntoOperands) {
  nn::Linear linear(3, 3);
  const Tensor offset = randn({3}, 7);  // a real tensor the branch closes over
  const TracedFn fn = [&](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    const Tensor y = x * 3.0;  // a traced tensor the branch closes over
    return cond(
        x.sum().gt(0.0),
        [&](const std::vector<Tensor>& ops) { return std::vector{linear.forward(ops[0]) + y}; },
        [&](const std::vector<Tensor>& ops) { return std::vector{ops[0] - offset}; }, {x});
  };
  const ExportedProgram p = export_program(linear, fn, {ones({2, 3})});
  const std::string text = p.to_string();
  // The operands: x, then what either branch closed over, in the order they were met.
  EXPECT_NE(text.find("[%x, %p_weight, %p_bias, %mul, %c_lifted_tensor_0])"), std::string::npos)
      << text;
  // Both subgraphs take every operand, whichever branch used it.
  EXPECT_NE(text.find("false_graph_0:\n  graph(%x : f32[2, 3], %p_weight : f32[3, 3], %p_bias : "
                      "f32[3], %mul : f32[2, 3], %c_lifted_tensor_0 : f32[3]):"),
            std::string::npos)
      << text;
  expect_runs_like_eager(p, fn, {{ones({2, 3})}, {-ones({2, 3})}});
}

TEST(Cond, ShapePredicateKeepsBothBranchesWithoutAGuard) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    return cond(
        x.size(0) > 4, [](const std::vector<Tensor>& ops) { return std::vector{ops[0] * 2.0}; },
        [](const std::vector<Tensor>& ops) { return std::vector{ops[0] + 1.0}; }, {x});
  };
  const ExportedProgram p =
      export_program(fn, {ones({3, 2})}, {.dynamic_shapes = {{{0, Dim("batch", 2, 64)}}}});
  EXPECT_NE(p.to_string().find("higher_order::cond(s0 >= 5,"), std::string::npos) << p.to_string();
  EXPECT_EQ(p.range_constraints().at("s0").lo, 2);
  EXPECT_EQ(p.range_constraints().at("s0").hi, 64);
  expect_runs_like_eager(p, fn, {{ones({3, 2})}, {ones({5, 2})}, {randn({64, 2}, 1)}});
}

TEST(Cond, NestsAndNamesSubgraphsPerGraph) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    return cond(
        x.sum().gt(0.0),
        [](const std::vector<Tensor>& ops) {
          return cond(
              amax(ops[0]).gt(2.0),
              [](const std::vector<Tensor>& o) { return std::vector{o[0] * 10.0}; },
              [](const std::vector<Tensor>& o) { return std::vector{o[0] * 100.0}; }, ops);
        },
        [](const std::vector<Tensor>& ops) { return std::vector{-ops[0]}; }, {x});
  };
  const ExportedProgram p = export_program(fn, {ones({4})});
  const std::string text = p.to_string();
  EXPECT_NE(text.find("\n  true_graph_0:\n    graph("), std::string::npos) << text;
  expect_runs_like_eager(p, fn, {{ones({4})}, {ones({4}) * 3.0}, {-ones({4})}});
}

TEST(Cond, RefusesBranchesThatReturnDifferentTensors) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    return cond(
        x.sum().gt(0.0), [](const std::vector<Tensor>& ops) { return std::vector{ops[0]}; },
        [](const std::vector<Tensor>& ops) { return std::vector{ops[0].sum(0)}; }, {x});
  };
  expect_error([&] { export_program(fn, {ones({2, 3})}); }, ErrorKind::InvalidSpec,
               {"cond: the branches return different tensors", "(f32[2, 3])", "(f32[3])",
                "control_flow_test.cpp:"});
}

TEST(Cond, ASizeTheBranchesDisagreeOnBecomesAnUnbackedSymbol) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    const Tensor picked = cond(
        x.sum().gt(0.0),
        [](const std::vector<Tensor>& ops) { return std::vector{ops[0].narrow(0, 0, 2)}; },
        [](const std::vector<Tensor>& ops) { return std::vector{ops[0] * 2.0}; }, {x})[0];
    return std::vector{picked, picked.sum(0)};
  };
  const ExportedProgram p = export_program(fn, {ones({5, 3})});
  EXPECT_NE(p.to_string().find("# (f32[u0, 3],) u0 = size(0)"), std::string::npos)
      << p.to_string();
  EXPECT_EQ(p.range_constraints().at("u0").lo, 2);
  EXPECT_EQ(p.range_constraints().at("u0").hi, 5);
  expect_runs_like_eager(p, fn, {{ones({5, 3})}, {-ones({5, 3})}});
}

// A branch whose own sizes the data decides (masked_select), inside a cond whose result size
// the data decides too: the runtime runs the cond when it reaches it, planning the branch it
// takes for the sizes it gets.
TEST(Cond, ABranchSizedByItsDataRunsInTheRuntime) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    const Tensor picked = cond(
        x.sum().gt(0.0),
        [](const std::vector<Tensor>& ops) {
          return std::vector{masked_select(ops[0], ops[0].gt(0.5)).exp()};
        },
        [](const std::vector<Tensor>& ops) { return std::vector{ops[0].flatten() * 2.0}; },
        {x})[0];
    return std::vector{picked, picked.sum()};
  };
  const ExportedProgram p = export_program(fn, {ones({5, 3})});
  expect_runs_like_eager(p, fn,
                         {{ones({5, 3})}, {-ones({5, 3})}, {randn({5, 3}, 1) + 0.3},
                          {randn({5, 3}, 2) + 0.3}});
}

TEST(Cond, RefusesMutatingAnOperandOrAnOuterTensor) {
  const TracedFn mutate_operand = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    return cond(
        x.sum().gt(0.0),
        [](const std::vector<Tensor>& ops) {
          Tensor operand = ops[0];
          operand.add_(1.0);
          return std::vector{operand};
        },
        [](const std::vector<Tensor>& ops) { return std::vector{ops[0]}; }, {x});
  };
  expect_error([&] { export_program(mutate_operand, {ones({2})}); }, ErrorKind::InvalidSpec,
               {"aten::add_.Scalar", "must not mutate", "control_flow_test.cpp:"});
  const TracedFn mutate_outer = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    Tensor y = x * 2.0;
    return cond(
        x.sum().gt(0.0),
        [&](const std::vector<Tensor>& ops) {
          y.mul_(2.0);
          return std::vector{ops[0]};
        },
        [](const std::vector<Tensor>& ops) { return std::vector{ops[0]}; }, {x});
  };
  expect_error([&] { export_program(mutate_outer, {ones({2})}); }, ErrorKind::InvalidSpec,
               {"must not mutate"});
}

TEST(Cond, RefusesATensorThatEscapesItsBranch) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    Tensor leaked;
    cond(
        x.sum().gt(0.0),
        [&](const std::vector<Tensor>& ops) {
          leaked = ops[0] * 2.0;
          return std::vector{ops[0]};
        },
        [](const std::vector<Tensor>& ops) { return std::vector{ops[0]}; }, {x});
    return std::vector{leaked + 1.0};
  };
  expect_error([&] { export_program(fn, {ones({2})}); }, ErrorKind::InvalidSpec,
               {"made inside a cond / map / while_loop function", "is used outside it"});
}

TEST(Cond, RefusesAPredicateThatIsNotOneBool) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    return cond(
        x.gt(0.0), [](const std::vector<Tensor>& ops) { return ops; },
        [](const std::vector<Tensor>& ops) { return ops; }, {x});
  };
  expect_error([&] { export_program(fn, {ones({2})}); }, ErrorKind::InvalidSpec,
               {"cond: the predicate must be a bool tensor with one element", "b8[2]"});
}

TEST(Map, StacksTheBodyOverTheLeadingDimEagerlyAndExported) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor xs = in[0].to_tensor();
    const Tensor y = in[1].to_tensor();
    return map([](const Tensor& x, const std::vector<Tensor>& args) {
      return std::vector{x + args[0], x.sum(0, false)};
    }, xs, {y});
  };
  const Tensor xs = randn({3, 4, 2}, 0);
  const Tensor y = randn({4, 2}, 1);
  const std::vector<Tensor> eager = fn({xs, y});
  ASSERT_EQ(eager.size(), 2u);
  EXPECT_TRUE(same(eager[0], xs + y));
  EXPECT_TRUE(same(eager[1], xs.sum(1, false)));
  const ExportedProgram p =
      export_program(fn, {xs, y}, {.dynamic_shapes = {{{0, Dim("n")}}, {}}});
  EXPECT_NE(p.to_string().find("higher_order::map_impl(body_graph_0, [%x0], [%x1])  # (f32[s0, "
                               "4, 2], f32[s0, 2])"),
            std::string::npos)
      << p.to_string();
  EXPECT_NE(p.to_string().find("body_graph_0:\n  graph(%x0 : f32[4, 2], %x1 : f32[4, 2]):"),
            std::string::npos)
      << p.to_string();
  expect_runs_like_eager(p, fn, {{xs, y}, {randn({7, 4, 2}, 2), y}});
}

// Over the rows a mask selects (a count only the data decides): the runtime runs the map when
// it reaches it, planning the body once for the rows' size and running each row on that plan.
TEST(Map, OverRowsTheDataSelectsRunsInTheRuntime) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    const Tensor w = in[1].to_tensor();
    const Tensor rows = index(x, {x.sum(1, false).gt(0.0)});
    check(rows.size(0) >= 1);  // map needs a row
    return map([](const Tensor& r, const std::vector<Tensor>& args) {
      return std::vector{(r * args[0]).relu(), r.sum(0, false)};
    }, rows, {w});
  };
  const Tensor w = randn({4}, 1);
  const ExportedProgram p = export_program(fn, {randn({6, 4}, 0) + 0.5, w});
  expect_runs_like_eager(p, fn, {{randn({6, 4}, 2) + 0.5, w}, {randn({6, 4}, 3), w}});
}

// Carried: a counter and a tensor doubled while the counter is below a limit (a tensor too).
std::vector<Tensor> doubling(const Tensor& x, const Tensor& limit) {
  return while_loop([&](const std::vector<Tensor>& c) { return all(c[0].lt(limit)); },
                    [](const std::vector<Tensor>& c) {
                      return std::vector{c[0] + 1, c[1] * 2.0};
                    },
                    {zeros({}, DType::Int64), x});
}

TEST(WhileLoop, IteratesEagerlyAndExported) {
  const Tensor x = ones({2, 2});
  const std::vector<Tensor> eager = doubling(x, full({}, 3, DType::Int64));
  EXPECT_EQ(eager.at(0).item<int64_t>(), 3);
  EXPECT_TRUE(same(eager.at(1), x * 8.0));
  const TracedFn fn = [](const std::vector<Value>& in) {
    return doubling(in[0].to_tensor(), in[1].to_tensor());
  };
  const ExportedProgram p = export_program(fn, {x, full({}, 3, DType::Int64)},
                                           {.dynamic_shapes = {{{0, Dim("rows")}}, {}}});
  const std::string text = p.to_string();
  EXPECT_NE(text.find("higher_order::while_loop(while_loop_cond_graph_0, "
                      "while_loop_body_graph_0, [%full, %x0], [%x1])"),
            std::string::npos)
      << text;
  expect_runs_like_eager(p, fn,
                         {{x, full({}, 3, DType::Int64)},
                          {randn({5, 2}, 1), full({}, 0, DType::Int64)},
                          {randn({3, 2}, 2), full({}, 10, DType::Int64)}});
}

TEST(WhileLoop, RefusesABodyThatChangesACarriedValue) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    return while_loop([](const std::vector<Tensor>& c) { return c[0].sum().gt(0.0); },
                      [](const std::vector<Tensor>& c) { return std::vector{c[0].sum(0)}; },
                      {in[0].to_tensor()});
  };
  expect_error([&] { export_program(fn, {ones({2, 2})}); }, ErrorKind::InvalidSpec,
               {"while_loop: body_fn returns (f32[2])", "for carried values (f32[2, 2])"});
}

TEST(ControlFlow, RunDecompositionsRecursesIntoSubgraphs) {
  ASSERT_TRUE(core_decompositions().count("aten::dot"));
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    return cond(
        x.sum().gt(0.0),
        [](const std::vector<Tensor>& ops) { return std::vector{dot(ops[0], ops[0])}; },
        [](const std::vector<Tensor>& ops) { return std::vector{ops[0].sum()}; }, {x});
  };
  const ExportedProgram p = export_program(fn, {ones({4})});
  ASSERT_NE(p.to_string().find("aten::dot.default"), std::string::npos);
  const ExportedProgram core = p.run_decompositions();
  EXPECT_EQ(core.to_string().find("aten::dot.default"), std::string::npos) << core.to_string();
  EXPECT_NE(core.to_string().find("true_graph_0:"), std::string::npos) << core.to_string();
  expect_runs_like_eager(core, fn, {{ones({4})}, {-ones({4})}});
}

TEST(ControlFlow, DeadCodeInASubgraphIsRemovedButItsInputsStay) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    return cond(
        x.sum().gt(0.0),
        [](const std::vector<Tensor>& ops) {
          const Tensor unused = exp(ops[0]);
          return std::vector{ops[0] + 1.0};
        },
        [](const std::vector<Tensor>& ops) { return std::vector{ops[0] * 0.0}; }, {x});
  };
  const ExportedProgram p = export_program(fn, {ones({2})});
  EXPECT_EQ(p.to_string().find("aten::exp"), std::string::npos) << p.to_string();
}

TEST(ControlFlow, VerifierChecksSubgraphsAgainstTheirNode) {
  auto branch = std::make_shared<ir::Graph>();
  const ir::TensorSpec spec = ir::TensorSpec::contiguous(DType::Float32, {sym::integer(2)});
  const ir::Node* a = branch->add_placeholder("a", spec);
  branch->set_output({a->out()});
  ir::Graph g;
  const ir::Node* x = g.add_placeholder("x", spec);
  const ir::Node* pred = g.add_placeholder(
      "pred", ir::TensorSpec::contiguous(DType::Bool, {}));
  auto other = std::make_shared<ir::Graph>(branch->clone());
  ir::Node* c = g.add_call(find_op("higher_order::cond"),
                           {pred->out(), ir::SubgraphRef{"true_graph_0", branch},
                            ir::SubgraphRef{"false_graph_0", other},
                            std::vector<ir::Argument>{x->out(), x->out()}},
                           {spec});
  g.set_output({c->out()});
  expect_error([&] { g.verify(); }, ErrorKind::Internal,
               {"subgraph true_graph_0: takes 1 inputs, the node passes 2"});
  const ir::Graph copy = g.clone();
  EXPECT_NE(copy.nodes()[2]->subgraphs()[0]->graph, branch) << "clone() copies subgraphs";
}

// An early-exit classifier: the second layer runs only when the first is unsure.
class EarlyExit : public nn::Module {
 public:
  EarlyExit() : nn::Module("EarlyExit") {
    first = register_module("first", std::make_shared<nn::Linear>(8, 8));
    second = register_module("second", std::make_shared<nn::Linear>(8, 8));
  }
  Tensor confident(const Tensor& h) const { return softmax(h, -1).amax(-1).mean().gt(0.3); }
  Tensor forward(const Tensor& x) override {
    nn::ModuleScope scope(*this);
    const Tensor h = relu(first->forward(x));
    return cond(
               confident(h), [](const std::vector<Tensor>& ops) { return ops; },
               [this](const std::vector<Tensor>& ops) {
                 return std::vector{second->forward(ops[0])};
               },
               {h})
        .at(0);
  }
  std::shared_ptr<nn::Linear> first, second;
};

TEST(ControlFlow, EarlyExitNetworkMatchesEagerOnRandomInputsThatTakeBothBranches) {
  EarlyExit model;
  const ExportedProgram p =
      export_program(model, [&](const Tensor& x) { return model.forward(x); }, {randn({4, 8}, 0)},
                     {.dynamic_shapes = {{{0, Dim("batch", 2, 64)}}}});
  const runtime::Program program = runtime::Program::from_exported(
      ExportedProgram(p.graph().clone(), p.signature(), p.contract(), p.symbols(), p.state()));
  int exits = 0, full = 0;
  for (int i = 0; i < 100; ++i) {
    const int64_t batch = 2 + i % 31;
    const Tensor x = randn({batch, 8}, static_cast<uint64_t>(100 + i)) * (i % 2 ? 20.0 : 0.05);
    const bool early = model.confident(relu(model.first->forward(x))).item<bool>();
    (early ? exits : full) += 1;
    const Tensor want = model.forward(x);
    EXPECT_TRUE(same(p.run({x}).at(0), want)) << "input " << i;
    EXPECT_TRUE(same(program.run({x}).at(0), want)) << "input " << i << " (runtime)";
  }
  EXPECT_GT(exits, 10);
  EXPECT_GT(full, 10);
}

}  // namespace
}  // namespace xport
