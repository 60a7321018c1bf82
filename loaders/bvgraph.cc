#include "loaders/bvgraph.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "base/error.h"
#include "base/parallel.h"

namespace needle {
namespace {

using std::to_string;

// A growable scratch array whose memory is reused from list to list: no allocation per
// successor, and none per list once it has reached the largest outdegree seen.
class Scratch {
 public:
  VertexId* Room(size_t n) {
    if (v_.size() < n) v_.resize(std::max(n, v_.size() * 2));
    return v_.data();
  }
  VertexId* data() { return v_.data(); }

 private:
  std::vector<VertexId> v_;
};

struct ListScratch {
  Scratch blocks, copied, intervals, residuals;
};

struct Params {
  explicit Params(const WebGraphProperties& p)
      : nodes(p.nodes),
        window(p.window_size),
        max_ref(p.max_ref_count),
        min_interval(p.min_interval_length),
        zeta_k(static_cast<int>(p.zeta_k)),
        codings(p.codings) {}
  uint64_t nodes;
  uint64_t window;
  uint32_t max_ref;
  uint64_t min_interval;
  int zeta_k;
  BvCodings codings;
};

[[gnu::always_inline]] inline uint64_t ReadCoded(BitReader& in, BvCoding coding, int k) {
  switch (coding) {
    case BvCoding::kGamma:
      return in.ReadGamma();
    case BvCoding::kDelta:
      return in.ReadDelta();
    case BvCoding::kUnary:
      return in.ReadUnary();
    case BvCoding::kZeta:
      return in.ReadZeta(k);
  }
  return 0;
}

[[noreturn]] void Fail(uint64_t bit, const std::string& what) { BitReader::Fail(bit, what); }

// memcpy of ids; an empty list's data() may be null, which memcpy must not see.
void CopyIds(VertexId* to, const VertexId* from, uint64_t n) {
  if (n > 0) std::memcpy(to, from, n * sizeof(VertexId));
}

// Writers pad a stream to whole bytes, and some to 8 or 16 bytes (the LAW's cnr-2000 files
// are): what follows the last code may be up to kMaxPaddingBytes of zero bits, nothing else.
constexpr uint64_t kMaxPaddingBytes = 64;

bool IsPadding(const uint8_t* data, size_t size, uint64_t end_bit) {
  const uint64_t size_bits = uint64_t{size} * 8;
  if (end_bit > size_bits || size_bits - end_bit >= (kMaxPaddingBytes + 1) * 8) return false;
  if (end_bit == size_bits) return true;
  const uint64_t byte = end_bit / 8;
  const unsigned rest = static_cast<unsigned>(end_bit % 8);
  if (rest != 0 && (data[byte] & (0xffu >> rest)) != 0) return false;
  for (uint64_t i = byte + (rest != 0 ? 1 : 0); i < size; ++i) {
    if (data[i] != 0) return false;
  }
  return true;
}

// x + nat2int(code) when that is a node id, else corrupt.
uint64_t RelativeNode(uint64_t x, uint64_t code, uint64_t n, uint64_t bit, const char* what) {
  // |nat2int(code)| ≤ code/2 + 1: a code of 2n + 2 or more points outside every graph of n nodes.
  if (code >= 2 * n + 2) Fail(bit, std::string(what) + " lies outside the graph");
  const int64_t v = static_cast<int64_t>(x) + Nat2Int(code);
  if (v < 0 || static_cast<uint64_t>(v) >= n) {
    Fail(bit, std::string(what) + " " + to_string(v) + " lies outside the graph (" +
                  to_string(n) + " nodes)");
  }
  return static_cast<uint64_t>(v);
}

// Decodes node x's list. The Source gives the destination of a list of d successors
// (Reserve, called once, before List) and the lists of earlier nodes in the window (List).
// Returns the reference (0: none). Throws CorruptBits.
template <class Source>
uint64_t DecodeList(const Params& p, BitReader& in, uint64_t x, Source& src, ListScratch& s) {
  const uint64_t n = p.nodes;
  const uint64_t start = in.position();
  const uint64_t d = ReadCoded(in, p.codings.outdegrees, p.zeta_k);
  if (d > n) Fail(start, "outdegree " + to_string(d) + " is more than the " + to_string(n) + " nodes");
  VertexId* out = src.Reserve(x, d, start);
  if (d == 0) return 0;

  uint64_t r = 0;
  if (p.window > 0) {
    const uint64_t at = in.position();
    r = p.codings.references == BvCoding::kUnary ? in.ReadUnary(p.window + 1)
                                                 : ReadCoded(in, p.codings.references, p.zeta_k);
    if (r > p.window) {
      Fail(at, "reference " + to_string(r) + " is beyond windowsize=" + to_string(p.window));
    }
    if (r > x) Fail(at, "reference " + to_string(r) + " points before node 0");
  }

  // Copied part: alternate blocks of the referenced list.
  uint64_t extra = d;
  VertexId* copied = nullptr;
  uint64_t nc = 0;
  if (r > 0) {
    const std::span<const VertexId> ref = src.List(x - r);
    const uint64_t at = in.position();
    const uint64_t count = ReadCoded(in, p.codings.block_count, p.zeta_k);
    // The first block may be empty, later ones not; together they cover at most the list.
    if (count > ref.size() + 1) {
      Fail(at, "block count " + to_string(count) + " is more than the referenced list (node " +
                   to_string(x - r) + ", " + to_string(ref.size()) + " successors) allows");
    }
    VertexId* blocks = s.blocks.Room(count + 1);
    uint64_t total = 0;
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t b = ReadCoded(in, p.codings.blocks, p.zeta_k) + (i == 0 ? 0 : 1);
      if (b > ref.size() - total) {
        Fail(at, "copy blocks run past the end of the referenced list (node " + to_string(x - r) +
                     ", " + to_string(ref.size()) + " successors)");
      }
      blocks[i] = static_cast<VertexId>(b);
      total += b;
      if (i % 2 == 0) nc += b;
    }
    if (count % 2 == 0) nc += ref.size() - total;
    if (nc > d) {
      Fail(at, "copies " + to_string(nc) + " successors into a list of outdegree " + to_string(d));
    }
    extra = d - nc;
    // With nothing else to merge, the copy is the list.
    copied = extra == 0 ? out : s.copied.Room(nc + 1);
    VertexId* w = copied;
    uint64_t pos = 0;
    for (uint64_t i = 0; i < count; ++i) {
      if (i % 2 == 0) {
        CopyIds(w, ref.data() + pos, blocks[i]);
        w += blocks[i];
      }
      pos += blocks[i];
    }
    if (count % 2 == 0) CopyIds(w, ref.data() + pos, ref.size() - pos);
    if (extra == 0) return r;
  }

