#include "shards/manifest.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "loaders/error.h"
#include "loaders/temp_file.h"
#include "loaders/unique_fd.h"
#include "shards/shard_layout.h"

namespace needle {
namespace {

constexpr size_t kHeadBytes = 64 << 10;

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

uint64_t ParseNumber(const std::string& path, uint64_t line, const std::string& token,
                     bool hex = false) {
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(token.c_str(), &end, hex ? 16 : 10);
  if (token.empty() || *end != '\0' || errno != 0 || token[0] == '-') {
    throw Error::AtLine(path, line, "expected a number, found '" + token + "'");
  }
  return v;
}

}  // namespace

InputFingerprint InputFingerprint::Of(const std::string& path) {
  InputFingerprint f;
  f.path = std::filesystem::absolute(path).lexically_normal().string();
  UniqueFd fd = OpenForReading(path);
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) ThrowSystemError(path, "cannot stat");
  f.size = static_cast<uint64_t>(st.st_size);
  f.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  std::vector<char> head(std::min<uint64_t>(kHeadBytes, f.size));
  ReadFully(fd.get(), path, head.data(), head.size(), 0);
  f.head_hash = XXH3_64bits(head.data(), head.size());
  return f;
}

std::string InputFingerprint::DifferenceFrom(const InputFingerprint& other) const {
  if (path != other.path) return "it was built from " + other.path;
  if (size != other.size) {
    return "the input's size changed (" + HumanCount(other.size) + " -> " + HumanCount(size) + ")";
  }
  if (mtime_ns != other.mtime_ns) return "the input was modified since the shards were built";
  if (head_hash != other.head_hash) return "the input's content changed";
  return "";
}

std::string ShardingChoices::DifferenceFrom(const ShardingChoices& other) const {
  if (memory_bytes != other.memory_bytes) {
    return "it was built for --memory " + std::to_string(other.memory_bytes) + " bytes, not " +
           std::to_string(memory_bytes);
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
  return "";
}

std::string Manifest::Serialize() const {
  std::ostringstream out;
  out << "needle-shards " << version << "\n";
  out << "input-size " << input.size << "\n";
  out << "input-mtime-ns " << input.mtime_ns << "\n";
  out << "input-head-hash " << Hex(input.head_hash) << "\n";
  out << "input-path " << input.path << "\n";
  out << "memory " << choices.memory_bytes << "\n";
  out << "format " << choices.format << "\n";
  out << "weights " << choices.weights << "\n";
  // Written only when not the default, so that a default manifest reads as it always did.
  if (choices.symmetrize) out << "symmetrize 1\n";
  if (!choices.costs.is_default()) {
    out << "interval-costs " << choices.costs.in_edge << " " << choices.costs.out_edge << " "
        << choices.costs.vertex << "\n";
  }
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
  uint64_t declared_intervals = UINT64_MAX;
  size_t pos = 0;
  while (pos < hash_at) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    std::vector<std::string> t = Split(line);
    if (t.empty()) continue;
    const std::string& key = t[0];
    auto need = [&](size_t count) {
      if (t.size() != count + 1) {
        throw Error::AtLine(path, line_no,
                            "expected " + std::to_string(count) + " values after '" + key + "'");
      }
    };
    auto num = [&](size_t i) { return ParseNumber(path, line_no, t[i]); };
    if (line_no == 1) {
      if (key != "needle-shards" || t.size() != 2)
        throw Error::AtLine(path, 1, "not a needle shard manifest");
      m.version = static_cast<uint32_t>(num(1));
      if (m.version != kManifestVersion) {
        throw Error::AtLine(path, 1,
                            "shard format version " + std::to_string(m.version) +
                                (m.version > kManifestVersion ? " is newer than" : " is not") +
                                " the version this needle reads (" +
                                std::to_string(kManifestVersion) + ")");
      }
    } else if (key == "input-size") {
      need(1);
      m.input.size = num(1);
    } else if (key == "input-mtime-ns") {
      need(1);
      m.input.mtime_ns = static_cast<int64_t>(num(1));
    } else if (key == "input-head-hash") {
      need(1);
      m.input.head_hash = ParseNumber(path, line_no, t[1], true);
    } else if (key == "input-path") {
      m.input.path = std::string(line.substr(line.find(' ') + 1));
    } else if (key == "memory") {
      need(1);
      m.choices.memory_bytes = num(1);
    } else if (key == "format") {
      need(1);
      m.choices.format = t[1];
    } else if (key == "weights") {
      need(1);
      m.choices.weights = t[1];
    } else if (key == "symmetrize") {  // absent: false
      need(1);
      const uint64_t v = num(1);
      if (v > 1) throw Error::AtLine(path, line_no, "symmetrize must be 0 or 1");
      m.choices.symmetrize = v == 1;
    } else if (key == "interval-costs") {  // absent: the defaults
      need(3);
      m.choices.costs = IntervalCosts{num(1), num(2), num(3)};
    } else if (key == "vertices") {
      need(1);
      m.num_vertices = num(1);
    } else if (key == "edges") {
      need(1);
      m.num_edges = num(1);
    } else if (key == "weighted") {
      need(1);
      m.weighted = num(1) != 0;
    } else if (key == "intervals") {
      need(1);
      declared_intervals = num(1);
    } else if (key == "interval") {
      need(3);
      if (num(1) != m.bounds.size() - (m.bounds.empty() ? 0 : 1) ||
          (!m.bounds.empty() && num(2) != m.bounds.back())) {
        throw Error::AtLine(path, line_no, "intervals out of order or not contiguous");
      }
      if (m.bounds.empty()) m.bounds.push_back(static_cast<uint32_t>(num(2)));
      if (num(3) < num(2)) throw Error::AtLine(path, line_no, "interval ends before it starts");
      m.bounds.push_back(static_cast<uint32_t>(num(3)));
    } else if (key == "file") {
      need(3);
      m.files.push_back(ManifestFile{t[1], num(2), ParseNumber(path, line_no, t[3], true)});
    } else {
      throw Error::AtLine(path, line_no, "unknown manifest key '" + key + "'");
    }
  }
  if (m.bounds.size() < 2 || declared_intervals != m.bounds.size() - 1 || m.bounds.front() != 0 ||
      m.bounds.back() != m.num_vertices) {
    throw Error(path, "manifest intervals do not cover the vertices");
  }
  return m;
}

void WriteManifest(const Manifest& manifest, const std::string& dir) {
  const std::string text = manifest.Serialize();
  TempFile file(dir + "/" + kManifestName);
  WriteFully(file.fd(), file.final_path(), text.data(), text.size(), 0);
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
  return Manifest::Parse(path, text);
}

}  // namespace needle
