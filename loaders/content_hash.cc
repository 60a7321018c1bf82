#include "loaders/content_hash.h"

#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <memory>
#include <vector>

#include "base/error.h"
#include "base/unique_fd.h"
#include "loaders/csr_file.h"
#include "loaders/webgraph_input.h"

namespace needle {
namespace {

constexpr size_t kReadBytes = size_t{1} << 20;

struct Xxh3StateDeleter {
  void operator()(XXH3_state_t* state) const { XXH3_freeState(state); }
};

}  // namespace

uint64_t StreamedContentHash(std::initializer_list<std::string> paths) {
  std::unique_ptr<XXH3_state_t, Xxh3StateDeleter> state(XXH3_createState());
  if (state == nullptr) throw Error(*paths.begin(), "cannot allocate a hash state");
  XXH3_64bits_reset(state.get());
  std::vector<char> buffer(kReadBytes);
  for (const std::string& path : paths) {
    UniqueFd fd = OpenForReading(path);
    uint64_t consumed = 0;
    for (;;) {
      const ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
      if (n == 0) break;
      if (n < 0) {
        if (errno == EINTR) continue;
        throw Error::AtByte(path, consumed, "read failed", errno);
      }
      XXH3_64bits_update(state.get(), buffer.data(), static_cast<size_t>(n));
      consumed += static_cast<uint64_t>(n);
    }
  }
  return XXH3_64bits_digest(state.get());
}

uint64_t FileContentHash(const std::string& path, GraphFormat requested) {
  if (IsWebGraphInput(path, requested)) return WebGraphContentHash(ResolveWebGraph(path));
  if (IsCsrInput(path, requested)) return CsrFile::Open(path).header_hash();
  return StreamedContentHash({path});
}

}  // namespace needle