  // Intervals: runs of at least minintervallength consecutive successors.
  VertexId* intervals = nullptr;
  uint64_t ni = 0;
  if (p.min_interval > 0) {
    const uint64_t at = in.position();
    const uint64_t count = in.ReadGamma();
    if (count > extra / p.min_interval) {
      Fail(at, "interval count " + to_string(count) + " is more than " + to_string(extra) +
                   " successors allow");
    }
    if (count > 0) {
      // With nothing copied the intervals may be the whole list: write them in place.
      intervals = nc == 0 ? out : s.intervals.Room(extra + 1);
      uint64_t prev = 0;
      for (uint64_t i = 0; i < count; ++i) {
        const uint64_t here = in.position();
        uint64_t left;
        if (i == 0) {
          left = RelativeNode(x, in.ReadGamma(), n, here, "interval start");
        } else {
          const uint64_t gap = in.ReadGamma();
          if (gap >= n) Fail(here, "interval gap " + to_string(gap) + " is past the last node");
          left = prev + gap + 1;
        }
        const uint64_t extra_length = in.ReadGamma();
        if (extra_length >= extra) Fail(here, "interval longer than the successors left");
        const uint64_t length = extra_length + p.min_interval;
        if (length > extra) Fail(here, "interval longer than the successors left");
        if (left + length > n) {
          Fail(here, "interval [" + to_string(left) + ", " + to_string(left + length) +
                         ") runs past the last node " + to_string(n - 1));
        }
        for (uint64_t j = 0; j < length; ++j) intervals[ni + j] = static_cast<VertexId>(left + j);
        ni += length;
        extra -= length;
        prev = left + length;
      }
      if (intervals == out && extra == 0) return r;
      if (intervals == out) {  // more successors follow after all: move to scratch
        VertexId* moved = s.intervals.Room(ni + extra + 1);
        CopyIds(moved, out, ni);
        intervals = moved;
      }
    }
  }

