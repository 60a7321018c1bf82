// The block API (GraphReader) over a WebGraph BVGraph: edges by source, successors ascending,
// the order of the BVGraph itself (and of the LAW's ASCII arc lists).
//
// Counts are known at open (the properties); the content hash too (XXH3 of X.graph and
// X.properties, webgraph_input.h: one pass over the file at open). A read that continues
// where the previous one ended keeps decoding; one that starts elsewhere jumps there with
// X.offsets (the node holding the edge is found through a sample of every 1024th node's first
// edge, built from the outdegrees on the first jump) or, without it, decodes again from node 0.
// A BVGraph is unweighted: asking for weights is an error.
#pragma once

#include <memory>
#include <string>

#include "loaders/graph_reader.h"

namespace needle {

// Opens `path` (X, X.graph or X.properties) as a BVGraph block reader. Throws Error.
std::unique_ptr<GraphReader> OpenWebGraphReader(const std::string& path,
                                                const GraphReaderOptions& options);

}  // namespace needle
