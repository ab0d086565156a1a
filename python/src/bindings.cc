// gldelegate._gldelegate: the thin layer between Python and the C++ API.
// Everything LiteRT-shaped (details dicts, dtype and shape checks, signature
// runners) lives in python/gldelegate/interpreter.py; this file only turns
// gld::Status into exceptions (InvalidArgument, NotFound, OutOfRange,
// DataLoss -> ValueError, as LiteRT raises for a bad model or value;
// Cancelled -> gldelegate.InvokeCancelledError, a RuntimeError; others,
// such as an unavailable GPU or an unsupported op, -> RuntimeError), moves bytes between numpy arrays and
// the interpreter, and releases the GIL while a model runs.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gldelegate/gldelegate.hpp"
#include "gldelegate/options.hpp"
#include "gldelegate/tflite_delegate.h"

namespace nb = nanobind;

namespace {

// Length of the well-formed UTF-8 sequence at s[i] (as Python decodes
// strictly: no overlong forms, surrogates or code points past U+10FFFF); 0
// when there is none.
size_t Utf8Length(const std::string& s, size_t i) {
  const auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = at(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size() || at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if ((at(i + k) & 0xC0) != 0x80) return 0;
  }
  return n;
}

// Messages can name a file by its bytes, which Python's exceptions cannot
// hold unless they are UTF-8: each byte outside it becomes \xNN.
std::string ValidUtf8(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const size_t n = Utf8Length(s, i);
    if (n > 0) {
      out.append(s, i, n);
      i += n;
    } else {
      static const char kHex[] = "0123456789abcdef";
      const auto c = static_cast<unsigned char>(s[i++]);
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

}  // namespace

// std::string to and from Python's str. Every string handed to Python
// passes ValidUtf8: a model's names (tensors, ops, signatures, the
// description, the placement and profile rows) are the file's bytes, which
// need not be UTF-8; each byte outside UTF-8 becomes \xNN, the rule the
// tools print names by (tools/common/printable.h) and error messages follow
// here (was: UnicodeDecodeError from .placement, get_input_details, ...).
// Stands in for nanobind/stl/string.h, which this file does not include.
NAMESPACE_BEGIN(NB_NAMESPACE)
NAMESPACE_BEGIN(detail)
template <>
struct type_caster<std::string> {
  NB_TYPE_CASTER(std::string, const_name("str"))

  bool from_python(handle src, uint32_t, cleanup_list*) noexcept {
    if (!PyUnicode_Check(src.ptr())) return false;
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(src.ptr(), &size);
    if (text == nullptr) {
      PyErr_Clear();
      return false;
    }
    value.assign(text, static_cast<size_t>(size));
    return true;
  }

  static handle from_cpp(const std::string& value, rv_policy, cleanup_list*) noexcept {
    const std::string text = ValidUtf8(value);
    return PyUnicode_FromStringAndSize(text.data(), static_cast<Py_ssize_t>(text.size()));
  }
};
NAMESPACE_END(detail)
NAMESPACE_END(NB_NAMESPACE)

namespace {

// An invoke Interpreter::Cancel ended (StatusCode::kCancelled): Python's
// gldelegate.InvokeCancelledError, a subclass of RuntimeError.
struct InvokeCancelled : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void Raise(const gld::Status& s) {
  const std::string what = ValidUtf8(s.message());
  switch (s.code()) {
    case gld::StatusCode::kCancelled: throw InvokeCancelled(what);
    case gld::StatusCode::kInvalidArgument:
    case gld::StatusCode::kNotFound:
    case gld::StatusCode::kOutOfRange:
    case gld::StatusCode::kDataLoss: throw nb::value_error(what.c_str());
    default: throw std::runtime_error(what);
  }
}

void Check(const gld::Status& s) {
  if (!s.ok()) Raise(s);
}

template <typename T> T Take(gld::StatusOr<T> v) {
  if (!v.ok()) Raise(v.status());
  return std::move(*v);
}

// ---- Options and the report through their tables (gldelegate/options.inc,
// gldelegate/report.inc). Python values by the C++ type: enums as their
// names, pointers as int addresses; interpreter.py turns keywords into
// these types (str, int, bool, list of str) first.

template <typename Enum, typename = std::enable_if_t<std::is_enum_v<Enum>>>
void FromPy(nb::handle v, Enum* out) {
  Check(gld::ParseEnum(nb::cast<std::string>(v), out));
}
void FromPy(nb::handle v, int* out) { *out = nb::cast<int>(v); }
void FromPy(nb::handle v, bool* out) { *out = nb::cast<bool>(v); }
void FromPy(nb::handle v, std::string* out) { *out = nb::cast<std::string>(v); }
void FromPy(nb::handle v, std::vector<std::string>* out) { *out = nb::cast<std::vector<std::string>>(v); }
void FromPy(nb::handle v, void** out) { *out = reinterpret_cast<void*>(nb::cast<uintptr_t>(v)); }

template <typename Enum, typename = std::enable_if_t<std::is_enum_v<Enum>>>
nb::object ToPy(Enum v) {
  return nb::cast(std::string(gld::EnumName(v)));
}
template <typename T, typename = std::enable_if_t<!std::is_enum_v<T>>>
nb::object ToPy(const T& v) {
  return nb::cast(v);
}
nb::object ToPy(void* v) { return nb::cast(reinterpret_cast<uintptr_t>(v)); }

// Options from keywords: ValueError for a value out of range (gld::CheckOptions).
gld::Options OptionsFromDict(const nb::dict& given) {
  gld::Options o;
  for (auto [key, value] : given) {
    const std::string name = nb::cast<std::string>(key);
    bool known = false;
#define GLD_OPTION(field, ...) \
  if (name == #field) {        \
    FromPy(value, &o.field);   \
    known = true;              \
  }
#include "gldelegate/options.inc"
#undef GLD_OPTION
    if (!known) throw nb::type_error(("unknown option '" + name + "'").c_str());
  }
  Check(gld::CheckOptions(o));
  return o;
}

nb::dict OptionsToDict(const gld::Options& o) {
  nb::dict d;
#define GLD_OPTION(field, ...) d[#field] = ToPy(o.field);
#include "gldelegate/options.inc"
#undef GLD_OPTION
  return d;
}

// The table's rows as (name, kind, help): kind is "enum", "int", "bool",
// "string", "list" or "pointer".
nb::list OptionTable() {
  nb::list rows;
#define GLD_OPTION(field, kind, c_name, flag, default_value, min, special, range, help) \
  rows.append(nb::make_tuple(#field, nb::str(#kind).attr("lower")(), help));
#include "gldelegate/options.inc"
#undef GLD_OPTION
  return rows;
}

nb::dict Describe(const gld::TensorInfo& t) {
  nb::dict d;
  d["name"] = t.name;
  d["index"] = t.index;
  d["dtype"] = std::string(gld::ElementTypeName(t.type));
  d["shape"] = t.shape;
  d["shape_signature"] = t.shape_signature;
  d["bytes"] = t.bytes;
  d["scales"] = t.quantization.scale;
  d["zero_points"] = t.quantization.zero_point;
  d["quantized_dimension"] = t.quantization.quantized_dimension;
  return d;
}

nb::list DescribeAll(const std::vector<gld::TensorInfo>& infos) {
  nb::list l;
  for (const gld::TensorInfo& t : infos) l.append(Describe(t));
  return l;
}

struct PyModel {
  std::shared_ptr<const gld::Model> model;

  nb::list inputs() const { return DescribeAll(model->inputs()); }
  nb::list outputs() const { return DescribeAll(model->outputs()); }
  nb::list signatures() const {
    nb::list l;
    for (const gld::SignatureInfo& s : model->signatures()) {
      nb::dict d;
      d["key"] = s.key;
      for (int side = 0; side < 2; ++side) {
        nb::list tensors;
        for (const gld::SignatureTensor& t : side == 0 ? s.inputs : s.outputs)
          tensors.append(nb::make_tuple(t.name, t.tensor_index));
        d[side == 0 ? "inputs" : "outputs"] = tensors;
      }
      l.append(d);
    }
    return l;
  }
};

// The C++ Interpreter, used from one thread at a time: the lock makes a
// second Python thread wait instead of racing (the GIL is released while a
// model runs).
struct PyInterpreter {
  std::shared_ptr<const gld::Model> model;
  std::unique_ptr<gld::Interpreter> interpreter;
  gld::Options options;  // as created
  std::mutex mutex;

  using Bytes = nb::ndarray<nb::c_contig, nb::device::cpu>;
  // Read-only arrays too (np.frombuffer over received bytes): only read.
  using ConstBytes = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

  void set_input(int index, ConstBytes value) {
    std::lock_guard<std::mutex> lock(mutex);
    Check(interpreter->SetInput(index, value.data(), value.nbytes()));
  }
  void get_output(int index, Bytes into) {
    std::lock_guard<std::mutex> lock(mutex);
    Check(interpreter->GetOutput(index, into.data(), into.nbytes()));
  }
  void invoke() {
    std::lock_guard<std::mutex> lock(mutex);
    Check(interpreter->Invoke());
  }
  // Input (output) `index` lives in `array`'s memory until unbound
  // (BindInputHostBuffer): a state such as a KV cache bound as an input and
  // an output is updated in place. gldelegate.Interpreter checks the array
  // and keeps a reference to it while bound.
  void bind_host_buffer(bool input, int index, Bytes array) {
    std::lock_guard<std::mutex> lock(mutex);
    Check(input ? interpreter->BindInputHostBuffer(index, array.data(), array.nbytes())
                : interpreter->BindOutputHostBuffer(index, array.data(), array.nbytes()));
  }
  void unbind(bool input, int index) {
    std::lock_guard<std::mutex> lock(mutex);
    Check(input ? interpreter->UnbindInput(index) : interpreter->UnbindOutput(index));
  }

  nb::dict report() const {
    const gld::InterpreterReport& r = interpreter->report();
    nb::dict d;
#define GLD_REPORT_FIELD(field, python_key) d[python_key] = ToPy(r.field);
#include "gldelegate/report.inc"
#undef GLD_REPORT_FIELD
    d["pass_log"] = r.pass_log;
    nb::list nodes;
    for (const gld::PlacementInfo& n : r.nodes) {
      nb::dict node;
      node["index"] = n.index;
      node["op"] = n.op;
      node["label"] = n.label;
      node["fused"] = n.fused;
      node["input_names"] = n.input_names;
      node["output_names"] = n.output_names;
      node["on_gpu"] = n.on_gpu;
      node["segment"] = n.segment;
      node["reason"] = n.reason;
      nodes.append(node);
    }
    d["nodes"] = nodes;
    return d;
  }

  nb::list profile() const {
    nb::list l;
    for (const gld::ProfileRow& p : interpreter->profile()) {
      nb::dict row;
      row["name"] = p.name;
      row["op"] = p.op;
      row["backend"] = p.backend;
      row["fused"] = p.fused;
      row["time_us"] = p.time_us;
      row["count"] = p.count;
      row["timing"] = p.timing;
      l.append(row);
    }
    return l;
  }

  // The trace (enable_trace) as Trace Event Format objects: what
  // {"traceEvents": [...]} holds (Perfetto, chrome://tracing).
  nb::list trace() const {
    nb::list l;
    for (const gld::TraceEvent& e : interpreter->trace()) {
      nb::dict event;
      event["name"] = e.name;
      if (!e.category.empty()) event["cat"] = e.category;
      event["ph"] = std::string(1, e.phase);
      event["ts"] = e.ts_us;
      if (e.phase == 'X') event["dur"] = e.dur_us;
      event["pid"] = e.pid;
      event["tid"] = e.tid;
      nb::dict args;
      for (const gld::TraceArg& a : e.args) {
        if (a.is_number) {
          args[nb::cast(a.name)] = a.number;
        } else {
          args[nb::cast(a.name)] = a.text;
        }
      }
      event["args"] = args;
      l.append(event);
    }
    return l;
  }
};

PyInterpreter* CreateInterpreter(const PyModel& model, const nb::dict& keywords,
                                 const std::optional<std::string>& signature_key) {
  gld::Options options = OptionsFromDict(keywords);
  std::unique_ptr<gld::Interpreter> interpreter;
  {
    // Creating compiles the GPU programs: let other Python threads run.
    nb::gil_scoped_release release;
    auto created = signature_key.has_value() ? gld::Interpreter::Create(*model.model, options, *signature_key)
                                             : gld::Interpreter::Create(*model.model, options);
    if (!created.ok()) {
      nb::gil_scoped_acquire acquire;
      Raise(created.status());
    }
    interpreter = std::move(*created);
  }
  auto* py = new PyInterpreter();
  py->model = model.model;
  py->interpreter = std::move(interpreter);
  py->options = std::move(options);
  return py;
}

}  // namespace

NB_MODULE(_gldelegate, m) {
  m.doc() = "gldelegate's C++ API; use gldelegate.Interpreter";
  m.attr("__version__") = gld::VersionString();
  nb::exception<InvokeCancelled>(m, "InvokeCancelledError", PyExc_RuntimeError);

  nb::class_<PyModel>(m, "Model")
      .def_prop_ro("inputs", &PyModel::inputs)
      .def_prop_ro("outputs", &PyModel::outputs)
      .def_prop_ro("signatures", &PyModel::signatures)
      .def_prop_ro("description", [](const PyModel& p) { return p.model->description(); });

  // The path as bytes (os.fsencode): any name the OS has, NUL bytes refused
  // by Model::FromFile rather than cutting the path short.
  m.def(
      "load_model_file",
      [](nb::bytes path) { return PyModel{Take(gld::Model::FromFile(std::string(path.c_str(), path.size())))}; },
      nb::arg("path"));
  m.def(
      "load_model_bytes",
      [](nb::bytes data) { return PyModel{Take(gld::Model::FromBuffer(data.c_str(), data.size()))}; },
      nb::arg("data"));

  nb::class_<PyInterpreter>(m, "Interpreter")
      .def_prop_ro("inputs", [](const PyInterpreter& p) { return DescribeAll(p.interpreter->inputs()); })
      .def_prop_ro("outputs", [](const PyInterpreter& p) { return DescribeAll(p.interpreter->outputs()); })
      .def("set_input", &PyInterpreter::set_input, nb::arg("index"), nb::arg("value"))
      .def("get_output", &PyInterpreter::get_output, nb::arg("index"), nb::arg("into"))
      .def("invoke", &PyInterpreter::invoke, nb::call_guard<nb::gil_scoped_release>())
      // noconvert: a converted temporary would be bound, not the caller's array.
      .def("bind_host_buffer", &PyInterpreter::bind_host_buffer, nb::arg("input"), nb::arg("index"),
           nb::arg("array").noconvert())
      .def("unbind", &PyInterpreter::unbind, nb::arg("input"), nb::arg("index"))
      .def(
          "resize_input",
          [](PyInterpreter& p, int index, const std::vector<int>& shape, bool strict) {
            Check(p.interpreter->ResizeInput(index, shape, strict));
          },
          nb::arg("index"), nb::arg("shape"), nb::arg("strict") = false)
      // Re-plans (shapes, memory, GL programs): let other Python threads run.
      .def("allocate_tensors",
           [](PyInterpreter& p) {
             gld::Status s;
             {
               nb::gil_scoped_release release;
               s = p.interpreter->AllocateTensors();
             }
             // As LiteRT's allocate_tensors: RuntimeError for a shape the model cannot take.
             if (!s.ok()) throw std::runtime_error(ValidUtf8(s.message()));
           })
      .def("report", &PyInterpreter::report)
      .def("profile", &PyInterpreter::profile)
      .def("reset_profile", [](PyInterpreter& p) { p.interpreter->ResetProfile(); })
      .def("reset_variables", [](PyInterpreter& p) { Check(p.interpreter->ResetVariables()); })
      // Takes neither the GIL nor the interpreter's mutex (invoke holds it):
      // one atomic store that ends the invoke running on another thread.
      .def("cancel", [](PyInterpreter& p) { p.interpreter->Cancel(); }, nb::call_guard<nb::gil_scoped_release>())
      .def("trace", &PyInterpreter::trace)
      .def("options", [](const PyInterpreter& p) { return OptionsToDict(p.options); });

  // The options (gldelegate/options.inc): the table, a keyword dict checked
  // and given back as an interpreter would take it, one keyword checked.
  m.attr("option_table") = OptionTable();
  m.def("resolve_options", [](const nb::dict& keywords) { return OptionsToDict(OptionsFromDict(keywords)); },
        nb::arg("options"));
  m.def(
      "check_option",
      [](const std::string& name, nb::handle value) {
        nb::dict one;
        one[name.c_str()] = value;
        OptionsFromDict(one);
      },
      nb::arg("name"), nb::arg("value"));

  m.def("create_interpreter", &CreateInterpreter, nb::arg("model"), nb::arg("options"),
        nb::arg("signature_key") = nb::none(), nb::rv_policy::take_ownership);

  // This module is also the TFLite external delegate library
  // (gldelegate.delegate_library_path()): it exports TFLite's external
  // delegate interface, which LiteRT's load_delegate finds by name. Taking
  // the entries' addresses links them in from the library's archive.
  m.def("delegate_entry_points", [] {
    return std::vector<uintptr_t>{reinterpret_cast<uintptr_t>(&tflite_plugin_create_delegate),
                                  reinterpret_cast<uintptr_t>(&tflite_plugin_destroy_delegate),
                                  reinterpret_cast<uintptr_t>(&GldTfLiteDelegateCreate),
                                  reinterpret_cast<uintptr_t>(&GldTfLiteDelegateDelete)};
  });
}
