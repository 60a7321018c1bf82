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

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
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
  if (EndsWith(path, ".graph")) {
    const std::string base = path.substr(0, path.size() - 6);
    if (IsFile(base + ".properties")) return PathsOf(base);
    return std::nullopt;
  }
  if (EndsWith(path, ".properties")) return PathsOf(path.substr(0, path.size() - 11));
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
  std::string base = path;
  if (EndsWith(path, ".graph")) base = path.substr(0, path.size() - 6);
  throw Error(path, "not a WebGraph BVGraph: it needs " + base + ".graph and " + base +
                        ".properties (and, for parallel decoding, " + base + ".offsets)");
}

uint64_t WebGraphContentHash(const WebGraphPaths& paths) {
  return StreamedContentHash({paths.graph, paths.properties});
}

}  // namespace needle
