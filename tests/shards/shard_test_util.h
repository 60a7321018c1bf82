// Helpers for the shard set tests: an oracle graph (the input's edges as a plain multiset), an
// independent reader of the on-disk layout (docs/shards.md, shards/shard_layout.h) written with
// nothing but byte offsets, and CheckShardSet, which holds a shard set directory to the
// contract: every input edge exactly once, in the shard of its target's interval, sorted by
// (source, target, weight bits); runs, windows, degrees, intervals and the manifest right.
//
// Nothing here uses the library's shard code (no ShardFileHeader, no Manifest::Parse, no
// FileDigest): the reader, the interval costs and the manifest check are re-derived from the
// documented layout so that they can serve as an oracle for it.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <xxhash.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "loaders/csr.h"
#include "loaders/edge_list.h"
#include "loaders/load_graph.h"
#include "shards/manifest.h"
#include "tests/test_util.h"

namespace needle::testing {

// ---------------------------------------------------------------------------------------------
// The oracle: an input graph as a multiset of (source, target, weight bits).

struct OracleEdge {
  uint32_t source;
  uint32_t target;
  uint32_t weight_bits;  // the float32 weight's bits (1.0f when unweighted)
  friend bool operator==(const OracleEdge&, const OracleEdge&) = default;
  // (source, target, weight bits): the documented order of a shard's edges.
  friend auto operator<=>(const OracleEdge&, const OracleEdge&) = default;
};

inline void PrintTo(const OracleEdge& e, std::ostream* os) {
  float w;
  std::memcpy(&w, &e.weight_bits, 4);
  *os << "(" << e.source << "->" << e.target << " w=" << w << ")";
}

inline uint32_t FloatBits(float w) {
  uint32_t bits;
  std::memcpy(&bits, &w, 4);
  return bits;
}

struct OracleGraph {
  uint64_t num_vertices = 0;
  bool weighted = false;
  std::vector<OracleEdge> edges;  // any order
};

// Hand-written edges: {source, target, weight} (weight ignored when unweighted).
struct WeightedEdge {
  uint32_t source;
  uint32_t target;
  float weight;
};

inline OracleGraph MakeOracle(uint64_t n, bool weighted, const std::vector<WeightedEdge>& edges) {
  OracleGraph g;
  g.num_vertices = n;
  g.weighted = weighted;
  for (const WeightedEdge& e : edges) {
    g.edges.push_back(OracleEdge{e.source, e.target, FloatBits(weighted ? e.weight : 1.0f)});
  }
  return g;
}

inline OracleGraph OracleFromCsr(const Csr& csr) {
  OracleGraph g;
  g.num_vertices = csr.num_vertices;
  g.weighted = csr.weighted;
  g.edges.reserve(csr.NumEdges());
  for (uint64_t v = 0; v < csr.num_vertices; ++v) {
    for (uint64_t i = csr.offsets[v]; i < csr.offsets[v + 1]; ++i) {
      g.edges.push_back(OracleEdge{static_cast<uint32_t>(v), csr.targets[i],
                                   FloatBits(csr.weighted ? csr.weights[i] : 1.0f)});
    }
  }
  return g;
}

// The edges of an EdgeList; the vertex count as a headerless edge list file of them implies
// (largest id + 1), not the list's own.
inline OracleGraph OracleFromEdgeListFile(const EdgeList& list) {
  OracleGraph g;
  g.weighted = list.weighted;
  g.edges.reserve(list.NumEdges());
  list.ForEach([&](const Edge& e, Weight w) {
    g.edges.push_back(OracleEdge{e.source, e.target, FloatBits(list.weighted ? w : 1.0f)});
    g.num_vertices = std::max<uint64_t>(g.num_vertices, uint64_t{std::max(e.source, e.target)} + 1);
  });
  return g;
}

// The oracle of a dataset file, loaded with LoadGraph once per process (tests share it).
inline const OracleGraph& DatasetOracle(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<OracleGraph>> cache;
  std::lock_guard lock(mutex);
  std::shared_ptr<OracleGraph>& oracle = cache[path];
  if (!oracle) oracle = std::make_shared<OracleGraph>(OracleFromCsr(LoadGraph(path, {})));
  return *oracle;
}

// ---------------------------------------------------------------------------------------------
// Interval costs, re-derived from the rule in shards/intervals.h.

constexpr uint64_t kReserve = uint64_t{24} << 20;  // a process's fixed reserve
constexpr uint64_t kStreamBuffer = uint64_t{1} << 20;  // a streamed hub's pieces
// What stays resident per vertex while the sharder plans and buckets (docs/shards.md): the
// out- and in-degree arrays, 4 B each.
constexpr uint64_t kResidentBytesPerVertex = 8;

// A program's bytes per in-edge, out-edge and vertex: 8, 4 and 39 unless it plans with others.
struct CostFactors {
  uint64_t in_edge = 8;
  uint64_t out_edge = 4;
  uint64_t vertex = 39;
};

// What the planner charges for P intervals (docs/shards.md): a weight per in-edge of a
// weighted set, a packed run (3 B) per out-edge, and ceil(P / 64) B per vertex of run offsets.
inline CostFactors Charged(CostFactors f, bool weighted, uint64_t p) {
  f.in_edge += weighted ? 4 : 0;
  f.out_edge += 3;
  f.vertex += (p + 63) / 64;
  return f;
}

// The engine's fixed bytes for P intervals: the reserve, 33 B per window and 4 KiB per
// interval of tables, and the 4 KiB alignment of its buffers (4 windows and 24 B of offsets
// per interval, 96 KiB of arrays).
inline uint64_t FixedFor(uint64_t p) {
  return kReserve + 32 * p * (p + 1) + p * p + 4096 * p + p * (16 * 1024 + 24) + 96 * 1024;
}

// Cost of one vertex with charged factors c.
inline uint64_t CostOf(uint64_t out, uint64_t in, const CostFactors& c) {
  return 2 * (c.in_edge * in + c.out_edge * out + c.vertex);
}

struct Degrees {
  std::vector<uint32_t> out, in;
};

inline Degrees DegreesOf(const OracleGraph& g) {
  Degrees d;
  d.out.assign(g.num_vertices, 0);
  d.in.assign(g.num_vertices, 0);
  for (const OracleEdge& e : g.edges) {
    ++d.out[e.source];
    ++d.in[e.target];
  }
  return d;
}

struct CostSummary {
  uint64_t total = 0;
  uint64_t max_vertex = 0;
};

// Costs of g's vertices as the planner charges them for P intervals (P ≤ 64 by default).
inline CostSummary CostsOf(const OracleGraph& g, const CostFactors& f = {}, uint64_t p = 1) {
  const CostFactors c = Charged(f, g.weighted, p);
  const Degrees d = DegreesOf(g);
  CostSummary s;
  for (uint64_t v = 0; v < g.num_vertices; ++v) {
    const uint64_t cost = CostOf(d.out[v], d.in[v], c);
    s.total += cost;
    s.max_vertex = std::max(s.max_vertex, cost);
  }
  return s;
}

// The intervals that about `usable` bytes of cost each cut g into: ceil(total / usable).
// Tests ask for them (ShardOptions::intervals, --intervals): a tiny graph is cut into many
// only when asked, the engine's fixed bytes per interval being far above its cost.
inline uint32_t IntervalsFor(const OracleGraph& g, uint64_t usable, const CostFactors& f = {}) {
  const uint64_t total = CostsOf(g, f).total;
  return static_cast<uint32_t>(
      std::max<uint64_t>(1, (total + usable - 1) / std::max<uint64_t>(usable, 1)));
}

// A --memory that holds g in IntervalsFor(g, usable) intervals (however they are cut: the
// whole cost and their fixed bytes), and the sharder's own floor.
inline uint64_t MemoryFor(const OracleGraph& g, uint64_t usable, const CostFactors& f = {}) {
  const uint32_t parts = IntervalsFor(g, usable, f);
  return std::max(std::max(CostsOf(g, f, parts).total, usable) + FixedFor(parts),
                  kReserve + kResidentBytesPerVertex * g.num_vertices + 1);
}

// ---------------------------------------------------------------------------------------------
// Files and directories.

inline uint64_t AlignUp(uint64_t x) { return (x + 4095) / 4096 * 4096; }

inline std::string ShardName(uint32_t p, const char* suffix, const char* prefix = "shard") {
  char name[48];
  std::snprintf(name, sizeof(name), "%s-%04u%s", prefix, p, suffix);
  return name;
}

inline std::string Hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016" PRIx64, v);
  return buf;
}

