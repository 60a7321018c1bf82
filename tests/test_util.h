// Helpers shared by the loader tests: temporary directories, file and process helpers, a plain
// std::vector view of a CSR for element-wise comparison, hand-built edge lists, and the check
// that an Error names its file, its position and what went wrong.
//
// Everything here is deliberately simple (serial, std::vector, std::map) so that it can serve
// as an independent oracle for the parallel library code it checks.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/types.h"
#include "loaders/csr.h"
#include "loaders/edge_list.h"

namespace needle {

// Lets GoogleTest print edges in failure messages.
inline void PrintTo(const Edge& e, std::ostream* os) {
  *os << "(" << e.source << "->" << e.target << ")";
}

}  // namespace needle

namespace needle::testing {

// A directory of its own for one test, removed (with its contents) on destruction.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = "needle_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
    if (info != nullptr) name += std::string("_") + info->name();
    for (char& c : name) {
      if (c == '/') c = '_';
    }
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Fixture base: every test gets a fresh directory, removed in TearDown.
template <class Base = ::testing::Test>
class WithTempDir : public Base {
 protected:
  void SetUp() override { dir_ = std::make_unique<TempDir>(); }
  void TearDown() override { dir_.reset(); }
  std::string File(const std::string& name) const { return dir_->File(name); }
  const std::filesystem::path& dir() const { return dir_->path(); }

 private:
  std::unique_ptr<TempDir> dir_;
};

// The value of an environment variable the CTest registration sets; fails the test if unset.
inline std::string RequiredEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    ADD_FAILURE() << "environment variable " << name
                  << " is not set (run the tests through ctest, which sets it)";
    return "";
  }
  return value;
}

inline std::string TestDataPath(const std::string& name) {
  return RequiredEnv("NEEDLE_TEST_DATA") + "/" + name;
}

