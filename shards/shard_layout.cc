#include "shards/shard_layout.h"

#include <cstdio>

namespace needle {

std::string ShardFileName(uint32_t shard, const char* suffix) {
  char name[32];
  std::snprintf(name, sizeof(name), "shard-%04u%s", shard, suffix);
  return name;
}

}  // namespace needle
