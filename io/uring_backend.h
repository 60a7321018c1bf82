// The io_uring backend (private to io/io_backend.cc).
#pragma once

#include <memory>

#include "io/io_backend.h"

namespace needle {

// The backend, or nullptr with *setup_errno set when the ring cannot be set up (refused by
// the kernel, or options.inject_setup_failure, which reads as EPERM).
std::unique_ptr<IoBackend> MakeUringBackend(const IoOptions& options, int* setup_errno);

}  // namespace needle
