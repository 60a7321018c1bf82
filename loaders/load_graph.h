// LoadGraph: any supported graph file into an in-memory CSR, in one call.
#pragma once

#include <string>

#include "loaders/csr.h"
#include "loaders/format.h"
#include "loaders/text_reader.h"

namespace needle {

struct LoadOptions {
  ReadOptions read;
  CsrOptions csr;
};

struct LoadReport {
  GraphFormat format = GraphFormat::kAuto;
  Compression compression = Compression::kNone;
  std::string description;  // e.g. "mtx coordinate real symmetric", "csr v1"
  uint64_t file_bytes = 0;
  uint64_t text_bytes = 0;  // decompressed text (0 for .csr)
  CsrReport csr;
  double read_seconds = 0;   // file → edges (or .csr load)
  double build_seconds = 0;  // edges → CSR
};

// Throws Error for unreadable or malformed input.
Csr LoadGraph(const std::string& path, const LoadOptions& options, LoadReport* report = nullptr);

// The edges of a CSR as an EdgeList (one segment), to rebuild it with other CsrOptions.
EdgeList EdgeListFromCsr(const Csr& csr);

}  // namespace needle
