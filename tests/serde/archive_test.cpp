// PT2 archives: layout, schema fields, mapped weights, shared storage, the version policy, and
// corrupt or hostile files (each an InvalidArchive naming the field, never a crash).
#include "xport/serde/archive.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "serde/round_trip.h"
#include "serde/zip_io.h"
#include "xport/nn/layers.h"
#include "xport/xport.h"

namespace xport {
namespace {

using test_support::TempFile;
using Json = nlohmann::json;

// Linear -> ReLU -> Linear times a parameter, plus buffers: `second_row` is a view of `scale`
// (stored once with it), `first_row` too but not persistent (so stored with the constants).
class Net : public nn::Module {
 public:
  Net() : Module("Net") {
    fc1 = register_module("fc1", std::make_shared<nn::Linear>(4, 3));
    fc2 = register_module("fc2", std::make_shared<nn::Linear>(3, 2));
    scale = register_parameter("scale", randn({2, 2}, 7));
    offset = register_buffer("offset", randn({2}, 8));
    second_row = register_buffer("second_row", scale.select(0, 1));
    first_row = register_buffer("first_row", scale.select(0, 0), /*persistent=*/false);
  }
  Tensor forward(const Tensor& x) {
    nn::ModuleScope scope(*this);
    return relu(fc2->forward(relu(fc1->forward(x)))).matmul(scale) + offset +
           first_row * second_row;
  }
  std::shared_ptr<nn::Linear> fc1, fc2;
  Tensor scale, offset, second_row, first_row;
};

ExportedProgram export_net(Net& net) {
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 2, 64)}}};
  return export_program(
      net, [&](const Tensor& x) { return net.forward(x); }, {randn({3, 4}, 1)}, options);
}

// The entries of an archive as name -> bytes, and back.
std::map<std::string, std::string> read_entries(const std::string& path) {
  const std::string bytes = test_support::read_bytes(path);
  const serde::ZipView zip(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), path);
  std::map<std::string, std::string> out;
  for (const auto& [name, e] : zip.entries()) {
    out[name] = std::string(reinterpret_cast<const char*>(e.data), e.size);
  }
  return out;
}

void write_entries(const std::map<std::string, std::string>& entries, const std::string& path) {
  serde::ZipWriter zip(path);
  for (const auto& [name, bytes] : entries) zip.add(name, bytes);
  zip.close();
}

// The first node that computes a tensor: the writer puts the input assertions first (dtypes,
// then the symbols' ranges with their sym_size and _operator nodes).
Json& first_op_node(Json& model) {
  for (Json& n : model["graph_module"]["graph"]["nodes"]) {
    if (!n["outputs"].empty() && n["outputs"][0].contains("as_tensor")) return n;
  }
  throw std::runtime_error("no node computes a tensor");
}

class Archive : public ::testing::Test {
 protected:
  void SetUp() override {
    net_.eval();
    save(program_, file_.path());
    entries_ = read_entries(file_.path());
    model_ = Json::parse(entries_.at("archive/models/model.json"));
  }
  // Saves `model` (and `entries_` with changes) as a new archive and loads it.
  void load_modified(const Json& model) {
    auto entries = entries_;
    entries["archive/models/model.json"] = model.dump();
    write_entries(entries, modified_.path());
    load(modified_.path());
  }
  void expect_invalid(const std::function<void()>& f, const std::string& fragment,
                      ErrorKind kind = ErrorKind::InvalidArchive) {
    try {
      f();
      ADD_FAILURE() << "no error; expected one containing '" << fragment << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), kind) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
          << "message lacks '" << fragment << "': " << e.what();
    }
  }
  Json& first_node() { return model_["graph_module"]["graph"]["nodes"][0]; }

  Net net_;
  ExportedProgram program_ = export_net(net_);
  TempFile file_{"archive-test"}, modified_{"archive-test-modified"};
  std::map<std::string, std::string> entries_;
  Json model_;
};

