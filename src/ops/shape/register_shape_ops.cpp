#include "ops/register_all.h"
#include "ops/shape/shape_ops.h"

namespace xport::ops {

void register_shape_ops() {
  register_cat_ops();
  register_split_ops();
  register_index_ops();
  register_scatter_ops();
  register_layout_ops();
  register_sort_ops();
}

}  // namespace xport::ops
