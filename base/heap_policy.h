// KeepLargeBlocksMapped: every block of 128 KiB or more that malloc hands out is its own
// mapping, given back to the system when it is freed — for the life of the process.
//
// That is glibc's default until the process frees its first such block: glibc then raises the
// threshold to that block's size (up to 32 MiB), so that later blocks below it come from the
// heap, where a freed block stays resident for the next allocation to reuse, or not, as the
// heap's holes allow. A process that runs the engine more than once grew that way: five
// PageRank runs at --memory 143M one after another peaked at 163 MB, one alone at 122 MB
// (bench/RESULTS.md). Pinned, the threshold stays where it starts, and each run's peak
// is its own. The engine and the sharder call it before they allocate; it is glibc's own
// setting (mallopt M_MMAP_THRESHOLD), so other allocators and the sanitizers' are left alone.
#pragma once

namespace needle {

// Idempotent and thread-safe; does nothing where malloc is not glibc's.
void KeepLargeBlocksMapped();

}  // namespace needle
