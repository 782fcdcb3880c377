#pragma once
/// \file NumPy .npy files (format versions 1.0-3.0): every xport dtype NumPy has.

#include <string>

#include "xport/tensor/tensor.h"

namespace xport {

/// Reads a .npy file (C or Fortran order, little or big endian); throws InvalidInput naming the
/// problem for a malformed file or a dtype xport does not have.
Tensor load_npy(const std::string& path);
/// Writes `t` as a C-order little-endian .npy (version 1.0). bfloat16 has no NumPy dtype and is
/// refused: convert to float32 first.
void save_npy(const Tensor& t, const std::string& path);

}  // namespace xport
