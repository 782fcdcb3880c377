#pragma once
/// \file The runtime alone: tensors, ops and kernels, with no capture code. The archive loader and
/// executor (xport::runtime::Program) join this header when archives exist.

#include "xport/archive.h"
#include "xport/dtype.h"
#include "xport/error.h"
#include "xport/functions.h"
#include "xport/npy.h"
#include "xport/op_registry.h"
#include "xport/tensor.h"
#include "xport/value.h"
