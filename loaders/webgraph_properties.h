// WebGraphProperties: the Java .properties file beside a BVGraph's .graph (the LAW / Software
// Heritage compressed graph format), parsed and checked before a single bit is decoded.
//
// Keys read: graphclass (it.unimi.dsi.webgraph.BVGraph, or any class name ending in BVGraph),
// version (0 or absent), nodes, arcs, windowsize, maxrefcount, minintervallength, zetak and
// compressionflags. Everything else WebGraph writes there (statistics: bitsperlink, avgref...)
// is ignored. Empty compressionflags means WebGraph's defaults: outdegrees γ, references unary,
// block count γ, blocks γ, residuals ζ_k, offsets γ (intervals are always γ). A flag this
// reader cannot decode (RESIDUALS_NIBBLE, RESIDUALS_GOLOMB, ...) is refused by name.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace needle {

enum class BvCoding { kGamma, kDelta, kUnary, kZeta };
std::string_view BvCodingName(BvCoding coding);  // "gamma", "delta", "unary", "zeta"

struct BvCodings {
  BvCoding outdegrees = BvCoding::kGamma;
  BvCoding references = BvCoding::kUnary;
  BvCoding block_count = BvCoding::kGamma;
  BvCoding blocks = BvCoding::kGamma;
  BvCoding residuals = BvCoding::kZeta;
  BvCoding offsets = BvCoding::kGamma;
};

struct WebGraphProperties {
  std::string graph_class;
  uint64_t nodes = 0;  // at most kMaxVertexId + 1: ids must fit a VertexId
  uint64_t arcs = 0;
  uint32_t window_size = 0;          // 0: no references
  uint32_t max_ref_count = 0;        // longest reference chain; UINT32_MAX when unbounded
  uint32_t min_interval_length = 0;  // 0: no intervals
  uint32_t zeta_k = 3;
  BvCodings codings;
  std::string compression_flags;  // as written
};

// The key → value pairs of a Java properties file: '#' and '!' comments, "key=value",
// "key: value" and "key value", backslash line continuations and escapes (\t \n \r \f \uXXXX,
// and \ before any other character, which stands for it). Later keys replace earlier ones.
std::map<std::string, std::string> ParseJavaProperties(std::string_view text);

// Parses and checks the properties of a BVGraph. Throws Error naming `path` and the key.
WebGraphProperties ParseWebGraphProperties(const std::string& path, std::string_view text);
WebGraphProperties ReadWebGraphProperties(const std::string& path);

}  // namespace needle
