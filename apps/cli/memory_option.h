// --memory, as shard, run and compare take it: the default is three quarters of the memory
// this process can use (base/memory_limit.h: the memory cgroup's limit, MemAvailable, the
// physical memory, whichever is smallest), and a budget the machine cannot give is stopped
// before any work — above a cgroup limit the kernel's OOM killer would end the run with no
// message.
//
// NEEDLE_SYSTEM_ROOT, when set, is a directory read in place of / for /proc and the cgroup
// file systems (the tests give one that mimics a cgroup).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "apps/cli/cli_common.h"
#include "base/memory_limit.h"

namespace needle::cli {

MemoryLimits MachineMemory();

// ¾ of UsableMemory(limits), whole MiB; 1 GiB when nothing is known.
uint64_t DefaultMemoryBudget(const MemoryLimits& limits);

// Adds --memory (bound to `value`, which it sets to the default) with `help` and where the
// default comes from.
void AddMemoryOption(po::options_description& options, MemorySize& value,
                     const MemoryLimits& limits, const std::string& help);

// Throws UsageError when `bytes` is above the cgroup limit; writes a warning to `say` when it
// is above the memory available now (the run may page or be killed).
void CheckMemoryBudget(uint64_t bytes, const MemoryLimits& limits, std::FILE* say);

}  // namespace needle::cli
