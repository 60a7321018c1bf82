#include "shards/manifest.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/types.h"
#include "base/unique_fd.h"
#include "base/version.h"
#include "io/output_file.h"
#include "loaders/content_hash.h"
#include "loaders/webgraph_input.h"
#include "shards/shard_layout.h"

namespace needle {
namespace {

std::string Hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016" PRIx64, v);
  return buf;
}

std::string HumanCount(uint64_t bytes) { return std::to_string(bytes) + " bytes"; }

// Splits a line into whitespace-separated tokens; the input path (which may hold spaces) is
// written last on its line and taken whole.
std::vector<std::string> Split(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream in{std::string(line)};
  std::string token;
  while (in >> token) out.push_back(token);
  return out;
}

int64_t ParseSigned(const std::string& path, uint64_t line, const std::string& token) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(token.c_str(), &end, 10);
  if (token.empty() || *end != '\0' || errno != 0) {
    throw Error::AtLine(path, line,
                        "expected a number, found '" + QuoteToken(token) + "'");
  }
  return v;
}

uint64_t ParseNumber(const std::string& path, uint64_t line, const std::string& token,
                     bool hex = false) {
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(token.c_str(), &end, hex ? 16 : 10);
  if (token.empty() || *end != '\0' || errno != 0 || token[0] == '-') {
    throw Error::AtLine(path, line,
                        "expected a number, found '" + QuoteToken(token) + "'");
  }
  return v;
}

// How to rebuild the set in `dir` whose manifest (of another format version) is `text`: the
// sharder's command for the input and the symmetrize choice it records, if its lines say them
// as every version has written them.
std::string RebuildAdvice(const std::string& dir, std::string_view text) {
  std::string graph = "GRAPH";
  const size_t at = text.find("\ninput-path ");
  if (at != std::string_view::npos) {
    const size_t begin = at + 12, end = text.find('\n', begin);
    if (end != std::string_view::npos && end > begin) graph = text.substr(begin, end - begin);
  }
  const bool symmetrize = text.find("\nsymmetrize 1\n") != std::string_view::npos;
  return "rebuild it with 'needle shard " + graph + (symmetrize ? " --symmetrize" : "") +
         " --out " + dir + "' (or give needle run the graph file)";
}

}  // namespace

InputFingerprint InputFingerprint::Stat(const std::string& path) {
  InputFingerprint f;
  f.path = std::filesystem::absolute(path).lexically_normal().string();
  // A BVGraph is two files (X.graph and X.properties; the path may be X, which is none):
  // their sizes add up, and the later of their times stands for both, so that an edit of
  // either is seen.
  std::vector<std::string> files{path};
  if (const std::optional<WebGraphPaths> webgraph = FindWebGraph(path)) {
    files = {webgraph->graph, webgraph->properties};
  }
  for (const std::string& file : files) {
    struct stat st {};
    if (stat(file.c_str(), &st) != 0) ThrowSystemError(file, "cannot stat");
    f.size += static_cast<uint64_t>(st.st_size);
    f.mtime_ns = std::max(
        f.mtime_ns, static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec);
    f.ctime_ns = std::max(
        f.ctime_ns, static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec);
  }
  return f;
}

bool InputFingerprint::SameStat(const InputFingerprint& other) const {
  return path == other.path && size == other.size && mtime_ns == other.mtime_ns &&
         ctime_ns == other.ctime_ns;
}

std::string InputDifference(const InputFingerprint& built, const InputFingerprint& now,
                            GraphFormat format) {
  if (now.path != built.path) return "it was built from " + built.path;
  if (now.size != built.size) {
    return "the input's size changed (" + HumanCount(built.size) + " -> " + HumanCount(now.size) +
           ")";
  }
  if (now.SameStat(built)) return "";
  if (FileContentHash(now.path, format) != built.content_hash) {
    return "the input's content changed since the shards were built";
  }
  return "";
}

