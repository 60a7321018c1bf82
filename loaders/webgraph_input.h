// Which files make up a WebGraph BVGraph input, and its content hash.
//
// A BVGraph is a basename X with X.graph (the bit stream), X.properties (its parameters) and,
// optionally, X.offsets (γ-coded bit offsets of every node, which allow random access and
// parallel decoding). needle takes any of X.graph, X.properties or X itself as the input path.
//
// Content hash (GraphReader::content_hash, FileContentHash): XXH3-64 streamed over every byte
// of X.graph and then every byte of X.properties. X.offsets is left out: it is derived from
// X.graph, and one that disagrees with it is refused while decoding.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "loaders/format.h"

namespace needle {

struct WebGraphPaths {
  std::string base;  // X
  std::string graph;
  std::string properties;
  std::string offsets;  // empty when X.offsets does not exist
};

// The BVGraph `path` names, decided from the name and the files beside it: X.graph with
// X.properties beside it, X.properties, or a basename X (no such file) with X.graph and
// X.properties. nullopt for anything else.
std::optional<WebGraphPaths> FindWebGraph(const std::string& path);

// Whether `path` is read as a BVGraph: always for --format webgraph, never for another
// explicit format, and for auto when FindWebGraph accepts it. Never throws.
bool IsWebGraphInput(const std::string& path, GraphFormat requested);

// FindWebGraph, or an Error that names the files a BVGraph needs.
WebGraphPaths ResolveWebGraph(const std::string& path);

// XXH3-64 of X.graph's bytes followed by X.properties' bytes; `graph_bytes`, when given, are
// X.graph's bytes already in memory (a mapping), hashed rather than read again. Throws Error.
uint64_t WebGraphContentHash(const WebGraphPaths& paths,
                             std::optional<std::string_view> graph_bytes = std::nullopt);

// A BVGraph is unweighted: --weights yes is refused, naming `path`.
void CheckWebGraphWeights(const std::string& path, WeightMode weights);

}  // namespace needle
