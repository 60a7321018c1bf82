// The serial oracles of oracles.h. Plain loops over the Csr; no OpenMP, no shortcuts.
#include "apps/oracles/oracles.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace needle::oracle {
namespace {

constexpr double kDamping = 0.85;
constexpr double kBase = 1.0 - kDamping;  // 0.15
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Union-find over vertex ids with path halving; the root of a set has no meaning beyond
// identifying it (labels are assigned afterwards).
class DisjointSets {
 public:
  explicit DisjointSets(uint64_t n) : parent_(n) {
    for (uint64_t v = 0; v < n; ++v) parent_[v] = v;
  }
  uint64_t Find(uint64_t v) {
    while (parent_[v] != v) {
      parent_[v] = parent_[parent_[v]];
      v = parent_[v];
    }
    return v;
  }
  void Union(uint64_t a, uint64_t b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<uint64_t> parent_;
};

std::string Describe(double x) {
  std::ostringstream s;
  s.precision(std::numeric_limits<double>::max_digits10);
  s << x;
  return s.str();
}

bool ValuesMatch(double e, double a, double rel_tol, double abs_tol) {
  if (std::isnan(e) || std::isnan(a)) return false;
  if (std::isinf(e) || std::isinf(a)) return e == a;  // same-signed infinities only
  return std::fabs(e - a) <= abs_tol + rel_tol * std::fabs(e);
}

}  // namespace

std::vector<double> PageRank(const Csr& g, double epsilon, int max_iterations) {
  const uint64_t n = g.num_vertices;
  std::vector<double> rank(n, kBase);
  std::vector<double> next(n);
  for (int iteration = 0; iteration < max_iterations; ++iteration) {
    std::fill(next.begin(), next.end(), kBase);
    for (uint64_t u = 0; u < n; ++u) {
      const uint64_t degree = g.Degree(static_cast<VertexId>(u));
      if (degree == 0) continue;
      const double share = kDamping * rank[u] / static_cast<double>(degree);
      for (VertexId v : g.Neighbors(static_cast<VertexId>(u))) next[v] += share;
    }
    double change = 0;
    for (uint64_t v = 0; v < n; ++v) change = std::max(change, std::fabs(next[v] - rank[v]));
    rank.swap(next);
    if (change < epsilon) break;
  }
  return rank;
}

std::vector<uint32_t> ConnectedComponents(const Csr& g) {
  const uint64_t n = g.num_vertices;
  DisjointSets sets(n);
  for (uint64_t u = 0; u < n; ++u) {
    for (VertexId v : g.Neighbors(static_cast<VertexId>(u))) sets.Union(u, v);
  }
  // Walking the vertices in increasing order, the first one met in a set is its smallest.
  std::vector<uint32_t> label(n);
  std::unordered_map<uint64_t, uint32_t> label_of_root;
  for (uint64_t v = 0; v < n; ++v) {
    label[v] = label_of_root.emplace(sets.Find(v), static_cast<uint32_t>(v)).first->second;
  }
  return label;
}

std::vector<std::vector<double>> ShortestPaths(const Csr& g, std::span<const VertexId> sources) {
  const uint64_t n = g.num_vertices;
  if (g.weighted) {
    for (uint64_t i = 0; i < g.NumEdges(); ++i) {
      if (!(g.weights[i] >= 0)) {
        throw std::invalid_argument("ShortestPaths: edge " + std::to_string(i) + " has weight " +
                                    Describe(g.weights[i]) + "; Dijkstra needs weights >= 0");
      }
    }
  }
  std::vector<std::vector<double>> result;
  result.reserve(sources.size());
  for (VertexId source : sources) {
    if (source >= n) {
      throw std::invalid_argument("ShortestPaths: source " + std::to_string(source) +
                                  " is not a vertex of a graph with " + std::to_string(n) +
                                  " vertices");
    }
    std::vector<double> dist(n, kInfinity);
    using Entry = std::pair<double, VertexId>;  // (tentative distance, vertex)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    dist[source] = 0;
    heap.emplace(0.0, source);
    while (!heap.empty()) {
      const auto [d, u] = heap.top();
      heap.pop();
      if (d > dist[u]) continue;  // a stale entry: u was settled at a smaller distance
      std::span<const VertexId> targets = g.Neighbors(u);
      std::span<const Weight> weights = g.NeighborWeights(u);
      for (size_t i = 0; i < targets.size(); ++i) {
        const double length = g.weighted ? static_cast<double>(weights[i]) : 1.0;
        const VertexId v = targets[i];
        if (d + length < dist[v]) {
          dist[v] = d + length;
          heap.emplace(dist[v], v);
        }
      }
    }
    result.push_back(std::move(dist));
  }
  return result;
}

std::string ComparePartition(std::span<const uint32_t> a, std::span<const uint32_t> b) {
  if (a.size() != b.size()) {
    return "labelings differ in size: " + std::to_string(a.size()) + " vs " +
           std::to_string(b.size());
  }
  // Two labelings give the same partition exactly when every vertex has the same smallest
  // class-mate in both. Walking the vertices in increasing order, the first vertex met with a
  // label is the smallest of its class.
  std::unordered_map<uint32_t, size_t> first_in_a;
  std::unordered_map<uint32_t, size_t> first_in_b;
  for (size_t v = 0; v < a.size(); ++v) {
    const size_t fa = first_in_a.emplace(a[v], v).first->second;
    const size_t fb = first_in_b.emplace(b[v], v).first->second;
    if (fa == fb) continue;
    // The smaller of fa, fb shares v's class in its labeling but not in the other: had it
    // shared v's class in both, it would be the smallest class-mate in both.
    const bool together_in_a = fa < fb;
    const size_t u = std::min(fa, fb);
    std::ostringstream s;
    s << "vertices " << u << " and " << v << " are together in the "
      << (together_in_a ? "first" : "second") << " labeling (label "
      << (together_in_a ? a[v] : b[v]) << ") but apart in the "
      << (together_in_a ? "second" : "first") << " (labels " << (together_in_a ? b[u] : a[u])
      << " and " << (together_in_a ? b[v] : a[v]) << ")";
    return s.str();
  }
  return "";
}

std::string CompareValues(std::span<const double> expected, std::span<const double> actual,
                          double rel_tol, double abs_tol) {
  if (expected.size() != actual.size()) {
    return "value counts differ: expected " + std::to_string(expected.size()) + ", actual " +
           std::to_string(actual.size());
  }
  size_t mismatches = 0;
  size_t first = 0;
  for (size_t v = 0; v < expected.size(); ++v) {
    if (ValuesMatch(expected[v], actual[v], rel_tol, abs_tol)) continue;
    if (mismatches == 0) first = v;
    ++mismatches;
  }
  if (mismatches == 0) return "";
  std::ostringstream s;
  s << "vertex " << first << ": expected " << Describe(expected[first]) << ", actual "
    << Describe(actual[first]) << " (tolerance " << abs_tol << " + " << rel_tol << "*|expected|); "
    << mismatches << " of " << expected.size() << " values mismatch";
  return s.str();
}

}  // namespace needle::oracle
