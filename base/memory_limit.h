// How much memory this process may use: the memory cgroup's limit (v2 memory.max or v1
// memory.limit_in_bytes, the smallest along the cgroup's path, since every ancestor's limit
// applies too), the memory the kernel reports available (MemAvailable), and the physical
// memory. --memory defaults from these and is checked against them before work starts:
// a budget above a cgroup limit ends in the OOM killer, which leaves no message.
//
// Everything is read from /proc/self/{mountinfo,cgroup}, /proc/meminfo and the cgroup file
// systems' mount points, all under `root` ("" for the real ones; tests give a directory that
// mimics them). A file that is missing or unreadable means "no such limit", never an error:
// containers hide parts of /proc and /sys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace needle {

struct MemoryLimits {
  std::optional<uint64_t> cgroup_limit;  // bytes; nullopt when no memory cgroup limits us
  std::string cgroup_file;               // the file that held the smallest limit
  std::optional<uint64_t> available;     // MemAvailable from /proc/meminfo
  uint64_t physical = 0;                 // installed memory (0 if unknown)
};

MemoryLimits ReadMemoryLimits(const std::string& root = "");

// What this process can count on: the smallest of the cgroup limit, MemAvailable and the
// physical memory that are known (0 when none is).
uint64_t UsableMemory(const MemoryLimits& limits);

}  // namespace needle
