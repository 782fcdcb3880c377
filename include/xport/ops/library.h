#pragma once
/// \file Custom ops from outside xport: a Library defines ops in its own namespace, with a CPU
/// kernel, a meta function over fake tensors (so export can trace them) and optionally a
/// decomposition. Registered ops trace, print, verify, save, load and run like ATen's.
///
///   static xport::Library lib = xport::Library("mylib")
///       .define("scale(Tensor x, float s=2.0) -> Tensor")
///       .impl("scale", [](const std::vector<xport::Value>& a) -> xport::Value {
///         return a[0].to_tensor().mul(a[1].to_double()); })
///       .impl_meta("scale", [](const std::vector<xport::Value>& a) -> xport::Value {
///         return xport::empty_like(a[0].to_tensor()); });
///
/// Registrations last for the process (a Library going out of scope keeps its ops). Register
/// before running programs that use the ops; the xport tool loads a library that registers ops
/// at static initialisation with `--ops libmyops.so`.

#include <functional>
#include <string>
#include <vector>

#include "xport/tensor/value.h"

namespace xport {

/// A kernel, meta function or decomposition of a custom op: the arguments in schema order
/// (defaults filled in), the result a Tensor, a list of tensors for several results, or none.
using OpFn = std::function<Value(const std::vector<Value>& args)>;

class Library {
 public:
  /// `ns` is the namespace of every op this library defines ("mylib"); `aten`, `prims` and
  /// `higher_order` are xport's and refused.
  explicit Library(std::string ns);

  /// Registers an op from its schema in ATen's syntax: "my_op(Tensor x, int k=1) -> Tensor"
  /// (the namespace may be written, and must then be this library's). An op whose schema
  /// mutates arguments (`Tensor(a!) x`) also gets its functional form registered
  /// (`my_op_` -> `my_op`, else `my_op_functional`), which export records instead.
  Library& define(const std::string& schema);
  /// The CPU kernel over real tensors; it may allocate its results freely.
  Library& impl(const std::string& name, OpFn kernel);
  /// The meta function: given the arguments (fake tensors under export, whose sizes may be
  /// symbolic), returns tensors of the results' dtypes and sizes made with `empty` /
  /// `empty_like`. Inside it, every op computes shapes only, so `conv2d(x, w)` there gives
  /// the size a convolution would have without running one.
  Library& impl_meta(const std::string& name, OpFn meta);
  /// A decomposition into other ops, for run_decompositions and for backends without the
  /// kernel; an op with no meta function is traced through it.
  Library& impl_decomposition(const std::string& name, OpFn decomposition);

  const std::string& ns() const { return ns_; }

 private:
  std::string qualified(const std::string& name, const char* caller) const;
  std::string ns_;
};

}  // namespace xport