std::string ShardingChoices::DifferenceFrom(const ShardingChoices& other) const {
  if (memory_bytes != other.memory_bytes) {
    // In bytes where a tenth of a MiB does not tell them apart.
    const bool near = FormatMiB(memory_bytes) == FormatMiB(other.memory_bytes);
    auto size = [near](uint64_t bytes) {
      return near ? std::to_string(bytes) + " bytes" : FormatMiB(bytes);
    };
    return "it was planned for --memory " + size(other.memory_bytes) + ", not " +
           size(memory_bytes);
  }
  if (format != other.format) return "it was built with --format " + other.format;
  if (weights != other.weights) return "it was built with --weights " + other.weights;
  if (symmetrize != other.symmetrize) {
    return std::string("symmetrize differs: it was built ") +
           (other.symmetrize ? "with" : "without") + " --symmetrize";
  }
  if (costs != other.costs) {
    return "interval costs differ: it was planned with " + other.costs.ToString() + ", not " +
           costs.ToString();
  }
  if (intervals != other.intervals) {
    auto asked = [](uint32_t n) {
      return n == 0 ? std::string("the fewest intervals that fit") : std::to_string(n) + " intervals";
    };
    return "it was cut into " + asked(other.intervals) + ", not " + asked(intervals);
  }
  if (order != other.order) return "it was built with --order " + other.order;
  return "";
}

std::string Manifest::Serialize() const {
  std::ostringstream out;
  out << "needle-shards " << version << "\n";
  out << "written-by needle " << Version() << "\n";
  out << "input-size " << input.size << "\n";
  out << "input-mtime-ns " << input.mtime_ns << "\n";
  out << "input-ctime-ns " << input.ctime_ns << "\n";
  out << "input-content-hash " << Hex(input.content_hash) << "\n";
  out << "input-path " << input.path << "\n";
  out << "memory " << choices.memory_bytes << "\n";
  out << "format " << choices.format << "\n";
  out << "weights " << choices.weights << "\n";
  // Written only when not the default.
  if (choices.symmetrize) out << "symmetrize 1\n";
  if (!choices.costs.is_default()) {
    out << "interval-costs " << choices.costs.in_edge << " " << choices.costs.out_edge << " "
        << choices.costs.vertex << "\n";
  }
  if (choices.intervals != 0) out << "intervals-asked " << choices.intervals << "\n";
  if (choices.order != "input") out << "order " << choices.order << "\n";
  out << "vertices " << num_vertices << "\n";
  out << "edges " << num_edges << "\n";
  out << "weighted " << (weighted ? 1 : 0) << "\n";
  out << "intervals " << num_intervals() << "\n";
  for (uint32_t p = 0; p < num_intervals(); ++p) {
    out << "interval " << p << " " << bounds[p] << " " << bounds[p + 1] << "\n";
  }
  for (const ManifestFile& f : files) {
    out << "file " << f.name << " " << f.size << " " << Hex(f.digest) << "\n";
  }
  std::string body = out.str();
  return body + "manifest-hash " + Hex(XXH3_64bits(body.data(), body.size())) + "\n";
}

