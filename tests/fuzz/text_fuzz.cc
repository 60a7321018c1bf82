// Fuzz target `text`: the text graph parser (edge lists, Matrix Market, DIMACS), in memory and
// streamed from plain and gzip files, as a differential test.
//
// Input: two configuration bytes, then the text of a graph file.
//   byte 0: bits 0-5 the parser's block size, 64 + (0..63) bytes (64 is its minimum), so
//           that even a small input is cut into many blocks; bits 6-7 the weight mode
//           (auto, weighted, unweighted, auto).
//   byte 1: bits 0-2 the file name's suffix (.txt .el .wel .mtx .gr, none, .csv, .txt), which
//           format detection and the weight rule read; bits 3-4 the format (auto, edge list,
//           Matrix Market, DIMACS); bits 5-7 the stream k: 0..3 the plain file (2 threads),
//           4 a gzip copy (1 thread), 5..7 a gzip copy in two members cut at (k - 4)/4 of the
//           text.
//
// Checks (any difference aborts):
//  - TextParser at 1 and at 2 threads, and ReadTextGraph on the plain file at 2 threads: the
//    same edges, weights, vertex count and line counts, or the same error (line and message).
//  - TextStream with the smallest chunk (4 KiB, so longer inputs cross chunk boundaries) over
//    the plain file or its gzip copy, against the in-memory parse: the same outcome (edges and
//    counts, or the error's line and message), whenever the stream parsed the same header
//    layout (always for inputs shorter than one chunk). One stream per input, not both: opening
//    a gzip stream allocates a 1 MiB buffer, which under ASan costs as much as all the rest.
//  - Every accepted edge lies below the vertex count, and weights come with every edge of a
//    weighted graph.
// Text that starts with gzip or xz magic is decompressed by the file readers (compression is
// recognised from the bytes): then the readers run (fuzzing the decompressors' error paths)
// but only the two in-memory parses are compared.
#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "loaders/edge_list.h"
#include "loaders/format.h"
#include "loaders/text_layout.h"
#include "loaders/text_parser.h"
#include "loaders/text_reader.h"
#include "tests/fuzz/fuzz_util.h"

