// export_training_step: the loss's program, its gradients (train::grad), then the optimizer's
// update traced onto the same graph. Parameters become buffers the program updates, beside the
// optimizer's state, so one program is one step; the updates follow torch.optim's single-tensor
// code op for op, so PyTorch running the saved step gets the same numbers.
#include <cmath>
#include <type_traits>

#include "capture/replay.h"
#include "xport/ops/factories.h"
#include "xport/ops/functions.h"
#include "xport/train/train.h"

namespace xport::train {
namespace {

using capture::ReplayedResult;

OutputSpec buffer_update(const std::string& target) {
  return {OutputSpec::Kind::BufferMutation, "", target};
}

// The update of one parameter `p` with gradient `g` (fake tensors); new state values are
// appended to `results`.
class Optimizer {
 public:
  Optimizer(capture::ReplayEdit& edit, std::vector<ReplayedResult>& results)
      : edit_(edit), results_(results) {}

  // A state buffer of the optimizer for `param` (zeros like the parameter's value), read.
  Tensor state(const std::string& param, const std::string& name) {
    const std::string target = "optimizer." + param + "." + name;
    return edit_.add_buffer(target, zeros_like(edit_.state.at(param)));
  }
  void update(const std::string& param, const std::string& name, const Tensor& value) {
    results_.push_back({value, buffer_update("optimizer." + param + "." + name)});
  }

  // torch.optim.SGD's _single_tensor_sgd (dampening 0, not Nesterov). Its first step copies the
  // gradient into the buffer; momentum * 0 + grad is that copy exactly.
  Tensor step(const SGD& o, const std::string& param, const Tensor& p, const Tensor& g) {
    const Tensor buf = o.momentum != 0 ? state(param, "momentum_buffer") : Tensor();
    InterceptorGuard guard(&edit_.tracer);  // every op below is recorded
    Tensor d = o.weight_decay != 0 ? g.add(p, o.weight_decay) : g;
    if (buf.defined()) {
      d = buf.mul(o.momentum).add(d);
      update(param, "momentum_buffer", d);
    }
    return p.add(d, -o.lr);
  }

  // torch.optim.AdamW's _single_tensor_adam (decoupled weight decay, not AMSGrad); `t` is the
  // step count after this step, as float64 (PyTorch takes it as a Python float).
  Tensor step(const AdamW& o, const std::string& param, const Tensor& p, const Tensor& g,
              const Tensor& t) {
    const Tensor m = state(param, "exp_avg");
    const Tensor v = state(param, "exp_avg_sq");
    InterceptorGuard guard(&edit_.tracer);  // every op below is recorded
    const Tensor decayed = o.weight_decay != 0 ? p.mul(1 - o.lr * o.weight_decay) : p;
    // exp_avg.lerp_(grad, 1 - beta1), in lerp's two forms.
    const double w = 1 - o.beta1;
    const Tensor m_new = w < 0.5 ? m + (g - m) * w : g - (g - m) * (1 - w);
    // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    const Tensor v_new = v.mul(o.beta2).add(g.mul(1 - o.beta2).mul(g));
    const Tensor bias1 = 1.0 - call_op("aten::pow.Scalar", {o.beta1, t}).to_tensor();
    const Tensor bias2_sqrt = sqrt(1.0 - call_op("aten::pow.Scalar", {o.beta2, t}).to_tensor());
    const Tensor step_size = o.lr / bias1;
    const Tensor denom = v_new.sqrt() / bias2_sqrt + o.eps;
    update(param, "exp_avg", m_new);
    update(param, "exp_avg_sq", v_new);
    return decayed - m_new * step_size / denom;  // addcdiv_(exp_avg, denom, -step_size)
  }

 private:
  capture::ReplayEdit& edit_;
  std::vector<ReplayedResult>& results_;
};

void check_hyperparameters(const std::variant<SGD, AdamW>& optimizer) {
  const auto check = [](bool ok, const char* what, double value, const char* want) {
    XPORT_CHECK(ok, InvalidSpec, "export_training_step: ", what, " is ", value, "; ", want);
  };
  if (const auto* s = std::get_if<SGD>(&optimizer)) {
    check(s->lr > 0, "SGD's lr", s->lr, "give a positive learning rate");
    check(s->momentum >= 0, "SGD's momentum", s->momentum, "give 0 or more");
    check(s->weight_decay >= 0, "SGD's weight_decay", s->weight_decay, "give 0 or more");
    return;
  }
  const AdamW& a = std::get<AdamW>(optimizer);
  check(a.lr > 0, "AdamW's lr", a.lr, "give a positive learning rate");
  check(a.beta1 >= 0 && a.beta1 < 1, "AdamW's beta1", a.beta1, "give a value in [0, 1)");
  check(a.beta2 >= 0 && a.beta2 < 1, "AdamW's beta2", a.beta2, "give a value in [0, 1)");
  check(a.eps >= 0, "AdamW's eps", a.eps, "give 0 or more");
  check(a.weight_decay >= 0, "AdamW's weight_decay", a.weight_decay, "give 0 or more");
}

}  // namespace

ExportedProgram export_training_step(nn::Module& module, LossFn loss,
                                     std::variant<SGD, AdamW> optimizer,
                                     std::vector<Value> example_batch, ExportOptions options) {
  check_hyperparameters(optimizer);
  const TracedFn traced = [&](const std::vector<Value>& inputs) {
    std::vector<Tensor> batch;
    for (const Value& v : inputs) batch.push_back(v.to_tensor());
    return std::vector<Tensor>{loss(module, batch)};
  };
  const ExportedProgram forward =
      export_program(module, traced, std::move(example_batch), std::move(options));
  std::vector<std::string> params;
  std::vector<size_t> param_inputs;
  const std::vector<InputSpec>& inputs = forward.signature().inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].kind != InputSpec::Kind::Parameter) continue;
    params.push_back(inputs[i].target);
    param_inputs.push_back(i);
  }
  XPORT_CHECK(!params.empty(), InvalidSpec,
              "export_training_step: the module has no parameters to train");
  const ExportedProgram gradients = grad(forward, params);
  const auto step = [&](capture::ReplayEdit& edit, const std::vector<Tensor>& outs) {
    edit.signature.returns = GraphSignature::Returns::Single;
    std::vector<ReplayedResult> results;
    Optimizer opt(edit, results);
    Tensor t;  // AdamW: the step count after this step, float64
    if (std::holds_alternative<AdamW>(optimizer)) {
      const Tensor count = edit.add_buffer("optimizer.step", zeros({}, DType::Float32));
      InterceptorGuard guard(&edit.tracer);
      const Tensor next = count + 1.0;
      results.push_back({next, buffer_update("optimizer.step")});
      t = next.to(DType::Float64);
    }
    for (size_t k = 0; k < params.size(); ++k) {
      const Tensor p = edit.input(param_inputs[k]);
      const Tensor& g = outs.at(k + 1);
      const Tensor next = std::visit(
          [&](const auto& o) {
            if constexpr (std::is_same_v<std::decay_t<decltype(o)>, SGD>) {
              return opt.step(o, params[k], p, g);
            } else {
              return opt.step(o, params[k], p, g, t);
            }
          },
          optimizer);
      edit.signature.inputs[param_inputs[k]].kind = InputSpec::Kind::Buffer;
      results.push_back({next, buffer_update(params[k])});
    }
    results.push_back({outs.at(0), {}});  // the loss, before this step's update
    return results;
  };
  return capture::replay_program(gradients, {}, "export_training_step", step);
}

}  // namespace xport::train