// Names of the entries of `dir`, sorted.
inline std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Entries next to `dir` named DIR.needle-tmp-* or DIR.needle-old-*: what a sharder run leaves
// while it works.
inline std::vector<std::string> Leftovers(const std::string& dir) {
  const std::filesystem::path p(dir);
  const std::string stem = p.filename().string();
  std::vector<std::string> out;
  for (const std::string& name : ListDir(p.parent_path().string())) {
    if (name.rfind(stem + ".needle-tmp-", 0) == 0 || name.rfind(stem + ".needle-old-", 0) == 0) {
      out.push_back(name);
    }
  }
  return out;
}

// Two directories hold the same file names with byte-identical contents (`skip` excepted).
inline ::testing::AssertionResult SameFiles(const std::string& a, const std::string& b,
                                            const std::set<std::string>& skip = {}) {
  std::vector<std::string> na, nb;
  for (const std::string& n : ListDir(a)) {
    if (!skip.count(n)) na.push_back(n);
  }
  for (const std::string& n : ListDir(b)) {
    if (!skip.count(n)) nb.push_back(n);
  }
  if (na != nb) {
    auto r = ::testing::AssertionFailure() << a << " and " << b << " hold different files:";
    for (const auto& n : na) r << " " << n;
    r << " vs";
    for (const auto& n : nb) r << " " << n;
    return r;
  }
  if (na.empty()) return ::testing::AssertionFailure() << a << " is empty";
  for (const std::string& n : na) {
    const std::string x = ReadFile(a + "/" + n), y = ReadFile(b + "/" + n);
    if (x != y) {
      const int64_t at = FirstMismatch(x, y);
      return ::testing::AssertionFailure() << n << " differs at byte " << at << " (sizes "
                                           << x.size() << " vs " << y.size() << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

// Modification time (ns) and inode of every file in `dir`, to tell "untouched" from "rewritten".
struct FileStamp {
  int64_t mtime_ns;
  uint64_t inode;
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};

inline std::map<std::string, FileStamp> StampsOf(const std::string& dir) {
  std::map<std::string, FileStamp> stamps;
  for (const std::string& n : ListDir(dir)) {
    struct stat st {};
    if (stat((dir + "/" + n).c_str(), &st) != 0) continue;
    stamps[n] = FileStamp{int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec,
                          static_cast<uint64_t>(st.st_ino)};
  }
  struct stat st {};
  if (stat(dir.c_str(), &st) == 0) {
    stamps["."] = FileStamp{int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec,
                            static_cast<uint64_t>(st.st_ino)};
  }
  return stamps;
}

// Flips the low bit of byte `at` of `path`.
inline void FlipByte(const std::string& path, uint64_t at) {
  std::string bytes = ReadFile(path);
  ASSERT_LT(at, bytes.size()) << path;
  bytes[at] = static_cast<char>(bytes[at] ^ 1);
  WriteFile(path, bytes);
}

// ---------------------------------------------------------------------------------------------
// The manifest, read as documented in shards/manifest.h: "key value..." lines opening with
// "needle-shards <version>" and closing with "manifest-hash <16 hex digits>", the XXH3-64 of
// every byte before that line.

struct ManifestFileEntry {
  std::string name;
  uint64_t size = 0;
  std::string digest;  // as written: 16 hex digits
};

struct ParsedManifest {
  std::string error;  // empty when well formed
  std::string version;
  std::map<std::string, std::string> values;     // single-valued keys
  std::vector<std::vector<uint64_t>> intervals;  // {p, begin, end}
  std::vector<ManifestFileEntry> files;
};

// The manifest text with its hash line recomputed for `body` (everything before that line).
inline std::string WithManifestHash(const std::string& body) {
  return body + "manifest-hash " + Hex16(XXH3_64bits(body.data(), body.size())) + "\n";
}

// The bytes before the "manifest-hash " line, or "" when there is none.
inline std::string ManifestBody(const std::string& text) {
  const size_t at = text.rfind("\nmanifest-hash ");
  return at == std::string::npos ? "" : text.substr(0, at + 1);
}

inline ParsedManifest ParseManifestText(const std::string& text) {
  ParsedManifest m;
  const std::string body = ManifestBody(text);
  if (body.empty()) {
    m.error = "no manifest-hash line";
    return m;
  }
  const std::string hash_line = text.substr(body.size());
  if (hash_line != "manifest-hash " + Hex16(XXH3_64bits(body.data(), body.size())) + "\n") {
    m.error = "hash line '" + hash_line + "' does not match the XXH3-64 of the bytes before it";
    return m;
  }
  std::istringstream lines(body);
  std::string line;
  bool first = true;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (first) {
      if (key != "needle-shards") m.error = "first line is '" + line + "'";
      words >> m.version;
      first = false;
    } else if (key == "interval") {
      std::vector<uint64_t> v(3);
      words >> v[0] >> v[1] >> v[2];
      m.intervals.push_back(v);
    } else if (key == "file") {
      ManifestFileEntry f;
      words >> f.name >> f.size >> f.digest;
      m.files.push_back(f);
    } else if (!key.empty()) {
      std::string rest;
      std::getline(words >> std::ws, rest);
      m.values[key] = rest;
    }
  }
  return m;
}

// ---------------------------------------------------------------------------------------------
// The shard files, read at the documented byte offsets.
//
// .adj: header at 0 — magic "NEEDLADJ" (8), version u32 (4, the set's), shard u32, num_runs u64,
// num_edges u64, a zero u64, targets_pos u64 = 4096, the interval's first and end vertex (u32
// each), a zero u64; targets (u32) at 4096; the file padded to 4 KiB: 4096 + 4 × edges, rounded
// up. .val (weighted sets only): float32 per edge, padded. The runs (which source owns which
// edges) are only in the scatter indexes: scatter-PPPP.idx holds P + 1 u64 offsets, then for
// each shard q the runs of window (q, p) as LEB128 varints — source as the distance from the
// previous run's source (from the interval's first id for the first), count − 1 — exactly
// filling [offset q, offset q + 1); zeros after the last.

template <class T>
T Load(const std::string& bytes, uint64_t at) {
  T v{};
  if (at + sizeof(T) <= bytes.size()) std::memcpy(&v, bytes.data() + at, sizeof(T));
  return v;
}

template <class T>
std::vector<T> LoadArray(const std::string& bytes, uint64_t at, uint64_t count) {
  std::vector<T> v(count);
  if (count > 0 && at + count * sizeof(T) <= bytes.size()) {
    std::memcpy(v.data(), bytes.data() + at, count * sizeof(T));
  }
  return v;
}

inline bool ZeroFrom(const std::string& bytes, uint64_t at) {
  for (uint64_t i = at; i < bytes.size(); ++i) {
    if (bytes[i] != 0) return false;
  }
  return true;
}

struct Run {
  uint32_t source;
  uint32_t count;
};

// LEB128, as the scatter index stores numbers: 7 bits a byte, low first, high bit = more.
inline uint32_t ReadVarint(const std::string& bytes, uint64_t& at) {
  uint64_t v = 0;
  for (int shift = 0; at < bytes.size() && shift < 35; shift += 7) {
    const auto b = static_cast<uint8_t>(bytes[at++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) return static_cast<uint32_t>(v);
  }
  ADD_FAILURE() << "varint runs past the end of the scatter index or over 32 bits at " << at;
  return 0;
}

// Decodes interval p's scatter index and appends the runs of window (q, p) to (*shard_runs)[q]
// for every shard q: each run non-empty, its source inside interval p and above the previous
// run's of its window, each window's runs exactly filling its bytes; zeros after the last.
inline void ReadScatterIndex(const std::string& path, uint32_t p,
                             const std::vector<uint64_t>& bounds,
                             std::vector<std::vector<Run>>* shard_runs) {
  SCOPED_TRACE(path);
  const uint32_t P = static_cast<uint32_t>(shard_runs->size());
  const std::string bytes = ReadFile(path);
  ASSERT_GE(bytes.size(), 8 * (uint64_t{P} + 1)) << "shorter than its offsets";
  const std::vector<uint64_t> offsets = LoadArray<uint64_t>(bytes, 0, P + 1);
  ASSERT_EQ(offsets[0], 8 * (uint64_t{P} + 1)) << "the packed runs do not follow the offsets";
  for (uint32_t q = 0; q < P; ++q) {
    ASSERT_LE(offsets[q], offsets[q + 1]) << "offsets out of order at " << q;
    ASSERT_LE(offsets[q + 1], bytes.size()) << "offset " << q + 1 << " beyond the file";
    uint64_t at = offsets[q];
    uint64_t previous = bounds[p];
    bool first = true;
    while (at < offsets[q + 1]) {
      const uint32_t delta = ReadVarint(bytes, at);
      const uint64_t source = previous + delta;
      const uint64_t count = uint64_t{ReadVarint(bytes, at)} + 1;
      ASSERT_TRUE(first || delta > 0) << "window (" << q << ", " << p << "): sources repeat";
      ASSERT_LT(source, bounds[p + 1]) << "window (" << q << ", " << p << "): source outside";
      ASSERT_LE(count, UINT32_MAX) << "window (" << q << ", " << p << ")";
      (*shard_runs)[q].push_back(Run{static_cast<uint32_t>(source), static_cast<uint32_t>(count)});
      previous = source;
      first = false;
    }
    ASSERT_EQ(at, offsets[q + 1]) << "window (" << q << ", " << p << ") does not end where the "
                                  << "next starts";
  }
  ASSERT_EQ(bytes.size(), AlignUp(offsets[P])) << "scatter index size";
  EXPECT_TRUE(ZeroFrom(bytes, offsets[P])) << "padding after the packed runs is not zero";
}

struct ShardContents {
  uint64_t num_runs = 0;
  uint64_t num_edges = 0;
  uint32_t first_vertex = 0;  // the interval the header records
  uint32_t end_vertex = 0;
  std::vector<Run> runs;  // from the scatter indexes
  std::vector<uint32_t> targets;
  std::vector<uint32_t> value_bits;  // 1.0f each when the set is unweighted (no .val)
  std::vector<OracleEdge> edges;     // (run source, target, value bits), in file order
};

// Reads and checks the layout of shard p's .adj file and, when `weighted`, its .val file
// (an unweighted set has none); puts the edges together with `runs`, the shard's runs as the
// scatter indexes hold them (contents are checked later).
inline void ReadShard(const std::string& dir, uint32_t p, bool weighted,
                      const std::vector<Run>& runs, ShardContents* s) {
  SCOPED_TRACE("shard " + std::to_string(p));
  const std::string adj = ReadFile(dir + "/" + ShardName(p, ".adj"));
  ASSERT_GE(adj.size(), 4096u);
  ASSERT_EQ(adj.substr(0, 8), "NEEDLADJ");
  EXPECT_EQ(Load<uint32_t>(adj, 8), 4u) << "format version";
  EXPECT_EQ(Load<uint32_t>(adj, 12), p) << "shard index in the header";
  s->num_runs = Load<uint64_t>(adj, 16);
  s->num_edges = Load<uint64_t>(adj, 24);
  EXPECT_EQ(Load<uint64_t>(adj, 32), 0u) << "reserved header field";
  const uint64_t targets_pos = Load<uint64_t>(adj, 40);
  s->first_vertex = Load<uint32_t>(adj, 48);
  s->end_vertex = Load<uint32_t>(adj, 52);
  ASSERT_EQ(targets_pos, 4096u);
  ASSERT_EQ(adj.size(), AlignUp(4096 + 4 * s->num_edges)) << "adjacency file size";
  EXPECT_TRUE(ZeroFrom(adj.substr(0, 4096), 56)) << "header padding is not zero";
  EXPECT_TRUE(ZeroFrom(adj, targets_pos + 4 * s->num_edges)) << "targets padding is not zero";
  s->targets = LoadArray<uint32_t>(adj, targets_pos, s->num_edges);

  const std::string val_path = dir + "/" + ShardName(p, ".val");
  if (weighted) {
    const std::string val = ReadFile(val_path);
    ASSERT_EQ(val.size(), AlignUp(4 * s->num_edges)) << "values file size";
    EXPECT_TRUE(ZeroFrom(val, 4 * s->num_edges)) << "values padding is not zero";
    s->value_bits = LoadArray<uint32_t>(val, 0, s->num_edges);
  } else {
    EXPECT_FALSE(std::filesystem::exists(val_path)) << "an unweighted set has no value files";
    s->value_bits.assign(s->num_edges, FloatBits(1.0f));
  }

  s->runs = runs;
  ASSERT_EQ(s->runs.size(), s->num_runs) << "runs in the scatter indexes vs the header";
  uint64_t edge = 0;
  for (uint64_t r = 0; r < s->runs.size(); ++r) {
    const Run& run = s->runs[r];
    ASSERT_GT(run.count, 0u) << "run " << r << " is empty";
    if (r > 0) {
      ASSERT_LT(s->runs[r - 1].source, run.source) << "run sources not increasing at run " << r;
    }
    ASSERT_LE(edge + run.count, s->num_edges) << "runs hold more edges than the header says";
    for (uint32_t i = 0; i < run.count; ++i, ++edge) {
      s->edges.push_back(OracleEdge{run.source, s->targets[edge], s->value_bits[edge]});
    }
  }
  ASSERT_EQ(edge, s->num_edges) << "runs hold fewer edges than the header says";
}

struct ShardSetSummary {
  uint32_t num_intervals = 0;
  std::vector<uint64_t> bounds;
  uint64_t max_interval_cost = 0;
};

// Checks the shard set in `dir` against the input graph `g`. With check_plan, also that the
// interval plan (costs with the program's factors `factors`) keeps to the --memory in the
// manifest: every interval within memory - FixedFor(P), the engine's bound within memory, and
// at least ceil(total / usable) intervals.
inline void CheckShardSet(const std::string& dir, const OracleGraph& g, bool check_plan,
                          ShardSetSummary* summary = nullptr, const CostFactors& factors = {}) {
  SCOPED_TRACE("shard set " + dir);
  const uint64_t n = g.num_vertices;
  const uint64_t m = g.edges.size();

  // The manifest: counts, intervals, files.
  const ParsedManifest man = ParseManifestText(ReadFile(dir + "/manifest"));
  ASSERT_EQ(man.error, "");
  EXPECT_EQ(man.version, "4");
  EXPECT_EQ(man.values.count("input-path"), 1u);
  ASSERT_EQ(man.values.count("vertices"), 1u);
  EXPECT_EQ(man.values.at("vertices"), std::to_string(n));
  EXPECT_EQ(man.values.at("edges"), std::to_string(m));
  EXPECT_EQ(man.values.at("weighted"), g.weighted ? "1" : "0");
  ASSERT_GE(man.intervals.size(), 1u);
  const uint32_t P = static_cast<uint32_t>(man.intervals.size());
  EXPECT_EQ(man.values.at("intervals"), std::to_string(P));
  std::vector<uint64_t> bounds{0};
  for (uint32_t p = 0; p < P; ++p) {
    const auto& iv = man.intervals[p];
    ASSERT_EQ(iv[0], p) << "interval lines out of order";
    ASSERT_EQ(iv[1], bounds.back()) << "interval " << p << " does not start where the last ended";
    if (n > 0) {
      ASSERT_LT(iv[1], iv[2]) << "interval " << p << " is empty";
    }
    bounds.push_back(iv[2]);
  }
  ASSERT_EQ(bounds.back(), n) << "intervals do not cover [0, n)";

  std::set<std::string> expected_files{"windows.idx", "degrees.bin"};
  for (uint32_t p = 0; p < P; ++p) {
    expected_files.insert(ShardName(p, ".adj"));
    if (g.weighted) expected_files.insert(ShardName(p, ".val"));  // unweighted: every weight 1
    expected_files.insert(ShardName(p, ".idx", "scatter"));
  }
  if (man.values.count("order")) expected_files.insert("order.bin");  // --order bfs
  std::set<std::string> listed;
  for (const ManifestFileEntry& f : man.files) {
    EXPECT_TRUE(listed.insert(f.name).second) << f.name << " listed twice";
    const std::string bytes = ReadFile(dir + "/" + f.name);
    EXPECT_EQ(bytes.size(), f.size) << f.name << ": size on disk vs manifest";
    EXPECT_EQ(f.size % 4096, 0u) << f.name << " is not padded to 4 KiB";
    if (f.name.ends_with(".adj")) {  // a 4 KiB header and 4 bytes per edge: nothing else
      EXPECT_EQ(f.size, AlignUp(4096 + 4 * Load<uint64_t>(bytes, 24))) << f.name;
    }
    EXPECT_EQ(f.digest, Hex16(XXH3_64bits(bytes.data(), bytes.size())))
        << f.name << ": digest in the manifest vs XXH3-64 of the file";
  }
  EXPECT_EQ(listed, expected_files) << "the manifest's file list";
  std::set<std::string> on_disk(expected_files);
  on_disk.insert("manifest");
  const std::vector<std::string> present = ListDir(dir);
  EXPECT_EQ(std::set<std::string>(present.begin(), present.end()), on_disk)
      << "files in the directory (temporary files left behind?)";

  // The oracle's edges, sorted, dealt to the interval of their target.
  std::vector<OracleEdge> sorted = g.edges;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::vector<OracleEdge>> expected(P);
  for (const OracleEdge& e : sorted) {
    const uint32_t p = static_cast<uint32_t>(
        std::upper_bound(bounds.begin(), bounds.end(), e.target) - bounds.begin() - 1);
    expected[p].push_back(e);
  }

  const std::string windows = ReadFile(dir + "/windows.idx");
  const uint64_t entries = uint64_t{P} * (P + 1);
  ASSERT_EQ(windows.size(), AlignUp(16 * entries)) << "windows.idx size";
  EXPECT_TRUE(ZeroFrom(windows, 16 * entries)) << "windows.idx padding is not zero";
  // The runs of every shard, from the scatter indexes (the only place that holds them).
  std::vector<std::vector<Run>> shard_runs(P);
  for (uint32_t p = 0; p < P; ++p) {
    ReadScatterIndex(dir + "/" + ShardName(p, ".idx", "scatter"), p, bounds, &shard_runs);
    if (::testing::Test::HasFatalFailure()) return;
  }
  uint64_t total_edges = 0;
  for (uint32_t p = 0; p < P; ++p) {
    ShardContents s;
    ReadShard(dir, p, g.weighted, shard_runs[p], &s);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_EQ(s.first_vertex, bounds[p]) << "shard " << p << "'s header: interval start";
    EXPECT_EQ(s.end_vertex, bounds[p + 1]) << "shard " << p << "'s header: interval end";
    total_edges += s.num_edges;
    for (uint64_t i = 0; i < s.edges.size(); ++i) {
      const OracleEdge& e = s.edges[i];
      ASSERT_TRUE(e.target >= bounds[p] && e.target < bounds[p + 1])
          << "shard " << p << " edge " << i << " targets " << e.target << ", outside interval ["
          << bounds[p] << ", " << bounds[p + 1] << ")";
      if (i > 0) {
        ASSERT_TRUE(s.edges[i - 1] <= e)
            << "shard " << p << " not sorted by (source, target, weight bits) at edge " << i;
      }
    }
    EXPECT_TRUE(SequencesEqual("shard edges", s.edges, expected[p])) << "shard " << p;
    // Windows: for interval q, the first run (and edge) whose source is >= bounds[q]; the
    // closing entry q = P holds the shard's totals.
    for (uint32_t q = 0; q <= P; ++q) {
      uint64_t run = 0, edge = 0;
      while (q < P && run < s.runs.size() && s.runs[run].source < bounds[q]) {
        edge += s.runs[run++].count;
      }
      if (q == P) {
        run = s.num_runs;
        edge = s.num_edges;
      }
      const uint64_t at = 16 * (uint64_t{p} * (P + 1) + q);
      EXPECT_EQ(Load<uint64_t>(windows, at), run)
          << "first run of window (" << p << ", " << q << ")";
      EXPECT_EQ(Load<uint64_t>(windows, at + 8), edge)
          << "first edge of window (" << p << ", " << q << ")";
    }
  }
  EXPECT_EQ(total_edges, m) << "edges across all shards";

  const Degrees d = DegreesOf(g);
  const std::string degrees = ReadFile(dir + "/degrees.bin");
  ASSERT_EQ(degrees.size(), AlignUp(8 * n)) << "degrees.bin size";
  EXPECT_TRUE(SequencesEqual("out-degrees", LoadArray<uint32_t>(degrees, 0, n), d.out));
  EXPECT_TRUE(SequencesEqual("in-degrees", LoadArray<uint32_t>(degrees, 4 * n, n), d.in));
  EXPECT_TRUE(ZeroFrom(degrees, 8 * n)) << "degrees.bin padding is not zero";

  // Interval costs: the plan keeps its promise to --memory (the manifest's), each interval
  // fits what is left of it, and no fewer intervals could.
  const CostFactors charged = Charged(factors, g.weighted, P);
  const uint64_t memory = std::stoull(man.values.at("memory"));
  const uint64_t usable = memory > FixedFor(P) ? memory - FixedFor(P) : 0;
  // The engine's bound with the one-vertex intervals held in the buffers or, when that is over
  // --memory, streamed (a hub: it holds none of its edges, but sharding sorts its in-edges
  // with nothing else held). `stream_singles` says which; the intervals' total cost comes back.
  uint64_t max_cost = 0;
  auto bound = [&](bool stream_singles, bool check, uint64_t* total) {
    uint64_t max_in = 0, max_out = 0, max_vertices = 0;
    bool streams = false;
    *total = 0;
    for (uint32_t p = 0; p < P; ++p) {
      uint64_t cost = 0, in = 0, out = 0;
      for (uint64_t v = bounds[p]; v < bounds[p + 1]; ++v) {
        cost += CostOf(d.out[v], d.in[v], charged);
        in += d.in[v];
        out += d.out[v];
      }
      if (bounds[p + 1] - bounds[p] == 1 && (stream_singles || cost > usable)) {
        const uint64_t hub_sort = CostOf(0, in, charged);
        if (check) {
          EXPECT_LE(hub_sort, usable) << "interval " << p << ": its hub's in-edges cannot be sorted";
        }
        streams = streams || cost > usable || stream_singles;
        max_vertices = std::max<uint64_t>(max_vertices, 1);
        max_cost = std::max(max_cost, hub_sort);
        *total += hub_sort;
        continue;
      }
      if (check) {
        EXPECT_LE(cost, usable) << "interval " << p << " exceeds the budget";
      }
      max_cost = std::max(max_cost, cost);
      max_in = std::max(max_in, in);
      max_out = std::max(max_out, out);
      max_vertices = std::max(max_vertices, bounds[p + 1] - bounds[p]);
      *total += cost;
    }
    return 2 * (charged.in_edge * max_in + charged.out_edge * max_out +
                charged.vertex * max_vertices) +
           FixedFor(P) + (streams ? kStreamBuffer : 0);
  };
  uint64_t total = 0;
  const bool stream_singles = bound(false, false, &total) > memory;
  const uint64_t engine = bound(stream_singles, check_plan, &total);
  if (check_plan) {
    EXPECT_LE(engine, memory) << "the engine's buffers, each for its largest interval";
    EXPECT_GE(P, std::max<uint64_t>(1, (total + usable - 1) / std::max<uint64_t>(usable, 1)))
        << "fewer intervals than ceil(total cost / usable)";
  }
  if (summary != nullptr) {
    summary->num_intervals = P;
    summary->bounds = bounds;
    summary->max_interval_cost = max_cost;
  }
}

}  // namespace needle::testing
