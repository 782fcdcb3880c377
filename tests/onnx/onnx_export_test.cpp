// xport::onnx::save: what the model says about itself, and what it refuses. ONNX Runtime runs the
// models of every data set in tests/onnx/onnx_runtime_cases.py (ctest onnx_runtime_cases).
#include "xport/onnx/onnx.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <cstring>
#include <iterator>
#include <map>
#include <mutex>

#include "expect_error.h"
#include "onnx/model_writer.h"
#include "program/specialize.h"
#include "xport/aten.h"
#include "xport/xport.h"

namespace xport {
namespace {

using test_support::expect_error;

// A fresh directory, removed with what it holds.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("onnx-export-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  size_t entries() const {
    return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(path_),
                                             std::filesystem::directory_iterator()));
  }

 private:
  std::filesystem::path path_;
};

ExportedProgram dynamic_linear() {
  nn::Linear fc(3, 4);
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 2, 64)}}};
  return export_program(
      fc, [&](const Tensor& x) { return relu(fc.forward(x)); }, {randn({5, 3}, 1)}, options);
}

TEST(OnnxExport, NamesDynamicDimsByTheUsersDimsAndKeepsTheContract) {
  TempDir dir;
  onnx::save(dynamic_linear(), dir.file("linear.onnx"));
  const std::string text = onnx::describe(dir.file("linear.onnx"));
  EXPECT_NE(text.find("opset: ai.onnx 17"), std::string::npos) << text;
  EXPECT_NE(text.find("input x: FLOAT [batch, 3]"), std::string::npos) << text;
  EXPECT_NE(text.find("FLOAT [batch, 4]"), std::string::npos) << text;
  EXPECT_NE(text.find("batch in [2, 64]  (x.size(0))"), std::string::npos) << text;
  EXPECT_EQ(dir.entries(), 1u);  // the model only: nothing left beside it
}

TEST(OnnxExport, DerivedDimsAreExpressionsOfTheDim) {
  ExportOptions options;
  const Dim d("d", 2, 32);
  options.dynamic_shapes = {{{0, 2 * d}}, {{0, d}}};
  const ExportedProgram program = export_program(
      [](const Tensor& x, const Tensor& y) { return x.view({2, -1}) + y; },
      {randn({8}, 1), randn({4}, 2)}, options);
  TempDir dir;
  onnx::save(program, dir.file("derived.onnx"));
  const std::string text = onnx::describe(dir.file("derived.onnx"));
  EXPECT_NE(text.find("input x0: FLOAT [2*d]"), std::string::npos) << text;
  EXPECT_NE(text.find("input x1: FLOAT [d]"), std::string::npos) << text;
  EXPECT_NE(text.find("d in [2, 32]"), std::string::npos) << text;
}

// `xport onnx --static NAME=VALUE`: the named dims become fixed sizes (for TVM), the contract
// holds the values; the program specialised runs as the original does at those sizes.
TEST(OnnxExport, StaticDimsAreWrittenAsFixedSizes) {
  TempDir dir;
  onnx::Options options;
  options.static_dims = {{"batch", 3}};
  onnx::save(dynamic_linear(), dir.file("static.onnx"), options);
  const std::string text = onnx::describe(dir.file("static.onnx"));
  EXPECT_NE(text.find("input x: FLOAT [3, 3]"), std::string::npos) << text;
  EXPECT_NE(text.find("FLOAT [3, 4]"), std::string::npos) << text;
  EXPECT_EQ(text.find("batch"), std::string::npos) << text;

  const ExportedProgram linear = dynamic_linear();
  const ExportedProgram fixed = specialize(linear, {{"x.size(0)", 7}});
  EXPECT_TRUE(fixed.symbols().empty());
  const Tensor x = randn({7, 3}, 3);
  EXPECT_TRUE(allclose(fixed.run({x}).at(0), linear.run({x}).at(0), 0, 0));
  expect_error([&] { fixed.run({randn({6, 3}, 4)}); }, ErrorKind::InvalidInput, {"x"});

  // A derived dim follows its Dim: 2*d with d = 5 is 10.
  ExportOptions derived;
  const Dim d("d", 2, 32);
  derived.dynamic_shapes = {{{0, 2 * d}}, {{0, d}}};
  const ExportedProgram two = export_program(
      [](const Tensor& a, const Tensor& b) { return a.view({2, -1}) + b; },
      {randn({8}, 1), randn({4}, 2)}, derived);
  options.static_dims = {{"d", 5}};
  onnx::save(two, dir.file("derived.onnx"), options);
  const std::string derived_text = onnx::describe(dir.file("derived.onnx"));
  EXPECT_NE(derived_text.find("input x0: FLOAT [10]"), std::string::npos) << derived_text;
  EXPECT_NE(derived_text.find("input x1: FLOAT [5]"), std::string::npos) << derived_text;

  options.static_dims = {{"rows", 3}};
  expect_error([&] { onnx::save(linear, dir.file("bad.onnx"), options); },
               ErrorKind::InvalidInput, {"no dynamic dim of the program is named 'rows'"});
  options.static_dims = {{"batch", 65}};
  expect_error([&] { onnx::save(linear, dir.file("bad.onnx"), options); },
               ErrorKind::InvalidInput, {"'batch' cannot be 65"});
  EXPECT_FALSE(std::filesystem::exists(dir.file("bad.onnx")));
}

