#include "common/graph_page.h"

#include <algorithm>
#include <cctype>
#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/json.h"
#include "common/tensors.h"

namespace gld::tools {

namespace {

constexpr int kNodeW = 192, kNodeH = 42, kColW = 212, kRowH = 72, kLeft = 150, kTop = 24;

// Text for HTML content and attribute values.
std::string Escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

std::string Shapes(const std::vector<std::vector<int>>& shapes) {
  std::string s;
  for (const auto& shape : shapes) {
    if (!s.empty()) s += " ";
    s += shape.empty() ? "-" : FormatShape(shape);
  }
  return s;
}

std::string Join(const std::vector<std::string>& items, const char* sep) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : sep) + i;
  return s;
}

// A GPU segment's hue: greens and blues, away from the CPU's orange.
int SegmentHue(int segment) { return 95 + (segment * 41) % 150; }

// Which dispatch of the plan runs each node: "GL segment 0, dispatch 5:
// conv2d.comp for node 3 (CONV_2D) + node 4 (RELU)", and the node leading
// it; only for dispatches whose node label agrees with the report's.
struct Fusion {
  std::vector<std::string> dispatch;
  std::vector<int> lead;
};

Fusion FusionOf(const GraphPageInput& in) {
  const std::vector<PlacementInfo>& nodes = in.report->nodes;
  Fusion f{std::vector<std::string>(nodes.size()), std::vector<int>(nodes.size(), -1)};
  if (in.plan == nullptr) return f;
  for (const SegmentPlanInfo& s : in.plan->segments) {
    for (size_t i = 0; i < s.dispatches.size(); ++i) {
      const PlanDispatch& d = s.dispatches[i];
      if (d.node < 0 || static_cast<size_t>(d.node) >= nodes.size()) continue;
      if (d.label.find(nodes[static_cast<size_t>(d.node)].label) == std::string::npos) continue;
      std::vector<int> members = {d.node};
      members.insert(members.end(), d.fused_nodes.begin(), d.fused_nodes.end());
      for (int m : members) {
        if (m < 0 || static_cast<size_t>(m) >= nodes.size() || !nodes[static_cast<size_t>(m)].on_gpu) continue;
        f.dispatch[static_cast<size_t>(m)] = s.label + ", dispatch " + std::to_string(i) + ": " + d.label;
        if (members.size() > 1) f.lead[static_cast<size_t>(m)] = d.node;
      }
    }
  }
  return f;
}

