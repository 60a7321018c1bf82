#include "apps/cli/sharding.h"

#include <cstdio>
#include <filesystem>

#include "apps/cli/progress_bar.h"

namespace needle::cli {

void ApplyInputOptions(const GraphInputOptions& input, ShardOptions& shard) {
  shard.read = ToReadOptions(input);
  shard.format_name = input.format;
  shard.weights_name = input.weights;
  shard.threads = static_cast<int>(input.threads.value);
}

std::string ShardsPrefix(const std::string& input, const std::string& shards_dir) {
  namespace fs = std::filesystem;
  if (shards_dir.empty()) return input;
  if (fs::exists(shards_dir) && !fs::is_directory(shards_dir)) {
    throw UsageError("--shards-dir " + shards_dir + " is not a directory");
  }
  fs::create_directories(shards_dir);
  return (fs::path(shards_dir) / fs::path(input).filename()).string();
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
