#include "base/memory_limit.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

namespace needle {
namespace {

// v1 writes "no limit" as the largest page-aligned signed 64-bit value; anything this large
// is no limit on a real machine.
constexpr uint64_t kUnlimited = uint64_t{1} << 60;

std::optional<uint64_t> ParseBytes(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value >= kUnlimited) {
    return std::nullopt;  // "max", garbage, or v1's "unlimited"
  }
  return value;
}

std::optional<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> Split(const std::string& line, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(line);
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

bool IsDirectory(const std::string& path) {
  struct stat st{};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

struct CgroupMount {
  std::string root;         // the cgroup path the mount shows at its mount point
  std::string mount_point;  // where it is mounted
  bool v2 = false;
};

// The memory controller's mount: cgroup2 (unified), or a v1 hierarchy with "memory" among
// its super options. v1 wins when both exist: on a hybrid system the memory controller is
// bound to v1 and the unified hierarchy has no memory files.
std::optional<CgroupMount> FindMemoryMount(const std::string& root) {
  std::ifstream in(root + "/proc/self/mountinfo");
  std::string line;
  std::optional<CgroupMount> v2;
  while (std::getline(in, line)) {
    const std::vector<std::string> fields = Split(line, ' ');
    const auto dash = std::find(fields.begin(), fields.end(), "-");
    if (fields.size() < 5 || dash == fields.end() || fields.end() - dash < 4) continue;
    const std::string& type = dash[1];
    const std::string& super_options = dash[3];
    CgroupMount mount{fields[3], fields[4], type == "cgroup2"};
    if (type == "cgroup") {
      const std::vector<std::string> options = Split(super_options, ',');
      if (std::find(options.begin(), options.end(), "memory") != options.end()) return mount;
    } else if (type == "cgroup2" && !v2) {
      v2 = mount;
    }
  }
  return v2;
}

// This process's cgroup path in the hierarchy `mount` belongs to (/proc/self/cgroup: "0::P"
// for v2, "N:CONTROLLERS:P" with "memory" among the controllers for v1).
std::optional<std::string> OwnCgroupPath(const std::string& root, const CgroupMount& mount) {
  std::ifstream in(root + "/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const size_t first = line.find(':');
    const size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string id = line.substr(0, first);
    const std::vector<std::string> controllers =
        Split(line.substr(first + 1, second - first - 1), ',');
    const bool memory =
        std::find(controllers.begin(), controllers.end(), "memory") != controllers.end();
    if ((mount.v2 && id == "0" && controllers.empty()) || (!mount.v2 && memory)) {
      return line.substr(second + 1);
    }
  }
  return std::nullopt;
}

void ReadCgroupLimit(const std::string& root, MemoryLimits& limits) {
  const std::optional<CgroupMount> mount = FindMemoryMount(root);
  if (!mount) return;
  const std::string top = root + mount->mount_point;
  std::string dir = top;
  if (const std::optional<std::string> own = OwnCgroupPath(root, *mount)) {
    // The path relative to what the mount shows; a path outside it (another cgroup
    // namespace) leaves the mount point itself, which is then our cgroup.
    std::string relative;
    if (mount->root == "/") {
      relative = *own;
    } else if (own->rfind(mount->root, 0) == 0) {
      relative = own->substr(mount->root.size());
    }
    if (relative == "/") relative.clear();
    if (IsDirectory(top + relative)) dir = top + relative;
  }
  const char* file = mount->v2 ? "/memory.max" : "/memory.limit_in_bytes";
  // Every ancestor's limit applies: take the smallest, from our cgroup up to the mount point.
  while (true) {
    const std::string path = dir + file;
    if (const std::optional<std::string> text = ReadSmallFile(path)) {
      const std::optional<uint64_t> bytes = ParseBytes(*text);
      if (bytes && (!limits.cgroup_limit || *bytes < *limits.cgroup_limit)) {
        limits.cgroup_limit = bytes;
        limits.cgroup_file = path.substr(root.size());
      }
    }
    if (dir.size() <= top.size()) break;
    dir.erase(dir.rfind('/'));
  }
}

void ReadAvailable(const std::string& root, MemoryLimits& limits) {
  std::ifstream in(root + "/proc/meminfo");
  std::string name;
  uint64_t kib = 0;
  std::string unit;
  while (in >> name >> kib) {
    std::getline(in, unit);
    if (name == "MemAvailable:") {
      limits.available = kib * 1024;
      return;
    }
  }
}

}  // namespace

MemoryLimits ReadMemoryLimits(const std::string& root) {
  MemoryLimits limits;
  ReadCgroupLimit(root, limits);
  ReadAvailable(root, limits);
  if (root.empty()) {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page_size > 0) {
      limits.physical = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
    }
  }
  return limits;
}

uint64_t UsableMemory(const MemoryLimits& limits) {
  uint64_t usable = limits.physical;
  auto take = [&](std::optional<uint64_t> bytes) {
    if (bytes && (usable == 0 || *bytes < usable)) usable = *bytes;
  };
  take(limits.cgroup_limit);
  take(limits.available);
  return usable;
}

}  // namespace needle
