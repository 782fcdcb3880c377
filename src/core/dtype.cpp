#include "xport/core/dtype.h"

#include <bit>

#include "core/dtype_enumerator.h"

#include "xport/core/error.h"

namespace xport {

uint16_t Half::from_float(float value) {
  // Round-to-nearest-even float32 -> binary16, handling subnormals, overflow and NaN.
  const uint32_t f = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t abs = f & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {
    // Result is subnormal (or zero): add 0.5 to move the bits into place with FP rounding.
    const float shifted = std::bit_cast<float>(abs) + 0.5f;
    return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(shifted) - 0x3f000000u));
  }
  const uint32_t mant_odd = (abs >> 13) & 1u;
  uint32_t rounded = abs + 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round
  return static_cast<uint16_t>(sign | (rounded >> 13));
}

float Half::to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    // Zero or subnormal: value = mant * 2^-24.
    const float mag = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return std::bit_cast<float>(std::bit_cast<uint32_t>(mag) | sign);
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

int64_t element_size(DType dtype) {
  if (is_complex(dtype)) return 2 * element_size(complex_part(dtype));
  return visit_dtype(dtype, [](auto v) -> int64_t { return sizeof(v); });
}

DType complex_part(DType t) {
  XPORT_CHECK(is_complex(t), Internal, "complex_part of ", dtype_name(t));
  return t == DType::Complex128 ? DType::Float64 : DType::Float32;
}

DType complex_of(DType t) {
  if (is_complex(t)) return t;
  return t == DType::Float64 ? DType::Complex128 : DType::Complex64;
}

void detail::unsupported_complex(DType dtype) {
  XPORT_FAIL(UnsupportedOp, "this operation does not take ", dtype_name(dtype),
             " tensors; xport's complex tensors go into and out of the FFT ops, view_as_real "
             "and view_as_complex, and are copied; view_as_real(x) gives the real and imaginary "
             "parts as a float tensor for the rest");
}

namespace {
struct DTypeNames {
  const char* name;
  const char* short_name;
  const char* enumerator;
};
constexpr DTypeNames kNames[kNumDTypes] = {
    {"bool", "b8", "Bool"},          {"uint8", "u8", "UInt8"},
    {"int8", "i8", "Int8"},          {"int16", "i16", "Int16"},
    {"int32", "i32", "Int32"},       {"int64", "i64", "Int64"},
    {"float16", "f16", "Float16"},   {"bfloat16", "bf16", "BFloat16"},
    {"float32", "f32", "Float32"},   {"float64", "f64", "Float64"},
    {"complex64", "c64", "Complex64"}, {"complex128", "c128", "Complex128"},
};
}  // namespace

const char* dtype_name(DType dtype) { return kNames[static_cast<int>(dtype)].name; }
const char* dtype_enumerator(DType dtype) { return kNames[static_cast<int>(dtype)].enumerator; }
const char* dtype_short_name(DType dtype) { return kNames[static_cast<int>(dtype)].short_name; }

DType parse_dtype(const std::string& name) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (name == kNames[i].name || name == kNames[i].short_name) return static_cast<DType>(i);
  }
  struct Alias {
    const char* name;
    DType dtype;
  };
  static constexpr Alias kAliases[] = {
      {"float", DType::Float32}, {"double", DType::Float64}, {"half", DType::Float16},
      {"long", DType::Int64},    {"int", DType::Int32},      {"short", DType::Int16},
      {"cfloat", DType::Complex64}, {"cdouble", DType::Complex128},
  };
  for (const Alias& a : kAliases) {
    if (name == a.name) return a.dtype;
  }
  XPORT_FAIL(InvalidInput, "unknown dtype '", name,
             "': expected one of bool, uint8, int8, int16, int32, int64, float16, bfloat16, "
             "float32, float64, complex64, complex128");
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  // PyTorch's promotion table (c10/core/ScalarType.cpp) for our twelve types.
  constexpr DType b1 = DType::Bool, u1 = DType::UInt8, i1 = DType::Int8, i2 = DType::Int16,
                  i4 = DType::Int32, i8 = DType::Int64, f2 = DType::Float16, bf = DType::BFloat16,
                  f4 = DType::Float32, f8 = DType::Float64, c4 = DType::Complex64,
                  c8 = DType::Complex128;
  static constexpr DType kTable[kNumDTypes][kNumDTypes] = {
      /*        b1  u1  i1  i2  i4  i8  f2  bf  f4  f8  c4  c8 */
      /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8, c4, c8},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8, c4, c8},
      /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8, c4, c8},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8, c4, c8},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, c8, c8},
      /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c4, c4, c8, c4, c8},
      /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
  };
  return kTable[static_cast<int>(a)][static_cast<int>(b)];
}

}  // namespace xport
