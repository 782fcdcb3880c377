/* Moved to xport/runtime/model_abi.h; this path forwards to it for one release. */
#include "xport/runtime/model_abi.h"