TEST(OnnxExport, AnUpdatedInputIsAnExtraOutput) {
  const ExportedProgram program = export_program(
      [](Tensor x) {
        x.add_(1.0);
        return x * 2.0;
      },
      {randn({3}, 1)});
  TempDir dir;
  onnx::save(program, dir.file("update.onnx"));
  const std::string text = onnx::describe(dir.file("update.onnx"));
  EXPECT_NE(text.find("output updated_x: FLOAT [3]"), std::string::npos) << text;
  EXPECT_NE(text.find("output updates x (user_input_mutation)"), std::string::npos) << text;
}

TEST(OnnxExport, AnOpItCannotLowerIsRefusedAtItsLineAndLeavesNoFile) {
  const ExportedProgram program = export_program(  // a bag's max: ScatterND's max is opset 18
      [](const Tensor& w, const Tensor& i, const Tensor& o) {
        return std::get<0>(aten::_embedding_bag(w, i, o, false, 2));
      },
      {randn({6, 3}, 1), from_vector(std::vector<int64_t>{1, 4, 2}, {3}),
       from_vector(std::vector<int64_t>{0, 2}, {2})});
  TempDir dir;
  expect_error([&] { onnx::save(program, dir.file("bag.onnx")); }, ErrorKind::UnsupportedOp,
               {"aten::_embedding_bag", "onnx_export_test.cpp:", "mode 'max' needs opset 18"});
  EXPECT_EQ(dir.entries(), 0u);
}

TEST(OnnxExport, RefusesAnOpsetTheLibraryDoesNotKnow) {
  TempDir dir;
  onnx::Options options;
  options.opset = 18;
  expect_error([&] { onnx::save(dynamic_linear(), dir.file("m.onnx"), options); },
               ErrorKind::InvalidInput, {"opset 18", "use 17"});
  EXPECT_EQ(dir.entries(), 0u);
}

TEST(OnnxExport, DescribeRefusesAFileThatIsNotAModel) {
  TempDir dir;
  {
    std::ofstream(dir.file("junk.onnx")) << "not a protobuf \xff\xff\xff";
  }
  expect_error([&] { onnx::describe(dir.file("junk.onnx")); }, ErrorKind::InvalidArchive,
               {"junk.onnx", "not an ONNX model"});
}

