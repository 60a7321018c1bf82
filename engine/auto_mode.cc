#include "engine/auto_mode.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace needle {
namespace {

// Traffic that grows with the edges an iteration loads.
bool EdgeKind(size_t kind) {
  switch (static_cast<FileKind>(kind)) {
    case FileKind::kAdjacency:
    case FileKind::kValues:
    case FileKind::kDynamic:
    case FileKind::kScatterIndex:
    case FileKind::kWeights:
    case FileKind::kInAdjacency:  // a pull turn's targets and sources by target
      return true;
    default:
      return false;
  }
}

// While activity decays geometrically from `previous` to `now`, the iterations until it falls
// to a thousandth of the edges; 0 while it is not decaying.
double DecayIterations(uint64_t now, uint64_t previous, uint64_t num_edges) {
  const double kept = static_cast<double>(now);
  const double floor = std::max(1.0, static_cast<double>(num_edges) / 1000);
  if (kept <= floor || now >= previous) return 0;
  const double decay = kept / static_cast<double>(previous);
  return std::log(kept / floor) / -std::log(decay);
}

}  // namespace

BuildEstimate EstimateBuild(const AutoInputs& in) {
  BuildEstimate e;
  double edge_traffic = 0, fixed_traffic = 0;
  for (size_t k = 0; k < in.iteration_io.read.size(); ++k) {
    const double bytes = static_cast<double>(in.iteration_io.read[k] + in.iteration_io.written[k]);
    (EdgeKind(k) ? edge_traffic : fixed_traffic) += bytes;
  }
  e.static_bytes = edge_traffic + fixed_traffic;
  const double kept = static_cast<double>(in.activity);
  const double per_edge = in.edges_loaded > 0 ? edge_traffic / static_cast<double>(in.edges_loaded) : 0;
  e.dynamic_bytes = fixed_traffic + per_edge * kept;
  if (in.last_build_edges > 0) {
    e.build_bytes = static_cast<double>(in.last_build_read) +
                    static_cast<double>(in.last_build_written) * kept /
                        static_cast<double>(in.last_build_edges);
  } else {
    e.build_bytes = static_cast<double>(in.static_set_bytes) +
                    kept * static_cast<double>(in.edge_write_bytes);
  }
  e.flush_bytes = static_cast<double>(in.full_static_bytes);
  e.iterations = DecayIterations(in.activity, in.previous_activity, in.num_edges);
  if (in.last_build_edges > 0) {
    e.iterations = std::min(e.iterations, static_cast<double>(in.last_served));
  } else {
    const double w = std::clamp(in.overlap, 0.0, 0.999);
    e.iterations = std::min(e.iterations, w / (1 - w));
  }
  e.iterations = std::min(e.iterations, static_cast<double>(in.iteration) + 1);
  return e;
}

// S − P falls as activity does where the static windows skip what carries nothing (cnr-2000
// PageRank, uk-2007-05-100k MSSP: builds that R, or two iterations, said would pay cost more
// than they saved), and stays where messages are spread over every page (R-MAT): only a build
// that pays back in the first iteration it serves is made.
constexpr double kPushPayback = 1;

PushEstimate EstimatePush(const PushInputs& in) {
  PushEstimate e;
  double edge_traffic = 0, fixed_traffic = 0;
  for (size_t k = 0; k < in.iteration_io.read.size(); ++k) {
    const double bytes = static_cast<double>(in.iteration_io.read[k] + in.iteration_io.written[k]);
    const bool edge = EdgeKind(k) && static_cast<FileKind>(k) != FileKind::kScatterIndex;
    (edge ? edge_traffic : fixed_traffic) += bytes;
  }
  edge_traffic += 2 * static_cast<double>(in.pulled_message_bytes);
  e.static_bytes = edge_traffic + fixed_traffic;
  const double messages = static_cast<double>(in.activity);
  const double per_edge =
      in.edges_loaded > 0 ? edge_traffic / static_cast<double>(in.edges_loaded) : 0;
  e.push_bytes = fixed_traffic + messages * in.own * per_edge + messages * (1 - in.own) * 4;
  e.build_bytes = static_cast<double>(in.build_bytes);
  e.iterations = std::min({DecayIterations(in.activity, in.previous_activity, in.num_edges),
                           static_cast<double>(in.iteration) + 1, kPushPayback});
  if (in.build_bytes == 0) e.iterations = std::max(e.iterations, 1.0);
  return e;
}

std::string PushEstimate::Describe() const {
  char text[200];
  std::snprintf(text, sizeof text, "%.1f iterations x (%.1f - %.1f) MB saved against %.1f MB build",
                iterations, static_bytes / 1e6, push_bytes / 1e6, build_bytes / 1e6);
  return text;
}

std::string BuildEstimate::Describe() const {
  char text[200];
  std::snprintf(text, sizeof text,
                "%.1f iterations x (%.1f - %.1f) MB saved against %.1f MB build + %.1f MB flush",
                iterations, static_bytes / 1e6, dynamic_bytes / 1e6, build_bytes / 1e6,
                flush_bytes / 1e6);
  return text;
}

}  // namespace needle
