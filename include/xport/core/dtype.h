#pragma once
/// \file Element types, 16-bit floats, and PyTorch's type-promotion rules.

#include <cstdint>
#include <cstring>
#include <string>

namespace xport {

/// Element type of a tensor. The order is part of the archive format: append only.
enum class DType : uint8_t {
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  /// Complex numbers, as pairs of float32 / float64 (real, imaginary): what the FFT ops take and
  /// give. Few ops take them; the others refuse (view_as_real shows one as a float tensor).
  Complex64,
  Complex128,
};
inline constexpr int kNumDTypes = 12;

/// IEEE 754 binary16, stored as bits; converts through float with round-to-nearest-even.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float value) : bits(from_float(value)) {}  // NOLINT: implicit like c10::Half
  operator float() const { return to_float(bits); }
  static uint16_t from_float(float value);
  static float to_float(uint16_t bits);
};

/// bfloat16 (the upper half of a float32), round-to-nearest-even; NaN stays NaN.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float value) : bits(from_float(value)) {}  // NOLINT
  operator float() const { return to_float(bits); }
  static uint16_t from_float(float value) {
    uint32_t u;
    std::memcpy(&u, &value, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
  }
  static float to_float(uint16_t bits) {
    uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

/// Bytes per element.
int64_t element_size(DType dtype);
/// PyTorch's name without the prefix: "float32", "int64", "bool", ...
const char* dtype_name(DType dtype);
/// Short form used in printed graphs: f32, i64, b8, ...
const char* dtype_short_name(DType dtype);
/// Parses "float32" or "f32" (and PyTorch aliases "float", "long", "half", ...); throws
/// InvalidInput.
DType parse_dtype(const std::string& name);

inline bool is_floating(DType t) {
  return t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32 || t == DType::Float64;
}
inline bool is_complex(DType t) { return t == DType::Complex64 || t == DType::Complex128; }
/// The dtype of a complex dtype's parts (float32 for complex64), or the complex dtype whose parts
/// are `t` (complex64 for float32 and the 16-bit floats).
DType complex_part(DType t);
DType complex_of(DType t);
inline bool is_integral(DType t, bool include_bool) {
  return (include_bool && t == DType::Bool) || (t >= DType::UInt8 && t <= DType::Int64);
}

/// PyTorch's promote_types: the smallest type both values fit (uint8 + int8 -> int16,
/// float16 + bfloat16 -> float32).
DType promote_types(DType a, DType b);

/// The default floating dtype (float32, as in PyTorch).
inline constexpr DType kDefaultFloat = DType::Float32;

/// Maps a C++ element type to its DType.
template <class T>
struct dtype_of;
template <>
struct dtype_of<bool> {
  static constexpr DType value = DType::Bool;
};
template <>
struct dtype_of<uint8_t> {
  static constexpr DType value = DType::UInt8;
};
template <>
struct dtype_of<int8_t> {
  static constexpr DType value = DType::Int8;
};
template <>
struct dtype_of<int16_t> {
  static constexpr DType value = DType::Int16;
};
template <>
struct dtype_of<int32_t> {
  static constexpr DType value = DType::Int32;
};
template <>
struct dtype_of<int64_t> {
  static constexpr DType value = DType::Int64;
};
template <>
struct dtype_of<Half> {
  static constexpr DType value = DType::Float16;
};
template <>
struct dtype_of<BFloat16> {
  static constexpr DType value = DType::BFloat16;
};
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::Float32;
};
template <>
struct dtype_of<double> {
  static constexpr DType value = DType::Float64;
};
template <class T>
inline constexpr DType dtype_v = dtype_of<T>::value;

namespace detail {
/// Refuses a complex tensor where an op handles real ones only (UnsupportedOp).
[[noreturn]] void unsupported_complex(DType dtype);
}  // namespace detail

/// Calls fn(T{}) with T the C++ type of `dtype`; complex dtypes are refused (UnsupportedOp):
/// code that takes them handles them before.
template <class Fn>
decltype(auto) visit_dtype(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::Complex64:
    case DType::Complex128:
      detail::unsupported_complex(dtype);
    case DType::Bool:
      return fn(bool{});
    case DType::UInt8:
      return fn(uint8_t{});
    case DType::Int8:
      return fn(int8_t{});
    case DType::Int16:
      return fn(int16_t{});
    case DType::Int32:
      return fn(int32_t{});
    case DType::Int64:
      return fn(int64_t{});
    case DType::Float16:
      return fn(Half{});
    case DType::BFloat16:
      return fn(BFloat16{});
    case DType::Float32:
      return fn(float{});
    case DType::Float64:
      return fn(double{});
  }
  return fn(float{});
}

}  // namespace xport

namespace xport {
/// PyTorch's can_cast for in-place results: no complex -> real, no floating -> integral, no
/// non-bool -> bool.
inline bool can_cast(DType from, DType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && !is_floating(to) && !is_complex(to)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}
}  // namespace xport
