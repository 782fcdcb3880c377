#include "xport/core/scalar.h"

#include <sstream>

namespace xport {

Scalar::Scalar(const SymFloat& v) : kind_(Kind::Float), d_(0.0) {
  if (v.is_symbolic())
    node_ = v.node();
  else
    d_ = v.guard_float();
}

std::string Scalar::str() const {
  if (node_) return node_->str();
  switch (kind_) {
    case Kind::Bool:
      return i_ ? "True" : "False";
    case Kind::Int:
      return std::to_string(i_);
    case Kind::Float: {
      std::ostringstream out;
      out.precision(17);
      out << d_;
      std::string s = out.str();
      if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // keep it a float literal
      return s;
    }
  }
  return "?";
}

}  // namespace xport
