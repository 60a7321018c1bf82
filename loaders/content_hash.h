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
#include <initializer_list>
#include <string>

#include "loaders/format.h"

namespace needle {

// Throws Error naming the file (unreadable, or a .csr that fails CsrFile::Open's checks).
uint64_t FileContentHash(const std::string& path, GraphFormat requested);

// XXH3-64 of every byte of `paths` (at least one), one after another, in 1 MiB reads.
// Throws Error naming the file that cannot be read.
uint64_t StreamedContentHash(std::initializer_list<std::string> paths);

}  // namespace needle
