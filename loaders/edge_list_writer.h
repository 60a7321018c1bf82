// Writing graphs as text edge lists: "u<TAB>v\n" or "u<TAB>v<TAB>w\n", 0-based ids.
//
// Lines are formatted in parallel (per-thread buffers, written in order), the file is written
// under a temporary name and renamed into place, so a failed write leaves nothing behind.
// `comment`, when not empty, becomes a leading "# ..." line.
#pragma once

#include <string>

#include "loaders/csr.h"
#include "loaders/edge_list.h"

namespace needle {

// Edges in input order.
void WriteEdgeListText(const EdgeList& edges, const std::string& path,
                       const std::string& comment = "", int threads = 0);
// Edges in CSR order (sorted by source).
void WriteCsrAsEdgeListText(const Csr& csr, const std::string& path,
                            const std::string& comment = "", int threads = 0);

}  // namespace needle
