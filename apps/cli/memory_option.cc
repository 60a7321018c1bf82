#include "apps/cli/memory_option.h"

#include <algorithm>
#include <cstdlib>

namespace needle::cli {

MemoryLimits MachineMemory() {
  const char* root = std::getenv("NEEDLE_SYSTEM_ROOT");
  return ReadMemoryLimits(root == nullptr ? "" : root);
}

uint64_t DefaultMemoryBudget(const MemoryLimits& limits) {
  const uint64_t usable = UsableMemory(limits);
  if (usable == 0) return uint64_t{1} << 30;
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  return std::max(kMiB, usable / 4 * 3 / kMiB * kMiB);
}

void AddMemoryOption(po::options_description& options, MemorySize& value,
                     const MemoryLimits& limits, const std::string& help) {
  value = MemorySize{DefaultMemoryBudget(limits)};
  const bool cgroup = limits.cgroup_limit && UsableMemory(limits) == *limits.cgroup_limit;
  const std::string source = cgroup ? "3/4 of the cgroup's memory limit"
                                    : "3/4 of the memory available at start";
  options.add_options()(
      "memory", po::value(&value)->default_value(value, "auto"),
      (help + " (default: " + source + ", here " +
       BinaryBytes(static_cast<double>(value.bytes)) + ")")
          .c_str());
}

void CheckMemoryBudget(uint64_t bytes, const MemoryLimits& limits, std::FILE* say) {
  if (limits.cgroup_limit && bytes > *limits.cgroup_limit) {
    throw UsageError("--memory " + BinaryBytes(static_cast<double>(bytes)) +
                     " is above this process's memory limit, " +
                     BinaryBytes(static_cast<double>(*limits.cgroup_limit)) + " (" +
                     limits.cgroup_file +
                     "): the kernel would kill the run; give at most --memory " +
                     std::to_string(DefaultMemoryBudget(limits) >> 20) + "M");
  }
  if (limits.available && bytes > *limits.available) {
    std::fprintf(say,
                 "warning: --memory %s is more than the %s this machine has available now; "
                 "the run may page heavily or be killed\n",
                 BinaryBytes(static_cast<double>(bytes)).c_str(),
                 BinaryBytes(static_cast<double>(*limits.available)).c_str());
  }
}

}  // namespace needle::cli
