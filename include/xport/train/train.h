#pragma once
/// \file Training: gradients of a captured program, and a whole training step (forward, loss,
/// backward, optimizer update) as one program that any backend runs.

#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "xport/capture/export.h"
#include "xport/nn/module.h"
#include "xport/program/exported_program.h"

namespace xport::train {

/// The gradients of a program that returns one 0-dim floating loss. The result takes the same
/// inputs under the same contract and returns the loss, then d loss / d each name of `wrt`, in
/// that order: a parameter or buffer by its path (`fc.weight`) or a user input by its name
/// (`x0`). Buffer updates of the program stay, first, as in any exported program.
///
/// Each op on the way from the loss back to `wrt` is differentiated by its derivative rule
/// (OpDef::derivative); an op without one is decomposed into ops that have one where it can be.
/// Errors: InvalidSpec when the program does not return one 0-dim floating loss, when a name of
/// `wrt` is no input or is not floating, or when it does not reach the loss; UnsupportedOp
/// naming the op and the user's line when an op on the way has no derivative.
ExportedProgram grad(const ExportedProgram& program, const std::vector<std::string>& wrt);

/// torch.optim.SGD's update (dampening 0, not Nesterov): with weight decay the gradient gains
/// weight_decay * p; with momentum it goes through a buffer, buf = momentum * buf + grad.
struct SGD {
  double lr;
  double momentum = 0;
  double weight_decay = 0;
};

/// torch.optim.AdamW's update: decoupled weight decay, bias-corrected moments (not AMSGrad).
struct AdamW {
  double lr;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.01;
};

/// The loss of `module` on one batch (the module's forward, then a reduction to a 0-dim tensor).
using LossFn = std::function<Tensor(nn::Module& module, const std::vector<Tensor>& batch)>;

/// One training step as one program: `loss` on a batch, its gradients with respect to every
/// parameter of `module`, and `optimizer`'s update. Inputs: the batch (shaped by `options`, as
/// export_program's); output: the loss before the update, a 0-dim tensor. The parameters and the
/// optimizer's state (`optimizer.<param>.momentum_buffer`, `.exp_avg`, `.exp_avg_sq`,
/// `optimizer.step`) are buffers the program updates in place (BufferMutation), so running it
/// N times trains N steps; PyTorch's torch.export.load runs the saved step the same way. The
/// module runs in the mode it is in (train(): batch norm's batch statistics, its running ones
/// updated).
/// Errors: InvalidSpec for a learning rate <= 0 or a beta outside [0, 1), a module without
/// parameters, or a parameter the loss does not reach (named); grad()'s errors otherwise.
ExportedProgram export_training_step(nn::Module& module, LossFn loss,
                                     std::variant<SGD, AdamW> optimizer,
                                     std::vector<Value> example_batch, ExportOptions options = {});

}  // namespace xport::train