namespace needle::fuzz {
namespace {

constexpr size_t kStreamChunk = 4096;  // TextStream's smallest chunk

// Edge lists kept from one input to the next (cleared, their memory kept): mapping and
// unmapping fresh buffers for every parse would cost more than the parse.
EdgeList& ReusedList() {
  static EdgeList list;
  ClearEdges(list);
  list.num_vertices = 0;
  return list;
}

struct Outcome {
  bool ok = false;
  uint64_t error_line = Error::kNoPosition;
  std::string error_message;
  uint64_t vertices = 0;
  bool weighted = false;
  std::vector<Edge> edges;
  std::vector<uint32_t> weight_bits;
  uint64_t lines = 0;
  uint64_t entries = 0;
};

Outcome Failure(const Error& e) {
  Outcome o;
  o.error_line = e.line();
  o.error_message = e.message();
  return o;
}

// The edges of `list` in input order, checked against the vertex count.
void Collect(const EdgeList& list, uint64_t vertices, Outcome& o) {
  o.ok = true;
  o.vertices = vertices;
  o.weighted = list.weighted;
  for (const EdgeSegment& s : list.segments) {
    for (const Edge& e : list.Edges(s)) {
      FUZZ_CHECK(e.source < vertices && e.target < vertices, "an edge beyond the vertex count");
      o.edges.push_back(e);
    }
    if (list.weighted) {
      for (Weight w : list.Weights(s)) {
        uint32_t bits;
        std::memcpy(&bits, &w, sizeof(bits));
        o.weight_bits.push_back(bits);
      }
    }
  }
  FUZZ_CHECK(!o.weighted || o.weight_bits.size() == o.edges.size(),
             "a weighted graph without a weight per edge");
  FUZZ_CHECK(vertices <= kMaxVertexId + 1, "more vertices than 32-bit ids allow");
}

// What ReadTextGraph does for a plain file, with the parser's threads and block size chosen.
Outcome ParseInMemory(const std::string& path, std::string_view text, GraphFormat format,
                      WeightMode weights, int threads, size_t block_bytes) {
  try {
    if (text.empty()) throw Error(path, "empty file");
    const GraphFormat f = format == GraphFormat::kAuto ? DetectFormat(path, text) : format;
    if (f == GraphFormat::kCsr) throw Error(path, "is a binary .csr file, not a text graph");
    WeightMode w = weights;
    if (w == WeightMode::kAuto && f == GraphFormat::kEdgeList) w = WeightModeFromName(path);
    const TextLayout layout = ParseTextLayout(path, text, /*whole_file=*/true, f, w);
    FUZZ_CHECK(layout.data_offset <= text.size(), "the data starts beyond the text");
    TextParser parser(path, layout, threads, block_bytes);
    EdgeList& list = ReusedList();
    parser.Parse(text.data() + layout.data_offset, text.size() - layout.data_offset, list);
    const uint64_t vertices = parser.Finish();
    Outcome o;
    Collect(list, vertices, o);
    o.lines = parser.lines_parsed();
    o.entries = parser.entries_parsed();
    return o;
  } catch (const Error& e) {
    return Failure(e);
  }
}

Outcome ReadWhole(const std::string& path, const ReadOptions& options) {
  try {
    TextGraphInfo info;
    const EdgeList list = ReadTextGraph(path, options, &info);
    Outcome o;
    Collect(list, list.num_vertices, o);
    o.lines = info.lines;
    o.entries = info.entries;
    return o;
  } catch (const Error& e) {
    return Failure(e);
  }
}

Outcome ReadStream(const std::string& path, const ReadOptions& options, size_t text_bytes,
                   TextLayout* layout) {
  try {
    TextStream stream(path, options);
    *layout = stream.layout();
    EdgeList& list = ReusedList();
    // Every call but the last parses at least one line, and a line is at least one byte.
    for (size_t calls = 0; stream.Next(list); ++calls) {
      FUZZ_CHECK(calls <= text_bytes + 2, "TextStream::Next never returns false");
    }
    Outcome o;
    Collect(list, stream.num_vertices(), o);
    o.lines = stream.lines();
    o.entries = stream.entries();
    return o;
  } catch (const Error& e) {
    return Failure(e);
  }
}

// gzip with the text cut into two members at `split` (none when 0): the reader must handle
// multi-member files (as `cat a.gz b.gz` makes).
std::vector<uint8_t> Gzip(std::string_view text, size_t split) {
  std::vector<uint8_t> out;
  auto member = [&out](std::string_view part) {
    z_stream z{};
    FUZZ_CHECK(deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK,
               "deflateInit2");
    const size_t at = out.size();
    out.resize(at + deflateBound(&z, part.size()) + 64);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(part.data()));
    z.avail_in = static_cast<uInt>(part.size());
    z.next_out = out.data() + at;
    z.avail_out = static_cast<uInt>(out.size() - at);
    FUZZ_CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END, "deflate");
    out.resize(out.size() - z.avail_out);
    deflateEnd(&z);
  };
  if (split > 0 && split < text.size()) {
    member(text.substr(0, split));
    member(text.substr(split));
  } else {
    member(text);
  }
  return out;
}

bool SameLayout(const TextLayout& a, const TextLayout& b) {
  return a.format == b.format && a.syntax == b.syntax && a.weighted == b.weighted &&
         a.symmetric == b.symmetric && a.skip_extra_columns == b.skip_extra_columns &&
         a.id_base == b.id_base && a.has_declared_counts == b.has_declared_counts &&
         a.declared_vertices == b.declared_vertices && a.declared_entries == b.declared_entries &&
         a.data_offset == b.data_offset && a.data_first_line == b.data_first_line;
}

bool SameEdges(const Outcome& a, const Outcome& b) {
  return a.vertices == b.vertices && a.weighted == b.weighted && a.edges == b.edges &&
         a.weight_bits == b.weight_bits;
}

