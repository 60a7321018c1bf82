#include "loaders/webgraph_input.h"

#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <filesystem>
#include <memory>
#include <vector>

#include "base/error.h"
#include "base/unique_fd.h"

namespace needle {
namespace {

namespace fs = std::filesystem;

bool IsFile(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

WebGraphPaths PathsOf(const std::string& base) {
  WebGraphPaths p;
  p.base = base;
  p.graph = base + ".graph";
  p.properties = base + ".properties";
  if (IsFile(base + ".offsets")) p.offsets = base + ".offsets";
  return p;
}

struct Xxh3StateDeleter {
  void operator()(XXH3_state_t* state) const { XXH3_freeState(state); }
};

void HashFile(XXH3_state_t* state, const std::string& path, std::vector<char>& buffer) {
  UniqueFd fd = OpenForReading(path);
  uint64_t consumed = 0;
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
    if (n == 0) return;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error::AtByte(path, consumed, "read failed", errno);
    }
    XXH3_64bits_update(state, buffer.data(), static_cast<size_t>(n));
    consumed += static_cast<uint64_t>(n);
  }
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
  std::unique_ptr<XXH3_state_t, Xxh3StateDeleter> state(XXH3_createState());
  if (state == nullptr) throw Error(paths.graph, "cannot allocate a hash state");
  XXH3_64bits_reset(state.get());
  std::vector<char> buffer(size_t{1} << 20);
  HashFile(state.get(), paths.graph, buffer);
  HashFile(state.get(), paths.properties, buffer);
  return XXH3_64bits_digest(state.get());
}

}  // namespace needle
