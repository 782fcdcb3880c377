#include "ops/op_table.h"

namespace xport::testing {

Rows linalg_samples() {
  Rows rows;
  return rows;
}

}  // namespace xport::testing
