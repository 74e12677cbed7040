// npusim._core: the simulator inside a Python process. The package npusim (python/npusim)
// wraps it: Config, Testbench, import_onnx, run and Result are Python classes over the
// handles defined here.
#include "cli/app.h"
#include "python/core.h"
#include "report/report.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace py = pybind11;

// libsystemc.so holds a main() that calls sc_main; the module never runs it, but the
// symbol must resolve for the library to load. Python's own main stays the program's.
__attribute__((visibility("default"))) int sc_main(int, char*[]) {
  return 0;
}

namespace npu::python {
namespace {

const char* error_class(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::Config:
    return "ConfigError";
  case ErrorKind::Testbench:
    return "TestbenchError";
  case ErrorKind::Model:
    return "ModelError";
  case ErrorKind::Input:
    break;
  }
  return "InputError";
}

py::object none_if_zero(int value) {
  return value > 0 ? py::object(py::int_(value)) : py::object(py::none());
}

// Raises npusim.<name>(message, file, line, column, key) (see python/npusim/_errors.py).
void raise_error(const char* name, const std::string& message, const SourceLoc& loc = {},
                 const std::string& key = {}) {
  const py::object cls = py::module_::import("npusim._errors").attr(name);
  const py::object error =
      cls(message, loc.file.empty() ? py::object(py::none()) : py::object(py::str(loc.file)),
          none_if_zero(loc.line), none_if_zero(loc.column),
          key.empty() ? py::object(py::none()) : py::object(py::str(key)));
  PyErr_SetObject(cls.ptr(), error.ptr());
}

// The command line prints each of these as one "npusim: ..." line; the exception's message
// is what follows "npusim: ".
void translate(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const KindedError& e) {
    raise_error(error_class(e.kind()), e.what(), e.error().loc(), e.error().key());
  } catch (const InputError& e) {
    raise_error("InputError", e.what(), e.loc(), e.key());
  } catch (const SimulationError& e) {
    raise_error("SimulationError", std::string("error: ") + e.what());
  } catch (const OutputError& e) {
    raise_error("OutputError", std::string("error: ") + e.what());
  } catch (const Interrupted&) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
  }
}

// A document (JSON) as Python objects, through the json module: exact for every number.
py::object to_python(const nlohmann::ordered_json& document) {
  return py::module_::import("json").attr("loads")(document.dump());
}

// Every launch as launches.csv has it, one list per column (values in ns as floats).
py::dict launch_columns(const std::vector<LaunchRecord>& launches) {
  const auto ns = [](uint64_t ps) { return static_cast<double>(ps) / 1000.0; };
  py::list id, kernel, stream, unit, released_by, host_after, units, unit_t4, unit_t5;
  std::vector<py::list> times(7), phases(8);
  for (const LaunchRecord& r : launches) {
    id.append(r.launch_id);
    kernel.append(r.kernel);
    stream.append(r.stream);
    unit.append(r.unit);
    for (size_t i = 0; i < times.size(); ++i)
      times[i].append(ns(r.at.nth(i)));
    const uint64_t phase_ps[] = {r.prepare_ps(),         r.submit_ps(),    r.schedule_wait_ps(),
                                 r.schedule_dispatch_ps, r.iload_ps(),     r.execute_ps(),
                                 r.complete_ps(),        r.ifetch_stall_ps};
    for (size_t i = 0; i < phases.size(); ++i)
      phases[i].append(ns(phase_ps[i]));
    released_by.append(r.released_by);
    host_after.append(r.host_after);
    py::list u, t4, t5;
    for (const UnitSpan& s : r.unit_spans) {
      u.append(s.unit);
      t4.append(ns(s.resident_ps));
      t5.append(ns(s.finished_ps));
    }
    if (r.unit_spans.empty() && r.unit >= 0) {
      u.append(r.unit);
      t4.append(ns(r.at[Stamp::Resident]));
      t5.append(ns(r.at[Stamp::Finished]));
    }
    units.append(u);
    unit_t4.append(t4);
    unit_t5.append(t5);
  }
  py::dict columns;
  columns["launch_id"] = id;
  columns["kernel"] = kernel;
  columns["stream"] = stream;
  columns["unit"] = unit;
  for (size_t i = 0; i < times.size(); ++i)
    columns[py::str("t" + std::to_string(i) + "_ns")] = times[i];
  const char* const phase_names[] = {
      "prepare_ns", "submit_ns",  "schedule_wait_ns", "schedule_dispatch_ns",
      "iload_ns",   "execute_ns", "complete_ns",      "execute_ifetch_stall_ns"};
  for (size_t i = 0; i < phases.size(); ++i)
    columns[phase_names[i]] = phases[i];
  columns["released_by"] = released_by;
  columns["host_after"] = host_after;
  columns["units"] = units;
  columns["unit_t4_ns"] = unit_t4;
  columns["unit_t5_ns"] = unit_t5;
  return columns;
}

