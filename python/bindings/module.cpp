// The `xport._xport` extension: the runtime (no capture code) for Python. The Python layer
// (src/xport/__init__.py) gives it its API: argument names and structures, errors by kind.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <utility>
#include <vector>

#include "arrays.h"
#include "describe.h"
#include "xport/runtime.h"
#include "xport/serde/archive.h"

namespace xport::python {
namespace {

// A loaded program with what the archive says about its Python call signature.
struct LoadedProgram {
  runtime::Program program;
  ArchiveInfo info;
};

LoadedProgram load(const std::string& path, int threads, bool fuse) {
  ArchiveInfo info;
  runtime::Options options;
  options.num_threads = threads;
  options.fuse = fuse;
  // A compiled model runs in its library, described by the archive it embeds or the one beside
  // it.
  runtime::Program program = runtime::Program::load(path, options, &info);
  return {std::move(program), std::move(info)};
}

std::string input_name(const runtime::Program& program, size_t i) {
  const auto& contract = program.contract();
  return i < contract.size() ? "input '" + contract[i].name + "'"
                             : "input " + std::to_string(i);
}

Value value_from_object(nb::handle h, const std::string& what) {
  // bool before int: Python's bool is an int.
  if (nb::isinstance<nb::bool_>(h)) return Value(nb::cast<bool>(h));
  if (nb::isinstance<nb::int_>(h)) return Value(nb::cast<int64_t>(h));
  if (nb::isinstance<nb::float_>(h)) return Value(nb::cast<double>(h));
  if (nb::isinstance<nb::list>(h) || nb::isinstance<nb::tuple>(h)) {
    std::vector<Tensor> elements;
    size_t k = 0;
    for (nb::handle e : h) {
      const std::string element = what + " element " + std::to_string(k++);
      InputArray array;
      if (!nb::try_cast(e, array)) {
        throw nb::type_error((element + ": expected an array, got " +
                              nb::type_name(e.type()).c_str()).c_str());
      }
      elements.push_back(tensor_from_array(array, element));
    }
    return Value(std::move(elements));
  }
  InputArray array;
  if (!nb::try_cast(h, array)) {
    throw nb::type_error((what + ": expected a NumPy array, a DLPack tensor on the CPU or a "
                                 "number, got " + nb::type_name(h.type()).c_str()).c_str());
  }
  return Value(tensor_from_array(array, what));
}

nb::list run(const LoadedProgram& self, const nb::sequence& inputs) {
  std::vector<Value> values;
  size_t i = 0;
  for (nb::handle h : inputs) {
    values.push_back(value_from_object(h, input_name(self.program, i)));
    ++i;
  }
  std::vector<Tensor> outputs;
  {
    // Other Python threads run while the program does.
    nb::gil_scoped_release release;
    outputs = self.program.run_values(values);
  }
  nb::list result;
  for (const Tensor& t : outputs) result.append(array_from_tensor(t));
  return result;
}

void translate_errors(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const Error& e) {
    // xport._errors defines one exception class per ErrorKind, named as to_string names it.
    const nb::object errors = nb::module_::import_("xport._errors");
    PyErr_SetString(errors.attr(to_string(e.kind())).ptr(), e.what());
  }
}

}  // namespace
}  // namespace xport::python

NB_MODULE(_xport, m) {
  namespace nb = nanobind;
  using xport::python::LoadedProgram;
  nb::register_exception_translator(xport::python::translate_errors);

  nb::class_<LoadedProgram>(m, "Program")
      .def("run", &xport::python::run, nb::arg("inputs"),
           "Runs the program on a flat sequence of inputs (arrays, numbers, lists of arrays); "
           "returns its user outputs as NumPy arrays.")
      .def_prop_ro("inputs",
                   [](const LoadedProgram& p) { return xport::python::describe_inputs(p.program); })
      .def_prop_ro("outputs",
                   [](const LoadedProgram& p) {
                     return xport::python::describe_outputs(p.program);
                   })
      .def_prop_ro("contract",
                   [](const LoadedProgram& p) {
                     return xport::python::describe_contract(p.program);
                   })
      .def_prop_ro("in_spec", [](const LoadedProgram& p) { return p.info.in_spec; })
      .def_prop_ro("out_spec", [](const LoadedProgram& p) { return p.info.out_spec; })
      .def_prop_ro("forward_arg_names",
                   [](const LoadedProgram& p) { return p.info.forward_arg_names; })
      .def_prop_ro("written_by_xport",
                   [](const LoadedProgram& p) { return p.info.written_by_xport; })
      .def_prop_ro("threads",
                   [](const LoadedProgram& p) { return p.program.options().num_threads; })
      .def_prop_ro("fuse", [](const LoadedProgram& p) { return p.program.options().fuse; })
      .def("__str__", [](const LoadedProgram& p) { return p.program.program().to_string(); });

  m.def(
      "load",
      [](const std::string& path, int threads, bool fuse) {
        nb::gil_scoped_release release;
        return xport::python::load(path, threads, fuse);
      },
      nb::arg("path"), nb::arg("threads"), nb::arg("fuse"));
}
