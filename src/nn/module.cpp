#include "xport/nn/module.h"

#include <map>
#include <set>
#include <sstream>

#include "ops/op_util.h"
#include "xport/ops/functions.h"

namespace xport::nn {
namespace {

thread_local std::vector<const Module*> t_call_stack;

std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

// At most `limit` names, then a count of the rest.
std::string name_list(const std::vector<std::string>& names, size_t limit = 12) {
  std::ostringstream out;
  for (size_t i = 0; i < names.size() && i < limit; ++i) out << (i ? ", " : "") << names[i];
  if (names.size() > limit) out << ", ... and " << names.size() - limit << " more";
  return out.str();
}

}  // namespace

Module::Module() : Module("Module") {}
Module::Module(std::string type_name) : type_name_(std::move(type_name)) {}

Module::~Module() {
  for (auto& [name, child] : children_) {
    if (child->parent_ == this) child->parent_ = nullptr;
  }
}

Tensor Module::forward(const Tensor&) {
  XPORT_FAIL(UnsupportedOp, type_name_, ": has no single-tensor forward(); call its own forward",
             " overload instead of putting it in a Sequential");
}

void Module::check_new_name(const std::string& name, const char* what) const {
  XPORT_CHECK(!name.empty() && name.find('.') == std::string::npos, InvalidInput, type_name_, ": ",
              what, " name '", name, "' must be non-empty and contain no '.'");
  auto taken = [&](const auto& list, auto key) {
    for (const auto& entry : list) {
      if (key(entry) == name) return true;
    }
    return false;
  };
  auto slot_name = [](const Slot& s) -> const std::string& { return s.name; };
  auto child_name = [](const auto& c) -> const std::string& { return c.first; };
  XPORT_CHECK(!taken(parameters_, slot_name) && !taken(buffers_, slot_name) &&
                  !taken(children_, child_name),
              InvalidInput, type_name_, ": cannot register ", what, " '", name,
              "': the name is already used by a parameter, buffer or submodule");
}

Tensor Module::register_parameter(const std::string& name, Tensor value) {
  check_new_name(name, "parameter");
  XPORT_CHECK(value.defined(), InvalidInput, type_name_, ": parameter '", name,
              "' is undefined; leave it out instead (an optional bias, say)");
  parameters_.push_back({name, value, true});
  return value;
}

Tensor Module::register_buffer(const std::string& name, Tensor value, bool persistent) {
  check_new_name(name, "buffer");
  XPORT_CHECK(value.defined(), InvalidInput, type_name_, ": buffer '", name, "' is undefined");
  buffers_.push_back({name, value, persistent});
  return value;
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> child) {
  check_new_name(name, "submodule");
  XPORT_CHECK(child != nullptr, InvalidInput, type_name_, ": submodule '", name, "' is null");
  for (const Module* m = this; m != nullptr; m = m->parent_) {
    XPORT_CHECK(m != child.get(), InvalidInput, type_name_, ": registering '", name,
                "' would make the module its own ancestor");
  }
  // A module shared by two parents keeps the path of its first registration, as PyTorch names
  // shared modules by the first path that reaches them.
  if (child->parent_ == nullptr) {
    child->parent_ = this;
    child->name_in_parent_ = name;
  }
  children_.emplace_back(name, std::move(child));
}

void Module::collect(const std::string& prefix, bool parameters, bool buffers, bool persistent_only,
                     bool dedup, NamedTensors& out) const {
  // One set for the whole walk: a tensor shared by two modules is listed under its first name.
  std::set<const TensorImpl*> seen;
  // Depth first, in registration order: a module's own tensors, then its children's.
  auto visit = [&](auto& self, const std::string& path, const Module& m) -> void {
    auto add = [&](const std::vector<Slot>& slots) {
      for (const Slot& s : slots) {
        if (persistent_only && !s.persistent) continue;
        if (dedup && !seen.insert(s.tensor.impl()).second) continue;
        out.emplace_back(join(path, s.name), s.tensor);
      }
    };
    if (parameters) add(m.parameters_);
    if (buffers) add(m.buffers_);
    for (const auto& [name, child] : m.children_) self(self, join(path, name), *child);
  };
  visit(visit, prefix, *this);
}

NamedTensors Module::named_parameters() const {
  NamedTensors out;
  collect("", true, false, false, true, out);
  return out;
}

NamedTensors Module::named_buffers() const {
  NamedTensors out;
  collect("", false, true, false, true, out);
  return out;
}

NamedTensors Module::state_dict() const {
  NamedTensors out;
  collect("", true, true, true, false, out);
  return out;
}

std::vector<std::pair<std::string, Module*>> Module::named_modules() {
  std::vector<std::pair<std::string, Module*>> out;
  auto visit = [&](auto& self, const std::string& path, Module& m) -> void {
    out.emplace_back(path, &m);
    for (auto& [name, child] : m.children_) self(self, join(path, name), *child);
  };
  visit(visit, "", *this);
  return out;
}

void Module::load_state_dict(const NamedTensors& state_in, bool strict) {
  const NamedTensors state = adapt_state_dict(state_in);
  std::map<std::string, Tensor> given;
  for (const auto& [name, t] : state) {
    XPORT_CHECK(given.emplace(name, t).second, InvalidInput, type_name_,
                ": load_state_dict: the state dict has '", name, "' twice");
  }
  const NamedTensors expected = state_dict();
  std::set<const TensorImpl*> covered;  // tensors that some name of theirs loads
  std::set<std::string> expected_names;
  for (const auto& [name, t] : expected) {
    expected_names.insert(name);
    if (given.count(name)) covered.insert(t.impl());
  }
  std::vector<std::string> missing, unexpected, mismatched;
  std::vector<std::pair<Tensor, Tensor>> copies;  // destination, source
  for (const auto& [name, dst] : expected) {
    auto it = given.find(name);
    if (it == given.end()) {
      if (!covered.count(dst.impl())) missing.push_back(name);
      continue;
    }
    const Tensor& src = it->second;
    XPORT_CHECK(src.defined() && !src.is_fake(), InvalidInput, type_name_, ": load_state_dict: '",
                name, "' holds no data");
    if (src.int_sizes() != dst.int_sizes()) {
      mismatched.push_back(name + " (checkpoint " + ops::shape_str(src.sizes()) + ", model " +
                           ops::shape_str(dst.sizes()) + ")");
      continue;
    }
    copies.emplace_back(dst, src);
  }
  for (const auto& [name, t] : state) {
    if (!expected_names.count(name)) unexpected.push_back(name);
  }
  if (strict && (!missing.empty() || !unexpected.empty() || !mismatched.empty())) {
    std::ostringstream msg;
    msg << type_name_ << ": load_state_dict: the checkpoint does not match the model.";
    if (!missing.empty()) msg << "\n  missing: " << name_list(missing);
    if (!unexpected.empty()) msg << "\n  unexpected: " << name_list(unexpected);
    if (!mismatched.empty()) msg << "\n  shape mismatch: " << name_list(mismatched);
    msg << "\nCheck that the checkpoint was saved from the same architecture and configuration,"
        << " or pass strict = false to load only the names that match.";
    XPORT_FAIL(InvalidInput, msg.str());
  }
  for (auto& [dst, src] : copies) dst.copy_(src);
}

Module& Module::train(bool on) {
  training_ = on;
  for (auto& [name, child] : children_) child->train(on);
  return *this;
}

Module& Module::to(DType dtype) {
  XPORT_CHECK(is_floating(dtype), InvalidInput, type_name_, ": to(", dtype_name(dtype),
              "): modules convert to floating dtypes only");
  NamedTensors all;
  collect("", true, true, false, true, all);
  for (auto& [name, t] : all) {
    if (!is_floating(t.dtype()) || t.dtype() == dtype) continue;
    // Replace the tensor's contents, not the handle: layers keep handles to their weights.
    const Tensor converted = t.to(dtype);
    *t.impl() = *converted.impl();
  }
  return *this;
}

std::string Module::path() const {
  std::string out;
  for (const Module* m = this; m->parent_ != nullptr; m = m->parent_) {
    out = out.empty() ? m->name_in_parent_ : m->name_in_parent_ + "." + out;
  }
  return out;
}

ModuleScope::ModuleScope(const Module& module) { t_call_stack.push_back(&module); }
ModuleScope::~ModuleScope() { t_call_stack.pop_back(); }

const std::vector<const Module*>& module_call_stack() { return t_call_stack; }

std::string current_module_path() {
  return t_call_stack.empty() ? std::string() : t_call_stack.back()->path();
}

}  // namespace xport::nn
