// Custom ops and backend passes: ops registered through xport::Library are traced through their
// meta functions; a backend keeps ops out of the decompositions and rewrites the graph.
#include <mutex>
#include <vector>

#include "examples/custom_ops/accel_ops.h"
#include "exportdb/cases.h"
#include "xport/xport.h"

namespace xport::exportdb {
namespace {

// Ops of the cases below that only make sense as examples (accel::conv2d is shared with the
// plugin `xport run --ops` loads).
void register_case_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    accel::register_ops();
    Library("exportdb_ops")
        // A kernel and nothing else: eager runs it, export cannot.
        .define("opaque_scale(Tensor x) -> Tensor")
        .impl("opaque_scale",
              [](const std::vector<Value>& a) -> Value { return a[0].to_tensor() * 3.0; })
        // Updates its argument in place, as the `!` in its schema says.
        .define("count_(Tensor(a!) counter, Tensor x) -> ()")
        .impl("count_",
              [](const std::vector<Value>& a) -> Value {
                Tensor counter = a[0].to_tensor();
                counter.add_(a[1].to_tensor().gt(0.0).sum().to(counter.dtype()));
                return {};
              })
        .impl_meta("count_", [](const std::vector<Value>&) -> Value { return {}; });
  });
}

class Counter : public nn::Module {
 public:
  Counter() : nn::Module("Counter") { count = register_buffer("count", zeros({}, DType::Int64)); }
  Tensor forward(const Tensor& x) {
    call_op("exportdb_ops::count_", {count, x});
    return x.relu();
  }
  Tensor count;
};

// conv -> batch norm -> relu, the block a convolution unit accelerates.
std::shared_ptr<nn::Sequential> conv_block() {
  auto block = std::make_shared<nn::Sequential>();
  block->push_back(std::make_shared<nn::Conv2d>(3, 8, std::vector<int64_t>{3, 3},
                                                 nn::Conv2d::Options{.padding = {1, 1}}));
  block->push_back(std::make_shared<nn::BatchNorm2d>(8));
  block->push_back(std::make_shared<nn::ReLU>());
  block->eval();
  return block;
}

}  // namespace

void add_custom_op_cases(std::vector<Case>& cases) {
  register_case_ops();
  const Tensor weight = randn({4, 3, 3, 3}, 10) * 0.2;
  add(cases,
      {
          .name = "custom_op",
          .tags = {"custom-op", "dynamic-shape"},
          .description =
              "An op of your own, defined with xport::Library(\"accel\").define(schema), "
              ".impl(kernel) and .impl_meta(meta), is called by name with call_op. Export runs "
              "its meta function on fake tensors (inside it, ops compute shapes only, so "
              "conv2d(x, w) there costs nothing and works with a symbolic batch) and records one "
              "accel::conv2d node. The archive names it torch.ops.accel.conv2d.default; a "
              "program that loads it must register the op first (link the library, or pass "
              "--ops libyourops.so to the xport tool).",
          .fn = adapt([weight](const Tensor& x) {
            const std::vector<int64_t> ones = {1, 1};
            const Value y =
                call_op("accel::conv2d", {x, weight, Value(), ones, ones, ones, int64_t{1}});
            return y.to_tensor().relu();
          }),
          .example_inputs = {randn({2, 3, 8, 8}, 0)},
          .options = spec({{{0, Dim("batch", 1, 16)}}}),
          .valid_inputs = {{randn({1, 3, 8, 8}, 1)}, {randn({5, 3, 8, 8}, 2)}},
          .invalid_inputs = {{randn({2, 3, 9, 8}, 3)}},
      });

  add(cases,
      {
          .name = "custom_op_no_meta",
          .tags = {"custom-op"},
          .description =
              "A custom op with a kernel but no meta function runs eagerly, but export cannot "
              "trace it: export runs ops on fake tensors, which have sizes and no data. Add "
              "Library::impl_meta(\"opaque_scale\", fn) where fn returns empty_like / empty "
              "tensors of the results' sizes (or impl_decomposition, which export then traces "
              "instead).",
          .fn = adapt([](const Tensor& x) {
            return call_op("exportdb_ops::opaque_scale", {x}).to_tensor();
          }),
          .example_inputs = {randn({3}, 0)},
          .expected_error = ErrorKind::UnsupportedOp,
          .fix = "custom_op",
      });

  {
    auto counter = std::make_shared<Counter>();
    add(cases,
        {
            .name = "custom_op_mutating",
            .tags = {"custom-op", "mutation"},
            .description =
                "A custom op that updates an argument in place says so in its schema "
                "(count_(Tensor(a!) counter, Tensor x) -> ()). Library registers its functional "
                "form beside it (exportdb_ops::count, which returns the new value), export "
                "records that, and the signature lists the buffer as mutated; running the "
                "program updates it in place as the eager call does.",
            .module = counter,
            .fn = adapt([counter](const Tensor& x) { return counter->forward(x); }),
            .example_inputs = {randn({6}, 0)},
            .options = spec({{{0, Dim("n")}}}),
            .valid_inputs = {{randn({9}, 1)}},
        });
  }

  {
    auto block = conv_block();
    add(cases,
        {
            .name = "replace_convolution",
            .tags = {"custom-op", "pass", "module"},
            .description =
                "A backend with a convolution unit: decompose to the core op set while keeping "
                "the convolution (run_decompositions with a table that leaves it out; "
                "aten::convolution is core, so the default table keeps it too), then a pass "
                "over a copy of the graph (ExportedProgram::transform) finds each "
                "aten::convolution, inserts accel::conv2d before it with the same inputs, "
                "replaces its uses and erases it. The result is verified, each node against "
                "its op's meta function, and runs in ExportedProgram::run, through an archive "
                "and in the runtime, where accel::conv2d's kernel does the convolutions.",
            .module = block,
            .fn = adapt([block](const Tensor& x) { return block->forward(x); }),
            .example_inputs = {randn({2, 3, 8, 8}, 0)},
            .options = spec({{{0, Dim("batch", 1, 16)}}}),
            .backend =
                [](const ExportedProgram& p) {
                  DecompositionTable table = core_decompositions();
                  table.erase("aten::convolution");
                  return p.run_decompositions(table).transform([](ir::Graph& g) {
                    const OpDef& accel_conv = find_op("accel::conv2d");
                    for (ir::Node* conv : g.find_nodes("aten::convolution")) {
                      const auto& a = conv->args();  // input, weight, bias, stride, padding,
                                                     // dilation, transposed, output_padding, groups
                      if (std::get<bool>(a[6].value)) continue;  // transposed: not for the unit
                      ir::Node* call = g.insert_call(conv->position(), accel_conv,
                                                     {a[0], a[1], a[2], a[3], a[4], a[5], a[8]},
                                                     conv->outputs(), conv->meta());
                      g.replace_all_uses(conv->out(), call->out());
                      g.erase(conv);
                    }
                  });
                },
            .valid_inputs = {{randn({1, 3, 8, 8}, 1)}, {randn({7, 3, 8, 8}, 2)}},
        });
  }
}

}  // namespace xport::exportdb