const char kStyle[] = R"css(
body { font: 13px system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; }
header { padding: 10px 16px; background: #fff; border-bottom: 1px solid #ddd; position: sticky; top: 0; z-index: 2; }
header h1 { font-size: 16px; margin: 0 0 4px 0; }
header .facts { color: #444; }
.legend span { display: inline-block; margin-right: 14px; }
.swatch { display: inline-block; width: 12px; height: 12px; vertical-align: middle; margin-right: 4px; border: 1px solid #555; }
#controls { margin-top: 6px; }
#graph { overflow: auto; }
#details { position: fixed; right: 12px; top: 120px; width: 340px; max-height: 70vh; overflow: auto; background: #fff;
  border: 1px solid #bbb; border-radius: 6px; padding: 10px; box-shadow: 0 2px 8px rgba(0,0,0,.15); white-space: pre-wrap; }
#details:empty { display: none; }
.node rect.box { stroke-width: 1.5; rx: 6; }
.node.cpu rect.box { fill: #fbd38d; stroke: #c05621; }
.node text { font-size: 11px; pointer-events: none; }
.node text.op { font-weight: 600; font-size: 12px; }
.node { cursor: pointer; }
.node.fused-group rect.box { stroke-dasharray: 5 2; }
.node.selected rect.box { stroke: #d00; stroke-width: 3; }
.node.match rect.box { stroke: #00f; stroke-width: 3; }
.heat { fill: #e53e3e; }
.edge { fill: none; stroke: #999; stroke-width: 1.2; }
.edge.cross { stroke: #d62828; stroke-width: 2.2; stroke-dasharray: 6 3; }
.edge.fused { stroke: #7b2cbf; stroke-width: 3; }
.edge.lit { stroke: #000; stroke-width: 2.5; }
.segment-box { fill-opacity: 0.10; stroke-width: 1.5; stroke-dasharray: 8 4; }
.segment-label { font-size: 12px; font-weight: 600; }
table.rows { border-collapse: collapse; margin-top: 4px; }
table.rows td { padding: 1px 8px 1px 0; }
)css";

const char kScript[] = R"js(
(function () {
  var details = document.getElementById('details');
  var edges = Array.prototype.slice.call(document.querySelectorAll('path.edge'));
  function show(g) {
    document.querySelectorAll('.node.selected').forEach(function (n) { n.classList.remove('selected'); });
    edges.forEach(function (e) { e.classList.remove('lit'); });
    g.classList.add('selected');
    var d = g.dataset, id = d.node;
    edges.forEach(function (e) { if (e.dataset.from === id || e.dataset.to === id) e.classList.add('lit'); });
    var lines = [d.label, d.where];
    lines.push('in:  ' + d.inputs, 'out: ' + d.outputs);
    if (d.fused) lines.push('file ops folded in: ' + d.fused);
    if (d.dispatch) lines.push('runs in ' + d.dispatch);
    if (d.timeUs) lines.push('time: ' + d.timeUs + ' us per run (' + d.timing + ')\n' + d.rows);
    details.textContent = lines.join('\n');
  }
  document.querySelectorAll('g.node').forEach(function (g) {
    g.addEventListener('click', function () { show(g); });
  });
  var zoom = document.getElementById('zoom'), svg = document.getElementById('graph-svg');
  var w = +svg.getAttribute('width'), h = +svg.getAttribute('height');
  zoom.addEventListener('input', function () {
    var z = zoom.value / 100;
    svg.setAttribute('width', w * z);
    svg.setAttribute('height', h * z);
  });
  document.getElementById('find').addEventListener('input', function (ev) {
    var q = ev.target.value.trim().toLowerCase(), first = null;
    document.querySelectorAll('g.node').forEach(function (g) {
      var hit = q !== '' && (g.dataset.label.toLowerCase().indexOf(q) >= 0 || g.dataset.where.toLowerCase().indexOf(q) >= 0);
      g.classList.toggle('match', hit);
      if (hit && !first) first = g;
    });
    if (first) first.scrollIntoView({block: 'center', inline: 'center'});
  });
})();
)js";

void WriteHeader(std::ostream& o, const GraphPageInput& in, double total_us) {
  const InterpreterReport& r = *in.report;
  o << "<header><h1>" << Escape(in.model_path) << "</h1><div class=\"facts\">" << Escape(r.placement_line)
    << " &middot; backend " << BackendName(r.backend) << ", " << PrecisionName(r.precision);
  if (!r.gl_renderer.empty()) o << " &middot; " << Escape(r.gl_renderer);
  o << " &middot; " << r.original_nodes << " nodes in the file, " << r.total_nodes << " after the passes, "
    << r.dispatches << " GL dispatches per run";
  if (!in.profile_source.empty()) {
    o << " &middot; profile " << Escape(in.profile_source) << ": " << Fixed(total_us, 1) << " us per run";
  }
  o << "</div><div class=\"legend\"><span><i class=\"swatch\" style=\"background:#fbd38d\"></i>CPU node</span>"
    << "<span><i class=\"swatch\" style=\"background:hsl(" << SegmentHue(0)
    << ",55%,80%)\"></i>GPU node (hue per segment; dashed box: the segment)</span>"
    << "<span><svg width=\"30\" height=\"8\"><path class=\"edge cross\" d=\"M0,4 L30,4\"/></svg> crosses CPU/GPU "
       "(through host memory)</span>"
    << "<span><svg width=\"30\" height=\"8\"><path class=\"edge fused\" d=\"M0,4 L30,4\"/></svg> inside one GL "
       "dispatch (fused)</span>";
  if (!in.profile_source.empty()) o << "<span><i class=\"swatch\" style=\"background:#e53e3e\"></i>share of the run's time</span>";
  o << "</div>";
  if (!in.plan_error.empty()) o << "<div>No fusion shown: the GPU plan failed: " << Escape(in.plan_error) << "</div>";
  if (!in.other_rows.empty()) {
    o << "<details><summary>profile rows of no node (segment edges)</summary><table class=\"rows\">";
    for (const auto& [name, us] : in.other_rows) {
      o << "<tr><td>" << Escape(name) << "</td><td>" << Fixed(us, 1) << " us</td></tr>";
    }
    o << "</table></details>";
  }
  o << "<div id=\"controls\">Zoom <input id=\"zoom\" type=\"range\" min=\"20\" max=\"150\" value=\"100\"> "
       "Find <input id=\"find\" type=\"search\" placeholder=\"op, node number or reason\"> "
       "Click a node for its shapes, reason, dispatch and time.</div></header>\n";
}

struct Geometry {
  int width = 0, height = 0;
  std::vector<int> x, y;  // top-left of each node's box
};

Geometry Place(const GraphLayout& layout) {
  Geometry g;
  size_t widest = 1;
  for (const auto& l : layout.layers) widest = std::max(widest, l.size());
  g.width = kLeft + static_cast<int>(widest) * kColW + 40;
  g.height = kTop + static_cast<int>(layout.layers.size()) * kRowH + 40;
  const int centre = kLeft + static_cast<int>(widest) * kColW / 2;
  g.x.assign(layout.layer.size(), 0);
  g.y.assign(layout.layer.size(), 0);
  for (size_t l = 0; l < layout.layers.size(); ++l) {
    const auto& row = layout.layers[l];
    for (size_t p = 0; p < row.size(); ++p) {
      const double offset = static_cast<double>(p) - (static_cast<double>(row.size()) - 1) / 2.0;
      g.x[static_cast<size_t>(row[p])] = centre + static_cast<int>(offset * kColW) - kNodeW / 2;
      g.y[static_cast<size_t>(row[p])] = kTop + static_cast<int>(l) * kRowH;
    }
  }
  return g;
}

void WriteSegmentBoxes(std::ostream& o, const std::vector<PlacementInfo>& nodes, const Geometry& g) {
  std::map<int, std::array<int, 4>> box;  // segment -> x0 y0 x1 y1
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].on_gpu) continue;
    auto it = box.find(nodes[i].segment);
    if (it == box.end()) it = box.emplace(nodes[i].segment, std::array<int, 4>{g.x[i], g.y[i], g.x[i], g.y[i]}).first;
    auto& b = it->second;
    b = {std::min(b[0], g.x[i]), std::min(b[1], g.y[i]), std::max(b[2], g.x[i]), std::max(b[3], g.y[i])};
  }
  for (const auto& [segment, b] : box) {
    const int hue = SegmentHue(segment);
    const int x = b[0] - 10, y = b[1] - 14, w = b[2] - b[0] + kNodeW + 20, h = b[3] - b[1] + kNodeH + 24;
    o << "<rect class=\"segment-box\" data-segment=\"" << segment << "\" x=\"" << x << "\" y=\"" << y << "\" width=\""
      << w << "\" height=\"" << h << "\" style=\"fill:hsl(" << hue << ",60%,45%);stroke:hsl(" << hue
      << ",50%,35%)\"/>\n<text class=\"segment-label\" x=\"" << x - 4 << "\" y=\"" << y + 14
      << "\" text-anchor=\"end\" style=\"fill:hsl(" << hue << ",50%,30%)\">GL segment " << segment << "</text>\n";
  }
}

void WriteEdges(std::ostream& o, const GraphPageInput& in, const GraphLayout& layout, const Geometry& g,
                const Fusion& fusion) {
  const std::vector<PlacementInfo>& nodes = in.report->nodes;
  for (const auto& [from, to] : layout.edges) {
    const PlacementInfo& a = nodes[static_cast<size_t>(from)];
    const PlacementInfo& b = nodes[static_cast<size_t>(to)];
    // Between the CPU and a GPU segment, or between two segments: the
    // tensor goes through host memory.
    const bool cross = a.on_gpu != b.on_gpu || (a.on_gpu && a.segment != b.segment);
    const bool fused = fusion.lead[static_cast<size_t>(from)] >= 0 &&
                       fusion.lead[static_cast<size_t>(from)] == fusion.lead[static_cast<size_t>(to)];
    const int x1 = g.x[static_cast<size_t>(from)] + kNodeW / 2, y1 = g.y[static_cast<size_t>(from)] + kNodeH;
    const int x2 = g.x[static_cast<size_t>(to)] + kNodeW / 2, y2 = g.y[static_cast<size_t>(to)];
    const int bend = std::max(18, (y2 - y1) / 3);
    o << "<path class=\"edge" << (cross ? " cross" : "") << (fused ? " fused" : "") << "\" data-from=\"" << from
      << "\" data-to=\"" << to << "\" d=\"M" << x1 << "," << y1 << " C" << x1 << "," << y1 + bend << " " << x2 << ","
      << y2 - bend << " " << x2 << "," << y2 << "\"/>\n";
  }
}

void WriteNodes(std::ostream& o, const GraphPageInput& in, const Geometry& g, const Fusion& fusion, double max_us) {
  const std::vector<PlacementInfo>& nodes = in.report->nodes;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const PlacementInfo& n = nodes[i];
    const std::string where = n.on_gpu ? "GPU segment " + std::to_string(n.segment) : "CPU: " + n.reason;
    auto time = in.times.find(static_cast<int>(i));
    std::string cls = n.on_gpu ? "node gpu seg-" + std::to_string(n.segment) : "node cpu";
    if (fusion.lead[i] >= 0) cls += " fused-group";
    o << "<g class=\"" << cls << "\" data-node=\"" << i << "\" data-backend=\"" << (n.on_gpu ? "gpu" : "cpu")
      << "\" data-segment=\"" << n.segment << "\" data-op=\"" << Escape(n.op) << "\" data-label=\""
      << Escape(n.label) << "\" data-where=\"" << Escape(where) << "\" data-inputs=\"" << Escape(Shapes(n.input_shapes))
      << "\" data-outputs=\"" << Escape(Shapes(n.output_shapes)) << "\" data-fused=\"" << Escape(Join(n.fused, ", "))
      << "\" data-dispatch=\"" << Escape(fusion.dispatch[i]) << "\"";
    if (time != in.times.end()) {
      o << " data-time-us=\"" << Fixed(time->second.time_us, 1) << "\" data-timing=\"" << Escape(time->second.timing)
        << "\" data-rows=\"" << Escape(time->second.rows) << "\"";
    }
    o << ">\n<title>" << Escape(n.label) << "\n" << Escape(where) << "\n" << Escape(Shapes(n.input_shapes)) << " -> "
      << Escape(Shapes(n.output_shapes));
    if (!n.fused.empty()) o << "\nfolded in: " << Escape(Join(n.fused, ", "));
    if (!fusion.dispatch[i].empty()) o << "\n" << Escape(fusion.dispatch[i]);
    if (time != in.times.end()) o << "\n" << Fixed(time->second.time_us, 1) << " us per run";
    o << "</title>\n<rect class=\"box\" x=\"" << g.x[i] << "\" y=\"" << g.y[i] << "\" width=\"" << kNodeW
      << "\" height=\"" << kNodeH << "\"";
    if (n.on_gpu) {
      const int hue = SegmentHue(n.segment);
      o << " style=\"fill:hsl(" << hue << ",55%,80%);stroke:hsl(" << hue << ",50%,30%)\"";
    }
    o << "/>\n<text class=\"op\" x=\"" << g.x[i] + 6 << "\" y=\"" << g.y[i] + 16 << "\">#" << i << " "
      << Escape(n.op.substr(0, 22)) << (n.fused.empty() ? "" : " +" + std::to_string(n.fused.size())) << "</text>\n";
    std::string second = Shapes(n.output_shapes);
    if (time != in.times.end()) {
      second = Fixed(time->second.time_us, 1) + " us  " + second;
    } else if (fusion.lead[i] >= 0 && fusion.lead[i] != static_cast<int>(i)) {
      second = "in #" + std::to_string(fusion.lead[i]) + "'s dispatch  " + second;
    }
    o << "<text x=\"" << g.x[i] + 6 << "\" y=\"" << g.y[i] + 32 << "\">" << Escape(second.substr(0, 34)) << "</text>\n";
    if (time != in.times.end() && max_us > 0) {
      const int w = std::max(1, static_cast<int>((kNodeW - 4) * time->second.time_us / max_us));
      o << "<rect class=\"heat\" x=\"" << g.x[i] + 2 << "\" y=\"" << g.y[i] + kNodeH - 5 << "\" width=\"" << w
        << "\" height=\"3\"/>\n";
    }
    o << "</g>\n";
  }
}

}  // namespace

GraphLayout LayOutGraph(const std::vector<PlacementInfo>& nodes) {
  const size_t n = nodes.size();
  GraphLayout layout;
  std::map<int, int> producer;
  for (size_t i = 0; i < n; ++i) {
    for (int t : nodes[i].output_tensors) producer.emplace(t, static_cast<int>(i));
  }
  std::set<std::pair<int, int>> seen;
  std::vector<std::vector<int>> preds(n), succs(n);
  for (size_t i = 0; i < n; ++i) {
    for (int t : nodes[i].input_tensors) {
      auto it = producer.find(t);
      if (t < 0 || it == producer.end() || it->second == static_cast<int>(i)) continue;
      if (!seen.emplace(it->second, static_cast<int>(i)).second) continue;
      layout.edges.emplace_back(it->second, static_cast<int>(i));
      preds[i].push_back(it->second);
      succs[static_cast<size_t>(it->second)].push_back(static_cast<int>(i));
    }
  }
  // Longest path from the sources, in a topological order (Kahn's; the
  // plan's order is one, but this does not rely on it).
  std::vector<int> indegree(n), order;
  for (size_t i = 0; i < n; ++i) indegree[i] = static_cast<int>(preds[i].size());
  for (size_t i = 0; i < n; ++i) {
    if (indegree[i] == 0) order.push_back(static_cast<int>(i));
  }
  for (size_t k = 0; k < order.size(); ++k) {
    for (int s : succs[static_cast<size_t>(order[k])]) {
      if (--indegree[static_cast<size_t>(s)] == 0) order.push_back(s);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (indegree[i] > 0) order.push_back(static_cast<int>(i));  // a cycle: placed after the rest
  }
  layout.layer.assign(n, 0);
  for (int v : order) {
    for (int p : preds[static_cast<size_t>(v)]) {
      layout.layer[static_cast<size_t>(v)] = std::max(layout.layer[static_cast<size_t>(v)], layout.layer[static_cast<size_t>(p)] + 1);
    }
  }
  int layers = 0;
  for (int l : layout.layer) layers = std::max(layers, l + 1);
  layout.layers.assign(static_cast<size_t>(layers), {});
  for (size_t i = 0; i < n; ++i) layout.layers[static_cast<size_t>(layout.layer[i])].push_back(static_cast<int>(i));
  // Barycentric sweeps: each node's key is the mean centred position of its
  // neighbours on the side swept from; a node without any keeps its own.
  std::vector<double> x(n, 0);
  auto centre = [&](std::vector<int>& row) {
    for (size_t p = 0; p < row.size(); ++p) {
      x[static_cast<size_t>(row[p])] = static_cast<double>(p) - (static_cast<double>(row.size()) - 1) / 2.0;
    }
  };
  for (auto& row : layout.layers) centre(row);
  auto sweep = [&](std::vector<int>& row, const std::vector<std::vector<int>>& side) {
    std::vector<std::pair<double, int>> keyed;
    for (int v : row) {
      const auto& nb = side[static_cast<size_t>(v)];
      double key = x[static_cast<size_t>(v)];
      if (!nb.empty()) {
        key = 0;
        for (int u : nb) key += x[static_cast<size_t>(u)];
        key /= static_cast<double>(nb.size());
      }
      keyed.emplace_back(key, v);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t p = 0; p < row.size(); ++p) row[p] = keyed[p].second;
    centre(row);
  };
  for (int round = 0; round < 4; ++round) {
    for (size_t l = 1; l < layout.layers.size(); ++l) sweep(layout.layers[l], preds);
    for (size_t l = layout.layers.size(); l-- > 1;) sweep(layout.layers[l - 1], succs);
  }
  layout.position.assign(n, 0);
  for (const auto& row : layout.layers) {
    for (size_t p = 0; p < row.size(); ++p) layout.position[static_cast<size_t>(row[p])] = static_cast<int>(p);
  }
  return layout;
}

std::string RenderGraphPage(const GraphPageInput& in) {
  const GraphLayout layout = LayOutGraph(in.report->nodes);
  const Geometry g = Place(layout);
  const Fusion fusion = FusionOf(in);
  double total_us = 0, max_us = 0;
  for (const auto& [node, t] : in.times) {
    total_us += t.time_us;
    max_us = std::max(max_us, t.time_us);
  }
  for (const auto& row : in.other_rows) total_us += row.second;
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << Escape(in.model_path)
    << " - gldelegate graph</title>\n<style>" << kStyle << "</style></head>\n<body data-nodes=\""
    << in.report->nodes.size() << "\" data-edges=\"" << layout.edges.size() << "\" data-segments=\""
    << in.report->segments << "\">\n";
  WriteHeader(o, in, total_us);
  o << "<div id=\"details\"></div>\n<div id=\"graph\"><svg id=\"graph-svg\" xmlns=\"http://www.w3.org/2000/svg\" "
       "width=\""
    << g.width << "\" height=\"" << g.height << "\" viewBox=\"0 0 " << g.width << " " << g.height << "\">\n";
  WriteSegmentBoxes(o, in.report->nodes, g);
  WriteEdges(o, in, layout, g, fusion);
  WriteNodes(o, in, g, fusion, max_us);
  o << "</svg></div>\n<script>" << kScript << "</script>\n</body></html>\n";
  return o.str();
}

namespace {

// The "node <n> (<op>)" labels a profile row's name holds, in order (a
// dispatch's name lists every node fused into it).
std::vector<std::string> NodeLabelsIn(const std::string& name) {
  std::vector<std::string> labels;
  for (size_t at = name.find("node "); at != std::string::npos; at = name.find("node ", at + 1)) {
    size_t p = at + 5;
    const size_t digits = p;
    while (p < name.size() && std::isdigit(static_cast<unsigned char>(name[p]))) ++p;
    if (p == digits || name.compare(p, 2, " (") != 0) continue;
    const size_t close = name.find(')', p + 2);
    if (close == std::string::npos) break;
    labels.push_back(name.substr(at, close + 1 - at));
  }
  return labels;
}

}  // namespace


Status ReadProfileRows(const std::string& path, GraphPageInput* input) {
  GLD_ASSIGN_OR_RETURN(JsonFile file, JsonFile::Read(path, "--profile"));
  const nlohmann::json& doc = file.root();
  GLD_RETURN_IF_ERROR(file.ExpectObject(doc, ""));
  if (!doc.contains("ops")) {
    return InvalidArgumentError("--profile: '" + path +
                                "' has no per-op rows (\"ops\"); write it with gld_benchmark --enable_op_profiling "
                                "--json=FILE");
  }
  GLD_RETURN_IF_ERROR(file.ExpectArray(doc["ops"], "ops"));
  std::map<std::string, int> by_label;
  for (size_t i = 0; i < input->report->nodes.size(); ++i) by_label.emplace(input->report->nodes[i].label, static_cast<int>(i));
  // Every row is checked before any is taken: an error leaves `input` as it was.
  struct Row {
    std::string name, timing;
    double us = 0;
  };
  std::vector<Row> rows;
  const nlohmann::json& ops = doc["ops"];
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::string field = JsonIndexPath("ops", i);
    Row r;
    GLD_RETURN_IF_ERROR(file.GetString(ops[i], field, "name", /*required=*/true, &r.name));
    GLD_RETURN_IF_ERROR(file.GetNumber(ops[i], field, "time_us", /*required=*/true, &r.us));
    GLD_RETURN_IF_ERROR(file.GetString(ops[i], field, "timing", /*required=*/false, &r.timing));
    rows.push_back(std::move(r));
  }
  for (const Row& r : rows) {
    int node = -1;
    for (const std::string& label : NodeLabelsIn(r.name)) {
      auto found = by_label.find(label);
      if (found != by_label.end()) {
        node = found->second;
        break;
      }
    }
    if (node < 0) {
      input->other_rows.emplace_back(r.name, r.us);
      continue;
    }
    NodeTime& t = input->times[node];
    t.time_us += r.us;
    t.rows += (t.rows.empty() ? "" : "\n") + r.name;
    t.timing = r.timing;
  }
  input->profile_source = path;
  return OkStatus();
}

}  // namespace gld::tools
