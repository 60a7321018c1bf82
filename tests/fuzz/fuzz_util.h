// Helpers shared by the fuzz targets: a private scratch directory (in /dev/shm, so that the
// files a harness writes per input cost no disk I/O), file writing, little-endian reads, and
// FUZZ_CHECK, which turns a broken invariant into a crash that libFuzzer records as a finding.
//
// What counts as a finding in every target: a sanitizer report (ASan, UBSan), a failed
// FUZZ_CHECK, an uncaught exception (anything but needle::Error, and std::invalid_argument
// where a target says so), a timeout or an out-of-memory. A needle::Error is the expected answer
// to a bad input.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "base/error.h"

// Marks a harness function that libFuzzer should not steer by: decoding the input's own
// envelope (zero runs, archives) and recomputing checksums. Without it, inputs that only take
// new paths through the harness (an archive that loses its manifest in a new way) would fill
// the corpus; with it, only the library's coverage counts.
#define NEEDLE_FUZZ_NO_COVERAGE __attribute__((no_sanitize("coverage")))

namespace needle::fuzz {

// Aborts with a message naming the broken invariant: libFuzzer saves the input as a crash.
[[noreturn]] inline void FuzzFail(const char* what, const char* file, int line) {
  std::fprintf(stderr, "\n==FUZZ CHECK FAILED== %s (%s:%d)\n", what, file, line);
  std::fflush(stderr);
  std::abort();
}
#define FUZZ_CHECK(cond, what) \
  ((cond) ? (void)0 : ::needle::fuzz::FuzzFail(what " [" #cond "]", __FILE__, __LINE__))

// A directory of this process's own (NEEDLE_FUZZ_TMP, else /dev/shm, else TMPDIR or /tmp),
// removed when the process exits normally. Several fuzz workers may run at once: the name
// carries the pid.
inline const std::string& ScratchDir() {
  // Never destroyed: the atexit handler below runs after static destructors would have.
  static const std::string* const dir = [] {
    namespace fs = std::filesystem;
    std::string base;
    if (const char* env = std::getenv("NEEDLE_FUZZ_TMP"); env != nullptr && *env != '\0') {
      base = env;
    } else if (fs::is_directory("/dev/shm") && access("/dev/shm", W_OK) == 0) {
      base = "/dev/shm";
    } else {
      const char* tmp = std::getenv("TMPDIR");
      base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    }
    auto* d = new std::string(base + "/needle-fuzz-" + std::to_string(getpid()));
    fs::remove_all(*d);
    fs::create_directories(*d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(ScratchDir(), ec);
    });
    return d;
  }();
  return *dir;
}

// Writes `bytes` to `path` (created or truncated). Aborts on failure: the harness's own I/O
// is not under test.
inline void WriteFileOrDie(const std::string& path, std::span<const uint8_t> bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) FuzzFail(("cannot create " + path).c_str(), __FILE__, __LINE__);
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
    FuzzFail(("cannot write " + path).c_str(), __FILE__, __LINE__);
  }
  if (std::fclose(f) != 0) FuzzFail(("cannot close " + path).c_str(), __FILE__, __LINE__);
}
inline void WriteFileOrDie(const std::string& path, std::string_view text) {
  WriteFileOrDie(path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()),
                                                text.size()));
}

// Little-endian loads and stores at any alignment.
template <class T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
void Store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// Consumes little-endian fields from the front of an input; past its end, reads give 0.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  template <class T>
  T Take() {
    uint8_t buf[sizeof(T)] = {};
    const size_t n = std::min(sizeof(T), size_ - pos_);
    if (n > 0) std::memcpy(buf, data_ + pos_, n);
    pos_ += n;
    return Load<T>(buf);
  }
  std::span<const uint8_t> Rest() const { return {data_ + pos_, size_ - pos_}; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace needle::fuzz
