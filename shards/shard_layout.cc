#include "shards/shard_layout.h"

#include <cstdio>

namespace needle {

std::string NumberedFileName(const char* prefix, uint32_t number, const char* suffix) {
  char name[64];
  std::snprintf(name, sizeof(name), "%s-%04u%s", prefix, number, suffix);
  return name;
}

std::string ShardFileName(uint32_t shard, const char* suffix) {
  return NumberedFileName("shard", shard, suffix);
}

std::string ScatterIndexName(uint32_t interval) {
  return NumberedFileName("scatter", interval, ".idx");
}

}  // namespace needle
