#include <sstream>

#include "xport/capture/export.h"

namespace xport {

struct Dim::Root {
  std::string name;
  int64_t min;
  int64_t max;
};

Dim::Dim(std::string name, int64_t min, int64_t max) {
  XPORT_CHECK(!name.empty(), InvalidSpec, "Dim: needs a name, e.g. Dim(\"batch\")");
  XPORT_CHECK(min >= 0 && min <= max, InvalidSpec, "Dim(\"", name, "\", ", min, ", ", max,
              "): needs 0 <= min <= max");
  // The range is kept as declared, 0 and 1 included: export proves that the program takes no
  // decision that differs at those sizes (broadcasting, squeezes, empty tensors), or fails
  // saying which one does; it never narrows the range silently.
  root_ = std::make_shared<const Root>(Root{std::move(name), min, max});
}

const std::string& Dim::name() const { return root_->name; }
int64_t Dim::min() const { return root_->min; }
int64_t Dim::max() const { return root_->max; }

Dim operator*(int64_t k, const Dim& d) {
  XPORT_CHECK(k > 0, InvalidSpec, "Dim: a derived dim needs a positive factor, got ", k, " * ",
              d.str());
  Dim out = d;
  out.coefficient_ *= k;
  out.offset_ *= k;
  return out;
}

Dim operator+(const Dim& d, int64_t k) {
  Dim out = d;
  out.offset_ += k;
  return out;
}

std::string Dim::str() const {
  std::ostringstream out;
  if (!is_derived()) {
    out << "Dim(\"" << root_->name << "\"";
    if (root_->min != 2 || root_->max != sym::Range::kPosInf) {
      out << ", " << root_->min;
      if (root_->max != sym::Range::kPosInf) out << ", " << root_->max;
    }
    out << ")";
    return out.str();
  }
  if (coefficient_ != 1) out << coefficient_ << " * ";
  out << root_->name;
  if (offset_ > 0) out << " + " << offset_;
  if (offset_ < 0) out << " - " << -offset_;
  return out.str();
}

}  // namespace xport
