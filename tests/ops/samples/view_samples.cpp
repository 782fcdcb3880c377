#include "ops/op_table.h"

namespace xport::testing {

Rows view_samples() {
  Rows rows;
  return rows;
}

}  // namespace xport::testing
