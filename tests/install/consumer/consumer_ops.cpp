// A custom-op library as a user builds one for `xport run --ops`: xport's headers only, nothing
// of xport linked (the tool provides the symbols). It names the headers by their old flat paths,
// which forward to the layers' folders for one release, so that existing code keeps compiling.
#include <xport/functions.h>
#include <xport/library.h>

namespace {

const xport::Library consumer_ops =
    xport::Library("consumer")
        .define("double_it(Tensor x) -> Tensor")
        .impl("double_it",
              [](const std::vector<xport::Value>& a) -> xport::Value {
                return a[0].to_tensor() * 2.0;
              })
        .impl_meta("double_it", [](const std::vector<xport::Value>& a) -> xport::Value {
          return xport::empty_like(a[0].to_tensor());
        });

}  // namespace
