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
  // The files of shards without edges are one empty file, linked under each name: creating a
  // file costs far more than linking one (bench/RESULTS.md, "Files of nothing linked"), and a
  // dynamic set has many such shards. (Each name is removed first: no file a link shares is
  // truncated by a later create.)
  std::string empty;  // the first such file
  for (uint32_t p = 0; p < p_count; ++p) {
    const std::string path = dir + "/" + NumberedFileName("edges", p, ".val");
    unlink(path.c_str());
    const bool none = set.Window(p, p_count).first_edge == set.Window(p, 0).first_edge;
    if (none && !empty.empty() && link(empty.c_str(), path.c_str()) == 0) {
      files_.push_back(io.Open(path, FileKind::kValues, /*writable=*/true));
    } else {
      files_.push_back(io.Open(path, FileKind::kValues, /*writable=*/true, /*create=*/true));
      if (none && empty.empty()) empty = path;
    }
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
