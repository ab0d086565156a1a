// gld_inspect --html: one self-contained HTML page (inline SVG, style and
// script; nothing fetched) drawing a model's graph after the passes, each
// node coloured by where it runs, GPU segments boxed, the edges crossing
// between CPU and GPU marked, the plan's fusion (nodes run by one GL
// dispatch) and, from a gld_benchmark --json report with per-op rows, the
// time of each node. docs/TRACE_AND_PAGE.md shows it.
//
// The layout is computed here: layers by longest path from the sources,
// the order within each layer by a few barycentric sweeps (down, then up)
// that pull each node towards its neighbours to cut crossings.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gldelegate/gldelegate.hpp"

namespace gld::tools {

// The profile rows that fall on one node (after the passes).
struct NodeTime {
  double time_us = 0;       // summed over its rows, per run
  std::string rows;         // the rows' names, one per line
  std::string timing;       // "gpu_timer", "gl_finish", "wall"
};

struct GraphPageInput {
  std::string model_path;
  const InterpreterReport* report = nullptr;
  // PlanModel's plan (which nodes each dispatch runs); null when it failed.
  const PlanReport* plan = nullptr;
  std::string plan_error;
  // --profile: per node index, and the rows not of a node (segment
  // uploads, downloads, edge conversions) by name.
  std::map<int, NodeTime> times;
  std::vector<std::pair<std::string, double>> other_rows;
  std::string profile_source;  // the file; empty without --profile
};

// The node positions (tests look at them): layer and order within it.
struct GraphLayout {
  std::vector<int> layer;     // per node
  std::vector<int> position;  // per node, within its layer
  std::vector<std::vector<int>> layers;  // the nodes of each layer, in order
  std::vector<std::pair<int, int>> edges;  // producer -> reader, each once
};
GraphLayout LayOutGraph(const std::vector<PlacementInfo>& nodes);

// The page's HTML.
std::string RenderGraphPage(const GraphPageInput& input);

// Reads gld_benchmark --json's "ops" rows (written with
// --enable_op_profiling) onto `input` by the node labels in each row's
// name ("conv2d.comp for node 3 (CONV_2D) + node 4 (RELU)": node 3's).
Status ReadProfileRows(const std::string& path, GraphPageInput* input);

}  // namespace gld::tools
