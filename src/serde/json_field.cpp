#include "serde/json_field.h"

#include <cmath>
#include <limits>

#include "xport/core/error.h"

namespace xport::serde {

void Field::fail(const std::string& message) const {
  XPORT_FAIL(InvalidArchive, file_, ": ", path_.empty() ? "(top level)" : path_, ": ", message);
}

void Field::require_object() const {
  if (!value_->is_object()) {
    fail(std::string("expected a JSON object, found ") + value_->type_name());
  }
}

Field Field::operator[](const char* key) const {
  require_object();
  auto it = value_->find(key);
  if (it == value_->end()) fail(std::string("missing field '") + key + "'");
  return child(*it, key);
}

Field Field::child(const nlohmann::json& value, const std::string& key) const {
  return Field(value, path_.empty() ? key : path_ + "." + key, file_);
}

std::optional<Field> Field::optional(const char* key) const {
  require_object();
  auto it = value_->find(key);
  if (it == value_->end() || it->is_null()) return std::nullopt;
  return child(*it, key);
}

size_t Field::size() const {
  if (!value_->is_array() && !value_->is_object()) {
    fail(std::string("expected a JSON array, found ") + value_->type_name());
  }
  return value_->size();
}

Field Field::at(size_t index) const {
  if (!value_->is_array()) fail(std::string("expected a JSON array, found ") + value_->type_name());
  return Field((*value_)[index], path_ + "[" + std::to_string(index) + "]", file_);
}

int64_t Field::to_int() const {
  if (value_->is_number_integer()) {
    if (value_->is_number_unsigned() &&
        value_->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      fail("integer " + value_->dump() + " is out of the 64-bit range");
    }
    return value_->get<int64_t>();
  }
  fail(std::string("expected an integer, found ") +
       (value_->is_number() ? "the number " + value_->dump() : value_->type_name()));
}

bool Field::to_bool() const {
  if (!value_->is_boolean())
    fail(std::string("expected true or false, found ") + value_->type_name());
  return value_->get<bool>();
}

const std::string& Field::to_string() const {
  if (!value_->is_string()) fail(std::string("expected a string, found ") + value_->type_name());
  return value_->get_ref<const std::string&>();
}

double Field::to_double() const {
  if (value_->is_number()) return value_->get<double>();
  if (value_->is_string()) {
    const std::string& s = value_->get_ref<const std::string&>();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  }
  fail("expected a number (or \"Infinity\", \"-Infinity\", \"NaN\"), found " +
       value_->dump(-1).substr(0, 80));
}

std::pair<std::string, Field> Field::to_union() const {
  require_object();
  if (value_->size() != 1) {
    fail("expected a union (an object with exactly one member), found " +
         std::to_string(value_->size()) + " members");
  }
  auto it = value_->begin();
  return {it.key(), child(it.value(), it.key())};
}

}  // namespace xport::serde
