#include "apps/cli/output_paths.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "apps/cli/cli_common.h"
#include "io/output_file.h"
#include "shards/manifest.h"

namespace needle::cli {
namespace {

namespace fs = std::filesystem;

// `path` after symlinks, absolute and without . or .. (its missing tail kept as written).
fs::path Resolved(const std::string& path) {
  std::error_code ec;
  const fs::path followed = fs::absolute(FollowSymlinks(path), ec);
  const fs::path canonical = fs::weakly_canonical(followed, ec);
  return ec ? followed.lexically_normal() : canonical;
}

bool Within(const fs::path& path, const fs::path& dir) {
  const auto [end, _] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return end == dir.end();
}

// The shard set directory `path` lies in (at any depth), or empty.
fs::path ShardSetAbove(const fs::path& path) {
  for (fs::path dir = path.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (HoldsNeedleManifest(dir.string())) return dir;
    if (dir == dir.root_path()) break;
  }
  return {};
}

}  // namespace

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  if (stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0) {
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  }
  return Resolved(a) == Resolved(b);
}

void CheckOutputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                  const std::vector<std::string>& inputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& [option, path] = outputs[i];
    if (path.empty() || WrittenInPlace(path)) continue;
    const fs::path out = Resolved(path);
    for (const std::string& input : inputs) {
      if (input.empty()) continue;
      std::error_code ec;
      // A WebGraph input is named without its files' suffixes.
      const bool webgraph = !fs::exists(input, ec) && fs::exists(input + ".graph", ec);
      for (const char* suffix : {"", ".graph", ".properties", ".offsets"}) {
        if ((webgraph || *suffix == '\0') && SameFile(path, input + suffix)) {
          throw UsageError(option + " " + path + " is the input" +
                           (*suffix == '\0' ? std::string() : "'s " + std::string(suffix + 1)) +
                           ": an output must not replace it");
        }
      }
      if (fs::is_directory(input, ec) && Within(out, Resolved(input))) {
        throw UsageError(option + " " + path + " lies in the input " + input +
                         ": an output must not be written among its files");
      }
    }
    if (const fs::path set = ShardSetAbove(out); !set.empty()) {
      throw UsageError(option + " " + path + " lies in the shard set " + set.string() +
                       ": an output must not be written among its files");
    }
    for (size_t j = 0; j < i; ++j) {
      const auto& [other, other_path] = outputs[j];
      if (!other_path.empty() && !WrittenInPlace(other_path) && SameFile(path, other_path)) {
        throw UsageError(other + " and " + option + " name the same file (" + path + ")");
      }
    }
  }
}

}  // namespace needle::cli
