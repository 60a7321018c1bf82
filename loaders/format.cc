#include "loaders/format.h"

#include <cstring>
#include <stdexcept>

#include "loaders/csr_file_format.h"

namespace needle {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view StripCompressionSuffix(std::string_view path) {
  for (std::string_view suffix : {".gz", ".xz"}) {
    if (EndsWith(path, suffix)) return path.substr(0, path.size() - suffix.size());
  }
  return path;
}

}  // namespace

std::string_view FormatName(GraphFormat format) {
  switch (format) {
    case GraphFormat::kAuto:
      return "auto";
    case GraphFormat::kEdgeList:
      return "edgelist";
    case GraphFormat::kMatrixMarket:
      return "mtx";
    case GraphFormat::kDimacs:
      return "gr";
    case GraphFormat::kCsr:
      return "csr";
    case GraphFormat::kWebGraph:
      return "webgraph";
  }
  return "?";
}

std::string_view CompressionName(Compression compression) {
  switch (compression) {
    case Compression::kNone:
      return "none";
    case Compression::kGzip:
      return "gzip";
    case Compression::kXz:
      return "xz";
  }
  return "?";
}

GraphFormat ParseFormatName(std::string_view name) {
  if (name == "auto") return GraphFormat::kAuto;
  if (name == "snap" || name == "el" || name == "wel" || name == "txt" || name == "edgelist") {
    return GraphFormat::kEdgeList;
  }
  if (name == "mtx" || name == "mm") return GraphFormat::kMatrixMarket;
  if (name == "gr" || name == "dimacs") return GraphFormat::kDimacs;
  if (name == "csr") return GraphFormat::kCsr;
  if (name == "webgraph" || name == "bv" || name == "bvgraph") return GraphFormat::kWebGraph;
  throw std::invalid_argument("unknown format '" + std::string(name) +
                              "' (expected auto, snap, mtx, gr, csr or webgraph)");
}

Compression DetectCompression(const void* head, size_t size) {
  const auto* b = static_cast<const unsigned char*>(head);
  if (size >= 2 && b[0] == 0x1f && b[1] == 0x8b) return Compression::kGzip;
  static constexpr unsigned char kXzMagic[6] = {0xfd, '7', 'z', 'X', 'Z', 0x00};
  if (size >= 6 && std::memcmp(b, kXzMagic, 6) == 0) return Compression::kXz;
  return Compression::kNone;
}

GraphFormat DetectFormat(std::string_view path, std::string_view head) {
  if (head.size() >= sizeof(kCsrMagic) &&
      std::memcmp(head.data(), kCsrMagic, sizeof(kCsrMagic)) == 0) {
    return GraphFormat::kCsr;
  }
  if (head.starts_with("%%MatrixMarket")) return GraphFormat::kMatrixMarket;
  std::string_view name = StripCompressionSuffix(path);
  if (EndsWith(name, ".mtx")) return GraphFormat::kMatrixMarket;
  if (EndsWith(name, ".gr")) return GraphFormat::kDimacs;
  if (EndsWith(name, ".csr")) return GraphFormat::kCsr;
  // Look at the first line that is not blank: DIMACS files open with 'c' or 'p'.
  size_t i = 0;
  while (i < head.size() &&
         (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
    ++i;
  if (i + 1 < head.size() && (head[i] == 'c' || head[i] == 'p') &&
      (head[i + 1] == ' ' || head[i + 1] == '\t' || head[i + 1] == '\n' || head[i + 1] == '\r')) {
    return GraphFormat::kDimacs;
  }
  return GraphFormat::kEdgeList;
}

WeightMode WeightModeFromName(std::string_view path) {
  std::string_view name = StripCompressionSuffix(path);
  if (EndsWith(name, ".wel")) return WeightMode::kWeighted;
  if (EndsWith(name, ".el")) return WeightMode::kUnweighted;
  return WeightMode::kAuto;
}

}  // namespace needle
