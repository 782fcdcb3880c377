#pragma once
/// \file The runtime alone: load an archive (or a compiled model) and run it, with no capture
/// code and no eager ops. Beside runtime::Program it declares what a caller needs around a run:
/// tensors and their factories, .npy files, archives, errors, and custom ops' Library (a program
/// may call them). xport/xport.h adds capture, the eager ops, modules, AOT and ONNX.

#include "xport/core/dtype.h"
#include "xport/core/error.h"
#include "xport/ops/factories.h"
#include "xport/ops/library.h"
#include "xport/ops/npy.h"
#include "xport/ops/op_registry.h"
#include "xport/program/exported_program.h"
#include "xport/runtime/program.h"
#include "xport/serde/archive.h"
#include "xport/tensor/tensor.h"
#include "xport/tensor/value.h"