  // Residuals: gaps from x, then from the previous residual.
  VertexId* residuals = nullptr;
  const uint64_t nr = extra;
  if (nr > 0) {
    residuals = nc == 0 && ni == 0 ? out : s.residuals.Room(nr + 1);
    uint64_t at = in.position();
    uint64_t prev = RelativeNode(x, ReadCoded(in, p.codings.residuals, p.zeta_k), n, at, "residual");
    residuals[0] = static_cast<VertexId>(prev);
    // The gaps, with the residual coding's branch taken once per list (ζ_k by default).
    auto gaps = [&](auto read) {
      for (uint64_t i = 1; i < nr; ++i) {
        at = in.position();
        const uint64_t gap = read();
        if (gap >= n || prev + gap + 1 >= n) {  // prev < n < 2^32: no overflow
          Fail(at, "residual " + to_string(prev + 1) + " + " + to_string(gap) +
                       " lies past the last node " + to_string(n - 1));
        }
        prev += gap + 1;
        residuals[i] = static_cast<VertexId>(prev);
      }
    };
    if (p.codings.residuals == BvCoding::kZeta) {
      gaps([&, k = p.zeta_k] { return in.ReadZeta(k); });
    } else {
      gaps([&] { return ReadCoded(in, p.codings.residuals, p.zeta_k); });
    }
    if (residuals == out) return r;
  }

  // Merge the sorted parts; kNoVertex (above every id) ends each one.
  static const VertexId kEnd = kNoVertex;
  const VertexId* a = nc > 0 ? copied : &kEnd;
  const VertexId* b = ni > 0 ? intervals : &kEnd;
  const VertexId* c = nr > 0 ? residuals : &kEnd;
  if (nc > 0) copied[nc] = kEnd;
  if (ni > 0) intervals[ni] = kEnd;
  if (nr > 0) residuals[nr] = kEnd;
  if ((nc > 0) + (ni > 0) + (nr > 0) == 2) {  // the common case: two parts, a cheaper merge
    const VertexId* u = nc > 0 ? a : b;
    const VertexId* v = nr > 0 ? c : b;
    for (uint64_t i = 0; i < d; ++i) {
      const VertexId vu = *u, vv = *v;
      if (vu == vv) {  // both parts end only after d successors: never two kEnd here
        Fail(start, "successor " + to_string(vu) + " of node " + to_string(x) +
                        " is coded twice (copied, interval or residual)");
      }
      const bool take_u = vu < vv;
      out[i] = take_u ? vu : vv;
      u += take_u;
      v += !take_u;
    }
    return r;
  }
  for (uint64_t i = 0; i < d; ++i) {
    const VertexId va = *a, vb = *b, vc = *c;
    const VertexId m = std::min({va, vb, vc});
    if ((va == m) + (vb == m) + (vc == m) != 1) {
      Fail(start, "successor " + to_string(m) + " of node " + to_string(x) +
                      " is coded twice (copied, interval or residual)");
    }
    out[i] = m;
    a += va == m;
    b += vb == m;
    c += vc == m;
  }
  return r;
}

// Chain lengths of the last windowsize + 1 nodes: a node referring to y has y's chain + 1.
class Chains {
 public:
  explicit Chains(const Params& p) : p_(&p), chain_(p.window + 1, 0) {}
  void Set(uint64_t x, uint32_t chain) { chain_[x % chain_.size()] = chain; }
  // Records x's chain given its reference r; corrupt when longer than maxrefcount.
  void Record(uint64_t x, uint64_t r, uint64_t bit) {
    const uint32_t chain = r == 0 ? 0 : chain_[(x - r) % chain_.size()] + 1;
    if (chain > p_->max_ref) {
      Fail(bit, "reference chain of length " + to_string(chain) + " exceeds maxrefcount=" +
                    to_string(p_->max_ref));
    }
    Set(x, chain);
  }