// A custom op is a node of its namespace's domain, its non-tensor arguments attributes; with a
// function given for it, the model carries the function and the node calls it.
TEST(OnnxExport, ACustomOpIsANodeOfItsDomainOrTheFunctionGiven) {
  static std::once_flag once;
  std::call_once(once, [] {
    Library("onnxtest")
        .define("scale(Tensor x, float s=2.0) -> Tensor")
        .impl("scale", [](const std::vector<Value>& a) -> Value {
          return a[0].to_tensor() * a[1].to_double();
        })
        .impl_meta("scale", [](const std::vector<Value>& a) -> Value {
          return empty_like(a[0].to_tensor());
        });
  });
  const ExportedProgram program = export_program(
      [](const Tensor& x) { return call_op("onnxtest::scale", {x, 3.0}).to_tensor().relu(); },
      {randn({2, 3}, 1)});
  TempDir dir;
  auto read = [&](const std::string& name) {
    std::ifstream in(dir.file(name), std::ios::binary);
    ::onnx::ModelProto m;
    EXPECT_TRUE(m.ParseFromIstream(&in));
    return m;
  };
  onnx::save(program, dir.file("plain.onnx"));
  const ::onnx::ModelProto plain = read("plain.onnx");
  ASSERT_GE(plain.graph().node_size(), 1);
  const ::onnx::NodeProto& node = plain.graph().node(0);
  EXPECT_EQ(node.domain(), "onnxtest");
  EXPECT_EQ(node.op_type(), "scale");
  ASSERT_EQ(node.attribute_size(), 1);
  EXPECT_EQ(node.attribute(0).name(), "s");
  EXPECT_FLOAT_EQ(node.attribute(0).f(), 3.0f);
  EXPECT_NE(onnx::describe(dir.file("plain.onnx")).find("opset: onnxtest 1"), std::string::npos);

  onnx::Options options;
  options.functions["onnxtest::scale"] =
      "<domain: \"onnxtest\", opset_import: [\"\" : 17]>\n"
      "scale (x) => (y) { three = Constant <value_float = 3.0> () y = Mul(x, three) }";
  onnx::save(program, dir.file("function.onnx"), options);
  const ::onnx::ModelProto with_function = read("function.onnx");
  ASSERT_EQ(with_function.functions_size(), 1);
  EXPECT_EQ(with_function.functions(0).name(), "scale");
  EXPECT_EQ(with_function.graph().node(0).domain(), "onnxtest");

  options.functions["onnxtest::scale"] = "not onnx text";
  expect_error([&] { onnx::save(program, dir.file("bad.onnx"), options); },
               ErrorKind::InvalidInput, {"onnxtest::scale", "does not parse"});
}

// Past the threshold (1 GiB in save; 0 here), weights of 1 KiB or more go to PATH.data: each
// initializer names it with its offset and length, and the bytes there are the tensor's.
TEST(OnnxExport, LargeWeightsGoToAnExternalDataFile) {
  const Tensor big = randn({64, 32}, 1), small = randn({4}, 2);
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  for (const auto& [name, t] : {std::pair{"big", big}, std::pair{"small", small}}) {
    auto* init = model.mutable_graph()->add_initializer();
    init->set_name(name);
    init->set_data_type(::onnx::TensorProto::FLOAT);
    for (int64_t d : t.int_sizes()) init->add_dims(d);
  }
  TempDir dir;
  onnx::write_model(model, {{"big", big}, {"small", small}}, dir.file("m.onnx"), 0);
  EXPECT_EQ(dir.entries(), 2u);
  std::ifstream in(dir.file("m.onnx"), std::ios::binary);
  ::onnx::ModelProto back;
  ASSERT_TRUE(back.ParseFromIstream(&in));
  ASSERT_EQ(back.graph().initializer_size(), 2);
  const auto& b = back.graph().initializer(0);
  ASSERT_EQ(b.data_location(), ::onnx::TensorProto::EXTERNAL);
  std::map<std::string, std::string> where;
  for (const auto& e : b.external_data()) where[e.key()] = e.value();
  EXPECT_EQ(where["location"], "m.onnx.data");
  EXPECT_EQ(where["offset"], "0");
  EXPECT_EQ(where["length"], std::to_string(64 * 32 * 4));
  std::ifstream data(dir.file("m.onnx.data"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(data)), {});
  ASSERT_EQ(bytes.size(), 64u * 32u * 4u);
  EXPECT_EQ(std::memcmp(bytes.data(), big.raw_data(), bytes.size()), 0);
  // Under 1 KiB a weight stays inline.
  const auto& s = back.graph().initializer(1);
  EXPECT_EQ(s.raw_data().size(), 16u);
  EXPECT_EQ(std::memcmp(s.raw_data().data(), small.raw_data(), 16), 0);
}

}  // namespace
}  // namespace xport