TEST_F(Archive, RoundTripsPrintingRunningAndBytes) {
  const std::vector<std::vector<Value>> inputs = {{randn({2, 4}, 3)}, {randn({17, 4}, 4)}};
  for (const std::string& p : test_support::round_trip_problems(program_, inputs, "net")) {
    ADD_FAILURE() << p;
  }
  ArchiveInfo info;
  const ExportedProgram q = load(file_.path(), info);
  EXPECT_EQ(info.schema_major, 8);
  EXPECT_EQ(info.archive_version, "0");
  EXPECT_EQ(info.weight_count, 7);    // fc1/fc2 weight+bias, scale, offset, second_row
  EXPECT_EQ(info.constant_count, 1);  // first_row
  EXPECT_TRUE(info.written_by_xport);
  // The root module's call signature: one positional input, and one leaf for the output: the
  // function returned one tensor, so PyTorch's module() and Python return it alone.
  EXPECT_EQ(info.forward_arg_names, std::vector<std::string>{"x"});
  const Json in_spec = Json::parse(info.in_spec), out_spec = Json::parse(info.out_spec);
  EXPECT_EQ(in_spec[1]["type"], "builtins.tuple");
  EXPECT_EQ(in_spec[1]["children_spec"][0]["children_spec"].size(), 1u);
  EXPECT_TRUE(out_spec[1]["type"].is_null()) << info.out_spec;
  EXPECT_EQ(program_.signature().returns, GraphSignature::Returns::Single);
  EXPECT_EQ(q.signature().returns, GraphSignature::Returns::Single);
  // The loaded program still refuses inputs outside the contract, with the same message.
  try {
    q.run({randn({1, 4}, 0)});
    ADD_FAILURE() << "batch 1 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    EXPECT_NE(std::string(e.what()).find("outside the range [2, 64] of Dim 'batch'"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(Archive, HasThePt2LayoutWithAlignedStoredEntries) {
  for (const char* name :
       {"archive/archive_format", "archive/archive_version", "archive/byteorder",
        "archive/.data/version", "archive/.data/serialization_id", "archive/models/model.json",
        "archive/data/weights/model_weights_config.json", "archive/data/weights/weight_0",
        "archive/data/constants/model_constants_config.json"}) {
    EXPECT_TRUE(entries_.count(name)) << name;
  }
  EXPECT_EQ(entries_.at("archive/archive_format"), "pt2");
  const std::string bytes = test_support::read_bytes(file_.path());
  const serde::ZipView zip(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "x");
  for (const auto& [name, e] : zip.entries()) {
    EXPECT_EQ((e.data - reinterpret_cast<const uint8_t*>(bytes.data())) % 64, 0) << name;
  }
  // scale and second_row share one payload; first_row, a constant, has its own copy.
  const Json weights = Json::parse(entries_.at("archive/data/weights/model_weights_config.json"));
  const Json constants =
      Json::parse(entries_.at("archive/data/constants/model_constants_config.json"));
  EXPECT_EQ(weights["config"].size(), 7u);
  const std::string scale_file = weights["config"]["scale"]["path_name"];
  EXPECT_EQ(weights["config"]["second_row"]["path_name"], scale_file);
  EXPECT_EQ(weights["config"]["second_row"]["tensor_meta"]["storage_offset"],
            (Json{{"as_int", 2}}));
  EXPECT_TRUE(weights["config"]["scale"]["is_param"].get<bool>());
  EXPECT_EQ(constants["config"]["first_row"]["path_name"], "tensor_0");
  EXPECT_EQ(entries_.at("archive/data/weights/" + scale_file),
            entries_.at("archive/data/constants/tensor_0"));
  EXPECT_EQ(entries_.at("archive/data/constants/tensor_0").size(), 16u);  // all of scale's 2x2
}

TEST_F(Archive, WritesTorchExportSchemaFields) {
  EXPECT_EQ(model_["schema_version"], (Json{{"major", 8}, {"minor", 17}}));
  const Json& graph = model_["graph_module"]["graph"];
  EXPECT_EQ(graph["inputs"][0], (Json{{"as_tensor", {{"name", "p_scale"}}}}));
  // x is f32[s0, 4]: dtype 7 (FLOAT), a symbolic size as an expression string (sympy's srepr).
  const Json& x = graph["tensor_values"]["x"];
  EXPECT_EQ(x["dtype"], 7);
  const Json s0 = {{"expr_str", "Symbol('s0', positive=True, integer=True)"}, {"hint", nullptr}};
  EXPECT_EQ(x["sizes"][0], (Json{{"as_expr", s0}}));
  EXPECT_EQ(x["sizes"][1], (Json{{"as_int", 4}}));
  EXPECT_EQ(model_["range_constraints"]["s0"], (Json{{"min_val", 2}, {"max_val", 64}}));
  bool saw_addmm_target = false;
  for (const Json& n : graph["nodes"]) {
    const std::string target = n["target"];
    // Ops, and the _operator comparisons of the range assertions (s0 >= 2, s0 <= 64).
    EXPECT_TRUE(target.rfind("torch.ops.aten.", 0) == 0 || target == "_operator.ge" ||
                target == "_operator.le")
        << target;
    saw_addmm_target |= target == "torch.ops.aten.addmm.default";
    for (const Json& in : n["inputs"]) EXPECT_EQ(in["arg"].size(), 1u) << "unions have one key";
  }
  EXPECT_TRUE(saw_addmm_target);
  const Json& specs = model_["graph_module"]["signature"]["input_specs"];
  EXPECT_EQ(specs[0],
            (Json{{"parameter", {{"arg", {{"name", "p_scale"}}}, {"parameter_name", "scale"}}}}));
  bool saw_non_persistent = false;
  for (const Json& s : specs) {
    if (s.contains("buffer") && s["buffer"]["buffer_name"] == "first_row") {
      saw_non_persistent = !s["buffer"]["persistent"].get<bool>();
    }
  }
  EXPECT_TRUE(saw_non_persistent);
  // Node metadata: the user's line as a traceback frame, the module stack.
  bool saw_stack_trace = false, saw_module_stack = false;
  for (const Json& n : graph["nodes"]) {
    const Json& meta = n["metadata"];
    if (meta.contains("stack_trace")) {
      saw_stack_trace |= meta["stack_trace"].get<std::string>().find("archive_test.cpp\", line ") !=
                         std::string::npos;
    }
    if (meta.contains("nn_module_stack")) {
      saw_module_stack |= meta["nn_module_stack"].get<std::string>() == ",,Net;fc1,fc1,Linear";
    }
  }
  EXPECT_TRUE(saw_stack_trace);
  EXPECT_TRUE(saw_module_stack);
}

// A function that returns a tuple, a pair or a vector (of one tensor too) gets a tuple out_spec,
// one leaf per user output; one that returns a tensor alone, one leaf (above). Saving and loading
// keeps which, and so does a program made from another (transform).
TEST(ArchiveOutputStructure, FollowsWhatTheFunctionReturned) {
  const Tensor x = randn({3, 4}, 1);
  auto out_spec_of = [](const ExportedProgram& p, GraphSignature::Returns* loaded) {
    const TempFile file("archive-output-structure");
    save(p, file.path());
    ArchiveInfo info;
    *loaded = load(file.path(), info).signature().returns;
    return Json::parse(info.out_spec)[1];
  };
  GraphSignature::Returns loaded{};
  const ExportedProgram one = export_program([](const Tensor& a) { return a.relu(); }, {x});
  EXPECT_TRUE(out_spec_of(one, &loaded)["type"].is_null());
  EXPECT_EQ(loaded, GraphSignature::Returns::Single);
  const ExportedProgram transformed = one.transform([](ir::Graph&) {});
  EXPECT_EQ(transformed.signature().returns, GraphSignature::Returns::Single);
  const ExportedProgram size = export_program([](const Tensor& a) { return a.size(0) + 1; }, {x});
  EXPECT_EQ(size.signature().returns, GraphSignature::Returns::Single);

  const ExportedProgram pair = export_program(
      [](const Tensor& a) { return std::make_tuple(a.relu(), a.neg()); }, {x});
  Json spec = out_spec_of(pair, &loaded);
  EXPECT_EQ(spec["type"], "builtins.tuple");
  EXPECT_EQ(spec["children_spec"].size(), 2u);
  EXPECT_EQ(loaded, GraphSignature::Returns::Sequence);
  const ExportedProgram vector_of_one =
      export_program([](const Tensor& a) { return std::vector<Tensor>{a.relu()}; }, {x});
  spec = out_spec_of(vector_of_one, &loaded);
  EXPECT_EQ(spec["type"], "builtins.tuple");
  EXPECT_EQ(spec["children_spec"].size(), 1u);
  EXPECT_EQ(loaded, GraphSignature::Returns::Sequence);
  const TracedFn traced = [](const std::vector<Value>& in) {
    return std::vector<Tensor>{in[0].to_tensor().relu()};
  };
  EXPECT_EQ(export_program(traced, {x}).signature().returns, GraphSignature::Returns::Sequence);
}

// Symbolic sizes in arguments are computed as PyTorch's graphs compute them: aten.sym_size.int
// off an input dim, then _operator nodes; the arguments name those nodes' outputs.
TEST(ArchiveSymbolicSizes, AreComputedBySymSizeAndOperatorNodes) {
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 2, 64)}}};
  const ExportedProgram p = export_program(
      [](const std::vector<Value>& in) {
        const Tensor& x = in[0].to_tensor();
        return std::vector<Tensor>{x.view({x.size(0) * 6}), zeros({x.size(0) + 1, 2})};
      },
      {randn({3, 6}, 1)}, options);
  TempFile file("archive-sym");
  save(p, file.path());
  const Json model = Json::parse(read_entries(file.path()).at("archive/models/model.json"));
  const Json& graph = model["graph_module"]["graph"];
  std::map<std::string, Json> by_target;
  for (const Json& n : graph["nodes"]) by_target[n["target"]] = n;
  ASSERT_TRUE(by_target.count("torch.ops.aten.sym_size.int")) << graph["nodes"].dump();
  const Json& size = by_target["torch.ops.aten.sym_size.int"];
  EXPECT_EQ(size["inputs"][0]["arg"], (Json{{"as_tensor", {{"name", "x"}}}}));
  EXPECT_EQ(size["inputs"][1]["arg"], (Json{{"as_int", 0}}));
  const std::string s0 = size["outputs"][0]["as_sym_int"]["as_name"];
  const Json& mul = by_target["_operator.mul"];
  EXPECT_EQ(mul["inputs"][0]["arg"], (Json{{"as_sym_int", {{"as_name", s0}}}}));
  EXPECT_EQ(mul["inputs"][1]["arg"], (Json{{"as_int", 6}}));
  const std::string six_s0 = mul["outputs"][0]["as_sym_int"]["as_name"];
  EXPECT_EQ(graph["sym_int_values"][six_s0]["as_expr"]["expr_str"],
            "Mul(Integer(6), Symbol('s0', positive=True, integer=True))");
  EXPECT_EQ(by_target["torch.ops.aten.view.default"]["inputs"][1]["arg"],
            (Json{{"as_sym_ints", Json::array({Json{{"as_name", six_s0}}})}}));
  const Json& add = by_target["_operator.add"];
  EXPECT_EQ(add["inputs"][1]["arg"], (Json{{"as_int", 1}}));
  EXPECT_EQ(graph["sym_int_values"][add["outputs"][0]["as_sym_int"]["as_name"].get<std::string>()]
                 ["as_expr"]["expr_str"],
            "Add(Symbol('s0', positive=True, integer=True), Integer(1))");
  // The reader folds the nodes back into expressions.
  const std::vector<std::vector<Value>> inputs = {{randn({7, 6}, 2)}};
  for (const std::string& problem : test_support::round_trip_problems(p, inputs, "sym")) {
    ADD_FAILURE() << problem;
  }
}

