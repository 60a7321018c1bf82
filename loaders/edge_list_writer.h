// Writing graphs as text edge lists: "u<TAB>v\n" or "u<TAB>v<TAB>w\n", 0-based ids.
//
// Lines are formatted in parallel (per-thread buffers, written in order) into an OutputFile
// (output_file.h): a regular file appears only when complete, a device or pipe is written as
// it goes. `comment`, when not empty, becomes a leading "# ..." line.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "io/output_file.h"
#include "loaders/csr.h"
#include "loaders/edge_list.h"

namespace needle {

// Called after every batch of edges written: edges done, edges in all (may be empty).
using WriteProgress = std::function<void(uint64_t done, uint64_t total)>;

// Edges in input order. Writes into `out` (the caller commits it).
void WriteEdgeListText(const EdgeList& edges, OutputFile& out, const std::string& comment = "",
                       int threads = 0, const WriteProgress& progress = {});
// Edges in CSR order (sorted by source).
void WriteCsrAsEdgeListText(const Csr& csr, OutputFile& out, const std::string& comment = "",
                            int threads = 0, const WriteProgress& progress = {});
// The same into a new file at `path`, committed when complete.
void WriteEdgeListText(const EdgeList& edges, const std::string& path,
                       const std::string& comment = "", int threads = 0);
void WriteCsrAsEdgeListText(const Csr& csr, const std::string& path,
                            const std::string& comment = "", int threads = 0);

}  // namespace needle
