#include "serde/pt2_format.h"

namespace xport::serde {

int64_t scalar_type_id(DType dtype) {
  switch (dtype) {
    case DType::UInt8:
      return 1;
    case DType::Int8:
      return 2;
    case DType::Int16:
      return 3;
    case DType::Int32:
      return 4;
    case DType::Int64:
      return 5;
    case DType::Float16:
      return 6;
    case DType::Float32:
      return 7;
    case DType::Float64:
      return 8;
    case DType::Bool:
      return 12;
    case DType::BFloat16:
      return 13;
    case DType::Complex64:
      return 10;
    case DType::Complex128:
      return 11;
  }
  return 0;
}

std::optional<DType> dtype_of_scalar_type(int64_t id) {
  for (DType d : {DType::Bool, DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Int64,
                  DType::Float16, DType::BFloat16, DType::Float32, DType::Float64,
                  DType::Complex64, DType::Complex128}) {
    if (scalar_type_id(d) == id) return d;
  }
  return std::nullopt;
}

}  // namespace xport::serde
