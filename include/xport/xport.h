#pragma once
/// \file Everything xport offers, in one include.

#include "xport/dtype.h"
#include "xport/error.h"
#include "xport/functions.h"
#include "xport/models.h"
#include "xport/nn/layers.h"
#include "xport/nn/module.h"
#include "xport/npy.h"
#include "xport/op_registry.h"
#include "xport/result_type.h"
#include "xport/safetensors.h"
#include "xport/scalar.h"
#include "xport/schema.h"
#include "xport/sym.h"
#include "xport/tensor.h"
#include "xport/value.h"