// The loaded weights are views of the mapped file: their addresses lie in a mapping of it.
TEST_F(Archive, MapsWeightsInsteadOfCopyingThem) {
  const ExportedProgram q = load(file_.path());
  const auto address = reinterpret_cast<uintptr_t>(q.state().at("fc1.weight").raw_data());
  std::ifstream maps("/proc/self/maps");
  bool inside = false;
  for (std::string line; std::getline(maps, line);) {
    if (line.find(std::filesystem::path(file_.path()).filename().string()) == std::string::npos) {
      continue;
    }
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream(line) >> std::hex >> lo >> dash >> hi;
    inside |= lo <= address && address < hi;
  }
  EXPECT_TRUE(inside) << "fc1.weight is not inside a mapping of " << file_.path();
  // Tensors sharing a storage in the archive share it after loading.
  EXPECT_EQ(q.state().at("scale").storage(), q.state().at("second_row").storage());
}

TEST_F(Archive, LoadsANewerMinorIgnoringUnknownFields) {
  model_["schema_version"]["minor"] = 99;
  model_["a_field_from_the_future"] = {{"x", 1}};
  model_["graph_module"]["graph"]["nodes"][0]["another_new_field"] = true;
  EXPECT_NO_THROW(load_modified(model_));
}

TEST_F(Archive, RefusesAnotherMajorNamingBothVersions) {
  model_["schema_version"]["major"] = 9;
  expect_invalid([&] { load_modified(model_); },
                 "schema version 9.17 has major 9; xport reads major 8");
}

