#include "apps/cli/sharding.h"

#include <cstdio>

#include "apps/cli/progress_bar.h"

namespace needle::cli {

void ApplyInputOptions(const GraphInputOptions& input, ShardOptions& shard) {
  shard.read = ToReadOptions(input);
  shard.format_name = input.format;
  shard.weights_name = input.weights;
  shard.threads = static_cast<int>(input.threads.value);
}

ShardReport ShardWithProgress(const std::string& input, ShardOptions shard, std::FILE* say) {
  ProgressBar bar({"reading, bucketing", "sorting, writing"}, "edges");
  shard.log = [&](const std::string& line) {
    bar.Finish();
    std::fprintf(say, "%s\n", line.c_str());
    std::fflush(say);
  };
  shard.progress = [&](int phase, uint64_t done, uint64_t total) {
    bar.Update(phase, done, total);
  };
  ShardReport report = ShardGraph(input, shard);
  bar.Finish();
  return report;
}

}  // namespace needle::cli