 private:
  const Params* p_;
  std::vector<uint32_t> chain_;
};

// Decodes straight into a CSR. Sequentially the offsets are written as the outdegrees come
// (and bounded by `arcs`); in parallel ranges they are known beforehand and checked. Lists
// before `first` (the window of a range's first nodes) come from `prefix`.
struct CsrSource {
  EdgeIndex* offsets;
  VertexId* targets;
  uint64_t arcs;
  bool degrees_known;
  uint64_t first;
  uint64_t prefix_first;
  const std::vector<std::vector<VertexId>>* prefix;

  VertexId* Reserve(uint64_t x, uint64_t d, uint64_t bit) {
    if (degrees_known) {
      if (offsets[x + 1] - offsets[x] != d) Fail(bit, "outdegree differs between two reads");
    } else {
      if (d > arcs - offsets[x]) {
        Fail(bit, "the lists hold more than arcs=" + to_string(arcs) + " successors");
      }
      offsets[x + 1] = offsets[x] + d;
    }
    return targets + offsets[x];
  }
  std::span<const VertexId> List(uint64_t y) const {
    if (y >= first) return {targets + offsets[y], offsets[y + 1] - offsets[y]};
    return (*prefix)[y - prefix_first];
  }
};

}  // namespace

// The lists of a random-access decode, one per depth of the reference recursion.
struct BvGraph::Levels {
  explicit Levels(uint32_t depth) : lists(depth + 2), scratch(depth + 2) {}
  std::vector<std::vector<VertexId>> lists;
  std::vector<ListScratch> scratch;
};

namespace {

template <class ListOf>
struct RandomSource {
  std::vector<VertexId>* out;
  ListOf list;  // y -> node y's list (a lambda: no allocation per decoded node)
  VertexId* Reserve(uint64_t, uint64_t d, uint64_t) {
    out->resize(d + 1);  // + 1: room for the merge's end marker when out is a part
    return out->data();
  }
  std::span<const VertexId> List(uint64_t y) const { return list(y); }
};
// (Aggregate deduction without a guide needs clang 17; CI's TSan and fuzz jobs use clang 14.)
template <class ListOf>
RandomSource(std::vector<VertexId>*, ListOf) -> RandomSource<ListOf>;

}  // namespace

BvGraph BvGraph::Open(const std::string& path) {
  BvGraph g;
  g.paths_ = ResolveWebGraph(path);
  g.properties_ = ReadWebGraphProperties(g.paths_.properties);
  g.graph_ = MappedFile(g.paths_.graph);
  // Every node takes at least a bit (its outdegree): a node count the stream cannot hold is
  // refused before anything is allocated for it.
  const uint64_t graph_bits = uint64_t{g.graph_.size()} * 8;
  if (g.num_nodes() > graph_bits) {
    throw Error::AtByte(g.paths_.graph, g.graph_.size(),
                        "bit " + to_string(graph_bits) + ": the stream ends before its " +
                            to_string(g.num_nodes()) + " nodes (each takes at least a bit)");
  }
  if (!g.paths_.offsets.empty()) g.ReadOffsets();
  return g;
}

