// gld_inspect: what a model holds and what gldelegate makes of it: inputs,
// outputs, op histogram, the transform passes' log, and where each node runs;
// with --plan, each GPU segment's plan (dispatches, arena, constants, edge
// conversions), made without a GL context; with --dump_shaders, the GLSL of
// every program that plan compiles; with --html, a page drawing the graph
// (tools/common/graph_page.h), with --profile the time of each node.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "common/flags.h"
#include "common/printable.h"
#include "common/graph_page.h"
#include "common/progress.h"
#include "common/tensors.h"
#include "gldelegate/gldelegate.hpp"

namespace {

using gld::tools::Printable;

constexpr char kTool[] = "gld_inspect";

std::string JoinShapes(const std::vector<std::vector<int>>& shapes) {
  std::string s;
  for (const auto& shape : shapes) {
    if (!s.empty()) s += " ";
    s += shape.empty() ? "-" : gld::tools::FormatShape(shape);
  }
  return s;
}

int ListOps(const gld::Options& options) {
  for (const gld::OpSupport& op : gld::SupportedOps()) {
    if (!op.cpu && !op.gl) continue;
    std::cout << op.op << (op.cpu ? " cpu" : "") << (op.gl ? " gl" : "") << "\n";
  }
  // The app's custom ops (--custom_ops).
  for (const auto& op : options.custom_ops) {
    std::cout << Printable(op->name) << " custom";
    if (op->version != 0) std::cout << " version " << op->version;
    std::cout << " cpu" << (op->gl.source.empty() ? "" : " gl") << "\n";
  }
  return 0;
}

// Each custom op the model uses and what --custom_ops registered for it.
void PrintCustomOps(const gld::Model& model, const gld::Options& options) {
  const std::vector<gld::CustomOpUse> uses = gld::CustomOpsOf(model, options);
  if (uses.empty()) return;
  std::cout << "custom ops:\n";
  for (const gld::CustomOpUse& u : uses) {
    std::cout << "  " << Printable(u.name) << " (version " << u.version << ") x" << u.nodes << ": ";
    if (!u.registered) {
      std::cout << "not registered (load a library that registers it with --custom_ops=lib.so)\n";
    } else {
      std::cout << "cpu yes, gl " << (u.gl ? "yes" : "no (CPU only)") << (u.library ? ", the library's own" : "")
                << "\n";
    }
  }
}

void PrintModel(const std::string& path, const gld::Model& model) {
  std::cout << "model: " << path << "\n";
  if (!model.description().empty()) std::cout << "description: " << Printable(model.description()) << "\n";
  std::cout << "inputs:\n";
  for (size_t i = 0; i < model.inputs().size(); ++i) {
    std::cout << "  " << i << " " << gld::tools::DescribeTensor(model.inputs()[i]) << "\n";
  }
  std::cout << "outputs:\n";
  for (size_t i = 0; i < model.outputs().size(); ++i) {
    std::cout << "  " << i << " " << gld::tools::DescribeTensor(model.outputs()[i]) << "\n";
  }
  std::cout << "ops (" << model.nodes().size() << " nodes):\n";
  for (const auto& [op, count] : model.OpHistogram()) std::cout << "  " << Printable(op) << " x" << count << "\n";
  // Control-flow nodes (WHILE, IF, CALL_ONCE) run some of them; the placement
  // below names which.
  for (const std::string& name : model.OtherSubgraphs()) std::cout << "other subgraph: " << Printable(name) << "\n";
  // Each signature (--signature=KEY runs it): its inputs and outputs by name.
  for (const gld::SignatureInfo& sig : model.signatures()) {
    std::cout << "signature '" << Printable(sig.key) << "':";
    for (const gld::SignatureTensor& t : sig.inputs) std::cout << " in " << Printable(t.name);
    for (const gld::SignatureTensor& t : sig.outputs) std::cout << " out " << Printable(t.name);
    std::cout << "\n";
  }
}

// The figures of the summary: node counts, the steps of an Invoke (each CPU
// step named: one node, a node and its epilogue chain, or a group of
// elementwise nodes run in one pass), GL dispatches per inference, GPU
// memory, and the elementwise nodes that kept a dispatch of their own.
void PrintFigures(const gld::InterpreterReport& r) {
  std::cout << "nodes: " << r.original_nodes << " -> " << r.total_nodes << "\n";
  const size_t gpu_steps = r.steps.size() - static_cast<size_t>(r.cpu_steps);
  std::cout << "steps: " << r.steps.size() << " (" << r.cpu_steps << " CPU, " << gpu_steps << " GPU)\n";
  // Beside GPU segments, each CPU step by name (on the CPU alone every node
  // is listed below anyway).
  for (const std::string& step : r.steps) {
    if (gpu_steps > 0 && step.rfind("CPU: ", 0) == 0) std::cout << "  " << Printable(step) << "\n";
  }
  std::cout << "dispatches: " << r.dispatches << "\n";
  std::cout << "gpu_bytes: " << r.gpu_bytes_planned << " planned, " << r.gpu_bytes_naive << " naive, "
            << r.gpu_bytes_lower_bound << " lower bound\n";
  std::cout << "unfused elementwise nodes: " << r.unfused_elementwise.size() << "\n";
  for (const std::string& line : r.unfused_elementwise) std::cout << "  " << Printable(line) << "\n";
}

void PrintPlan(const gld::InterpreterReport& r) {
  std::cout << "backend: " << gld::BackendName(r.backend) << ", precision " << gld::PrecisionName(r.precision);
  if (!r.gl_renderer.empty()) std::cout << ", renderer " << r.gl_renderer;
  std::cout << "\n";
  std::cout << "passes (" << r.pass_log.size() << " changes):\n";
  for (const std::string& line : r.pass_log) std::cout << "  " << Printable(line) << "\n";
  std::cout << r.placement_line << "\n";
  PrintFigures(r);
  std::cout << "memory: CPU " << r.cpu_bytes_planned << " bytes planned (" << r.cpu_bytes_naive
            << " without sharing)";
  if (r.gpu_bytes_naive > 0) {
    std::cout << ", GPU " << r.gpu_bytes_planned << " bytes planned (" << r.gpu_bytes_naive << " without sharing)";
  }
  std::cout << "\n";
  std::cout << "per node (after passes; labels use the file's node numbers):\n";
  for (const gld::PlacementInfo& n : r.nodes) {
    std::ostringstream line;
    line << "  " << std::left << std::setw(28) << Printable(n.label) << " " << JoinShapes(n.input_shapes) << " -> "
         << JoinShapes(n.output_shapes);
    if (!n.fused.empty()) {
      line << " (fused:";
      for (const std::string& f : n.fused) line << " " << Printable(f);
      line << ")";
    }
    line << "  " << (n.on_gpu ? "GPU segment " + std::to_string(n.segment) : "CPU: " + Printable(n.reason));
    std::cout << line.str() << "\n";
  }
}

std::string Triple(const uint32_t v[3]) {
  return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
}

void PrintSegmentPlan(const gld::SegmentPlanInfo& s) {
  std::cout << Printable(s.label) << "\n";
  std::cout << "  edge conversions:\n";
  for (const gld::PlanConversion& c : s.conversions) {
    std::cout << "    " << (c.to_gpu ? "in  " : "out ") << "'" << Printable(c.tensor) << "' " << c.host_type << " "
              << c.host_bytes << " bytes\n";
  }
  std::cout << "  dispatches (" << s.dispatches.size() << "):\n";
  for (size_t i = 0; i < s.dispatches.size(); ++i) {
    const gld::PlanDispatch& d = s.dispatches[i];
    std::cout << "    " << i << " " << Printable(d.label) << "\n";
    std::cout << "       grid " << Triple(d.grid) << " workgroup " << Triple(d.workgroup) << " groups "
              << Triple(d.groups) << "\n";
    for (const gld::PlanBinding& b : d.bindings) {
      std::cout << "       binding " << b.point << ": " << b.buffer;
      if (b.buffer.rfind("arena", 0) == 0) std::cout << " @" << b.offset;
      std::cout << " " << b.bytes << " bytes\n";
    }
  }
  std::cout << "  arena: " << s.arena_bytes << " bytes planned, " << s.tensor_bytes_naive << " naive, "
            << s.tensor_bytes_lower_bound << " lower bound\n";
  for (const gld::PlanBuffer& b : s.arena) {
    std::cout << "    '" << Printable(b.name) << "' @" << b.offset << " " << b.bytes << " bytes\n";
  }
  uint64_t constant_bytes = 0;
  for (const gld::PlanBuffer& b : s.constants) constant_bytes += b.bytes;
  std::cout << "  constant buffers (" << s.constants.size() << ", " << constant_bytes << " bytes):\n";
  for (const gld::PlanBuffer& b : s.constants) std::cout << "    '" << Printable(b.name) << "' " << b.bytes << " bytes\n";
  for (const std::string& line : s.unfused_elementwise) std::cout << "  unfused: " << Printable(line) << "\n";
}

int PrintModelPlan(const gld::Model& model, const gld::Options& options) {
  auto plan = gld::PlanModel(model, options);
  if (!plan.ok()) return gld::tools::Fail(kTool, plan.status());
  std::cout << "GPU plan (no GL context), precision " << gld::PrecisionName(plan->precision) << ", "
            << plan->limits << "\n";
  std::cout << plan->placement_line << "\n";
  for (const std::string& line : plan->cpu_nodes) std::cout << "  on CPU: " << Printable(line) << "\n";
  for (const gld::SegmentPlanInfo& s : plan->segments) PrintSegmentPlan(s);
  return 0;
}

// Writes each distinct program of the plan as DIR/s<segment>_d<dispatch>_<template>
// (named by its first dispatch); `dispatches` of the plan compile them.
int DumpShaders(const gld::Model& model, const gld::Options& options, const std::string& dir) {
  auto plan = gld::PlanModel(model, options);
  if (!plan.ok()) return gld::tools::Fail(kTool, plan.status());
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return gld::tools::Fail(kTool, "--dump_shaders: cannot make folder '" + dir + "': " + ec.message());
  std::map<std::string, std::string> written;  // source -> file
  size_t dispatches = 0;
  for (size_t k = 0; k < plan->segments.size(); ++k) {
    const std::vector<gld::PlanDispatch>& list = plan->segments[k].dispatches;
    for (size_t i = 0; i < list.size(); ++i, ++dispatches) {
      const gld::PlanDispatch& d = list[i];
      if (written.count(d.source)) continue;
      std::ostringstream name;
      // A custom op's template is named "custom op 'X'": a plain file name
      // ending in .comp (glslangValidator takes the stage from it).
      std::string stem = d.template_name;
      for (char& c : stem) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
      }
      if (stem.size() < 5 || stem.compare(stem.size() - 5, 5, ".comp") != 0) stem += ".comp";
      name << "s" << k << "_d" << std::setw(3) << std::setfill('0') << i << "_" << stem;
      const std::string path = (std::filesystem::path(dir) / name.str()).string();
      std::ofstream out(path, std::ios::binary);
      out << d.source;
      out.close();
      if (!out) return gld::tools::Fail(kTool, "--dump_shaders: cannot write '" + path + "'");
      written.emplace(d.source, path);
    }
  }
  std::cout << "wrote " << written.size() << " program(s) of " << dispatches << " dispatch(es), precision "
            << gld::PrecisionName(plan->precision) << ", " << plan->limits << ", to " << dir << "\n";
  return 0;
}

