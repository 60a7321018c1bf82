#include "loaders/text_reader.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>

#include "base/error.h"
#include "io/mapped_file.h"

namespace needle {
namespace {

constexpr size_t kLayoutHeadBytes = size_t{16} << 20;  // a header must fit in the first 16 MiB

TextLayout LayoutFor(const std::string& path, std::string_view head, bool whole_file,
                     const ReadOptions& options) {
  GraphFormat format =
      options.format == GraphFormat::kAuto ? DetectFormat(path, head) : options.format;
  if (format == GraphFormat::kCsr) {
    throw Error(path, "is a binary .csr file, not a text graph");
  }
  WeightMode weights = options.weights;
  if (weights == WeightMode::kAuto && format == GraphFormat::kEdgeList)
    weights = WeightModeFromName(path);
  return ParseTextLayout(path, head, whole_file, format, weights);
}

}  // namespace

void ClearEdges(EdgeList& list) {
  for (EdgeBuffer& b : list.buffers) {
    b.edges.Clear();
    b.weights.Clear();
  }
  list.segments.clear();
}

EdgeList ReadTextGraph(const std::string& path, const ReadOptions& options, TextGraphInfo* info) {
  EdgeList out;
  {
    MappedFile file(path);
    if (file.size() == 0) throw Error(path, "empty file");
    if (DetectCompression(file.data(), file.size()) == Compression::kNone) {
      std::string_view head = file.view().substr(0, kLayoutHeadBytes);
      TextParser parser(path, LayoutFor(path, head, head.size() == file.size(), options),
                        options.threads, options.block_bytes);
      const uint64_t start = parser.layout().data_offset;
      parser.Parse(file.data() + start, file.size() - start, out);
      out.num_vertices = parser.Finish();
      if (info != nullptr) {
        *info = TextGraphInfo{parser.layout(), Compression::kNone, file.size(),
                              parser.lines_parsed(), parser.entries_parsed()};
      }
      return out;
    }
  }
  TextStream stream(path, options);
  while (stream.Next(out)) {
  }
  out.num_vertices = stream.num_vertices();
  if (info != nullptr) {
    *info = TextGraphInfo{stream.layout(), stream.compression(), stream.text_bytes(),
                          stream.lines(), stream.entries()};
  }
  return out;
}

TextStream::TextStream(std::string path, const ReadOptions& options) : path_(std::move(path)) {
  source_ = OpenByteSource(path_, &compression_);
  buffer_.Reserve(std::max<size_t>(options.chunk_bytes, 4096));
  Fill();
  if (buffer_.size() == 0) {
    throw Error(path_, compression_ == Compression::kNone
                           ? "empty file"
                           : "empty file (nothing after decompression)");
  }
  std::string_view head(buffer_.data(), std::min(buffer_.size(), kLayoutHeadBytes));
  parser_.emplace(path_, LayoutFor(path_, head, eof_ && head.size() == buffer_.size(), options),
                  options.threads, options.block_bytes);
  begin_ = parser_->layout().data_offset;
}

std::optional<uint64_t> TextStream::declared_vertices() const {
  if (!parser_->layout().has_declared_counts) return std::nullopt;
  return parser_->layout().declared_vertices;
}

void TextStream::Fill() {
  while (!eof_ && buffer_.size() < buffer_.capacity()) {
    size_t n = source_->Read(buffer_.data() + buffer_.size(), buffer_.capacity() - buffer_.size());
    if (n == 0) {
      eof_ = true;
      break;
    }
    buffer_.Resize(buffer_.size() + n);
    text_bytes_ += n;
  }
}

bool TextStream::Next(EdgeList& out) {
  while (!done_) {
    if (begin_ > 0) {  // move the unparsed tail to the front and refill
      size_t tail = buffer_.size() - begin_;
      std::memmove(buffer_.data(), buffer_.data() + begin_, tail);
      buffer_.Resize(tail);
      begin_ = 0;
      Fill();
    }
    const char* data = buffer_.data();
    size_t size = buffer_.size();
    size_t parse_size = size;
    if (!eof_) {
      const char* last_nl = static_cast<const char*>(memrchr(data, '\n', size));
      if (last_nl == nullptr) {  // one line longer than the buffer: make room and read on
        buffer_.Reserve(buffer_.capacity() * 2);
        Fill();
        continue;
      }
      parse_size = static_cast<size_t>(last_nl - data) + 1;
    }
    if (eof_ && parse_size == 0) {
      num_vertices_ = parser_->Finish();
      done_ = true;
      return false;
    }
    parser_->Parse(data, parse_size, out);
    begin_ = parse_size;
    if (eof_ && begin_ == size) {
      // Everything is parsed; the next call checks the counts and reports the end.
      buffer_.Resize(0);
      begin_ = 0;
    }
    return true;
  }
  return false;
}

}  // namespace needle
