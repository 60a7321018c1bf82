#include "loaders/text_layout.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "base/error.h"
#include "base/types.h"
#include "loaders/number_parse.h"

namespace needle {
namespace {

// Iterates over the lines of `head` keeping the byte offset and the line number.
class LineCursor {
 public:
  LineCursor(std::string_view head, bool whole_file) : head_(head), whole_file_(whole_file) {}
  // Returns false when no complete line is left.
  bool Next(std::string_view* line) {
    if (pos_ >= head_.size()) return false;
    size_t nl = head_.find('\n', pos_);
    if (nl == std::string_view::npos) {
      if (!whole_file_) return false;
      nl = head_.size();
    }
    *line = head_.substr(pos_, nl - pos_);
    if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
    pos_ = std::min(nl + 1, head_.size());
    ++line_number_;
    return true;
  }
  uint64_t offset() const { return pos_; }
  uint64_t line_number() const { return line_number_; }  // of the line last returned

 private:
  std::string_view head_;
  bool whole_file_;
  size_t pos_ = 0;
  uint64_t line_number_ = 0;
};

std::vector<std::string> Tokens(std::string_view line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && parse::IsBlank(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !parse::IsBlank(line[j])) ++j;
    if (j > i) out.emplace_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool IsBlankLine(std::string_view line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return parse::IsBlank(c); });
}

uint64_t ParseCount(const std::string& path, uint64_t line, const std::string& token,
                    const char* what) {
  uint64_t value = 0;
  bool overflow = false;
  const char* end = token.data() + token.size();
  const char* p = parse::ParseUnsigned(token.data(), end, &value, &overflow);
  if (p != end || overflow) {
    throw Error::AtLine(
        path, line,
        std::string("expected ") + what + " (a non-negative integer), found '" +
            QuoteToken(token) + "'");
  }
  return value;
}

void CheckVertexCount(const std::string& path, uint64_t line, uint64_t n) {
  if (n > kMaxVertexId + 1) {
    throw Error::AtLine(path, line,
                        "vertex count " + std::to_string(n) + " is beyond the supported " +
                            std::to_string(kMaxVertexId + 1) + " (ids are 32-bit)");
  }
}

[[noreturn]] void HeaderTooLong(const std::string& path, const char* what) {
  throw Error(path, std::string("no ") + what + " found in the first part of the file");
}

TextLayout MatrixMarketLayout(const std::string& path, std::string_view head, bool whole_file) {
  TextLayout layout;
  layout.format = GraphFormat::kMatrixMarket;
  layout.comment_a = layout.comment_b = '%';
  layout.id_base = 1;
  LineCursor cursor(head, whole_file);
  std::string_view line;
  if (!cursor.Next(&line)) HeaderTooLong(path, "%%MatrixMarket banner");
  std::vector<std::string> banner = Tokens(line);
  if (banner.size() != 5 || Lower(banner[0]) != "%%matrixmarket" || Lower(banner[1]) != "matrix") {
    throw Error::AtLine(path, 1, "expected '%%MatrixMarket matrix coordinate <field> <symmetry>'");
  }
  std::string layout_kind = Lower(banner[2]);
  std::string field = Lower(banner[3]);
  std::string symmetry = Lower(banner[4]);
  if (layout_kind != "coordinate") {
    throw Error::AtLine(path, 1,
                        "only 'coordinate' Matrix Market files hold graphs, found '" +
                            QuoteToken(banner[2]) + "'");
  }
  if (field != "pattern" && field != "integer" && field != "real") {
    throw Error::AtLine(path, 1,
                        "expected field pattern, integer or real, found '" +
                            QuoteToken(banner[3]) + "'");
  }
  if (symmetry != "general" && symmetry != "symmetric") {
    throw Error::AtLine(path, 1,
                        "expected symmetry general or symmetric, found '" +
                            QuoteToken(banner[4]) + "'");
  }
  layout.weighted = field != "pattern";
  layout.symmetric = symmetry == "symmetric";
  layout.description = "mtx coordinate " + field + " " + symmetry;
  for (;;) {
    if (!cursor.Next(&line)) {
      if (whole_file) throw Error(path, "missing the 'rows cols entries' size line");
      HeaderTooLong(path, "size line");
    }
    if (IsBlankLine(line) || line.find_first_not_of(" \t") == line.find('%')) continue;
    std::vector<std::string> size = Tokens(line);
    uint64_t at = cursor.line_number();
    if (size.size() != 3) {
      throw Error::AtLine(path, at,
                          "expected the size line 'rows cols entries', found " +
                              std::to_string(size.size()) + " columns");
    }
    uint64_t rows = ParseCount(path, at, size[0], "a row count");
    uint64_t cols = ParseCount(path, at, size[1], "a column count");
    layout.declared_entries = ParseCount(path, at, size[2], "an entry count");
    layout.declared_vertices = std::max(rows, cols);
    CheckVertexCount(path, at, layout.declared_vertices);
    layout.has_declared_counts = true;
    layout.header_line = at;
    break;
  }
  layout.data_offset = cursor.offset();
  layout.data_first_line = cursor.line_number() + 1;
  return layout;
}

TextLayout DimacsLayout(const std::string& path, std::string_view head, bool whole_file) {
  TextLayout layout;
  layout.format = GraphFormat::kDimacs;
  layout.comment_a = layout.comment_b = 'c';
  layout.id_base = 1;
  LineCursor cursor(head, whole_file);
  std::string_view line;
  for (;;) {
    if (!cursor.Next(&line)) {
      if (whole_file) throw Error(path, "missing the 'p sp N M' (or 'p tw N M') problem line");
      HeaderTooLong(path, "'p' line");
    }
    std::vector<std::string> tokens = Tokens(line);
    uint64_t at = cursor.line_number();
    if (tokens.empty() || tokens[0] == "c") continue;
    if (tokens[0] != "p") {
      throw Error::AtLine(path, at,
                          "expected a 'p sp N M' problem line before the data, found '" +
                              QuoteToken(line) + "'");
    }
    if (tokens.size() != 4 || (tokens[1] != "sp" && tokens[1] != "tw")) {
      throw Error::AtLine(path, at, "expected 'p sp N M' or 'p tw N M'");
    }
    layout.declared_vertices = ParseCount(path, at, tokens[2], "a vertex count");
    layout.declared_entries = ParseCount(path, at, tokens[3], "an arc count");
    CheckVertexCount(path, at, layout.declared_vertices);
    layout.has_declared_counts = true;
    layout.header_line = at;
    if (tokens[1] == "sp") {
      layout.syntax = LineSyntax::kDimacsArcs;
      layout.weighted = true;
      layout.description = "gr (DIMACS shortest paths)";
    } else {
      layout.syntax = LineSyntax::kPairs;
      layout.weighted = false;
      layout.description = "gr (PACE p tw)";
    }
    break;
  }
  layout.data_offset = cursor.offset();
  layout.data_first_line = cursor.line_number() + 1;
  return layout;
}

TextLayout EdgeListLayout(std::string_view head, bool whole_file) {
  TextLayout layout;
  layout.format = GraphFormat::kEdgeList;
  layout.skip_extra_columns = true;  // e.g. SNAP files with timestamps after the pair
  LineCursor cursor(head, whole_file);
  std::string_view line;
  while (cursor.Next(&line)) {
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#' || line[first] == '%') continue;
    layout.weighted = Tokens(line).size() >= 3;  // the first data line decides
    break;
  }
  return layout;
}

}  // namespace

TextLayout ParseTextLayout(const std::string& path, std::string_view head, bool whole_file,
                           GraphFormat format, WeightMode weights) {
  TextLayout layout;
  switch (format) {
    case GraphFormat::kMatrixMarket:
      layout = MatrixMarketLayout(path, head, whole_file);
      break;
    case GraphFormat::kDimacs:
      layout = DimacsLayout(path, head, whole_file);
      break;
    case GraphFormat::kEdgeList:
      layout = EdgeListLayout(head, whole_file);
      break;
    default:
      throw Error(path, "not a text graph format");
  }
  if (format == GraphFormat::kEdgeList && weights != WeightMode::kAuto) {
    layout.weighted = weights == WeightMode::kWeighted;
  } else if (weights == WeightMode::kWeighted && !layout.weighted) {
    throw Error(path, "weights were asked for, but this " + layout.description + " file has none");
  } else if (weights == WeightMode::kUnweighted && layout.weighted) {
    layout.weighted = false;
    layout.skip_extra_columns = true;
  }
  if (layout.format == GraphFormat::kEdgeList) {
    layout.description = layout.weighted ? "edgelist (weighted)" : "edgelist";
  }
  return layout;
}

}  // namespace needle
