#pragma once
// Where in the user's code the current call came from ("model.cpp:42"), for errors raised in the
// tensor layer while a graph is being captured. The capture layer installs the function (it
// unwinds the stack); without it the location is empty.

#include <string>

namespace xport::detail {

using UserLocationFn = std::string (*)();
void set_user_location_fn(UserLocationFn fn);
/// " at model.cpp:42", or "" when unknown.
std::string at_user_location();

}  // namespace xport::detail
