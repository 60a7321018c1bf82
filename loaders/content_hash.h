// FileContentHash: a fingerprint of a graph file's whole content, for noticing that an input
// changed although its size and modification time did not (a same-size edit with the mtime
// set back). It is the value GraphReader::content_hash() reports, computed without parsing:
//
//   .csr (decided as GraphReader::Open decides, IsCsrInput): the header's header_hash, after
//        CsrFile::Open's checks (magic, version, checksum, layout). It is XXH3-64 of the header
//        and the chunk table, and the table holds XXH3-64 of every chunk of every section, so
//        it covers every byte of the file; reading it costs the header and the table only.
//   text (plain, gzip or xz): XXH3-64 of every byte of the file as stored (the compressed
//        bytes for gzip and xz), streamed in 1 MiB reads.
//   WebGraph BVGraph (IsWebGraphInput, loaders/webgraph_input.h): XXH3-64 streamed over every
//        byte of X.graph and then of X.properties (X.offsets is derived data and left out).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <string>

#include "loaders/format.h"

namespace needle {

// Throws Error naming the file (unreadable, or a .csr that fails CsrFile::Open's checks).
uint64_t FileContentHash(const std::string& path, GraphFormat requested);

// XXH3-64 streamed over byte ranges and files, in the order they are added: the same value
// for the same bytes whether they come from memory or from a file (1 MiB reads).
class ContentHasher {
 public:
  ContentHasher();
  ~ContentHasher();
  ContentHasher(const ContentHasher&) = delete;
  ContentHasher& operator=(const ContentHasher&) = delete;
  void Add(std::string_view bytes);
  void AddFile(const std::string& path);  // throws Error naming the file
  uint64_t Digest() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace needle