TEST_F(Archive, LoadsArchivesWithoutXportMetadataOrRootFolder) {
  // As PyTorch writes them: no contract metadata (derived from the graph inputs instead), and
  // here also no top-level folder.
  model_["graph_module"]["metadata"] = Json::object();
  std::map<std::string, std::string> flat;
  for (const auto& [name, bytes] : entries_)
    flat[name.substr(std::string("archive/").size())] = bytes;
  flat["models/model.json"] = model_.dump();
  write_entries(flat, modified_.path());
  ArchiveInfo info;
  const ExportedProgram q = load(modified_.path(), info);
  EXPECT_FALSE(info.written_by_xport);
  const Tensor x = randn({5, 4}, 2);
  EXPECT_TRUE(test_support::bitwise_equal(q.run({x}).at(0), program_.run({x}).at(0)));
  EXPECT_NE(q.to_string().find("s0: s0 in [2, 64]  (x.size(0))"), std::string::npos)
      << q.to_string();
}

TEST_F(Archive, RefusesTruncatedAndNonZipFiles) {
  const std::string bytes = test_support::read_bytes(file_.path());
  for (size_t keep : {size_t{0}, size_t{10}, bytes.size() / 2, bytes.size() - 10}) {
    std::ofstream(modified_.path(), std::ios::binary | std::ios::trunc)
        .write(bytes.data(), static_cast<std::streamsize>(keep));
    expect_invalid([&] { load(modified_.path()); }, "zip");
  }
  std::ofstream(modified_.path(), std::ios::trunc) << "{\"hello\": 1}";
  expect_invalid([&] { load(modified_.path()); }, "not a zip file");
}

