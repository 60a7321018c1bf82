// sweep_model: how many iterations connected components needs on a shard set's intervals when
// the intervals are taken in a fixed order every iteration (the engine's schedule) and when
// the order turns round every other iteration (forward, then backward), before either is built.
//
// The model of an iteration: the intervals in turn, each run to its fixed point (the engine's
// inner passes and ordered schedule do that) with every message sent to it so far: those of the
// intervals already taken this iteration and those of the others from the iteration before. So
// a vertex sees its neighbours' latest labels whenever its interval is taken, and a label moves
// through any number of intervals in one iteration as long as each lies further along the
// order than the last. Labels are input ids, as needle's are, whatever order the set numbers
// its vertices in (order.bin). It counts the iterations in which a label changed, plus the one
// that finds nothing left, which is what `needle run cc` reports.
//
// It holds the graph in memory (an in-memory CSR, symmetrized): a model for the benchmarks'
// graphs, not for the graphs needle shards out of core.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_main.h"
#include "loaders/load_graph.h"
#include "shards/shard_set.h"

namespace needle::bench {
namespace {

namespace po = boost::program_options;

struct Options {
  std::string graph, shards;
  uint32_t max_iterations = 100000;
};

bool Parse(int argc, char** argv, Options& o) {
  po::options_description d("sweep_model --graph FILE --shards DIR [options]");
  auto add = d.add_options();
  add("help", "this text");
  add("graph", po::value(&o.graph)->required(), "the graph the set was sharded from");
  add("shards", po::value(&o.shards)->required(), "the shard set: its intervals and order");
  add("max-iterations", po::value(&o.max_iterations)->default_value(100000), "at most");
  return ParseOrHelp(argc, argv, d);
}

// The graph in input ids, symmetrized, and the set's intervals: interval p holds the input
// ids members[first[p], first[p + 1]) (in the set's order). A vertex's label is its input id.
struct Model {
  Csr csr;
  std::vector<VertexId> members;  // input ids in the set's order
  std::vector<uint32_t> first;    // per interval, its first place in members; then the end
  std::vector<uint32_t> interval_of;  // per input id
};

Model Load(const Options& o) {
  const ShardSet set = ShardSet::Open(o.shards, false);
  LoadOptions load;
  load.csr.symmetrize = true;
  Model m{LoadGraph(o.graph, load), set.InputIds(), {}, {}};
  const uint64_t n = set.manifest().num_vertices;
  if (m.csr.num_vertices > n) {
    throw std::runtime_error(o.graph + " has " + std::to_string(m.csr.num_vertices) +
                             " vertices, the set " + std::to_string(n));
  }
  if (m.members.empty()) {  // input order
    m.members.resize(n);
    std::iota(m.members.begin(), m.members.end(), 0);
  }
  m.interval_of.resize(n);
  for (uint32_t p = 0; p < set.num_intervals(); ++p) {
    m.first.push_back(set.interval_begin(p));
    for (VertexId v = set.interval_begin(p); v < set.interval_end(p); ++v) {
      m.interval_of[m.members[v]] = p;
    }
  }
  m.first.push_back(static_cast<uint32_t>(n));
  return m;
}

std::span<const VertexId> NeighborsOf(const Model& m, VertexId v) {
  return v < m.csr.num_vertices ? m.csr.Neighbors(v) : std::span<const VertexId>();
}

// Runs interval p to its fixed point; true when a label changed.
bool Settle(const Model& m, uint32_t p, std::vector<VertexId>& label,
            std::vector<VertexId>& queue, std::vector<uint8_t>& queued) {
  queue.assign(m.members.begin() + m.first[p], m.members.begin() + m.first[p + 1]);
  for (VertexId v : queue) queued[v] = 1;
  bool changed = false;
  for (size_t k = 0; k < queue.size(); ++k) {
    const VertexId v = queue[k];
    queued[v] = 0;
    VertexId least = label[v];
    for (VertexId u : NeighborsOf(m, v)) least = std::min(least, label[u]);
    if (least == label[v]) continue;
    label[v] = least;
    changed = true;
    for (VertexId u : NeighborsOf(m, v)) {
      if (m.interval_of[u] == p && label[u] > least && !queued[u]) {
        queued[u] = 1;
        queue.push_back(u);
      }
    }
  }
  return changed;
}

// Iterations until nothing changes, counted as needle counts them; UINT32_MAX past the limit.
uint32_t Iterations(const Model& m, bool alternate, uint32_t limit) {
  const uint32_t n = static_cast<uint32_t>(m.first.size() - 1);
  std::vector<VertexId> label(m.interval_of.size());
  std::iota(label.begin(), label.end(), 0);
  std::vector<VertexId> queue;
  std::vector<uint8_t> queued(label.size(), 0);
  for (uint32_t i = 0; i < limit; ++i) {
    const bool forward = !alternate || i % 2 == 0;
    bool changed = false;
    for (uint32_t k = 0; k < n; ++k) {
      changed |= Settle(m, forward ? k : n - 1 - k, label, queue, queued);
    }
    if (!changed) return i + 1;
  }
  return UINT32_MAX;
}

int Run(const Options& o) {
  const Model m = Load(o);
  const uint32_t n = static_cast<uint32_t>(m.first.size() - 1);
  uint64_t crossing = 0;
  for (VertexId v = 0; v < m.csr.num_vertices; ++v) {
    for (VertexId u : m.csr.Neighbors(v)) crossing += m.interval_of[u] != m.interval_of[v];
  }
  std::printf("%u intervals, %llu vertices, %llu edges (symmetrized), %.1f %% crossing "
              "intervals\n",
              n, static_cast<unsigned long long>(m.csr.num_vertices),
              static_cast<unsigned long long>(m.csr.NumEdges()),
              100.0 * static_cast<double>(crossing) / static_cast<double>(m.csr.NumEdges()));
  for (const bool alternate : {false, true}) {
    const uint32_t it = Iterations(m, alternate, o.max_iterations);
    if (it == UINT32_MAX) {
      std::printf("%-28s more than %u iterations\n", alternate ? "forward, then backward:" :
                  "intervals in order:", o.max_iterations);
      return 1;
    }
    std::printf("%-28s %u iterations\n",
                alternate ? "forward, then backward:" : "intervals in order:", it);
  }
  return 0;
}

}  // namespace
}  // namespace needle::bench

int main(int argc, char** argv) {
  return needle::bench::BenchMain<needle::bench::Options>("sweep_model", argc, argv,
                                                          needle::bench::Parse, needle::bench::Run);
}
