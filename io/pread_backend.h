// The pread/pwrite backend (private to io/io_backend.cc): the fallback where io_uring is
// refused. One worker thread per backend executes the submitted batches in order.
#pragma once

#include <memory>

#include "io/io_backend.h"

namespace needle {

std::unique_ptr<IoBackend> MakePreadBackend(const IoOptions& options);

}  // namespace needle