TEST_F(Archive, RefusesBadJsonNamingTheEntry) {
  auto entries = entries_;
  entries["archive/models/model.json"] = "{\"graph_module\": [1, 2";
  write_entries(entries, modified_.path());
  expect_invalid([&] { load(modified_.path()); }, "models/model.json: invalid JSON at byte");
}

// Found by the fuzzer: nlohmann's number-overflow error is not a parse_error.
TEST_F(Archive, RefusesANumberTooLargeForADouble) {
  auto entries = entries_;
  std::string text = entries.at("archive/models/model.json");
  const size_t at = text.find("false");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 5, "1e999");
  entries["archive/models/model.json"] = text;
  write_entries(entries, modified_.path());
  expect_invalid([&] { load(modified_.path()); }, "models/model.json: invalid JSON");
}

TEST_F(Archive, RefusesANodeReferringToAnUnknownValue) {
  first_node()["inputs"][0]["arg"] = {{"as_tensor", {{"name", "nope"}}}};
  expect_invalid([&] { load_modified(model_); },
                 "graph_module.graph.nodes[0].inputs[0].arg.as_tensor.name: refers to value "
                 "'nope', which no earlier node or input defines");
}

TEST_F(Archive, RefusesAnUnknownOpAsUnsupported) {
  first_node()["target"] = "torch.ops.mylib.frobnicate.default";
  expect_invalid([&] { load_modified(model_); }, "op mylib::frobnicate", ErrorKind::UnsupportedOp);
}

