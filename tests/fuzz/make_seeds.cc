// needle_fuzz_seeds: writes the seed corpus of every fuzz target from tests/data, through the
// library's own writers, so that no binary seed is committed and the seeds follow the formats
// when they change.
//
//   needle_fuzz_seeds TESTS_DATA_DIR OUT_DIR
//
// OUT_DIR/<target>/ receives:
//   text      every tests/data/tiny* file behind configuration bytes that name its own suffix
//             (and a few other block sizes, formats and gzip splits), plus three generated
//             graphs longer than one stream chunk (edge list, Matrix Market, DIMACS)
//   csr       WriteCsrFile of tiny graphs (weighted, unweighted, symmetric, edgeless, empty),
//             behind configuration bytes, with zero runs collapsed and as written
//   manifest  the manifest of every shard set below
//   runs      every window of those sets as DecodeRuns sees it (its scatter index bytes and
//             the window index's counts), plus EncodeRuns of hand-made runs
//   shardset  every shard set below as an archive (shard_archive.h), with the engine on and off
// The shard sets: ShardGraph of tiny.wel, of tiny.el symmetrized, and of a 64-vertex R-MAT
// graph, each with budgets for 1 to 8 intervals.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "loaders/csr_file.h"
#include "loaders/load_graph.h"
#include "loaders/rmat.h"
#include "shards/run_codec.h"
#include "shards/shard_set.h"
#include "shards/sharder.h"
#include "tests/bit_writer.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/fuzz/shard_archive.h"
#include "tests/fuzz/zero_runs.h"

namespace needle::fuzz {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class Corpus {
 public:
  explicit Corpus(std::string root) : root_(std::move(root)) {}
  void Add(const std::string& target, const std::string& name, const std::vector<uint8_t>& bytes) {
    const std::string dir = root_ + "/" + target;
    fs::create_directories(dir);
    WriteFileOrDie(dir + "/" + name, bytes);
    ++counts_[target];
  }
  void Report() const {
    for (const auto& [target, n] : counts_) std::printf("  %-9s %d seeds\n", target.c_str(), n);
  }

