#include "apps/cli/sharding.h"

#include <cstdio>

#include "apps/cli/progress_bar.h"

namespace needle::cli {

void ApplyInputOptions(const GraphInputOptions& input, ShardOptions& shard) {
  shard.read = ToReadOptions(input);
  shard.format_name = input.format;
  shard.weights_name = input.weights;
  shard.threads = input.threads;
}

ShardReport ShardWithProgress(const std::string& input, ShardOptions shard) {
  ProgressBar bar({"reading, bucketing", "sorting, writing"}, "edges");
  shard.log = [&](const std::string& line) {
    bar.Finish();
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  };
  shard.progress = [&](int phase, uint64_t done, uint64_t total) {
    bar.Update(phase, done, total);
  };
  ShardReport report = ShardGraph(input, shard);
  bar.Finish();
  return report;
}

}  // namespace needle::cli
