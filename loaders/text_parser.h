// TextParser: the parallel line parser of GVEL's Algorithm 1.
//
// Parse() cuts its input into blocks of ~256 KiB, moves every block boundary forward to the
// next line start (so each line belongs to exactly one block), and parses the blocks on a
// dynamic OpenMP schedule, each thread appending to its own edge buffer. The number parsers
// are hand-written and the line syntax, weightedness and symmetry are template parameters
// of the inner loop. Every block counts its lines, so the first bad line in input order is
// reported with its exact line number although the blocks were parsed out of order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "loaders/edge_list.h"
#include "loaders/text_layout.h"

namespace needle {

class TextParser {
 public:
  static constexpr size_t kDefaultBlockBytes = size_t{256} << 10;

  // threads == 0: OpenMP's default team size.
  TextParser(std::string path, TextLayout layout, int threads, size_t block_bytes);

  // Parses the lines in [data, data + size), which must be whole lines except possibly the
  // last line of the file, and appends their edges to `out` in input order.
  // Throws Error naming the file and line of the first malformed line.
  void Parse(const char* data, size_t size, EdgeList& out);

  // Checks the header's declared counts against what was parsed and returns the vertex count
  // (declared, or largest id + 1 for edge lists). Throws Error on a mismatch.
  uint64_t Finish() const;

  const TextLayout& layout() const { return layout_; }
  uint64_t lines_parsed() const { return lines_; }
  uint64_t entries_parsed() const { return entries_; }
  int threads() const { return threads_; }

 private:
  std::string path_;
  TextLayout layout_;
  int threads_;
  size_t block_bytes_;
  uint64_t lines_ = 0;    // lines consumed so far, header included
  uint64_t entries_ = 0;  // data lines (before symmetric expansion)
  uint64_t max_id_ = 0;   // largest 0-based id seen
  bool any_edge_ = false;
};

}  // namespace needle
