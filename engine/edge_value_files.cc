#include "engine/edge_value_files.h"

#include <unistd.h>

#include "base/error.h"
#include "shards/shard_layout.h"

namespace needle {

EdgeValueFiles::EdgeValueFiles(IoBackend& io, const ShardSet& set, const std::string& dir,
                               size_t width)
    : width_(width), num_intervals_(set.num_intervals()) {
  const uint32_t p_count = num_intervals_;
  offsets_.resize(static_cast<size_t>(p_count) * (p_count + 1));
  files_.reserve(p_count);
  for (uint32_t p = 0; p < p_count; ++p) {
    files_.push_back(io.Open(dir + "/" + NumberedFileName("edges", p, ".val"), FileKind::kValues,
                             /*writable=*/true, /*create=*/true));
    const uint32_t unit = files_.back().alignment();  // 1 unless direct
    uint64_t at = 0;
    for (uint32_t q = 0; q <= p_count; ++q) {
      offsets_[static_cast<size_t>(p) * (p_count + 1) + q] = at;
      if (q < p_count) {
        const uint64_t edges = set.Window(p, q + 1).first_edge - set.Window(p, q).first_edge;
        at = AlignUp(at + edges * width, unit);
      }
    }
    if (ftruncate(files_.back().fd(), static_cast<off_t>(AlignUp(at))) != 0) {
      ThrowSystemError(files_.back().path(), "cannot size the edge value file");
    }
  }
}

}  // namespace needle
