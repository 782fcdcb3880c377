// `xport view`: every node of the program and of its subgraphs drawn with its id, each subgraph
// a picture of its own, the signature and contract as tables, each node's properties (arguments
// by schema name) in the page's data, nothing fetched from the network; the comparison of two
// programs; and the layout of a 5,000-node graph bounded in time.
#include "tools/xport/view.h"

#include <gtest/gtest.h>

#include <chrono>
#include <regex>

#include <nlohmann/json.hpp>

#include "tools/xport/view_diff.h"
#include "tools/xport/view_layout.h"
#include "xport/capture/control_flow.h"
#include "xport/nn/models.h"
#include "xport/xport.h"

namespace xport {
namespace {

nlohmann::json page_data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"xport-data\">";
  const size_t start = html.find(open) + open.size();
  std::string text = html.substr(start, html.find("</script>", start) - start);
  for (size_t at = text.find("<\\/"); at != std::string::npos; at = text.find("<\\/", at)) {
    text.replace(at, 3, "</");
  }
  return nlohmann::json::parse(text);
}

TEST(View, DrawsEveryNodeOfTheGraphAndItsSubgraphs) {
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 2, 64)}}};
  const ExportedProgram p = export_program(
      [](const Tensor& x) -> Tensor {
        const BranchFn relu = [](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{in[0].relu()};
        };
        const BranchFn tanh = [](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{in[0].tanh() + 1.0};
        };
        return cond(x.size(0) > 4, relu, tanh, {x}).at(0);
      },
      {randn({3, 4}, 0)}, options);
  const std::string html = tools::view_html(p, "cond <test>");
  for (const auto& n : p.graph().nodes()) {
    EXPECT_NE(html.find("id=\"node_" + n->name() + "\""), std::string::npos) << n->name();
    for (const ir::SubgraphRef* s : n->subgraphs()) {
      EXPECT_NE(html.find("data-title=\"subgraph " + s->name + " (of node " + n->name() + ")"),
                std::string::npos);
      for (const auto& m : s->graph->nodes()) {
        EXPECT_NE(html.find("id=\"node_" + s->name + "/" + m->name() + "\""), std::string::npos)
            << s->name << "/" << m->name();
      }
    }
  }
  EXPECT_NE(html.find("<title>cond &lt;test&gt; - xport view</title>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>x</td><td>tensor</td><td>f32[s0, 4]</td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><td>s0</td><td>batch</td><td>[2, 64]</td><td>x.size(0)</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<input id=\"search\""), std::string::npos);
  // Self-contained: no script, style or image from elsewhere.
  EXPECT_FALSE(std::regex_search(html, std::regex("(src|href)=\"(https?:)?//")));
}

TEST(View, GivesEachNodesArgumentsByNameAndEachWeightsStatistics) {
  auto mlp = models::mlp({4, 3});
  const ExportedProgram p = export_program(
      *mlp, [&](const Tensor& x) { return mlp->forward(x); }, {randn({2, 4}, 0)});
  const nlohmann::json data = page_data(tools::view_html(p, "mlp"));
  int weights = 0;
  for (const auto& [id, n] : data["nodes"].items()) {
    if (n["kind"] != "call") continue;
    const OpDef& op = find_op(n["op"]);
    for (size_t i = 0; i < n["args"].size(); ++i) {
      EXPECT_EQ(n["args"][i]["name"], op.parsed.arguments.at(i).name) << n.dump();
      const nlohmann::json& part = n["args"][i]["parts"][0];
      if (!part.contains("weight")) continue;
      ++weights;
      const nlohmann::json& w = data["weights"][part["weight"].get<std::string>()];
      const Tensor t = p.state().at(w["target"]);
      EXPECT_EQ(w["bytes"], static_cast<int64_t>(t.numel()) * 4);
      EXPECT_EQ(w["shape"], nlohmann::json(t.int_sizes()));
      EXPECT_NEAR(w["max"].get<double>(), t.max().item<float>(), 1e-6);
      EXPECT_NEAR(w["mean"].get<double>(), t.mean().item<float>(), 1e-6);
      const auto numel = static_cast<int64_t>(t.numel());
      EXPECT_EQ(w["values"].size(), static_cast<size_t>(std::min<int64_t>(8, numel)));
    }
    EXPECT_FALSE(n["source"].get<std::string>().empty());
  }
  EXPECT_EQ(weights, 2);  // the weight and the bias
}

TEST(View, MatchesTheNodesOfAProgramAndItsDecomposition) {
  const ExportedProgram p = export_program(
      [](const Tensor& x) { return x.transpose(0, 1).relu() + 1.0; }, {randn({2, 3}, 0)});
  const ExportedProgram core = p.run_decompositions();
  const tools::GraphDiff d = tools::diff_graphs(p.graph(), core.graph());
  EXPECT_EQ(d.a.at("transpose").status, "changed");
  EXPECT_EQ(d.a.at("x").status, "same");
  EXPECT_FALSE(d.a.at("transpose").peers.empty());
  const std::string html = tools::diff_html(p, "a.pt2", core, "b.pt2");
  EXPECT_NE(html.find("id=\"node_a/transpose\" class=\"node changed\""), std::string::npos);
  EXPECT_NE(html.find("id=\"picture_b\""), std::string::npos);
}

// 5,000 drawn nodes (GPT-2's structure, 180 thin layers; its 2,200 weights are written inside
// the nodes that read them): laid out with dot's iteration limits and straight edges.
TEST(View, LaysOutFiveThousandNodesInBoundedTime) {
  models::Gpt2Config config;
  config.vocab_size = 64;
  config.n_positions = 32;
  config.n_embd = 16;
  config.n_head = 2;
  config.n_layer = 180;
  auto model = models::gpt2(config);
  model->eval();
  const ExportedProgram p = export_program(
      *model, [&](const Tensor& x) { return model->forward(x); },
      {from_vector<int64_t>({1, 2, 3, 4}, {1, 4})});
  const size_t drawn = p.graph().nodes().size() - p.state().size();
  ASSERT_GE(drawn, 5000u);
  const auto start = std::chrono::steady_clock::now();
  const std::string html = tools::view_html(p, "large");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << drawn << " nodes drawn: page of " << html.size() / 1024 << " KiB in "
            << seconds << " s\n";
  EXPECT_LT(seconds, 60);
  EXPECT_NE(tools::dot_of(p.graph(), {}).find("nslimit=2"), std::string::npos);
}

}  // namespace
}  // namespace xport
