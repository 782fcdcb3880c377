#include "xport/ops/schema.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>

namespace xport {
namespace {

class SchemaParser {
 public:
  explicit SchemaParser(const std::string& text) : s_(text) {}

  Schema parse() {
    Schema schema;
    std::string full = identifier_with(":");
    const size_t colons = full.find("::");
    if (colons != std::string::npos) {
      schema.ns = full.substr(0, colons);
      full = full.substr(colons + 2);
    } else {
      schema.ns = "aten";
    }
    schema.name = full;
    if (accept('.')) schema.overload = identifier();
    expect('(');
    bool kwarg_only = false;
    if (!accept(')')) {
      do {
        if (accept('*')) {
          kwarg_only = true;
          continue;
        }
        Argument arg = argument(/*named=*/true);
        arg.kwarg_only = kwarg_only;
        schema.arguments.push_back(std::move(arg));
      } while (accept(','));
      expect(')');
    }
    expect('-');
    expect('>');
    if (accept('(')) {
      if (!accept(')')) {
        do schema.returns.push_back(argument(/*named=*/false));
        while (accept(','));
        expect(')');
      }
    } else {
      schema.returns.push_back(argument(/*named=*/false));
      schema.returns_list = schema.returns.back().type.list;
    }
    skip_space();
    if (pos_ != s_.size()) fail("unexpected text after the return type");
    return schema;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    XPORT_FAIL(InvalidSpec, "schema '", s_, "': ", what, " at column ", pos_ + 1);
  }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool accept(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }
  bool peek(char c) {
    skip_space();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  std::string identifier_with(const char* extra) {
    skip_space();
    const size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
                                s_[pos_] == '_' || std::strchr(extra, s_[pos_]) != nullptr)) {
      ++pos_;
    }
    if (start == pos_) fail("expected a name");
    return s_.substr(start, pos_ - start);
  }
  std::string identifier() { return identifier_with(""); }

  ArgType type(Argument& arg) {
    static const struct {
      const char* name;
      BaseType base;
    } kBases[] = {
        {"Tensor", BaseType::Tensor},
        {"int", BaseType::Int},
        {"SymInt", BaseType::SymInt},
        {"float", BaseType::Float},
        {"bool", BaseType::Bool},
        {"Scalar", BaseType::Scalar},
        {"ScalarType", BaseType::ScalarType},
        {"str", BaseType::Str},
        {"Layout", BaseType::Layout},
        {"Device", BaseType::Device},
        {"MemoryFormat", BaseType::MemoryFormat},
        {"Generator", BaseType::Generator},
        {"GraphModule", BaseType::Graph},
        {"Any", BaseType::Any},
    };
    const std::string name = identifier();
    ArgType t;
    bool found = false;
    for (const auto& b : kBases) {
      if (name == b.name) {
        t.base = b.base;
        found = true;
      }
    }
    if (!found) fail("unknown type '" + name + "'");
    if (peek('(')) {  // alias annotation: (a), (a!), (a -> *)
      expect('(');
      arg.alias_set = identifier();
      if (accept('!')) arg.is_write = true;
      skip_space();
      if (accept('-')) {
        expect('>');
        skip_space();
        expect('*');
        arg.alias_elements = true;
      }
      skip_space();
      if (!accept(')')) fail("expected ')' to close the alias annotation");
    }
    for (;;) {
      if (accept('?')) {
        t.optional = true;
      } else if (accept('[')) {
        if (t.optional) {  // `Tensor?[]`: the elements are optional, not the list
          t.optional = false;
          t.element_optional = true;
        }
        t.list = true;
        skip_space();
        if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
          t.fixed_size = std::strtoll(s_.c_str() + pos_, nullptr, 10);
          while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
        }
        expect(']');
      } else {
        break;
      }
    }
    return t;
  }