const ManifestFile* Manifest::File(std::string_view name) const {
  for (const ManifestFile& f : files) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

Manifest Manifest::Parse(const std::string& path, std::string_view text) {
  const size_t hash_at = text.rfind("manifest-hash ");
  if (hash_at == std::string_view::npos || (hash_at > 0 && text[hash_at - 1] != '\n')) {
    throw Error(path, "incomplete manifest: no manifest-hash line");
  }
  const uint64_t lines_before =
      static_cast<uint64_t>(std::count(text.begin(), text.begin() + hash_at, '\n'));
  std::string hash_line(text.substr(hash_at + 14));
  while (!hash_line.empty() && (hash_line.back() == '\n' || hash_line.back() == '\r'))
    hash_line.pop_back();
  if (ParseNumber(path, lines_before + 1, hash_line, true) != XXH3_64bits(text.data(), hash_at)) {
    throw Error::AtLine(path, lines_before + 1,
                        "manifest checksum mismatch (the manifest is corrupt)");
  }
  Manifest m;
  m.bounds.clear();
  uint64_t line_no = 0;
  uint64_t declared_intervals = 0;
  std::set<std::string> seen;                  // keys that appear once
  std::map<std::string, uint64_t> file_lines;  // file name → its line
  size_t pos = 0;
  while (pos < hash_at) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    std::vector<std::string> t = Split(line);
    if (t.empty()) continue;
    const std::string& key = t[0];
    auto fail = [&](const std::string& what) { return Error::AtLine(path, line_no, what); };
    auto need = [&](size_t count) {
      if (t.size() != count + 1) {
        throw fail("expected " + std::to_string(count) + " values after '" + key + "'");
      }
    };
    auto num = [&](size_t i) { return ParseNumber(path, line_no, t[i]); };
    if (key != "interval" && key != "file" && !seen.insert(key).second) {
      throw fail("'" + key + "' appears twice");
    }
    if (line_no == 1) {
      if (key != "needle-shards" || t.size() != 2) throw fail("not a needle shard manifest");
      m.version = static_cast<uint32_t>(std::min<uint64_t>(num(1), UINT32_MAX));
      if (m.version != kShardFormatVersion) {
        const std::string reads = std::to_string(kShardFormatVersion);
        throw ShardFormatError(fail(m.version > kShardFormatVersion
                                        ? "shard set format version " + t[1] +
                                              " is newer than this needle reads (" + reads + ")"
                                        : "shard set format version " + t[1] +
                                              "; this needle reads format version " + reads),
                               m.version);
      }
    } else if (key == "needle-shards") {
      throw fail("'needle-shards' must be the first line");
    } else if (key == "written-by") {  // absent in sets older than 0.1.0's
      const size_t space = line.find(' ');
      if (t.size() < 2 || space == std::string_view::npos) throw fail("expected a name");
      m.written_by = std::string(line.substr(space + 1));
    } else if (key == "input-size") {
      need(1);
      m.input.size = num(1);
    } else if (key == "input-mtime-ns") {
      need(1);
      m.input.mtime_ns = ParseSigned(path, line_no, t[1]);
    } else if (key == "input-ctime-ns") {
      need(1);
      m.input.ctime_ns = ParseSigned(path, line_no, t[1]);
    } else if (key == "input-content-hash") {
      need(1);
      m.input.content_hash = ParseNumber(path, line_no, t[1], true);
    } else if (key == "input-path") {
      const size_t space = line.find(' ');
      if (t.size() < 2 || space == std::string_view::npos) throw fail("expected a path");
      m.input.path = std::string(line.substr(space + 1));
    } else if (key == "memory") {
      need(1);
      m.choices.memory_bytes = num(1);
    } else if (key == "format") {
      need(1);
      m.choices.format = t[1];
    } else if (key == "weights") {
      need(1);
      if (t[1] != "auto" && t[1] != "yes" && t[1] != "no")
        throw fail("weights must be auto, yes or no");
      m.choices.weights = t[1];
    } else if (key == "symmetrize") {  // absent: false
      need(1);
      const uint64_t v = num(1);
      if (v > 1) throw fail("symmetrize must be 0 or 1");
      m.choices.symmetrize = v == 1;
    } else if (key == "interval-costs") {  // absent: the defaults
      need(3);
      m.choices.costs = IntervalCosts{num(1), num(2), num(3)};
    } else if (key == "intervals-asked") {  // absent: the fewest that fit
      need(1);
      const uint64_t v = num(1);
      if (v == 0 || v > kMaxIntervals) throw fail("intervals-asked out of range");
      m.choices.intervals = static_cast<uint32_t>(v);
    } else if (key == "order") {  // absent: the input's
      need(1);
      if (t[1] != "bfs") throw fail("order must be bfs (the input's order is not written)");
      m.choices.order = t[1];
    } else if (key == "vertices") {
      need(1);
      m.num_vertices = num(1);
      if (m.num_vertices > kMaxVertexId + 1) {
        throw fail("vertex count " + t[1] + " is beyond the largest supported (" +
                   std::to_string(kMaxVertexId + 1) + ")");
      }
    } else if (key == "edges") {
      need(1);
      m.num_edges = num(1);
    } else if (key == "weighted") {
      need(1);
      const uint64_t v = num(1);
      if (v > 1) throw fail("weighted must be 0 or 1");
      m.weighted = v == 1;
    } else if (key == "intervals") {
      need(1);
      declared_intervals = num(1);
      if (declared_intervals > kMaxIntervals) {
        throw fail(t[1] + " intervals, more than a set may have (" + std::to_string(kMaxIntervals) +
                   ")");
      }
    } else if (key == "interval") {
      need(3);
      if (!seen.count("vertices")) throw fail("interval lines must follow the vertex count");
      const uint64_t index = num(1), begin = num(2), end = num(3);
      if (m.bounds.size() > kMaxIntervals) throw fail("more interval lines than a set may have");
      const uint64_t expected_begin = m.bounds.empty() ? 0 : m.bounds.back();
      if (index != (m.bounds.empty() ? 0 : m.bounds.size() - 1) || begin != expected_begin) {
        throw fail("intervals out of order or not contiguous");
      }
      // Every interval holds a vertex, but the one interval of a graph without vertices.
      if (end > m.num_vertices || (end <= begin && m.num_vertices > 0)) {
        throw fail("interval " + t[1] + " ends " +
                   (end > m.num_vertices ? "beyond the vertex count" : "where it starts"));
      }
      if (m.bounds.empty()) m.bounds.push_back(static_cast<uint32_t>(begin));
      m.bounds.push_back(static_cast<uint32_t>(end));
    } else if (key == "file") {
      need(3);
      const std::string& name = t[1];
      if (name == "." || name == ".." || name.find('/') != std::string::npos) {
        throw fail("file name '" + name + "' is not a plain name in the set's directory");
      }
      if (!file_lines.emplace(name, line_no).second) throw fail(name + " is listed twice");
      const uint64_t size = num(2);
      if (size % kShardAlignment != 0) {
        throw fail("the size of " + name + " is not a multiple of " +
                   std::to_string(kShardAlignment));
      }
      m.files.push_back(ManifestFile{name, size, ParseNumber(path, line_no, t[3], true)});
    } else {
      throw fail("unknown manifest key '" + key + "'");
    }
  }
  for (const char* key :
       {"input-size", "input-mtime-ns", "input-ctime-ns", "input-content-hash", "input-path",
        "memory", "format", "weights", "vertices", "edges", "weighted", "intervals"}) {
    if (!seen.count(key)) throw Error(path, std::string("the manifest has no '") + key + "' line");
  }
  if (m.bounds.size() < 2 || declared_intervals != m.bounds.size() - 1 ||
      m.bounds.back() != m.num_vertices) {
    throw Error(path, "manifest intervals do not cover the vertices");
  }
  // Exactly the set's files, windows.idx and degrees.bin of the sizes the counts imply.
  const uint64_t intervals = m.num_intervals();
  std::map<std::string, uint64_t> expected;  // name → size, or kAnySize
  constexpr uint64_t kAnySize = UINT64_MAX;
  uint64_t window_bytes = 0, degree_bytes = 0;
  if (__builtin_mul_overflow(intervals, intervals + 1, &window_bytes) ||
      __builtin_mul_overflow(window_bytes, uint64_t{sizeof(WindowEntry)}, &window_bytes) ||
      __builtin_mul_overflow(m.num_vertices, uint64_t{8}, &degree_bytes)) {
    throw Error(path, "the counts imply files beyond any size");
  }
  expected[kWindowsName] = ShardAlignUp(window_bytes);
  expected[kDegreesName] = ShardAlignUp(degree_bytes);
  if (m.choices.order != "input") expected[kOrderName] = ShardAlignUp(degree_bytes / 2);
  for (uint32_t p = 0; p < intervals; ++p) {
    expected[ShardFileName(p, ".adj")] = kAnySize;
    if (m.weighted) expected[ShardFileName(p, ".val")] = kAnySize;  // unweighted: every weight 1
    expected[ScatterIndexName(p)] = kAnySize;
  }
  for (const ManifestFile& f : m.files) {
    const auto it = expected.find(f.name);
    if (it == expected.end()) {
      throw Error::AtLine(path, file_lines[f.name], "lists " + f.name + ", not a file of the set");
    }
    if (it->second != kAnySize && it->second != f.size) {
      throw Error::AtLine(path, file_lines[f.name],
                          f.name + " has " + std::to_string(f.size) + " bytes; " +
                              std::to_string(intervals) + " intervals and " +
                              std::to_string(m.num_vertices) + " vertices need " +
                              std::to_string(it->second));
    }
  }
  for (const auto& [name, size] : expected) {
    if (!file_lines.count(name)) throw Error(path, "does not list " + name);
  }
  return m;
}