 private:
  std::string root_;
  std::map<std::string, int> counts_;
};

std::vector<uint8_t> Prefixed(std::initializer_list<uint8_t> head, const std::vector<uint8_t>& b) {
  std::vector<uint8_t> out(head);
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// ---- text -------------------------------------------------------------------------------

int SuffixIndex(const std::string& name) {  // text_fuzz.cc's kSuffixes
  auto ends = [&](const char* s) { return name.ends_with(s); };
  if (ends(".el")) return 1;
  if (ends(".wel")) return 2;
  if (ends(".mtx")) return 3;
  if (ends(".gr")) return 4;
  return 0;  // .txt
}

std::vector<uint8_t> Text(const std::string& s) { return {s.begin(), s.end()}; }

void TextSeeds(const std::string& data_dir, Corpus& corpus) {
  for (const auto& entry : fs::directory_iterator(data_dir)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("tiny")) continue;
    const std::vector<uint8_t> text = ReadAll(entry.path().string());
    const auto suffix = static_cast<uint8_t>(SuffixIndex(name));
    corpus.Add("text", name + "-0", Prefixed({0x00, suffix}, text));
    corpus.Add("text", name + "-1", Prefixed({0x15, static_cast<uint8_t>(suffix | 0x80)}, text));
    corpus.Add("text", name + "-2", Prefixed({0x3f, static_cast<uint8_t>(suffix | 0xc0)}, text));
  }
  // Longer than one 4 KiB stream chunk.
  std::string el, mtx = "%%MatrixMarket matrix coordinate real general\n% generated\n",
                  gr = "c generated\np sp 97 700\n";
  mtx += "97 97 700\n";
  for (int i = 0; i < 700; ++i) {
    const int u = (i * 37) % 97, v = (i * 61 + 5) % 97;
    el += std::to_string(u) + "\t" + std::to_string(v) + "\t" + std::to_string(i % 13) + ".5\n";
    mtx += std::to_string(u + 1) + " " + std::to_string(v + 1) + " " + std::to_string(i % 7) + "\n";
    gr += "a " + std::to_string(u + 1) + " " + std::to_string(v + 1) + " " +
          std::to_string(i % 9 + 1) + "\n";
  }
  corpus.Add("text", "long.wel", Prefixed({0x07, 0x02}, Text(el)));
  corpus.Add("text", "long.txt-gz", Prefixed({0x20, 0xe0}, Text(el)));
  corpus.Add("text", "long.mtx", Prefixed({0x01, 0x03}, Text(mtx)));
  corpus.Add("text", "long.gr", Prefixed({0x02, 0xa4}, Text(gr)));
  corpus.Add("text", "long.mtx-gz", Prefixed({0x05, 0x83}, Text(mtx)));
}

// ---- csr --------------------------------------------------------------------------------

void CsrSeeds(const std::string& data_dir, const std::string& scratch, Corpus& corpus) {
  struct Source {
    std::string name;
    std::string file;  // in tests/data; empty: `vertices` vertices and no edges
    uint64_t vertices = 0;
  };
  const std::vector<Source> sources = {{"weighted", "tiny.wel"},   {"unweighted", "tiny.el"},
                                       {"symmetric", "tiny_sym.mtx"}, {"edgeless", "", 5},
                                       {"empty", "", 0}};
  for (const Source& s : sources) {
    Csr csr;
    if (!s.file.empty()) {
      csr = LoadGraph(data_dir + "/" + s.file, LoadOptions{});
    } else {
      csr.num_vertices = s.vertices;
      csr.offsets = HugeArray<EdgeIndex>(s.vertices + 1);
      for (uint64_t v = 0; v <= s.vertices; ++v) csr.offsets[v] = 0;
    }
    const std::string path = scratch + "/" + s.name + ".csr";
    WriteCsrFile(csr, path, 1);
    const std::vector<uint8_t> image = ReadAll(path);
    std::vector<uint8_t> collapsed;
    EncodeZeroRuns(image, collapsed);
    corpus.Add("csr", s.name + "-0", Prefixed({0x00}, collapsed));
    corpus.Add("csr", s.name + "-1", Prefixed({0x25}, collapsed));
    corpus.Add("csr", s.name + "-2", Prefixed({0x8f}, collapsed));
    corpus.Add("csr", s.name + "-raw", Prefixed({0x13}, image));
  }
}

// ---- shard sets: manifest, runs, shardset -----------------------------------------------

std::string WriteRmatText(const std::string& scratch) {
  RmatOptions options;
  options.scale = 6;
  options.edge_factor = 4;
  options.seed = 3;
  options.weighted = true;
  const EdgeList edges = GenerateRmat(options, 1);
  std::string text;
  for (const EdgeSegment& s : edges.segments) {
    const auto e = edges.Edges(s);
    const auto w = edges.Weights(s);
    for (size_t i = 0; i < e.size(); ++i) {
      text += std::to_string(e[i].source) + " " + std::to_string(e[i].target) + " " +
              std::to_string(static_cast<int>(w[i])) + "\n";
    }
  }
  const std::string path = scratch + "/rmat6.wel";
  WriteFileOrDie(path, text);
  return path;
}

void AddWindowSeeds(const ShardSet& set, const std::string& name, Corpus& corpus) {
  const uint32_t n = set.num_intervals();
  for (uint32_t p = 0; p < n; ++p) {
    const std::vector<uint8_t> index = ReadAll(set.ScatterIndexPath(p));
    for (uint32_t q = 0; q < n; ++q) {
      const uint64_t from = set.ScatterOffset(q, p), to = set.ScatterOffset(q + 1, p);
      const uint64_t runs = set.Window(q, p + 1).first_run - set.Window(q, p).first_run;
      const uint64_t edges = set.Window(q, p + 1).first_edge - set.Window(q, p).first_edge;
      std::vector<uint8_t> seed(20);
      Store<uint32_t>(seed.data(), static_cast<uint32_t>(runs));
      Store<uint32_t>(seed.data() + 4, set.interval_begin(p));
      Store<uint32_t>(seed.data() + 8, set.interval_end(p));
      Store<uint64_t>(seed.data() + 12, edges);
      seed.insert(seed.end(), index.begin() + static_cast<long>(from),
                  index.begin() + static_cast<long>(to));
      corpus.Add("runs", name + "-w" + std::to_string(q) + "-" + std::to_string(p), seed);
    }
  }
}

void HandmadeRunSeeds(Corpus& corpus) {
  struct Case {
    const char* name;
    uint32_t base, end;
    std::vector<SourceRun> runs;
  };
  const std::vector<Case> cases = {
      {"single", 0, 1, {{0, 1}}},
      {"spread", 100, 100000, {{100, 3}, {101, 1}, {300, 200}, {70000, 1}, {99999, 40000}}},
      {"top", 4294967000u, 4294967295u, {{4294967000u, 2}, {4294967294u, 4294967295u}}},
      {"empty", 7, 9, {}}};
  for (const Case& c : cases) {
    uint64_t edges = 0;
    for (const SourceRun& r : c.runs) edges += r.count;
    std::vector<uint8_t> seed(20 + MaxEncodedRunBytes(c.runs.size()));
    Store<uint32_t>(seed.data(), static_cast<uint32_t>(c.runs.size()));
    Store<uint32_t>(seed.data() + 4, c.base);
    Store<uint32_t>(seed.data() + 8, c.end);
    Store<uint64_t>(seed.data() + 12, edges);
    seed.resize(20 + EncodeRuns(c.runs.data(), c.runs.size(), c.base, seed.data() + 20));
    corpus.Add("runs", std::string("handmade-") + c.name, seed);
  }
}

void ShardSeeds(const std::string& data_dir, const std::string& scratch, Corpus& corpus) {
  struct Input {
    std::string name;
    std::string path;
    bool symmetrize;
  };
  const std::vector<Input> inputs = {{"tiny", data_dir + "/tiny.wel", false},
                                     {"tiny-sym", data_dir + "/tiny.el", true},
                                     {"rmat6", WriteRmatText(scratch), false}};
  for (const Input& in : inputs) {
    // The interval rule (docs/shards.md): cost = 2 (16 in + 12 out + 16 vertices) must fit
    // usable = memory - 64 MiB - 8 B/vertex. Budgets for about 1, 2, 3, 5 and 8 intervals.
    LoadOptions load;
    load.csr.symmetrize = in.symmetrize;
    const Csr g = LoadGraph(in.path, load);
    const uint64_t total = 2 * (28 * g.NumEdges() + 16 * g.num_vertices);
    std::set<uint32_t> seen;
    for (uint64_t parts : {1, 2, 3, 5, 8}) {
      ShardOptions options;
      options.memory_bytes = (uint64_t{64} << 20) + 8 * g.num_vertices + total / parts + 1;
      options.symmetrize = in.symmetrize;
      options.threads = 1;
      options.out_dir = scratch + "/" + in.name + "-" + std::to_string(parts) + ".shards";
      try {
        ShardGraph(in.path, options);
      } catch (const std::invalid_argument&) {
        continue;  // a vertex alone is over this budget
      }
      const ShardSet set = ShardSet::Open(options.out_dir);
      if (!seen.insert(set.num_intervals()).second) continue;
      const std::string name = in.name + "-p" + std::to_string(set.num_intervals());
      corpus.Add("manifest", name, ReadAll(options.out_dir + "/" + kManifestName));
      AddWindowSeeds(set, name, corpus);
      Archive archive;
      for (const auto& entry : fs::directory_iterator(options.out_dir)) {
        if (!entry.is_regular_file()) continue;
        archive.files[entry.path().filename().string()] = ReadAll(entry.path().string());
      }
      std::vector<uint8_t> bytes;
      for (uint8_t flags : std::initializer_list<uint8_t>{0x00, 0x08, 0x30}) {
        archive.flags = flags;
        if (!EncodeArchive(archive, bytes)) throw std::runtime_error("shard set too large");
        corpus.Add("shardset", name + "-f" + std::to_string(flags), bytes);
      }
    }
  }
}

// ---- bvgraph -----------------------------------------------------------------------------

// A BVGraph bit stream written by hand (tests/bit_writer.h): γ outdegrees, ζ_3 residuals, no
// references and no intervals — what bvgraph_fuzz.cc's header byte 0x00 (window 0, maxref 0,
// no intervals, ζ_3) describes; the fuzzer varies both.
void BvGraphSeeds(Corpus& corpus) {
  // Node x's successors (ascending): a cycle with chords, a self-loop, an empty list.
  const int n = 16;
  std::vector<std::vector<uint64_t>> lists(n);
  for (int x = 0; x < n; ++x) {
    if (x == 5) continue;
    lists[x] = {static_cast<uint64_t>((x + 1) % n)};
    if (x % 3 == 0) lists[x].push_back(static_cast<uint64_t>((x + 7) % n));
    if (x == 9) lists[x].push_back(9);
    std::sort(lists[x].begin(), lists[x].end());
  }
  testing::BitWriter bits;
  uint64_t arcs = 0;
  for (int x = 0; x < n; ++x) {
    bits.Gamma(lists[x].size());
    arcs += lists[x].size();
    for (size_t i = 0; i < lists[x].size(); ++i) {
      const int64_t gap = i == 0 ? static_cast<int64_t>(lists[x][0]) - x
                                 : static_cast<int64_t>(lists[x][i] - lists[x][i - 1] - 1);
      const uint64_t code = i == 0 ? (gap >= 0 ? 2 * static_cast<uint64_t>(gap)
                                               : 2 * static_cast<uint64_t>(-gap) - 1)
                                   : static_cast<uint64_t>(gap);
      bits.Zeta(code, 3);
    }
  }
  const auto head = [&](uint8_t config) {
    return std::vector<uint8_t>{config, static_cast<uint8_t>(n - 1),
                                static_cast<uint8_t>(arcs & 0xff),
                                static_cast<uint8_t>(arcs >> 8)};
  };
  std::vector<uint8_t> seed = head(0x00);
  seed.insert(seed.end(), bits.bytes().begin(), bits.bytes().end());
  corpus.Add("bvgraph", "cycle16", seed);
  // The same stream under other parameters: window and intervals make it read differently.
  for (const uint8_t config : {uint8_t{0x1f}, uint8_t{0x2a}, uint8_t{0xc7}}) {
    std::vector<uint8_t> other = head(config);
    other.insert(other.end(), bits.bytes().begin(), bits.bytes().end());
    corpus.Add("bvgraph", "cycle16-" + std::to_string(config), other);
  }
}

}  // namespace
}  // namespace needle::fuzz

int main(int argc, char** argv) {
  using namespace needle::fuzz;
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s TESTS_DATA_DIR OUT_DIR\n", argv[0]);
    return 2;
  }
  try {
    const std::string scratch = ScratchDir();
    Corpus corpus(argv[2]);
    TextSeeds(argv[1], corpus);
    CsrSeeds(argv[1], scratch, corpus);
    HandmadeRunSeeds(corpus);
    ShardSeeds(argv[1], scratch, corpus);
    BvGraphSeeds(corpus);
    std::printf("seed corpus in %s:\n", argv[2]);
    corpus.Report();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "needle_fuzz_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