  Argument argument(bool named) {
    Argument arg;
    arg.type = type(arg);
    skip_space();
    if (pos_ < s_.size() &&
        (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
      arg.name = identifier();
    } else if (named) {
      fail("expected an argument name");
    }
    if (accept('=')) {
      skip_space();
      const size_t start = pos_;
      int depth = 0;
      char quote = 0;
      while (pos_ < s_.size()) {
        const char c = s_[pos_];
        if (quote) {
          if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
          quote = c;
        } else if (c == '[') {
          ++depth;
        } else if (c == ']') {
          --depth;
        } else if ((c == ',' || c == ')') && depth == 0) {
          break;
        }
        ++pos_;
      }
      arg.default_text = s_.substr(start, pos_ - start);
      while (!arg.default_text.empty() &&
             std::isspace(static_cast<unsigned char>(arg.default_text.back())))
        arg.default_text.pop_back();
      arg.default_value = default_value(arg.type, arg.default_text);
    }
    return arg;
  }

  Value number(const ArgType& t, const std::string& text) {
    if (text == "True") return true;
    if (text == "False") return false;
    const bool is_float =
        text.find_first_of(".eE") != std::string::npos && text.find("0x") == std::string::npos;
    if (t.base == BaseType::Float || is_float) {
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (end == text.c_str()) fail("bad default value '" + text + "'");
      return v;
    }
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0') fail("bad default value '" + text + "'");
    return static_cast<int64_t>(v);
  }

  Value default_value(const ArgType& t, const std::string& text) {
    if (text == "None") return Value();
    // PyTorch prints enum defaults as their numbers (`MemoryFormat memory_format=0`).
    if (t.base == BaseType::MemoryFormat && text.size() == 1 && text[0] >= '0' && text[0] <= '3') {
      static const char* const kFormats[] = {"contiguous_format", "preserve_format",
                                             "channels_last", "channels_last_3d"};
      return std::string(kFormats[text[0] - '0']);
    }
    if (t.base == BaseType::Layout && text == "0") return std::string("strided");
    if (t.base == BaseType::Str || t.base == BaseType::MemoryFormat || t.base == BaseType::Layout ||
        t.base == BaseType::Device) {
      if (text.size() >= 2 && (text.front() == '"' || text.front() == '\''))
        return text.substr(1, text.size() - 2);
      return text;
    }
    if (t.base == BaseType::ScalarType) {
      // Also printed as c10::ScalarType's number (randperm's `ScalarType? dtype=4`, int64).
      static const std::map<std::string, DType> kNumbered = {
          {"0", DType::UInt8},   {"1", DType::Int8},     {"2", DType::Int16},
          {"3", DType::Int32},   {"4", DType::Int64},    {"5", DType::Float16},
          {"6", DType::Float32}, {"7", DType::Float64},  {"11", DType::Bool},
          {"15", DType::BFloat16}};
      const auto numbered = kNumbered.find(text);
      return numbered != kNumbered.end() ? numbered->second : parse_dtype(text);
    }
    if (t.list) {
      std::vector<std::string> items;
      if (text.front() == '[') {
        std::string inner = text.substr(1, text.size() - 2);
        size_t start = 0;
        while (start < inner.size()) {
          size_t comma = inner.find(',', start);
          if (comma == std::string::npos) comma = inner.size();
          std::string item = inner.substr(start, comma - start);
          while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front())))
            item.erase(0, 1);
          while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back())))
            item.pop_back();
          if (!item.empty()) items.push_back(item);
          start = comma + 1;
        }
      } else {
        // `int[2] stride=1` repeats one value to the fixed size.
        items.assign(t.fixed_size > 0 ? t.fixed_size : 1, text);
      }
      if (t.base == BaseType::Float) {
        std::vector<double> v;
        for (const auto& item : items) v.push_back(number(t, item).to_double());
        return v;
      }
      if (t.base == BaseType::Bool) {
        std::vector<bool> v;
        for (const auto& item : items) v.push_back(number(t, item).to_bool());
        return v;
      }
      std::vector<SymInt> v;
      for (const auto& item : items) v.push_back(number(t, item).to_sym_int());
      return v;
    }
    return number(t, text);
  }

  const std::string& s_;
  size_t pos_ = 0;
};

const char* base_name(BaseType b) {
  switch (b) {
    case BaseType::Tensor:
      return "Tensor";
    case BaseType::Int:
      return "int";
    case BaseType::SymInt:
      return "SymInt";
    case BaseType::Float:
      return "float";
    case BaseType::Bool:
      return "bool";
    case BaseType::Scalar:
      return "Scalar";
    case BaseType::ScalarType:
      return "ScalarType";
    case BaseType::Str:
      return "str";
    case BaseType::Layout:
      return "Layout";
    case BaseType::Device:
      return "Device";
    case BaseType::MemoryFormat:
      return "MemoryFormat";
    case BaseType::Generator:
      return "Generator";
    case BaseType::Graph:
      return "GraphModule";
    case BaseType::Any:
      return "Any";
  }
  return "?";
}

std::string argument_str(const Argument& a) {
  std::string s = base_name(a.type.base);
  if (!a.alias_set.empty())
    s += "(" + a.alias_set + (a.is_write ? "!" : "") + (a.alias_elements ? " -> *" : "") + ")";
  if (a.type.element_optional) s += "?";
  if (a.type.list) s += a.type.fixed_size ? "[" + std::to_string(a.type.fixed_size) + "]" : "[]";
  if (a.type.optional) s += "?";
  if (!a.name.empty()) s += " " + a.name;
  if (a.default_value) s += "=" + a.default_text;
  return s;
}

}  // namespace

std::string ArgType::str() const {
  std::string s = base_name(base);
  if (element_optional) s += "?";
  if (list) s += fixed_size ? "[" + std::to_string(fixed_size) + "]" : "[]";
  if (optional) s += "?";
  return s;
}

std::string Schema::qualified_name() const {
  return ns + "::" + name + (overload.empty() ? "" : "." + overload);
}

std::string Schema::str() const {
  std::string s = qualified_name() + "(";
  bool kwarg_marked = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i) s += ", ";
    if (arguments[i].kwarg_only && !kwarg_marked) {
      s += "*, ";
      kwarg_marked = true;
    }
    s += argument_str(arguments[i]);
  }
  s += ") -> ";
  if (returns.size() == 1 && (returns_list || returns[0].name.empty())) {
    s += argument_str(returns[0]);
  } else {
    s += "(";
    for (size_t i = 0; i < returns.size(); ++i) s += (i ? ", " : "") + argument_str(returns[i]);
    s += ")";
  }
  return s;
}

int Schema::aliased_argument(size_t output) const {
  if (output >= returns.size() || returns[output].alias_set.empty()) return -1;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].alias_set == returns[output].alias_set) return static_cast<int>(i);
  }
  return -1;
}

bool Schema::is_mutating() const {
  for (const Argument& a : arguments)
    if (a.is_write) return true;
  return false;
}

Schema parse_schema(const std::string& text) { return SchemaParser(text).parse(); }

}  // namespace xport
