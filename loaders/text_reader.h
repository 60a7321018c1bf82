// Reading text graphs (edge lists, Matrix Market, DIMACS; plain, gzip or xz).
//
// ReadTextGraph loads a whole file: a plain file is mmapped and parsed in one parallel pass
// (GVEL Algorithm 1); a compressed one is decompressed chunk by chunk and each chunk goes
// through the same parallel parser. TextStream is the bounded-memory form: it hands out the
// edges one chunk at a time, so a file of any size is read with about chunk_bytes of text
// and that chunk's edges in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/huge_array.h"
#include "loaders/byte_source.h"
#include "loaders/edge_list.h"
#include "loaders/format.h"
#include "loaders/text_layout.h"
#include "loaders/text_parser.h"

namespace needle {

struct ReadOptions {
  GraphFormat format = GraphFormat::kAuto;  // kAuto: detect from the name and the first bytes
  WeightMode weights = WeightMode::kAuto;   // kAuto: what the file has
  int threads = 0;                          // ThreadCount() (parallel.h): 0 is OpenMP's default
  size_t block_bytes = TextParser::kDefaultBlockBytes;
  size_t chunk_bytes = size_t{64} << 20;  // text held at once by TextStream
};

struct TextGraphInfo {
  TextLayout layout;
  Compression compression = Compression::kNone;
  uint64_t text_bytes = 0;  // decompressed size
  uint64_t lines = 0;
  uint64_t entries = 0;  // data lines, before symmetric expansion
};

// Reads every edge of a text graph. Throws Error for unreadable or malformed input.
EdgeList ReadTextGraph(const std::string& path, const ReadOptions& options,
                       TextGraphInfo* info = nullptr);

class TextStream {
 public:
  // Opens the file and parses its header. Throws Error.
  TextStream(std::string path, const ReadOptions& options);

  const TextLayout& layout() const { return parser_->layout(); }
  Compression compression() const { return compression_; }
  // Vertex count from the header, when the format declares one.
  std::optional<uint64_t> declared_vertices() const;

  // Parses the next chunk and appends its edges to `out` (which the caller may clear between
  // calls). Returns false, appending nothing, once the input is exhausted; at that point the
  // header's counts have been checked.
  bool Next(EdgeList& out);
  // Vertex count once Next() has returned false.
  uint64_t num_vertices() const { return num_vertices_; }
  uint64_t file_bytes_read() const { return source_->FileBytesRead(); }
  // XXH3-64 of the file bytes read so far (compressed bytes for gzip/xz): the whole file's,
  // equal to FileContentHash, once Next() has returned false.
  uint64_t content_hash() const { return source_->ContentHash(); }
  uint64_t text_bytes() const { return text_bytes_; }
  uint64_t lines() const { return parser_->lines_parsed(); }
  uint64_t entries() const { return parser_->entries_parsed(); }

 private:
  void Fill();  // reads until the buffer is full or the input ends

  std::string path_;
  std::unique_ptr<ByteSource> source_;
  Compression compression_ = Compression::kNone;
  std::optional<TextParser> parser_;
  HugeArray<char> buffer_;
  size_t begin_ = 0;  // unparsed bytes are [begin_, buffer_.size())
  bool eof_ = false;
  bool done_ = false;
  uint64_t text_bytes_ = 0;
  uint64_t num_vertices_ = 0;
};

// Clears the edges of `list` but keeps its buffers' memory for reuse.
void ClearEdges(EdgeList& list);

}  // namespace needle