// The page of --html: the interpreter's placement, PlanModel's fusion and
// --profile's times.
int WritePage(const std::string& graph, const gld::Model& model, const gld::Options& options,
              const gld::InterpreterReport& report, const std::string& html, const std::string& profile) {
  gld::tools::GraphPageInput page;
  page.model_path = graph;
  page.report = &report;
  auto plan = gld::PlanModel(model, options);
  if (plan.ok()) {
    page.plan = &*plan;
  } else {
    page.plan_error = plan.status().message();
  }
  if (!profile.empty()) {
    gld::Status s = gld::tools::ReadProfileRows(profile, &page);
    if (!s.ok()) return gld::tools::Fail(kTool, s);
  }
  std::ofstream out(html, std::ios::binary | std::ios::trunc);
  out << gld::tools::RenderGraphPage(page);
  out.close();
  if (!out) return gld::tools::Fail(kTool, "--html: cannot write '" + html + "'");
  std::cout << "wrote " << html << ": " << report.nodes.size() << " nodes, " << report.segments << " GPU segment(s)"
            << (profile.empty() ? "" : ", times from " + profile) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  gld::tools::EscapeStandardStreams();  // model-supplied names reach the terminal escaped
  CLI::App app("Prints a model's inputs, outputs and ops, the transform passes' changes and where each node runs.",
               kTool);
  std::string graph;
  bool summary = false, list_ops = false, plan = false;
  std::string dump_shaders, html, profile;
  gld::tools::BackendFlags backend;
  app.add_option("--graph", graph, "the .tflite model");
  gld::tools::AddBackendFlags(app, backend, false, true);
  gld::tools::AddCacheFlags(app, backend);
  app.add_flag("--summary", summary,
               "print only the placement line, the node counts, GL dispatches, GPU bytes and the elementwise "
               "nodes that kept a dispatch of their own");
  app.add_flag("--plan", plan,
               "print each GPU segment's plan (dispatches, arena offsets, constant buffers, edge conversions) "
               "at the GLES 3.1 minimum limits, without making a GL context");
  app.add_flag("--list_ops", list_ops, "print every op this build runs and on which backends, then exit");
  app.add_option("--dump_shaders", dump_shaders,
                 "write the GLSL of every program the --plan plan compiles into this folder (one file per "
                 "program, named by its first dispatch), then exit");
  app.add_option("--html", html, "write a self-contained HTML page drawing the graph (docs/TRACE_AND_PAGE.md)");
  app.add_option("--profile", profile, "with --html: a gld_benchmark --enable_op_profiling --json report (node times)");
  if (auto code = gld::tools::ParseFlags(app, argc, argv)) return *code;
  if (!profile.empty() && html.empty()) {
    std::cerr << kTool << ": error: --profile needs --html\n";
    return 2;
  }
  auto options = gld::tools::MakeOptions(backend);
  if (!options.ok()) {
    std::cerr << kTool << ": error: " << options.status().message() << "\n";
    return 2;
  }
  if (list_ops) return ListOps(*options);
  if (graph.empty()) {
    std::cerr << kTool << ": error: --graph is required (or --list_ops)\n";
    return 2;
  }
  auto model = gld::Model::FromFile(graph);
  if (!model.ok()) return gld::tools::Fail(kTool, model.status());
  if (!dump_shaders.empty()) return DumpShaders(**model, *options, dump_shaders);
  if (!summary && html.empty()) {
    PrintModel(graph, **model);
    PrintCustomOps(**model, *options);
  }
  if (plan) return PrintModelPlan(**model, *options);
  auto interp = gld::tools::CreateWithProgress(**model, *options, backend.signature);
  if (!interp.ok()) return gld::tools::Fail(kTool, interp.status());
  const gld::InterpreterReport& r = (*interp)->report();
  if (!html.empty()) return WritePage(graph, **model, *options, r, html, profile);
  if (summary) {
    std::cout << r.placement_line << "\n";
    PrintFigures(r);
    return 0;
  }
  PrintPlan(r);
  return 0;
}