// Everything: edges, counts, or the error's line and message.
bool Identical(const Outcome& a, const Outcome& b) {
  if (a.ok != b.ok) return false;
  if (!a.ok) return a.error_line == b.error_line && a.error_message == b.error_message;
  return SameEdges(a, b) && a.lines == b.lines && a.entries == b.entries;
}

}  // namespace
}  // namespace needle::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace needle;
  using namespace needle::fuzz;
  if (size < 2) return 0;
  const uint8_t a = data[0], b = data[1];
  const std::string_view text(reinterpret_cast<const char*>(data) + 2, size - 2);
  const size_t block_bytes = 64 + (a & 63);
  static constexpr WeightMode kWeights[4] = {WeightMode::kAuto, WeightMode::kWeighted,
                                             WeightMode::kUnweighted, WeightMode::kAuto};
  static constexpr const char* kSuffixes[8] = {".txt", ".el", ".wel", ".mtx",
                                               ".gr",  "",    ".csv", ".txt"};
  static constexpr GraphFormat kFormats[4] = {GraphFormat::kAuto, GraphFormat::kEdgeList,
                                              GraphFormat::kMatrixMarket, GraphFormat::kDimacs};
  const WeightMode weights = kWeights[a >> 6];
  const GraphFormat format = kFormats[(b >> 3) & 3];
  const int stream_kind = b >> 5;
  const std::string path = ScratchDir() + "/graph" + kSuffixes[b & 7];

  const Outcome one = ParseInMemory(path, text, format, weights, 1, block_bytes);
  const Outcome two = ParseInMemory(path, text, format, weights, 2, block_bytes);
  FUZZ_CHECK(Identical(one, two), "TextParser at 1 and 2 threads disagree");

  WriteFileOrDie(path, text);
  ReadOptions options;
  options.format = format;
  options.weights = weights;
  options.block_bytes = block_bytes;
  options.threads = 2;
  options.chunk_bytes = kStreamChunk;
  const Outcome whole = ReadWhole(path, options);
  TextLayout stream_layout;
  stream_layout.data_offset = UINT64_MAX;  // unknown until the stream's header is parsed
  // Text that starts like gzip or xz data is decompressed by the file readers (compression is
  // detected from the bytes), so only the in-memory parses compare; the readers still run.
  if (DetectCompression(text.data(), text.size()) != Compression::kNone) {
    ReadStream(path, options, text.size(), &stream_layout);
    return 0;
  }
  FUZZ_CHECK(Identical(one, whole), "ReadTextGraph disagrees with TextParser");

  Outcome stream;
  if (stream_kind < 4) {
    stream = ReadStream(path, options, text.size(), &stream_layout);
  } else {
    const size_t split = text.size() * (stream_kind - 4) / 4;
    const std::string gz_path = path + ".gz";
    WriteFileOrDie(gz_path, Gzip(text, split));
    options.threads = 1;
    stream = ReadStream(gz_path, options, text.size(), &stream_layout);
  }
  // The stream parses its header from its first chunk only, so on a longer input it may see
  // another layout than the in-memory parse (whole file) and is compared only when it does not.
  bool same_layout = text.size() < kStreamChunk;
  if (!same_layout && stream_layout.data_offset != UINT64_MAX) {
    try {
      const GraphFormat f = format == GraphFormat::kAuto ? DetectFormat(path, text) : format;
      WeightMode w = weights;
      if (w == WeightMode::kAuto && f == GraphFormat::kEdgeList) w = WeightModeFromName(path);
      same_layout = SameLayout(stream_layout, ParseTextLayout(path, text, true, f, w));
    } catch (const Error&) {
    }
  }
  if (same_layout) {
    FUZZ_CHECK(stream.ok == one.ok, "the stream and the in-memory parse disagree on success");
    if (stream.ok) {
      FUZZ_CHECK(SameEdges(stream, one) && stream.lines == one.lines &&
                     stream.entries == one.entries,
                 "the stream and the in-memory parse disagree on the edges");
    } else {
      FUZZ_CHECK(stream.error_line == one.error_line,
                 "the stream and the in-memory parse fail on different lines");
      // "empty file (nothing after decompression)" is the gzip stream's "empty file".
      FUZZ_CHECK(stream.error_message == one.error_message ||
                     (stream.error_message.starts_with("empty file") &&
                      one.error_message.starts_with("empty file")),
                 "the stream and the in-memory parse fail differently");
    }
  }
  return 0;
}
