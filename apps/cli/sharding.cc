#include "apps/cli/sharding.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "apps/cli/progress_bar.h"

namespace needle::cli {

void ApplyInputOptions(const GraphInputOptions& input, ShardOptions& shard) {
  shard.read = ToReadOptions(input);
  shard.format_name = input.format;
  shard.weights_name = input.weights;
  shard.threads = static_cast<int>(input.threads.value);
}

std::string ShardCacheDir() {
  if (const char* dir = std::getenv("NEEDLE_CACHE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') {
    return std::string(xdg) + "/needle";
  }
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') {
    throw UsageError("no cache directory for shard sets (HOME is not set): give --shards-dir");
  }
  return std::string(home) + "/.cache/needle";
}

namespace {

// A short, stable name for a directory: 16 hex digits of its path's FNV-1a hash.
std::string DirectoryKey(const std::string& path) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (const unsigned char c : path) hash = (hash ^ c) * 0x100000001b3ULL;
  char key[17];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(hash));
  return key;
}

std::string CreateShardsDir(const std::string& dir, const char* what) {
  namespace fs = std::filesystem;
  if (fs::exists(dir) && !fs::is_directory(dir)) {
    throw UsageError(std::string(what) + " " + dir + " is not a directory");
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UsageError("cannot create " + std::string(what) + " " + dir + ": " + ec.message());
  return dir;
}

}  // namespace

std::string ShardsPrefix(const std::string& input, const std::string& shards_dir,
                         std::FILE* say) {
  namespace fs = std::filesystem;
  const fs::path name = fs::path(input).filename();
  if (!shards_dir.empty()) {
    return (fs::path(CreateShardsDir(shards_dir, "--shards-dir")) / name).string();
  }
  fs::path parent = fs::path(input).parent_path();
  if (parent.empty()) parent = ".";
  if (::access(parent.c_str(), W_OK) == 0) return input;
  std::error_code ec;
  const fs::path absolute = fs::absolute(parent, ec).lexically_normal();
  const std::string cache =
      CreateShardsDir(ShardCacheDir() + "/" + DirectoryKey(absolute.string()), "cache directory");
  std::fprintf(say, "note: %s is not writable: shard sets go to %s (or give --shards-dir)\n",
               parent.c_str(), cache.c_str());
  return (fs::path(cache) / name).string();
}

namespace {

std::string Absolute(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

std::string RegistryPath() { return ShardCacheDir() + "/sets"; }

}  // namespace

void RememberShardSet(const std::string& input, const std::string& dir) {
  try {
    const std::string graph = Absolute(input), set = Absolute(dir);
    if (graph.find_first_of("\t\n") != std::string::npos ||
        set.find_first_of("\t\n") != std::string::npos) {
      return;  // a name the one-line format cannot hold
    }
    const std::vector<std::string> known = RememberedShardSets(input);
    if (std::find(known.begin(), known.end(), set) != known.end()) return;
    std::filesystem::create_directories(ShardCacheDir());
    const std::string line = graph + "\t" + set + "\n";
    // One append of one short line: concurrent runs interleave whole lines.
    const int fd = ::open(RegistryPath().c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    [[maybe_unused]] const ssize_t written = ::write(fd, line.data(), line.size());
    ::close(fd);
  } catch (const std::exception&) {  // no cache directory: nothing remembered
  }
}

std::vector<std::string> RememberedShardSets(const std::string& input) {
  std::vector<std::string> sets;
  try {
    std::ifstream in(RegistryPath());
    const std::string graph = Absolute(input);
    for (std::string line; std::getline(in, line);) {
      const size_t tab = line.find('\t');
      if (tab == std::string::npos || line.compare(0, tab, graph) != 0 || tab != graph.size()) {
        continue;
      }
      const std::string set = line.substr(tab + 1);
      std::error_code ec;
      if (!std::filesystem::is_directory(set, ec)) continue;
      std::erase(sets, set);
      sets.push_back(set);
    }
  } catch (const std::exception&) {
    return {};
  }
  std::reverse(sets.begin(), sets.end());
  return sets;
}

ShardReport ShardWithProgress(const std::string& input, ShardOptions shard, std::FILE* say,
                              const Verbosity& verbosity) {
  ProgressBar bar({"reading, bucketing", "sorting, writing"}, "edges", !verbosity.quiet);
  auto print = [&bar, say](const std::string& line) {
    bar.Finish();
    std::fprintf(say, "%s\n", line.c_str());
    std::fflush(say);
  };
  shard.log = print;
  if (verbosity.verbose) shard.detail = print;
  shard.progress = [&](int phase, uint64_t done, uint64_t total) {
    bar.Update(phase, done, total);
  };
  ShardReport report = ShardGraph(input, shard);
  bar.Finish();
  const bool elsewhere =
      Absolute(report.dir) != Absolute(DefaultShardDir(input, shard.symmetrize, shard.order));
  if (!report.reused && elsewhere) {
    RememberShardSet(input, report.dir);
  }
  return report;
}

}  // namespace needle::cli