SummaryOptions summary_options(size_t layers, bool detail, bool tiling) {
  SummaryOptions options;
  options.layers = layers;
  options.detail = detail;
  options.tiling = tiling;
  return options;
}

void bind_inputs(py::module_& m) {
  py::class_<PlatformConfig, std::shared_ptr<PlatformConfig>>(m, "ConfigHandle")
      .def_readonly("name", &PlatformConfig::name)
      .def_readonly("file", &PlatformConfig::file)
      .def("effective", [](const PlatformConfig& c) { return to_python(c.effective); });
  m.def("load_config", &load_config, py::arg("path"), py::arg("overrides"), py::arg("data_dir"));

  py::class_<Testbench, std::shared_ptr<Testbench>>(m, "TestbenchHandle")
      .def_readonly("name", &Testbench::name)
      .def_readonly("file", &Testbench::file)
      .def("document", [](const Testbench& tb) { return to_python(tb.document); });
  m.def("load_testbench", &load_testbench_file, py::arg("path"), py::arg("overrides"));
  m.def("load_testbench_text", &load_testbench_from_text, py::arg("text"), py::arg("origin"),
        py::arg("overrides"));

  m.def(
      "import_onnx",
      [](const std::string& path, uint64_t batch, const std::string& dtype, bool fuse,
         uint32_t streams, const std::string& name, const std::vector<std::string>& dims,
         const std::vector<std::string>& shapes, bool unsupported_as_copy) {
        onnx_import::ImportOptions options;
        options.batch = batch;
        options.dtype = dtype;
        options.fuse = fuse ? onnx_import::Fuse::Elementwise : onnx_import::Fuse::None;
        options.streams = streams;
        options.name = name;
        options.dims = dims;
        options.shapes = shapes;
        options.unsupported = unsupported_as_copy ? onnx_import::Unsupported::Memcpy
                                                  : onnx_import::Unsupported::Error;
        const onnx_import::ImportResult r = import_model(path, options);
        return py::make_tuple(r.yaml, r.warnings, r.nodes, r.kernels, r.copies, r.macs);
      },
      py::arg("path"), py::arg("batch"), py::arg("dtype"), py::arg("fuse"), py::arg("streams"),
      py::arg("name"), py::arg("dims"), py::arg("shapes"), py::arg("unsupported_as_copy"));
}

void bind_run(py::module_& m) {
  py::class_<RunOutcome, std::shared_ptr<RunOutcome>>(m, "ResultHandle")
      .def_property_readonly("simulated_ps",
                             [](const RunOutcome& r) { return r.report.simulated_ps; })
      .def_property_readonly("wall_s", [](const RunOutcome& r) { return r.report.wall_s; })
      .def("to_json", [](const RunOutcome& r) { return dump_report(r.document); })
      .def("document", [](const RunOutcome& r) { return to_python(r.document); })
      .def("launch_columns", [](const RunOutcome& r) { return launch_columns(r.report.launches); })
      .def("summary",
           [](const RunOutcome& r, const std::string& format, size_t layers, bool detail,
              bool tiling) {
             std::ostringstream out;
             print_summary(out, r.document, parse_summary_format(format),
                           summary_options(layers, detail, tiling));
             return out.str();
           })
      .def("save",
           [](const RunOutcome& r, const std::string& dir) { write_output_dir(dir, r.report); });

  m.def(
      "run",
      [](const PlatformConfig& config, const Testbench& tb, const std::string& trace,
         uint64_t trace_limit, uint64_t trace_sample, bool catch_sigint) {
        const RunRequest request{trace, trace_limit, trace_sample, catch_sigint};
        const py::gil_scoped_release unlocked; // other Python threads run meanwhile
        return std::make_shared<RunOutcome>(run(config, tb, request));
      },
      py::arg("config"), py::arg("testbench"), py::arg("trace"), py::arg("trace_limit"),
      py::arg("trace_sample"), py::arg("catch_sigint"));
}

} // namespace
} // namespace npu::python

PYBIND11_MODULE(_core, m) {
  // As the npusim binary: SystemC's banner would go to stdout at the first run.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  m.doc() = "npusim's simulator in this process; use the package npusim, not this module";
  py::register_exception_translator(&npu::python::translate);
  npu::python::bind_inputs(m);
  npu::python::bind_run(m);
  m.attr("VERSION") = PROJECT_VERSION;
}
