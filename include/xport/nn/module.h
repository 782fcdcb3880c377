#pragma once
/// \file nn::Module: a tree of parameters, buffers and submodules with PyTorch's dotted names.

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "xport/tensor/tensor.h"

namespace xport::nn {

/// Tensors by dotted name, in registration order (PyTorch's state dict order).
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

/// The base of every layer and model. A module owns named parameters, buffers and submodules;
/// names join into dotted paths (`layers.3.attn.in_proj_weight`) in registration order.
/// Layers call ModuleScope in forward, so code running inside knows the module path it runs in.
class Module {
 public:
  /// A module whose type name is "Module" (a subclass written as in libtorch: `struct Net :
  /// nn::Module { Net() { ... } };`).
  Module();
  explicit Module(std::string type_name);
  virtual ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  /// The single-tensor forward that Sequential chains. Layers with other signatures add overloads;
  /// the default throws UnsupportedOp.
  virtual Tensor forward(const Tensor& input);

  /// Adds a parameter (a weight that training would update); returns the handle, which stays
  /// valid through load_state_dict() and to() (they update the tensor in place).
  Tensor register_parameter(const std::string& name, Tensor value);
  /// Adds a buffer. Persistent buffers are part of the state dict; others (e.g. a causal mask
  /// that is rebuilt from the config) are not.
  Tensor register_buffer(const std::string& name, Tensor value, bool persistent = true);
  /// Adds a submodule under `name` and returns it.
  template <class T>
  std::shared_ptr<T> register_module(const std::string& name, std::shared_ptr<T> module) {
    add_child(name, module);
    return module;
  }

  /// Parameters of this module and its submodules, each tensor once (first name wins).
  NamedTensors named_parameters() const;
  /// Buffers (persistent and not) of this module and its submodules, each tensor once.
  NamedTensors named_buffers() const;
  /// Direct submodules in registration order.
  const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& named_children() const {
    return children_;
  }
  /// This module ("" ) and every submodule below it, depth first, with dotted paths.
  std::vector<std::pair<std::string, Module*>> named_modules();
  /// Parameters and persistent buffers by dotted name (a tied tensor appears under every name,
  /// as in PyTorch).
  NamedTensors state_dict() const;
  /// Copies `state` into the parameters and buffers by name, converting dtype. With `strict`,
  /// every missing, unexpected or mis-shaped name is listed in one InvalidInput error; a tied
  /// tensor counts as present when any of its names is. Without `strict`, only matching names load.
  void load_state_dict(const NamedTensors& state, bool strict = true);

  /// Sets training mode here and below (BatchNorm uses batch statistics, Dropout drops).
  Module& train(bool on = true);
  Module& eval() { return train(false); }
  bool is_training() const { return training_; }
  /// Converts floating parameters and buffers to `dtype` in place (handles stay valid).
  Module& to(DType dtype);

  /// "Linear", "MultiheadAttention", ...: the class name, as PyTorch's module stack shows it.
  const std::string& type_name() const { return type_name_; }
  /// The dotted path of this module from the root of the tree it is registered in.
  std::string path() const;

 protected:
  /// Called by load_state_dict before names are matched, to accept other checkpoint layouts
  /// (GPT-2 files without the `transformer.` prefix, say). The default keeps `state` as is.
  virtual NamedTensors adapt_state_dict(NamedTensors state) const { return state; }

 private:
  struct Slot {
    std::string name;
    Tensor tensor;
    bool persistent = true;
  };
  void add_child(const std::string& name, std::shared_ptr<Module> child);
  void check_new_name(const std::string& name, const char* what) const;
  void collect(const std::string& prefix, bool parameters, bool buffers, bool persistent_only,
               bool dedup, NamedTensors& out) const;

  std::string type_name_;
  bool training_ = true;
  Module* parent_ = nullptr;
  std::string name_in_parent_;
  std::vector<Slot> parameters_;
  std::vector<Slot> buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
};

/// Marks `module` as running on this thread until the scope ends; forward() of every layer opens
/// one, so the tracer can tag each node with the module path it ran in.
class ModuleScope {
 public:
  explicit ModuleScope(const Module& module);
  ~ModuleScope();
  ModuleScope(const ModuleScope&) = delete;
  ModuleScope& operator=(const ModuleScope&) = delete;
};

/// The modules whose forward is running on this thread, outermost first.
const std::vector<const Module*>& module_call_stack();
/// The dotted path of the innermost running module ("" at top level or when none runs).
std::string current_module_path();

}  // namespace xport::nn
