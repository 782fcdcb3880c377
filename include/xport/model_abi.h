/* Moved to xport/runtime/model_abi.h; this path keeps existing code compiling for one
 * release. */
#include "xport/runtime/model_abi.h"