TEST_F(Archive, RefusesAWeightShorterThanItsMetadata) {
  auto entries = entries_;
  std::string& w = entries.at("archive/data/weights/weight_1");  // fc1.weight, 3x4 floats
  w.resize(w.size() - 4);
  write_entries(entries, modified_.path());
  expect_invalid([&] { load(modified_.path()); }, "needs 48 bytes");
}

TEST_F(Archive, RefusesNegativeAndOverflowingStrides) {
  Json weights = Json::parse(entries_.at("archive/data/weights/model_weights_config.json"));
  auto with_weights = [&](const Json& w) {
    auto entries = entries_;
    entries["archive/data/weights/model_weights_config.json"] = w.dump();
    write_entries(entries, modified_.path());
    load(modified_.path());
  };
  Json negative = weights;
  negative["config"]["fc1.weight"]["tensor_meta"]["strides"][0] = {{"as_int", -4}};
  expect_invalid([&] { with_weights(negative); },
                 "config.fc1.weight.tensor_meta.strides[0]: negative stride -4");
  Json overflow = weights;
  overflow["config"]["fc1.weight"]["tensor_meta"]["strides"][0] = {{"as_int", INT64_MAX / 2}};
  expect_invalid([&] { with_weights(overflow); }, "overflow 64 bits");
  Json offset = weights;
  offset["config"]["fc1.weight"]["tensor_meta"]["storage_offset"] = {{"as_int", INT64_MAX}};
  expect_invalid([&] { with_weights(offset); }, "fc1.weight");
}

TEST_F(Archive, RefusesAnUnknownDtypeId) {
  model_["graph_module"]["graph"]["tensor_values"]["x"]["dtype"] = 99;
  expect_invalid([&] { load_modified(model_); },
                 "graph_module.graph.tensor_values.x.dtype: ScalarType 99 is not a dtype");
}

TEST_F(Archive, RefusesMalformedFieldsNamingThem) {
  struct Mutation {
    std::function<void(Json&)> apply;
    std::string fragment;
  };
  const std::vector<Mutation> mutations = {
      {[](Json& m) { m.erase("graph_module"); }, "(top level): missing field 'graph_module'"},
      {[](Json& m) { m["graph_module"]["graph"]["nodes"] = 3; }, "nodes: expected a JSON array"},
      {[](Json& m) { m["range_constraints"]["s0"]["min_val"] = 100; }, "min_val 100 > max_val 64"},
      // Found by the fuzzer: an unparsable key left the symbol pointer uninitialized.
      {[](Json& m) { m["range_constraints"]["S0"] = m["range_constraints"]["s0"]; },
       "range_constraints.S0: 'S0' is not a symbol name"},
      {[](Json& m) {
         m["graph_module"]["graph"]["tensor_values"]["x"]["sizes"][0] = {
             {"as_expr", {{"expr_str", "s0 +"}}}};
       },
       "cannot parse the expression"},
      {[](Json& m) {
         m["graph_module"]["graph"]["tensor_values"]["x"]["sizes"][0] = {
             {"as_expr", {{"expr_str", "s7"}}}};
       },
       "symbol s7 in 's7' has no entry in range_constraints"},
      {[](Json& m) {
         m["graph_module"]["graph"]["tensor_values"]["x"]["sizes"][0] = {{"as_int", 1},
                                                                         {"as_expr", 2}};
       },
       "expected a union (an object with exactly one member)"},
      {[](Json& m) {
         Json& g = m["graph_module"]["graph"];
         g["inputs"][0] = {{"as_tensor", {{"name", "p_scale; rm"}}}};
         g["tensor_values"]["p_scale; rm"] = g["tensor_values"]["p_scale"];
       },
       "graph_module.graph.inputs[0].as_tensor.name: Graph::add_placeholder: 'p_scale; rm' is "
       "not a valid input name"},
      {[](Json& m) { m["graph_module"]["signature"]["input_specs"].erase(0); }, "input specs for"},
      {[](Json& m) { m["graph_module"]["graph"]["nodes"][0]["target"] = "aten.add"; },
       "is not of the form"},
      {[](Json& m) { first_op_node(m)["inputs"][0]["name"] = "nonexistent"; },
       "has no argument 'nonexistent'"},
      {[](Json& m) { first_op_node(m)["outputs"] = Json::array(); }, "0 outputs"},
      {[](Json& m) {
         m["graph_module"]["metadata"]["xport.contract"] = "[{\"kind\": \"tensor\"}]";
       },
       "missing field 'name'"},
      {[](Json& m) {
         m["graph_module"]["graph"]["tensor_values"]["x"]["sizes"][1] = {{"as_int", -3}};
       },
       "negative size -3"},
      {[](Json& m) {
         m["graph_module"]["graph"]["tensor_values"]["x"]["sizes"][0] = {
             {"as_expr", {{"expr_str", "(s0 + 1)**60"}}}};
       },
       "a power of a parenthesized expression"},
  };
  for (const Mutation& m : mutations) {
    SCOPED_TRACE(m.fragment);
    Json model = model_;
    m.apply(model);
    expect_invalid([&] { load_modified(model); }, m.fragment);
  }
}

