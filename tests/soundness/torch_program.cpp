#include "torch_program.h"

#include <sstream>

namespace xport::soundness {
namespace {

std::string value(int i) { return "v[" + std::to_string(i) + "]"; }

// One step as Python statements (8 spaces in: forward's body), ending in v.append(...).
std::string step_source(const Step& s, int version) {
  static const char* const kUnary[] = {"torch.relu", "torch.tanh", "torch.sigmoid",
                                       "torch.neg",  "torch.abs",  "torch.sin"};
  static const char* const kReduce[] = {"sum", "mean", "amax"};
  const std::string a = value(s.a);
  const std::string keepdim = s.q ? "True" : "False";
  auto append = [](const std::string& e) { return "        v.append(" + e + ")\n"; };
  if (s.disabled) return append(a);
  switch (s.kind) {
    case StepKind::Unary:
      return append(std::string(kUnary[s.variant]) + "(" + a + ")");
    case StepKind::Binary: {
      const std::string b = value(s.b);
      if (s.variant == 3) return append("torch.maximum(" + a + ", " + b + ")");
      return append(a + (s.variant == 0 ? " + " : s.variant == 1 ? " - " : " * ") + b);
    }
    case StepKind::Scalar:
      return append(a + (s.variant == 0 ? " * 0.5" : s.variant == 1 ? " + 1.0" : " - 2.0"));
    case StepKind::Reduce:
      return append(a + "." + kReduce[s.variant] + "(" + std::to_string(s.p) +
                    ", keepdim=" + keepdim + ")");
    case StepKind::Transpose:
      return append(a + ".transpose(" + std::to_string(s.p) + ", " + std::to_string(s.q) + ")");
    case StepKind::Unsqueeze:
      return append(a + ".unsqueeze(" + std::to_string(s.p) + ")");
    case StepKind::Flatten:
      return append(a + ".reshape(-1)");
    case StepKind::Slice: {
      std::string index;
      for (int64_t d = 0; d < s.p; ++d) index += ":, ";
      return append(a + "[" + index + "0:" + std::to_string(s.q) + "]");
    }
    case StepKind::MatmulSelf:
      return append(a + ".matmul(" + a + ".transpose(-1, -2))");
    case StepKind::CatSelf:
      return append("torch.cat([" + a + ", " + a + " * 2.0], " + std::to_string(s.p) + ")");
    case StepKind::ShapeIf:
      return append("(" + a + " * 2.0) if " + a + ".size(" + std::to_string(s.p) + ") > " +
                    std::to_string(s.q) + " else (" + a + " - 1.0)");
    case StepKind::CondData:
    case StepKind::CondShape: {
      const std::string pred = s.kind == StepKind::CondData
                                   ? a + ".sum() > 0.0"
                                   : a + ".size(" + std::to_string(s.p) + ") > " +
                                         std::to_string(s.q);
      const std::string twice = s.kind == StepKind::CondData && s.variant == 1 && version >= 2
                                    ? "lambda o: torch.cond(o.mean() > 0.5, lambda p: p.relu() "
                                      "* 2.0, lambda p: p - 1.0, (o,))"
                                    : "lambda o: o.relu() * 2.0";
      return append("torch.cond(" + pred + ", " + twice + ", lambda o: o - 1.0, (" + a + ",))");
    }
    case StepKind::Map:
      return append("hop_map(lambda row: row.tanh() + 1.0, " + a + ")");
    case StepKind::WhileLoop:
      return append("while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x.tanh() * 1.5), "
                    "(torch.zeros((), dtype=torch.int64), " + a + "))[1]");
    case StepKind::ItemNarrow:
      return "        flat = " + a + ".reshape(-1)\n"
             "        u = (" + a + " > 0.0).sum().item()\n"
             "        torch._check(u >= 0)\n"
             "        torch._check(u <= flat.size(0))\n" +
             append("flat.narrow(0, 0, u)");
    case StepKind::Nonzero:
      return append("torch.nonzero((" + a + ".reshape(1) if " + a + ".dim() == 0 else " + a +
                    ") > 0.0).to(torch.float32)");
    case StepKind::InplaceInput:
      return "        " + a + ".mul_(1.5)\n" + append(a);
    case StepKind::BufferUpdate:
      return "        self.state.add_(" + a + ".mean())\n" + append("self.state");
    case StepKind::IntBool:
      return (version >= 4 ? "        x = torch.where(torch.isnan(" + a + "), torch.zeros(()), " +
                                 a + ").clamp(-1e9, 1e9)\n"
                           : "        x = " + a + "\n") +
             "        i = (x * 4.0).to(torch.int64)\n"
             "        three = torch.full((), 3, dtype=torch.int64)\n"
             "        m = torch.remainder(i, three) + "
             "torch.div(i, three, rounding_mode=\"floor\")\n" +
             append("torch.where(" + a + " > -0.5, m, -m).to(torch.float32)");
  }
  return append(a);
}

}  // namespace

std::string torch_source(const ProgramSpec& spec) {
  std::ostringstream out;
  out << "# Program " << spec.seed << " of the soundness fuzzer (tests/soundness/), written by\n"
      << "# torch_program.cpp from the same steps as its eager C++:\n";
  std::istringstream steps(spec.str());
  for (std::string line; std::getline(steps, line);) out << "#   " << line << "\n";
  out << "import torch\n"
         "from torch._higher_order_ops.map import map as hop_map\n"
         "from torch._higher_order_ops.while_loop import while_loop\n\n\n"
         "class Program(torch.nn.Module):\n"
         "    def __init__(self):\n"
         "        super().__init__()\n"
         "        self.register_buffer(\"state\", torch.zeros(3))\n\n"
         "    def forward(self";
  for (size_t i = 0; i < spec.inputs.size(); ++i) out << ", x" << i;
  out << "):\n        v = [";
  for (size_t i = 0; i < spec.inputs.size(); ++i) out << (i ? ", x" : "x") << i;
  out << "]\n";
  for (const Step& s : spec.steps) out << step_source(s, spec.version);
  out << "        return (";
  for (int i : spec.outputs) out << value(i) << ", ";
  out << ")\n\n\n";
  for (const DimRange& r : spec.dims) {
    out << r.name << " = torch.export.Dim(\"" << r.name << "\", min=" << r.min
        << ", max=" << r.max << ")\n";
  }
  out << "dynamic_shapes = (";
  for (const Shape& shape : spec.inputs) {
    std::string dims;
    for (size_t d = 0; d < shape.size(); ++d) {
      const DimTerm& t = shape[d];
      if (t.root < 0) continue;
      if (!dims.empty()) dims += ", ";
      dims += std::to_string(d) + ": ";
      if (t.coefficient != 1) dims += std::to_string(t.coefficient) + " * ";
      dims += spec.dims[static_cast<size_t>(t.root)].name;
    }
    out << (dims.empty() ? "None" : "{" + dims + "}") << ", ";
  }
  out << ")\n";
  return out.str();
}

}  // namespace xport::soundness