inline std::string DatasetPath(const std::string& relative) {
  return RequiredEnv("NEEDLE_DATASETS") + "/" + relative;
}

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// Runs a shell command; returns its exit status (or -1 if it did not exit normally).
inline int RunCommand(const std::string& command) {
  int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

// What a command printed, and how it ended.
struct CommandResult {
  int status;  // exit status, -1 if the process did not exit normally
  std::string out;
  std::string err;
};

// Runs `command` with stdout and stderr captured through files in `scratch_dir` (removed
// afterwards).
inline CommandResult RunCaptured(const std::string& command, const std::string& scratch_dir) {
  const std::string out = scratch_dir + "/stdout.txt", err = scratch_dir + "/stderr.txt";
  CommandResult r;
  r.status = RunCommand(command + " > " + ShellQuote(out) + " 2> " + ShellQuote(err));
  r.out = ReadFile(out);
  r.err = ReadFile(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

// Compresses `path` with the `gzip` or `xz` tool into path + ".gz"/".xz" (keeping the input)
// and returns the new path.
inline std::string Compress(const std::string& path, const std::string& tool) {
  const std::string out = path + (tool == "gzip" ? ".gz" : ".xz");
  const int rc = RunCommand(tool + " -c " + ShellQuote(path) + " > " + ShellQuote(out));
  EXPECT_EQ(rc, 0) << tool << " failed on " << path;
  return out;
}

// How a test file is stored: as it is, or compressed with the `gzip` or `xz` tool.
enum class Packing { kPlain, kGzip, kXz };

inline std::string PackingName(Packing p) {
  switch (p) {
    case Packing::kPlain:
      return "plain";
    case Packing::kGzip:
      return "gzip";
    case Packing::kXz:
      return "xz";
  }
  return "?";
}

// `path` itself, or a compressed copy of it next to it.
inline std::string Pack(const std::string& path, Packing packing) {
  switch (packing) {
    case Packing::kPlain:
      return path;
    case Packing::kGzip:
      return Compress(path, "gzip");
    case Packing::kXz:
      return Compress(path, "xz");
  }
  return path;
}

// Cuts a file down to its first `bytes` bytes.
inline void Truncate(const std::string& path, uint64_t bytes) {
  std::filesystem::resize_file(path, bytes);
}

inline std::string WithCrlf(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

// A CSR in plain vectors, the form the tests write expectations in.
struct PlainCsr {
  uint64_t num_vertices = 0;
  std::vector<uint64_t> offsets;
  std::vector<VertexId> targets;
  std::vector<Weight> weights;  // empty when unweighted
  bool weighted = false;
};

inline PlainCsr ToPlain(const Csr& csr) {
  PlainCsr p;
  p.num_vertices = csr.num_vertices;
  p.weighted = csr.weighted;
  p.offsets.assign(csr.offsets.begin(), csr.offsets.end());
  p.targets.assign(csr.targets.begin(), csr.targets.end());
  if (csr.weighted) p.weights.assign(csr.weights.begin(), csr.weights.end());
  return p;
}

// Builds the CSR of `edges` (in input order within each out-list) by counting sort.
inline PlainCsr PlainCsrFromEdges(uint64_t n, const std::vector<Edge>& edges,
                                  const std::vector<Weight>& weights, bool weighted) {
  PlainCsr p;
  p.num_vertices = n;
  p.weighted = weighted;
  p.offsets.assign(n + 1, 0);
  for (const Edge& e : edges) ++p.offsets[e.source + 1];
  for (uint64_t v = 0; v < n; ++v) p.offsets[v + 1] += p.offsets[v];
  std::vector<uint64_t> cursor(p.offsets.begin(), p.offsets.end() - 1);
  p.targets.resize(edges.size());
  if (weighted) p.weights.resize(edges.size());
  for (size_t i = 0; i < edges.size(); ++i) {
    uint64_t pos = cursor[edges[i].source]++;
    p.targets[pos] = edges[i].target;
    if (weighted) p.weights[pos] = weights[i];
  }
  return p;
}

// Index of the first difference of two sequences, or -1 when they are equal (sizes included).
template <class A, class B>
int64_t FirstMismatch(const A& a, const B& b) {
  const size_t n = std::min<size_t>(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if (!(a[i] == b[i])) return static_cast<int64_t>(i);
  }
  return a.size() == b.size() ? -1 : static_cast<int64_t>(n);
}

template <class A, class B>
::testing::AssertionResult SequencesEqual(const char* what, const A& actual, const B& expected) {
  const int64_t i = FirstMismatch(actual, expected);
  if (i < 0) return ::testing::AssertionSuccess();
  auto r = ::testing::AssertionFailure();
  r << what << " differ at index " << i << " (sizes " << actual.size() << " vs expected "
    << expected.size() << ")";
  const auto at = static_cast<size_t>(i);
  if (at < actual.size() && at < expected.size()) {
    r << ": got " << ::testing::PrintToString(actual[at]) << ", expected "
      << ::testing::PrintToString(expected[at]);
  }
  return r;
}

inline ::testing::AssertionResult CsrEquals(const PlainCsr& actual, const PlainCsr& expected) {
  if (actual.num_vertices != expected.num_vertices) {
    return ::testing::AssertionFailure()
           << "num_vertices " << actual.num_vertices << " vs expected " << expected.num_vertices;
  }
  if (actual.weighted != expected.weighted) {
    return ::testing::AssertionFailure()
           << "weighted " << actual.weighted << " vs expected " << expected.weighted;
  }
  if (auto r = SequencesEqual("offsets", actual.offsets, expected.offsets); !r) return r;
  if (auto r = SequencesEqual("targets", actual.targets, expected.targets); !r) return r;
  if (auto r = SequencesEqual("weights", actual.weights, expected.weights); !r) return r;
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult CsrEquals(const Csr& actual, const PlainCsr& expected) {
  return CsrEquals(ToPlain(actual), expected);
}

inline ::testing::AssertionResult CsrEquals(const Csr& actual, const Csr& expected) {
  return CsrEquals(ToPlain(actual), ToPlain(expected));
}

// The edges of an EdgeList in input order.
struct PlainEdges {
  std::vector<Edge> edges;
  std::vector<Weight> weights;  // empty when unweighted
};

inline PlainEdges ToPlain(const EdgeList& list) {
  PlainEdges p;
  list.ForEach([&](const Edge& e, Weight w) {
    p.edges.push_back(e);
    if (list.weighted) p.weights.push_back(w);
  });
  return p;
}

// The edges of a CSR in CSR order.
inline PlainEdges EdgesInCsrOrder(const PlainCsr& csr) {
  PlainEdges p;
  for (uint64_t v = 0; v < csr.num_vertices; ++v) {
    for (uint64_t i = csr.offsets[v]; i < csr.offsets[v + 1]; ++i) {
      p.edges.push_back(Edge{static_cast<VertexId>(v), csr.targets[i]});
      if (csr.weighted) p.weights.push_back(csr.weights[i]);
    }
  }
  return p;
}

// An EdgeList holding `edges` split into `segments` pieces spread over two buffers in an order
// that differs from the input order, as the parallel parser produces them.
inline EdgeList MakeEdgeList(uint64_t n, const std::vector<Edge>& edges,
                             const std::vector<Weight>& weights, bool weighted,
                             size_t segments = 1) {
  EdgeList list;
  list.num_vertices = n;
  list.weighted = weighted;
  list.buffers.resize(2);
  segments = std::max<size_t>(segments, 1);
  // Segment k goes to buffer k % 2; odd buffers are filled back to front so that segment order
  // and buffer order differ.
  std::vector<std::pair<size_t, size_t>> ranges;  // [begin, end) of each segment in `edges`
  for (size_t k = 0; k < segments; ++k) {
    ranges.emplace_back(edges.size() * k / segments, edges.size() * (k + 1) / segments);
  }
  std::vector<EdgeSegment> placed(segments);
  auto place = [&](size_t k) {
    auto [begin, end] = ranges[k];
    EdgeBuffer& b = list.buffers[k % 2];
    const uint64_t at = b.edges.size();
    b.edges.Resize(at + (end - begin));
    if (weighted) b.weights.Resize(at + (end - begin));
    for (size_t i = begin; i < end; ++i) {
      b.edges[at + (i - begin)] = edges[i];
      if (weighted) b.weights[at + (i - begin)] = weights[i];
    }
    placed[k] = EdgeSegment{static_cast<uint32_t>(k % 2), at, end - begin};
  };
  for (size_t k = 0; k < segments; k += 2) place(k);
  for (size_t k = segments; k-- > 0;) {
    if (k % 2 == 1) place(k);
  }
  for (const EdgeSegment& s : placed) {
    if (s.count > 0) list.segments.push_back(s);
  }
  return list;
}

// A small deterministic generator (SplitMix64), independent of the library's R-MAT.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t bound) { return Next() % bound; }

 private:
  uint64_t state_;
};

// Checks that `body` throws needle::Error whose what() names `path`, contains `position`
// (e.g. ":12:" or "byte 4096") when not empty, and contains `phrase`.
inline ::testing::AssertionResult ThrowsError(const std::function<void()>& body,
                                              const std::string& path, const std::string& position,
                                              const std::string& phrase) {
  try {
    body();
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.find(path) == std::string::npos) {
      return ::testing::AssertionFailure() << "what() does not name " << path << ": " << what;
    }
    if (!position.empty() && what.find(path + position) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "what() lacks position '" << position << "': " << what;
    }
    if (what.find(phrase) == std::string::npos) {
      return ::testing::AssertionFailure() << "what() lacks '" << phrase << "': " << what;
    }
    return ::testing::AssertionSuccess() << what;
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw a non-needle exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw (expected '" << phrase << "')";
}

// ":LINE:" as Error formats a text position right after the path.
inline std::string AtLine(uint64_t line) { return ":" + std::to_string(line) + ":"; }
inline std::string AtByte(uint64_t byte) { return ": byte " + std::to_string(byte) + ":"; }

}  // namespace needle::testing
