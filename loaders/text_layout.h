// TextLayout: what the header of a text graph says about the lines that follow.
//
// Edge lists have no header (comments may appear anywhere); Matrix Market has a banner and
// a size line; DIMACS has a 'p sp N M' or 'p tw N M' line before its data. ParseTextLayout
// reads only the start of the file and tells the line parser where the data begins, how to
// read each line, and which counts the data must match.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "loaders/format.h"

namespace needle {

enum class LineSyntax {
  kPairs,       // "u v [w]" (edge lists, Matrix Market entries, PACE 'p tw' files)
  kDimacsArcs,  // "a u v w"
};

struct TextLayout {
  GraphFormat format = GraphFormat::kEdgeList;
  LineSyntax syntax = LineSyntax::kPairs;
  char comment_a = '#';  // a line whose first non-blank character is one of these is a comment
  char comment_b = '%';
  bool weighted = false;            // parse a weight column
  bool symmetric = false;           // every entry stands for both directions (Matrix Market)
  bool skip_extra_columns = false;  // ignore columns after the ones parsed
  uint32_t id_base = 0;             // 1 for Matrix Market and DIMACS
  bool has_declared_counts = false;
  uint64_t declared_vertices = 0;
  uint64_t declared_entries = 0;
  uint64_t header_line = 0;      // line of the 'p' or size line (for count mismatch errors)
  uint64_t data_offset = 0;      // byte where data lines begin
  uint64_t data_first_line = 1;  // line number of the line at data_offset
  std::string description;       // e.g. "mtx coordinate real symmetric"
};

// `head` is the start of the (decompressed) file; `whole_file` says it is all of it.
// Throws Error naming `path` and the line for a malformed or unsupported header.
TextLayout ParseTextLayout(const std::string& path, std::string_view head, bool whole_file,
                           GraphFormat format, WeightMode weights);

}  // namespace needle