void WriteManifest(const Manifest& manifest, const std::string& dir) {
  const std::string text = manifest.Serialize();
  OutputFile file(dir + "/" + kManifestName);
  file.Write(text);
  file.Commit();
}

Manifest ReadManifest(const std::string& dir) {
  const std::string path = dir + "/" + kManifestName;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    throw Error(dir, "not a (complete) shard set: it has no manifest");
  }
  UniqueFd fd = OpenForReading(path);
  std::string text(FileSize(fd.get(), path), '\0');
  ReadFully(fd.get(), path, text.data(), text.size(), 0);
  try {
    return Manifest::Parse(path, text);
  } catch (const ShardFormatError& e) {
    throw ShardFormatError(Error::AtLine(path, 1, e.message() + ": " + RebuildAdvice(dir, text)),
                           e.version());
  }
}

bool HoldsNeedleManifest(const std::string& dir) {
  constexpr std::string_view kHead = "needle-shards ";
  char head[kHead.size()] = {};
  const UniqueFd fd(::open((dir + "/" + kManifestName).c_str(), O_RDONLY | O_CLOEXEC));
  return fd.valid() && ::pread(fd.get(), head, sizeof(head), 0) == sizeof(head) &&
         std::string_view(head, sizeof(head)) == kHead;
}

}  // namespace needle
