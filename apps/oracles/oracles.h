// Serial reference answers for the apps, computed on a plain in-memory Csr and never through the
// engine: PageRank by Jacobi power iteration, weakly connected components by union-find,
// shortest paths by Dijkstra; plus the comparisons tests use to check an app's output against
// them (a partition for components, a tolerance for values).
//
// Everything here is deliberately simple (serial, std::vector, double) so that it is obviously
// correct: it is the reference the parallel, out-of-core code is judged by. The input is a Csr
// of out-edges as BuildCsr builds it with default options; duplicate edges and self-loops are
// kept and count with their multiplicity.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/types.h"
#include "loaders/csr.h"

namespace needle::oracle {

// Unnormalised PageRank with damping 0.85:
//   r(v) = 0.15 + 0.85 * sum over edges u->v of r(u) / outdeg(u),
// where outdeg(u) counts duplicate edges and self-loops. A vertex with no out-edges contributes
// nothing (no teleport redistribution of its rank), so the ranks sum to num_vertices only when
// no vertex dangles. Jacobi iteration in double: every sweep computes all new ranks from the
// previous sweep's, starting from r = 0.15; it stops after the first sweep whose largest
// absolute change is below `epsilon`, or after `max_iterations` sweeps (0 returns the start
// vector), and returns the last ranks either way.
std::vector<double> PageRank(const Csr& g, double epsilon = 1e-12, int max_iterations = 10000);

// Weakly connected components (every edge followed both ways), by union-find. The label of a
// vertex is the smallest vertex id in its component, so an isolated vertex is labelled by itself.
std::vector<uint32_t> ConnectedComponents(const Csr& g);

// Dijkstra with a binary heap, once per source: result[k][v] is the distance from sources[k] to
// v, +infinity when v is unreachable, 0 at the source. Edge lengths are g.weights (as double)
// when g.weighted, else 1. Throws std::invalid_argument when any weight of g is negative or NaN
// (checked over all edges, reachable or not) or when a source is not a vertex of g.
std::vector<std::vector<double>> ShortestPaths(const Csr& g, std::span<const VertexId> sources);

// Empty when labelings `a` and `b` induce the same partition of the vertices (the label values
// themselves may differ), else one line naming the first pair of vertices that one labeling puts
// together and the other apart (or the size mismatch).
std::string ComparePartition(std::span<const uint32_t> a, std::span<const uint32_t> b);

// Empty when every value matches, |e - a| <= abs_tol + rel_tol * |e|, else one line naming the
// first bad vertex, both values and how many mismatch in total (or the size mismatch). Two
// infinities of the same sign match; infinity against a finite value, and NaN on either side,
// never match.
std::string CompareValues(std::span<const double> expected, std::span<const double> actual,
                          double rel_tol, double abs_tol);

}  // namespace needle::oracle