void BvGraph::ReadOffsets() {
  const std::string& path = paths_.offsets;
  MappedFile file(path);
  const uint64_t n = num_nodes();
  const uint64_t graph_bits = uint64_t{graph_.size()} * 8;
  // Every offset takes at least a bit: refuse a node count the file cannot hold before
  // allocating for it (a forged one would otherwise ask for gigabytes).
  if (n + 1 > uint64_t{file.size()} * 8) {
    throw Error::AtByte(path, file.size(),
                        "bit " + to_string(uint64_t{file.size()} * 8) + ": the file ends before " +
                            "the " + to_string(n + 1) + " offsets of " + to_string(n) +
                            " nodes (each takes at least a bit)");
  }
  bit_offsets_.resize(n + 1);
  BitReader in(reinterpret_cast<const uint8_t*>(file.data()), file.size());
  uint64_t v = 0;
  try {
    uint64_t offset = 0;
    for (; v <= n; ++v) {
      const uint64_t at = in.position();
      const uint64_t gap = ReadCoded(in, properties_.codings.offsets, 3);
      // Every node takes at least one bit (its outdegree), so offsets strictly increase.
      if (v == 0 && gap != 0) Fail(at, "node 0 starts at bit " + to_string(gap) + ", not 0");
      if (v > 0 && gap == 0) {
        Fail(at, "node " + to_string(v) + " starts where node " + to_string(v - 1) + " does");
      }
      if (gap > graph_bits - offset) {
        Fail(at, "node " + to_string(v) + "'s offset is past the end of " + paths_.graph + " (" +
                     to_string(graph_bits) + " bits)");
      }
      offset += gap;
      bit_offsets_[v] = offset;
    }
    if (!IsPadding(reinterpret_cast<const uint8_t*>(file.data()), file.size(), in.position())) {
      Fail(in.position(), "holds more than the " + to_string(n + 1) + " offsets of " +
                              to_string(n) + " nodes (and their zero padding)");
    }
  } catch (const CorruptBits& e) {
    bit_offsets_.clear();
    throw Error::AtByte(path, e.bit() / 8,
                        "bit " + to_string(e.bit()) + ": " +
                            (e.truncated()
                                 ? "the file ends after " + to_string(v) + " of the " +
                                       to_string(n + 1) + " offsets of " + to_string(n) + " nodes"
                                 : std::string(e.what())));
  }
}

void BvGraph::Corrupt(const CorruptBits& e, uint64_t node) const {
  throw Error::AtByte(paths_.graph, e.bit() / 8,
                      "bit " + to_string(e.bit()) + ", node " + to_string(node) + ": " + e.what());
}

void BvGraph::CheckStart(uint64_t node, uint64_t bit) const {
  if (bit_offsets_[node] != bit) {
    throw Error::AtByte(paths_.offsets, 0,
                        "disagrees with " + paths_.graph + ": it puts node " + to_string(node) +
                            " at bit " + to_string(bit_offsets_[node]) +
                            ", the graph stream at bit " + to_string(bit));
  }
}

void BvGraph::CheckEnd(uint64_t end_bit) const {
  const uint64_t size_bits = uint64_t{graph_.size()} * 8;
  if (!IsPadding(bytes(), graph_.size(), end_bit)) {
    throw Error::AtByte(paths_.graph, end_bit / 8,
                        "bit " + to_string(end_bit) + ": the last of the " +
                            to_string(num_nodes()) + " nodes ends here, but the file goes on for " +
                            to_string(size_bits - end_bit) + " more bits that are not padding");
  }
  if (has_offsets()) CheckStart(num_nodes(), end_bit);
}

uint64_t BvGraph::Outdegree(uint64_t v) const {
  try {
    BitReader in(bytes(), graph_.size(), bit_offsets_[v]);
    const uint64_t d = ReadCoded(in, properties_.codings.outdegrees, static_cast<int>(properties_.zeta_k));
    if (d > num_nodes()) {
      Fail(bit_offsets_[v], "outdegree " + to_string(d) + " is more than the " +
                                to_string(num_nodes()) + " nodes");
    }
    return d;
  } catch (const CorruptBits& e) {
    Corrupt(e, v);
  }
}

uint32_t BvGraph::DecodeAt(uint64_t v, uint32_t depth, Levels& levels) const {
  const Params p(properties_);
  BitReader in(bytes(), graph_.size(), bit_offsets_[v]);
  uint32_t ref_chain = 0;
  RandomSource src{&levels.lists[depth], [&](uint64_t y) {
                     if (depth + 1 > p.max_ref) {
                       Fail(bit_offsets_[v], "reference chain longer than maxrefcount=" +
                                                 to_string(p.max_ref));
                     }
                     ref_chain = DecodeAt(y, depth + 1, levels);
                     const std::vector<VertexId>& list = levels.lists[depth + 1];
                     return std::span<const VertexId>(list.data(), list.size() - 1);
                   }};
  // The lambda refuses a reference at depth maxrefcount, so the chain below is within it.
  const uint64_t r = DecodeList(p, in, v, src, levels.scratch[depth]);
  if (in.position() != bit_offsets_[v + 1]) CheckStart(v + 1, in.position());
  return r > 0 ? ref_chain + 1 : 0;
}

