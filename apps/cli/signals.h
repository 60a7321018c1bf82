// Interruption: SIGINT, SIGTERM and SIGHUP end needle cleanly. They are blocked in every
// thread and waited for by a thread of their own, which removes the temporaries the process
// is writing (base/cleanup.h: outputs under temporary names, a shard set being built, a
// run's working directory), says so on stderr, and exits with 128 + the signal (130 for
// SIGINT, 143 for SIGTERM). A signal the parent set to be ignored stays ignored. SIGPIPE is
// ignored, so that a closed pipe is a write error.
#pragma once

namespace needle::cli {

// Call first in main(), before any other thread exists (threads inherit the blocked set).
void HandleInterruptions();

}  // namespace needle::cli