// Random damage never crashes the loader: it loads or throws xport::Error.
TEST_F(Archive, SurvivesRandomCorruption) {
  const std::string bytes = test_support::read_bytes(file_.path());
  std::mt19937_64 rng(42);
  int loaded = 0;
  for (int round = 0; round < 400; ++round) {
    std::string damaged = bytes;
    const int flips = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < flips; ++i) damaged[rng() % damaged.size()] = static_cast<char>(rng());
    if (round % 4 == 0) damaged.resize(rng() % damaged.size());
    std::ofstream(modified_.path(), std::ios::binary | std::ios::trunc)
        .write(damaged.data(), static_cast<std::streamsize>(damaged.size()));
    try {
      load(modified_.path());
      ++loaded;
    } catch (const Error&) {
    }
  }
  SUCCEED() << loaded << " of 400 damaged archives still loaded";
}

TEST(ArchiveSave, RefusesAPathInAMissingDirectory) {
  Net net;
  const ExportedProgram p = export_net(net);
  try {
    save(p, "/nonexistent-dir/model.pt2");
    ADD_FAILURE() << "saved";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    EXPECT_NE(std::string(e.what()).find("cannot create the file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace xport

namespace xport {
namespace {

// An archive laid out as torch.export.save writes it (tests/serde/make_pytorch_style_archive.py):
// another root folder, unaligned payloads, a sym_size node, omitted defaults, no node names, no
// xport metadata, Python stack traces.
TEST(ArchiveCompatibility, LoadsAnArchiveWrittenTheWayPyTorchWritesThem) {
  const std::string path =
      (std::filesystem::path(__FILE__).parent_path() / "data" / "pytorch_style.pt2").string();
  ArchiveInfo info;
  const ExportedProgram p = load(path, info);
  EXPECT_FALSE(info.written_by_xport);
  EXPECT_EQ(info.schema_minor, 3);
  EXPECT_EQ(info.weight_count, 2);
  std::vector<float> w(12);
  for (size_t k = 0; k < w.size(); ++k) w[k] = static_cast<float>(k) / 10;
  const Tensor weight = from_vector(w, {3, 4});
  const Tensor bias = from_vector(std::vector<float>{0.5f, -1.0f, 2.0f}, {3});
  const Tensor x = randn({5, 4}, 3);
  const Tensor expected = relu(x.matmul(weight.transpose(0, 1)) + bias).view({5, 3, 1});
  const std::vector<Tensor> got = p.run({x});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(allclose(got[0], expected, 1e-6, 1e-6)) << got[0] << expected;
  // The sym_size node is folded into the view's sizes; lines and module paths come through.
  const std::string text = p.to_string();
  EXPECT_EQ(text.find("sym_size"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::view.default(%linear, [s0, 3, 1])"), std::string::npos) << text;
  EXPECT_NE(text.find("/home/user/model.py:12  fc"), std::string::npos) << text;
  EXPECT_NE(text.find("s0: s0 in [2, 64]  (x.size(0))"), std::string::npos) << text;
  // Outside the contract: refused before running.
  EXPECT_THROW(p.run({randn({65, 4}, 0)}), Error);
}

}  // namespace
}  // namespace xport