Csr BvGraph::Decode(const BvDecodeOptions& options) const {
  const uint64_t n = num_nodes();
  const uint64_t m = num_arcs();
  const Params p(properties_);
  const int threads = ThreadCount(options.threads);
  Csr csr;
  csr.num_vertices = n;
  csr.offsets.Resize(n + 1);
  csr.offsets[0] = 0;
  // The targets are reserved, not touched: a list that ends before arcs= says frees them. In
  // parallel the outdegrees are summed and checked against arcs= first.
  auto reserve_targets = [&] {
    try {
      csr.targets.Resize(m);
    } catch (const std::bad_alloc&) {
      throw Error(paths_.properties, "arcs=" + to_string(m) +
                                         " successors do not fit this machine's address space");
    }
  };
  if (n == 0) {
    CheckEnd(0);
    return csr;
  }

  const bool parallel = options.parallel && random_access();
  if (!parallel) {
    reserve_targets();
    CsrSource src{csr.offsets.data(), csr.targets.data(), m, false, 0, 0, nullptr};
    BitReader in(bytes(), graph_.size());
    Chains chains(p);
    ListScratch scratch;
    uint64_t x = 0;
    try {
      for (; x < n; ++x) {
        const uint64_t start = in.position();
        if (has_offsets() && bit_offsets_[x] != start) CheckStart(x, start);
        chains.Record(x, DecodeList(p, in, x, src, scratch), start);
      }
    } catch (const CorruptBits& e) {
      Corrupt(e, x);
    }
    if (csr.offsets[n] != m) {
      throw Error(paths_.graph, "the lists hold " + to_string(csr.offsets[n]) +
                                    " successors, but the properties say arcs=" + to_string(m));
    }
    CheckEnd(in.position());
    return csr;
  }

  // Outdegrees first, each at its node's offset: the CSR offsets before any list.
  constexpr uint64_t kDegreeChunk = uint64_t{1} << 16;
  ParallelFor((n + kDegreeChunk - 1) / kDegreeChunk, threads, [&](uint64_t k) {
    const uint64_t end = std::min(n, (k + 1) * kDegreeChunk);
    for (uint64_t v = k * kDegreeChunk; v < end; ++v) csr.offsets[v + 1] = Outdegree(v);
  });
  for (uint64_t v = 0; v < n; ++v) {
    if (csr.offsets[v + 1] > m - csr.offsets[v]) {
      throw Error(paths_.graph, "the outdegrees sum to more than arcs=" + to_string(m) +
                                    " (by node " + to_string(v) + ")");
    }
    csr.offsets[v + 1] += csr.offsets[v];
  }
  if (csr.offsets[n] != m) {
    throw Error(paths_.graph, "the outdegrees sum to " + to_string(csr.offsets[n]) +
                                  ", but the properties say arcs=" + to_string(m));
  }
  CheckEnd(bit_offsets_[n]);  // each range's end is checked against .offsets below
  reserve_targets();

  // Ranges of about equal bit length, several per thread for balance.
  const uint64_t parts = std::min<uint64_t>(n, uint64_t(threads) * 8);
  std::vector<uint64_t> bounds(parts + 1);
  bounds[0] = 0;
  bounds[parts] = n;
  const uint64_t bits = bit_offsets_[n];  // bit_offsets_[0] is 0 (ReadOffsets)
  for (uint64_t i = 1; i < parts; ++i) {
    const uint64_t target = bits / parts * i + bits % parts * i / parts;
    bounds[i] = std::max<uint64_t>(
        bounds[i - 1], static_cast<uint64_t>(std::lower_bound(bit_offsets_.begin(),
                                                              bit_offsets_.end() - 1, target) -
                                             bit_offsets_.begin()));
  }
  ParallelFor(parts, threads, [&](uint64_t i) {
    const uint64_t first = bounds[i], last = bounds[i + 1];
    if (first == last) return;
    // The window before `first`, each list by random access.
    const uint64_t prefix_first = first - std::min<uint64_t>(first, p.window);
    std::vector<std::vector<VertexId>> prefix(first - prefix_first);
    Chains chains(p);
    Levels levels(p.max_ref);
    for (uint64_t y = prefix_first; y < first; ++y) {
      uint32_t chain = 0;
      try {
        chain = DecodeAt(y, 0, levels);
      } catch (const CorruptBits& e) {
        Corrupt(e, y);
      }
      prefix[y - prefix_first] = levels.lists[0];
      prefix[y - prefix_first].pop_back();  // the end-marker room
      chains.Set(y, chain);
    }
    CsrSource src{csr.offsets.data(), csr.targets.data(), m, true, first, prefix_first, &prefix};
    BitReader in;
    ListScratch scratch;
    uint64_t x = first;
    try {
      in = BitReader(bytes(), graph_.size(), bit_offsets_[first]);
      for (; x < last; ++x) {
        const uint64_t start = in.position();
        if (bit_offsets_[x] != start) CheckStart(x, start);
        chains.Record(x, DecodeList(p, in, x, src, scratch), start);
      }
    } catch (const CorruptBits& e) {
      Corrupt(e, x);
    }
    if (in.position() != bit_offsets_[last]) CheckStart(last, in.position());
  });
  return csr;
}

