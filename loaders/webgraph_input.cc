#include "loaders/webgraph_input.h"

#include <filesystem>

#include "base/error.h"
#include "loaders/content_hash.h"

namespace needle {
namespace {

namespace fs = std::filesystem;

bool IsFile(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// `path` without `suffix`, when it ends with it (and is more than it).
std::optional<std::string> StripSuffix(const std::string& path, std::string_view suffix) {
  if (path.size() <= suffix.size() || !path.ends_with(suffix)) return std::nullopt;
  return path.substr(0, path.size() - suffix.size());
}

WebGraphPaths PathsOf(const std::string& base) {
  WebGraphPaths p;
  p.base = base;
  p.graph = base + ".graph";
  p.properties = base + ".properties";
  if (IsFile(base + ".offsets")) p.offsets = base + ".offsets";
  return p;
}

}  // namespace

std::optional<WebGraphPaths> FindWebGraph(const std::string& path) {
  if (const std::optional<std::string> base = StripSuffix(path, ".graph")) {
    if (IsFile(*base + ".properties")) return PathsOf(*base);
    return std::nullopt;
  }
  if (const std::optional<std::string> base = StripSuffix(path, ".properties")) {
    return PathsOf(*base);
  }
  std::error_code ec;
  if (!fs::exists(path, ec) && IsFile(path + ".graph") && IsFile(path + ".properties")) {
    return PathsOf(path);
  }
  return std::nullopt;
}

bool IsWebGraphInput(const std::string& path, GraphFormat requested) {
  if (requested == GraphFormat::kWebGraph) return true;
  if (requested != GraphFormat::kAuto) return false;
  return FindWebGraph(path).has_value();
}

WebGraphPaths ResolveWebGraph(const std::string& path) {
  if (std::optional<WebGraphPaths> found = FindWebGraph(path)) return *found;
  const std::string base = StripSuffix(path, ".graph").value_or(path);
  throw Error(path, "not a WebGraph BVGraph: it needs " + base + ".graph and " + base +
                        ".properties (and, for parallel decoding, " + base + ".offsets)");
}

uint64_t WebGraphContentHash(const WebGraphPaths& paths,
                             std::optional<std::string_view> graph_bytes) {
  ContentHasher hasher;
  if (graph_bytes) {
    hasher.Add(*graph_bytes);
  } else {
    hasher.AddFile(paths.graph);
  }
  hasher.AddFile(paths.properties);
  return hasher.Digest();
}

void CheckWebGraphWeights(const std::string& path, WeightMode weights) {
  if (weights == WeightMode::kWeighted) {
    throw Error(path, "a WebGraph BVGraph has no weights (--weights yes cannot be met)");
  }
}

}  // namespace needle
