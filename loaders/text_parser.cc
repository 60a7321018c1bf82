#include "loaders/text_parser.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/parallel.h"
#include "loaders/number_parse.h"

namespace needle {
namespace {

using parse::IsBlank;
using parse::IsTokenEnd;

struct LineRules {
  char comment_a;
  char comment_b;
  uint64_t id_base;
  uint64_t max_raw_id;  // largest id as written in the file
  bool declared;        // max_raw_id comes from the header
  bool skip_extra_columns;
};

struct BlockResult {
  uint32_t buffer = 0;
  uint64_t begin = 0;
  uint64_t count = 0;
  uint64_t lines = 0;
  uint64_t entries = 0;
  uint64_t max_id = 0;
  bool any_edge = false;
  bool failed = false;
  std::string error;  // only set when failed; lines then counts the lines before the bad one
};

// Input for a message: at most 24 bytes (base/error.h's Excerpt).
std::string Excerpt(const char* p, const char* stop) {
  return needle::Excerpt(std::string_view(p, static_cast<size_t>(stop - p)), 24);
}

// Quoted input for "found ..." messages.
std::string Quoted(const char* p, const char* stop) {
  if (p == stop) return "the end of the line";
  return "'" + Excerpt(p, stop) + "'";
}

// The token at p: up to a blank, the line end or the end of the input.
std::string QuoteToken(const char* p, const char* end) {
  const char* stop = p;
  while (!IsTokenEnd(stop, end)) ++stop;
  return Quoted(p, stop);
}

// The rest of the line from p.
std::string QuoteRest(const char* p, const char* end) {
  const char* stop = p;
  while (stop < end && *stop != '\n' && *stop != '\r') ++stop;
  return Quoted(p, stop);
}

// A number for a message, as printf's %g writes it (3.40282e+38).
std::string ShortNumber(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", x);
  return text;
}

// Doubles from here on round to ±inf in float32 (halfway to 2^128 rounds to even: up).
constexpr double kRoundsToInfinity = 0x1.ffffffp+127;

// The message for a weight float32 cannot hold: its magnitude rounds to infinity, or it is
// non-zero and rounds to 0. [p, q) is the token as written.
[[gnu::cold, gnu::noinline]] std::string WeightRangeError(const char* p, const char* q,
                                                          double value) {
  if (!(std::fabs(value) < kRoundsToInfinity)) {
    return "edge weight " + Excerpt(p, q) + " does not fit float32 (magnitude at most " +
           ShortNumber(std::numeric_limits<float>::max()) + ")";
  }
  return "edge weight " + Excerpt(p, q) + " does not fit float32 (it would round to 0; " +
         "the smallest non-zero magnitude is " +
         ShortNumber(std::numeric_limits<float>::denorm_min()) + ")";
}

[[gnu::cold, gnu::noinline]] std::string IdError(const char* p, const char* q, const char* end,
                                                 const LineRules& rules, const char* what,
                                                 uint64_t id, bool overflow) {
  if (q == nullptr || !IsTokenEnd(q, end)) {
    return std::string("expected ") + what + " (a non-negative integer), found " +
           QuoteToken(p, end);
  }
  if (overflow || id > rules.max_raw_id) {
    return std::string(what) + " " + Excerpt(p, q) +
           (rules.declared ? " is beyond the vertex count in the header"
                           : " is beyond the largest supported id 4294967294");
  }
  return std::string(what) + " 0 in a 1-based file (ids start at 1)";
}

// Parses one vertex id token; returns nullptr after filling `error`.
[[gnu::always_inline]] inline const char* ParseId(const char* p, const char* end,
                                                  const LineRules& rules, const char* what,
                                                  uint64_t* id, std::string* error) {
  bool overflow = false;
  const char* q = parse::ParseUnsignedFast(p, end, id, &overflow);
  if (q == nullptr || !IsTokenEnd(q, end) || overflow || *id > rules.max_raw_id ||
      *id < rules.id_base) [[unlikely]] {
    *error = IdError(p, q, end, rules, what, *id, overflow);
    return nullptr;
  }
  return q;
}

inline const char* SkipBlanks(const char* p, const char* end) {
  while (p < end && IsBlank(*p)) ++p;
  return p;
}

inline bool AtLineEnd(const char* p, const char* end) {
  return p == end || *p == '\n' || *p == '\r';
}

template <LineSyntax kSyntax, bool kWeighted, bool kSymmetric>
void ParseBlock(const char* p, const char* end, const LineRules& rules, Edge* edges,
                Weight* weights, BlockResult& r) {
  uint64_t n = 0;
  uint64_t lines = 0;
  uint64_t entries = 0;
  uint64_t max_id = 0;
  std::string error;
  while (p < end) {
    p = SkipBlanks(p, end);
    if (p == end) break;
    char c = *p;
    if (c == '\n' || c == '\r') {  // blank line
      if (c == '\r' && ++p < end && *p != '\n') {
        error = "expected a line end after '\\r' (lines must end in \\n or \\r\\n)";
        break;
      }
      ++p;
      ++lines;
      continue;
    }
    if (c == rules.comment_a || c == rules.comment_b) {
      const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
      p = nl ? static_cast<const char*>(nl) + 1 : end;
      ++lines;
      continue;
    }
    if constexpr (kSyntax == LineSyntax::kDimacsArcs) {
      if (c != 'a' || p + 1 >= end || !IsBlank(p[1])) {
        error = "expected an arc line 'a u v w', found " + QuoteToken(p, end);
        break;
      }
      p = SkipBlanks(p + 1, end);
    }
    uint64_t u = 0;
    uint64_t v = 0;
    const char* q = ParseId(p, end, rules, "source vertex id", &u, &error);
    if (q == nullptr) break;
    p = SkipBlanks(q, end);
    if (AtLineEnd(p, end)) {
      error = "missing column: expected a target vertex id after the source";
      break;
    }
    q = ParseId(p, end, rules, "target vertex id", &v, &error);
    if (q == nullptr) break;
    p = q;
    Weight w = 1;
    if constexpr (kWeighted) {
      p = SkipBlanks(p, end);
      if (AtLineEnd(p, end)) {
        error = "missing column: expected an edge weight after the target";
        break;
      }
      double value = 0;
      bool nonzero = false;
      q = parse::ParseReal(p, end, &value, &nonzero);
      if (q == nullptr || !IsTokenEnd(q, end)) {
        error = "expected an edge weight (a number), found " + QuoteToken(p, end);
        break;
      }
      // Refuse what float32 cannot hold: a magnitude that rounds to infinity (checked before
      // the cast, for which such a double is out of range), or a non-zero value that rounds
      // to 0. One well-predicted branch per weight.
      const bool too_large = !(std::fabs(value) < kRoundsToInfinity);
      w = too_large ? 0 : static_cast<Weight>(value);
      if (too_large || (w == 0 && nonzero)) [[unlikely]] {
        error = WeightRangeError(p, q, value);
        break;
      }
      p = q;
    }
    p = SkipBlanks(p, end);
    if (p < end && *p == '\r') {
      if (++p < end && *p != '\n') {
        error = "expected a line end after '\\r' (lines must end in \\n or \\r\\n)";
        break;
      }
    }
    if (p < end) {
      if (*p == '\n') {
        ++p;
      } else if (rules.skip_extra_columns) {
        const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
        p = nl ? static_cast<const char*>(nl) + 1 : end;
      } else {
        error = "expected the end of the line, found " + QuoteRest(p, end);
        break;
      }
    }
    ++lines;
    ++entries;
    auto su = static_cast<VertexId>(u - rules.id_base);
    auto sv = static_cast<VertexId>(v - rules.id_base);
    edges[n] = Edge{su, sv};
    if constexpr (kWeighted) weights[n] = w;
    ++n;
    if constexpr (kSymmetric) {
      if (su != sv) {
        edges[n] = Edge{sv, su};
        if constexpr (kWeighted) weights[n] = w;
        ++n;
      }
    }
    max_id = std::max<uint64_t>(max_id, std::max(su, sv));
  }
  r.count = n;
  r.lines = lines;
  r.entries = entries;
  r.max_id = max_id;
  r.any_edge = n > 0;
  if (!error.empty()) {
    r.failed = true;
    r.error = std::move(error);
  }
}

using BlockParser = void (*)(const char*, const char*, const LineRules&, Edge*, Weight*,
                             BlockResult&);

template <LineSyntax kSyntax>
BlockParser SelectParser(bool weighted, bool symmetric) {
  if (weighted) {
    return symmetric ? ParseBlock<kSyntax, true, true> : ParseBlock<kSyntax, true, false>;
  }
  return symmetric ? ParseBlock<kSyntax, false, true> : ParseBlock<kSyntax, false, false>;
}

// First line start at or after `p` (p itself when it follows a '\n' or is the start).
const char* SnapToLineStart(const char* data, const char* p, const char* end) {
  if (p <= data) return data;
  if (p >= end) return end;
  const void* nl = std::memchr(p - 1, '\n', static_cast<size_t>(end - (p - 1)));
  return nl ? static_cast<const char*>(nl) + 1 : end;
}

}  // namespace

TextParser::TextParser(std::string path, TextLayout layout, int threads, size_t block_bytes)
    : path_(std::move(path)),
      layout_(std::move(layout)),
      threads_(ThreadCount(threads)),
      block_bytes_(std::max<size_t>(block_bytes, 64)),
      lines_(layout_.data_first_line - 1) {}

void TextParser::Parse(const char* data, size_t size, EdgeList& out) {
  out.weighted = layout_.weighted;
  if (out.buffers.size() < static_cast<size_t>(threads_)) out.buffers.resize(threads_);
  const char* end = data + size;
  const size_t num_blocks = (size + block_bytes_ - 1) / block_bytes_;
  std::vector<BlockResult> results(num_blocks);
  LineRules rules{};
  rules.comment_a = layout_.comment_a;
  rules.comment_b = layout_.comment_b;
  rules.id_base = layout_.id_base;
  rules.declared = layout_.has_declared_counts;
  rules.max_raw_id = layout_.has_declared_counts ? layout_.declared_vertices + layout_.id_base - 1
                                                 : kMaxVertexId + layout_.id_base;
  if (layout_.has_declared_counts && layout_.declared_vertices == 0) rules.max_raw_id = 0;
  rules.skip_extra_columns = layout_.skip_extra_columns;
  BlockParser parser =
      layout_.syntax == LineSyntax::kDimacsArcs
          ? SelectParser<LineSyntax::kDimacsArcs>(layout_.weighted, layout_.symmetric)
          : SelectParser<LineSyntax::kPairs>(layout_.weighted, layout_.symmetric);
  const uint64_t expansion = layout_.symmetric ? 2 : 1;

  // No more threads than blocks: a small input does not wake threads it cannot use.
  const int threads = static_cast<int>(std::clamp<size_t>(num_blocks, 1, threads_));
#pragma omp parallel num_threads(threads)
  {
    const auto tid = static_cast<uint32_t>(omp_get_thread_num());
    EdgeBuffer& buffer = out.buffers[tid];
#pragma omp for schedule(dynamic, 1)
    for (size_t b = 0; b < num_blocks; ++b) {
      const char* begin = SnapToLineStart(data, data + b * block_bytes_, end);
      const char* stop = SnapToLineStart(data, data + (b + 1) * block_bytes_, end);
      BlockResult& r = results[b];
      if (begin >= stop) continue;
      // A data line takes at least 4 bytes ("0 0\n"), the file's last line at least 3.
      const uint64_t room = (static_cast<uint64_t>(stop - begin) / 4 + 1) * expansion;
      buffer.edges.EnsureRoom(room);
      if (layout_.weighted) buffer.weights.EnsureRoom(room);
      r.buffer = tid;
      r.begin = buffer.edges.size();
      parser(begin, stop, rules, buffer.edges.data() + r.begin,
             layout_.weighted ? buffer.weights.data() + r.begin : nullptr, r);
      buffer.edges.Resize(r.begin + r.count);
      if (layout_.weighted) buffer.weights.Resize(r.begin + r.count);
    }
  }

  uint64_t lines_before = lines_;
  for (const BlockResult& r : results) {
    if (r.failed) throw Error::AtLine(path_, lines_before + r.lines + 1, r.error);
    lines_before += r.lines;
  }
  for (const BlockResult& r : results) {
    if (r.count > 0) out.segments.push_back(EdgeSegment{r.buffer, r.begin, r.count});
    entries_ += r.entries;
    if (r.any_edge) {
      max_id_ = std::max(max_id_, r.max_id);
      any_edge_ = true;
    }
  }
  lines_ = lines_before;
}

uint64_t TextParser::Finish() const {
  if (layout_.has_declared_counts) {
    if (entries_ != layout_.declared_entries) {
      const char* what =
          layout_.format == GraphFormat::kMatrixMarket ? "the size line" : "the 'p' line";
      throw Error::AtLine(path_, layout_.header_line,
                          std::string(what) + " declares " +
                              std::to_string(layout_.declared_entries) +
                              " entries but the file has " + std::to_string(entries_));
    }
    return layout_.declared_vertices;
  }
  return any_edge_ ? max_id_ + 1 : 0;
}

}  // namespace needle
