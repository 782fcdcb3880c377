// Sequential, ModuleList and ModuleDict.
#include <sstream>

#include "xport/nn/layers.h"

namespace xport::nn {

Sequential::Sequential(std::vector<std::shared_ptr<Module>> modules) : Module("Sequential") {
  for (auto& m : modules) push_back(std::move(m));
}

Tensor Sequential::forward(const Tensor& input) {
  ModuleScope scope(*this);
  Tensor x = input;
  for (const auto& [name, module] : named_children()) x = module->forward(x);
  return x;
}

const std::shared_ptr<Module>& Sequential::operator[](size_t i) const {
  XPORT_CHECK(i < size(), InvalidInput, "Sequential: index ", i, " out of range for ", size(),
              " modules");
  return named_children()[i].second;
}

const std::shared_ptr<Module>& ModuleList::operator[](size_t i) const {
  XPORT_CHECK(i < size(), InvalidInput, "ModuleList: index ", i, " out of range for ", size(),
              " modules");
  return named_children()[i].second;
}

bool ModuleDict::contains(const std::string& key) const {
  for (const auto& [name, m] : named_children()) {
    if (name == key) return true;
  }
  return false;
}

const std::shared_ptr<Module>& ModuleDict::operator[](const std::string& key) const {
  for (const auto& [name, m] : named_children()) {
    if (name == key) return m;
  }
  std::ostringstream keys;
  for (const auto& [name, m] : named_children()) keys << (keys.tellp() ? ", " : "") << name;
  XPORT_FAIL(InvalidInput, "ModuleDict: no module named '", key, "'; keys are: ", keys.str());
}

}  // namespace xport::nn
