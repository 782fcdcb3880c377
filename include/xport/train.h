#pragma once
// Training (xport::train), as API.md names it: the header lives in xport/train/train.h.
#include "xport/train/train.h"
