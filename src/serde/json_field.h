#pragma once
// Validated access to a parsed JSON document: every accessor names the field's path
// (`graph_module.graph.nodes[3].inputs[1].arg`) in the InvalidArchive error it throws.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace xport::serde {

class Field {
 public:
  Field(const nlohmann::json& value, std::string path, std::string file)
      : value_(&value), path_(std::move(path)), file_(std::move(file)) {}

  const nlohmann::json& json() const { return *value_; }
  const std::string& path() const { return path_; }
  bool is_null() const { return value_->is_null(); }

  /// A member that must exist (and this must be an object).
  Field operator[](const char* key) const;
  /// A member that may be missing or null: nullopt then.
  std::optional<Field> optional(const char* key) const;
  /// Elements of an array, each with its path.
  size_t size() const;  // of an array (or object)
  Field at(size_t index) const;
  /// Members of an object, in key order.
  template <class Fn>
  void for_each_member(Fn&& fn) const {
    require_object();
    for (auto it = value_->begin(); it != value_->end(); ++it) {
      fn(it.key(), child(it.value(), it.key()));
    }
  }

  int64_t to_int() const;
  bool to_bool() const;
  const std::string& to_string() const;
  /// A number, or the strings "Infinity", "-Infinity", "NaN".
  double to_double() const;
  /// A union: an object with exactly one member; returns (its key, its value).
  std::pair<std::string, Field> to_union() const;

  /// Throws InvalidArchive: "<file>: <path>: <message>".
  [[noreturn]] void fail(const std::string& message) const;

 private:
  const nlohmann::json* value_;
  std::string path_;
  std::string file_;  // the entry, for messages
  void require_object() const;
  /// The member `key` (path `<this path>.key`).
  Field child(const nlohmann::json& value, const std::string& key) const;
};

}  // namespace xport::serde
