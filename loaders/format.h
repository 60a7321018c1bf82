// Graph file formats and their detection.
//
// The format comes from --format when given, else from the file itself: the .csr magic,
// a "%%MatrixMarket" banner, a DIMACS "p sp"/"p tw" or "c" line, otherwise an edge list.
// A WebGraph BVGraph is several files (X.graph, X.properties, X.offsets) and is recognised by
// its names before any of this (IsWebGraphInput, loaders/webgraph_input.h).
// Compression (gzip, xz) is recognised by its magic bytes, so a misnamed file still reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace needle {

enum class GraphFormat { kAuto, kEdgeList, kMatrixMarket, kDimacs, kCsr, kWebGraph };
enum class Compression { kNone, kGzip, kXz };
enum class WeightMode { kAuto, kWeighted, kUnweighted };

// "edgelist", "mtx", "gr", "csr", "webgraph", "auto"
std::string_view FormatName(GraphFormat format);
std::string_view CompressionName(Compression compression);  // "none", "gzip", "xz"
// Parses a --format value: auto, snap|el|wel|txt|edgelist, mtx, gr|dimacs, csr,
// webgraph|bv|bvgraph.
// Throws std::invalid_argument naming the accepted values.
GraphFormat ParseFormatName(std::string_view name);

// Compression from the first bytes of the file.
Compression DetectCompression(const void* head, size_t size);
// Format from the file name (compression suffix removed) and the first decompressed bytes.
GraphFormat DetectFormat(std::string_view path, std::string_view head);
// Weighting implied by the file name alone: .wel → weighted, .el → unweighted, else auto.
WeightMode WeightModeFromName(std::string_view path);

}  // namespace needle
