// `xport view`: every node of the program and of its subgraphs drawn with its id, the subgraphs
// in collapsible sections, the signature beside them, and nothing fetched from the network.
#include "tools/xport/view.h"

#include <gtest/gtest.h>

#include <regex>

#include "xport/control_flow.h"
#include "xport/xport.h"

namespace xport {
namespace {

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
      EXPECT_NE(html.find("<summary>subgraph " + s->name + " (of node " + n->name() + ")"),
                std::string::npos);
      for (const auto& m : s->graph->nodes()) {
        EXPECT_NE(html.find("id=\"node_" + s->name + "/" + m->name() + "\""), std::string::npos)
            << s->name << "/" << m->name();
      }
    }
  }
  EXPECT_NE(html.find("<title>cond &lt;test&gt; - xport view</title>"), std::string::npos);
  EXPECT_NE(html.find("range constraints:\n  s0: batch in [2, 64]"), std::string::npos) << html;
  EXPECT_NE(html.find("<input id=\"search\""), std::string::npos);
  // Self-contained: no script, style or image from elsewhere.
  EXPECT_FALSE(std::regex_search(html, std::regex("(src|href)=\"(https?:)?//")));
}

}  // namespace
}  // namespace xport
