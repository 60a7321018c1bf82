#include "loaders/content_hash.h"

#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <memory>
#include <new>
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

struct ContentHasher::State {
  std::unique_ptr<XXH3_state_t, Xxh3StateDeleter> xxh{XXH3_createState()};
};

ContentHasher::ContentHasher() : state_(std::make_unique<State>()) {
  if (state_->xxh == nullptr) throw std::bad_alloc();
  XXH3_64bits_reset(state_->xxh.get());
}

ContentHasher::~ContentHasher() = default;

void ContentHasher::Add(std::string_view bytes) {
  XXH3_64bits_update(state_->xxh.get(), bytes.data(), bytes.size());
}

void ContentHasher::AddFile(const std::string& path) {
  UniqueFd fd = OpenForReading(path);
  std::vector<char> buffer(kReadBytes);
  uint64_t consumed = 0;
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
    if (n == 0) return;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error::AtByte(path, consumed, "read failed", errno);
    }
    Add({buffer.data(), static_cast<size_t>(n)});
    consumed += static_cast<uint64_t>(n);
  }
}

uint64_t ContentHasher::Digest() const { return XXH3_64bits_digest(state_->xxh.get()); }

uint64_t FileContentHash(const std::string& path, GraphFormat requested) {
  if (IsWebGraphInput(path, requested)) return WebGraphContentHash(ResolveWebGraph(path));
  if (IsCsrInput(path, requested)) return CsrFile::Open(path).header_hash();
  ContentHasher hasher;
  hasher.AddFile(path);
  return hasher.Digest();
}

}  // namespace needle