// The last windowsize + 1 lists, in reused buffers, and their chain lengths.
struct BvCursor::Window {
  explicit Window(const Params& params)
      : p(params), lists(p.window + 1), sizes(p.window + 1, 0), chains(p) {}
  Params p;
  std::vector<Scratch> lists;
  std::vector<uint64_t> sizes;
  Chains chains;
  ListScratch scratch;

  VertexId* Reserve(uint64_t x, uint64_t d, uint64_t) {
    const uint64_t slot = x % lists.size();
    sizes[slot] = d;
    return lists[slot].Room(d + 1);
  }
  std::span<const VertexId> List(uint64_t y) {
    const uint64_t slot = y % lists.size();
    return {lists[slot].data(), sizes[slot]};
  }
};

BvCursor::BvCursor(const BvGraph& graph)
    : graph_(&graph),
      in_(graph.bytes(), graph.graph_.size()),
      window_(std::make_unique<Window>(Params(graph.properties_))) {}

BvCursor::~BvCursor() = default;
BvCursor::BvCursor(BvCursor&&) noexcept = default;
BvCursor& BvCursor::operator=(BvCursor&&) noexcept = default;

void BvCursor::Seek(uint64_t v) {
  const BvGraph& g = *graph_;
  if (!g.random_access() || v > g.num_nodes()) {
    throw Error(g.paths_.graph, "internal error: cannot start decoding at node " + to_string(v));
  }
  Window& w = *window_;
  BvGraph::Levels levels(w.p.max_ref);
  for (uint64_t y = v - std::min<uint64_t>(v, w.p.window); y < v; ++y) {
    try {
      const uint32_t chain = g.DecodeAt(y, 0, levels);
      const std::vector<VertexId>& list = levels.lists[0];
      VertexId* out = w.Reserve(y, list.size() - 1, 0);
      std::copy(list.begin(), list.end() - 1, out);
      w.chains.Set(y, chain);
    } catch (const CorruptBits& e) {
      g.Corrupt(e, y);
    }
  }
  try {
    in_ = BitReader(g.bytes(), g.graph_.size(), g.bit_offsets_[v]);
  } catch (const CorruptBits& e) {
    g.Corrupt(e, v);
  }
  node_ = v;
}

std::span<const VertexId> BvCursor::Next() {
  const BvGraph& g = *graph_;
  if (done()) throw Error(g.paths_.graph, "internal error: decoding past the last node");
  Window& w = *window_;
  const uint64_t x = node_;
  const uint64_t start = in_.position();
  if (g.has_offsets() && g.bit_offsets_[x] != start) g.CheckStart(x, start);
  try {
    w.chains.Record(x, DecodeList(w.p, in_, x, w, w.scratch), start);
  } catch (const CorruptBits& e) {
    g.Corrupt(e, x);
  }
  ++node_;
  if (done()) g.CheckEnd(in_.position());
  return w.List(x);
}

}  // namespace needle
