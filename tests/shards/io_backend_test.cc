// Tests of the shard I/O layer (io/io_backend.h): both backends, with and without direct
// I/O and with short transfers injected, against known pseudo-random bytes and against each
// other; the error contract (path, byte offset, errno); the io_uring → pread fallback; the
// O_DIRECT probe; and the small helpers (names, counters, aligned buffers, eviction).
#include "io/io_backend.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/error.h"
#include "test_util.h"

namespace needle {
namespace {

using ::needle::testing::ReadFile;
using ::needle::testing::WithTempDir;
using ::needle::testing::WriteFile;

// Small on purpose: every batch below has many more requests than the ring has entries.
constexpr unsigned kQueueDepth = 8;

struct Config {
  IoKind kind;
  bool direct;
  bool short_io;
};

std::string ConfigName(const ::testing::TestParamInfo<Config>& info) {
  return std::string(IoKindName(info.param.kind)) + (info.param.direct ? "_direct" : "_buffered") +
         (info.param.short_io ? "_shortio" : "");
}

IoOptions OptionsFor(const Config& c) {
  IoOptions o;
  o.kind = c.kind;
  o.direct = c.direct;
  o.queue_depth = kQueueDepth;
  o.inject_short_io = c.short_io;
  return o;
}

// The backend, or nullptr when this machine refuses io_uring. The tests need io_uring: a
// refusal fails them, unless NEEDLE_TEST_NO_URING=1 declares a machine without it, where the
// refusal itself is what gets checked (a clear Error from kUring) and the test ends there.
std::unique_ptr<IoBackend> MakeBackend(const IoOptions& options) {
  try {
    return IoBackend::Create(options);
  } catch (const Error& e) {
    if (options.kind != IoKind::kUring) throw;
    const char* declared = std::getenv("NEEDLE_TEST_NO_URING");
    if (declared == nullptr || std::string(declared) != "1") {
      ADD_FAILURE() << "io_uring is refused here (" << e.what()
                    << "); set NEEDLE_TEST_NO_URING=1 on a machine without it";
    } else {
      EXPECT_NE(std::string(e.what()).find("io_uring"), std::string::npos) << e.what();
    }
    return nullptr;
  }
}

#define NEEDLE_MAKE_BACKEND(var, options)                \
  std::unique_ptr<IoBackend> var = MakeBackend(options); \
  if (var == nullptr) return

std::vector<std::byte> RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::byte> out(n);
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t word = rng();
    std::memcpy(out.data() + i, &word, std::min<size_t>(8, n - i));
  }
  return out;
}

struct Piece {
  uint64_t offset;
  size_t length;
};

// Cuts [0, size) into pieces of random length (whole blocks of kDirectAlignment when
// `aligned`; `size` then is a multiple of it), in random order.
std::vector<Piece> RandomPieces(uint64_t size, bool aligned, std::mt19937_64& rng) {
  std::vector<Piece> pieces;
  std::uniform_int_distribution<size_t> blocks(1, 16);
  std::uniform_int_distribution<size_t> bytes(1, 70000);
  for (uint64_t at = 0; at < size;) {
    size_t length = aligned ? blocks(rng) * kDirectAlignment : bytes(rng);
    length = static_cast<size_t>(std::min<uint64_t>(length, size - at));
    pieces.push_back({at, length});
    at += length;
  }
  std::shuffle(pieces.begin(), pieces.end(), rng);
  return pieces;
}

std::vector<IoRequest> Requests(const std::vector<Piece>& pieces, const IoFile& file,
                                std::byte* memory, bool write) {
  std::vector<IoRequest> out;
  for (const Piece& p : pieces)
    out.push_back({&file, p.offset, memory + p.offset, p.length, write});
  return out;
}

bool SameBytes(const std::byte* a, const std::byte* b, size_t n) {
  return std::memcmp(a, b, n) == 0;
}

// Runs `f`, which must throw Error; returns it.
template <class F>
std::optional<Error> Thrown(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no needle::Error thrown";
  return std::nullopt;
}

class IoBackendTest : public WithTempDir<::testing::TestWithParam<Config>> {
 protected:
  IoOptions Options() const { return OptionsFor(GetParam()); }
  bool Direct() const { return GetParam().direct; }
};

// The main contract: bytes written through the backend in many batched pieces (more than the
// queue depth, two batches in flight, waited for out of order) come back identical, on disk
// and through the backend, and the counters count each byte once.
TEST_P(IoBackendTest, RoundTripInRandomPieces) {
  NEEDLE_MAKE_BACKEND(io, Options());
  const uint64_t size = Direct() ? 3 * 1024 * 1024 + 5 * kDirectAlignment : 3 * 1024 * 1024 + 12345;
  const std::vector<std::byte> expected = RandomBytes(size, 42);
  AlignedBuffer source(size);
  AlignedBuffer sink(size);
  std::memcpy(source.data(), expected.data(), size);
  std::memset(sink.data(), 0xEE, sink.size());
  AlignedBuffer* both[] = {&source, &sink};
  const bool registered = io->RegisterBuffers(both);
  if (GetParam().kind == IoKind::kPread) {
    EXPECT_FALSE(registered);
  }

  const std::string path = File("values.bin");
  std::mt19937_64 rng(7);
  size_t write_requests = 0;
  {
    IoFile out = io->Open(path, FileKind::kValues, /*writable=*/true, /*create=*/true);
    EXPECT_TRUE(out.writable());
    EXPECT_TRUE(!out.direct() || Direct());
    std::vector<IoRequest> writes =
        Requests(RandomPieces(size, Direct(), rng), out, source.data(), /*write=*/true);
    ASSERT_GT(writes.size(), 4 * kQueueDepth);
    write_requests = writes.size();
    const size_t half = writes.size() / 2;
    const auto first = io->Submit(std::span(writes).first(half));
    const auto second = io->Submit(std::span(writes).subspan(half));
    io->Wait(second);
    io->Wait(first);
    EXPECT_EQ(out.size(), size);
  }
  EXPECT_EQ(io->counters().written[static_cast<size_t>(FileKind::kValues)], size);
  EXPECT_EQ(io->counters().TotalWritten(), size);
  EXPECT_EQ(io->counters().TotalRead(), 0u);
  EXPECT_EQ(io->counters().write_requests, write_requests);  // each counted once, however split
  EXPECT_EQ(io->counters().read_requests, 0u);
  const IoCounters written = io->counters();
  const std::string on_disk = ReadFile(path);
  ASSERT_EQ(on_disk.size(), size);
  EXPECT_TRUE(SameBytes(reinterpret_cast<const std::byte*>(on_disk.data()), expected.data(), size));

  IoFile in = io->Open(path, FileKind::kValues, /*writable=*/false);
  EXPECT_FALSE(in.writable());
  EXPECT_TRUE(!in.direct() || Direct());
  if (Direct() && !in.direct()) {  // still a valid run, of the buffered fallback
    std::cerr << "note: " << dir() << " refuses O_DIRECT; the direct case ran buffered\n";
  }
  const std::vector<IoRequest> reads =
      Requests(RandomPieces(size, Direct(), rng), in, sink.data(), /*write=*/false);
  ASSERT_GT(reads.size(), 4 * kQueueDepth);
  io->Run(reads);
  EXPECT_TRUE(SameBytes(sink.data(), expected.data(), size));
  EXPECT_EQ(io->counters().read[static_cast<size_t>(FileKind::kValues)], size);
  EXPECT_EQ(io->counters().TotalRead(), size);
  EXPECT_EQ(io->counters().TotalWritten(), size);
  EXPECT_EQ(io->counters().read_requests, reads.size());
  IoCounters reading = io->counters();  // what the reads moved: the total less the writes'
  reading -= written;
  EXPECT_EQ(reading.TotalRead(), size);
  EXPECT_EQ(reading.TotalWritten(), 0u);
  EXPECT_EQ(reading.read_requests, reads.size());
  EXPECT_EQ(reading.write_requests, 0u);
  if (registered && in.direct()) {  // fixed buffers serve direct files only
    EXPECT_EQ(io->fixed_buffer_requests(), write_requests + reads.size());
  } else {
    EXPECT_EQ(io->fixed_buffer_requests(), 0u);
  }
  io->UnregisterBuffers();
}

// Plain memory (no AlignedBuffer, nothing registered) works on buffered files, at any
// offset and length; a file opened with O_DIRECT refuses such requests with an Error.
TEST_P(IoBackendTest, UnalignedPiecesOnBufferedFile) {
  NEEDLE_MAKE_BACKEND(io, Options());
  const size_t size = 200000;
  const std::vector<std::byte> expected = RandomBytes(size, 3);
  const std::string path = File("plain.bin");
  WriteFile(path, std::string(reinterpret_cast<const char*>(expected.data()), size));
  IoFile in = io->Open(path, FileKind::kAdjacency, false);
  std::vector<std::byte> got(size, std::byte{0});
  if (in.direct()) {
    const IoRequest unaligned{&in, 1, got.data() + 1, 100, false};
    EXPECT_THROW(io->Run({&unaligned, 1}), Error);
    return;
  }
  std::mt19937_64 rng(11);
  io->Run(Requests(RandomPieces(size, false, rng), in, got.data(), false));
  EXPECT_TRUE(SameBytes(got.data(), expected.data(), size));
  EXPECT_EQ(io->counters().read[static_cast<size_t>(FileKind::kAdjacency)], size);
}

// Many small batches in flight at once, waited for in random order.
TEST_P(IoBackendTest, ManyBatchesWaitedInAnyOrder) {
  NEEDLE_MAKE_BACKEND(io, Options());
  const size_t block = kDirectAlignment;
  const size_t blocks = 96;
  const std::vector<std::byte> expected = RandomBytes(block * blocks, 5);
  const std::string path = File("batches.bin");
  WriteFile(path, std::string(reinterpret_cast<const char*>(expected.data()), expected.size()));
  IoFile in = io->Open(path, FileKind::kDynamic, false);
  AlignedBuffer got(block * blocks);
  std::vector<IoBackend::Ticket> tickets;
  for (size_t b = 0; b < blocks; b += 3) {
    std::vector<IoRequest> batch;
    for (size_t i = b; i < b + 3; ++i) {
      batch.push_back({&in, i * block, got.data() + i * block, block, false});
    }
    tickets.push_back(io->Submit(batch));
  }
  std::mt19937_64 rng(9);
  std::shuffle(tickets.begin(), tickets.end(), rng);
  for (auto t : tickets) io->Wait(t);
  for (auto t : tickets) io->Wait(t);  // a second Wait is a no-op
  io->Wait(0);
  io->Wait(~IoBackend::Ticket{0});
  io->Wait(io->Submit({}));  // an empty batch
  EXPECT_TRUE(SameBytes(got.data(), expected.data(), expected.size()));
  EXPECT_EQ(io->counters().read[static_cast<size_t>(FileKind::kDynamic)], expected.size());
}

// The counters count a batch when it is waited for, not when the kernel finished it: so a
// caller's figures between two Waits do not depend on timing. A batch of writes submitted
// first (and finished first, in any likelihood) is not counted by the Wait of a later batch.
TEST_P(IoBackendTest, CountersCountABatchAtItsWait) {
  NEEDLE_MAKE_BACKEND(io, Options());
  const size_t block = kDirectAlignment, blocks = 64;
  const std::vector<std::byte> bytes = RandomBytes(block * blocks, 3);
  const std::string in_path = File("counted-in.bin");
  WriteFile(in_path, std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  IoFile in = io->Open(in_path, FileKind::kDynamic, false);
  IoFile out = io->Open(File("counted-out.bin"), FileKind::kValues, true, /*create=*/true);
  AlignedBuffer source(block * blocks), got(block * blocks);
  std::memcpy(source.data(), bytes.data(), bytes.size());
  std::vector<IoRequest> writes, reads;
  for (size_t i = 0; i < blocks; ++i) {
    writes.push_back({&out, i * block, source.data() + i * block, block, true});
    reads.push_back({&in, i * block, got.data() + i * block, block, false});
  }
  const IoBackend::Ticket written = io->Submit(writes);
  const IoBackend::Ticket read = io->Submit(reads);
  io->Wait(read);
  EXPECT_EQ(io->counters().TotalRead(), bytes.size());
  EXPECT_EQ(io->counters().TotalWritten(), 0u);
  EXPECT_EQ(io->counters().write_requests, 0u);
  io->Wait(written);
  EXPECT_EQ(io->counters().written[static_cast<size_t>(FileKind::kValues)], bytes.size());
  EXPECT_EQ(io->counters().write_requests, blocks);
  EXPECT_TRUE(SameBytes(got.data(), bytes.data(), bytes.size()));
}

// Reading past the end fails the batch with the path and the byte where the file ended, once
// the batch's other requests are done; the backend then goes on working.
TEST_P(IoBackendTest, ReadPastEndOfFileNamesPathAndOffset) {
  NEEDLE_MAKE_BACKEND(io, Options());
  const size_t size = 2 * kDirectAlignment + 100;  // the last block is partial
  const std::vector<std::byte> expected = RandomBytes(size, 8);
  const std::string path = File("short.bin");
  WriteFile(path, std::string(reinterpret_cast<const char*>(expected.data()), size));
  IoFile in = io->Open(path, FileKind::kOther, false);
  AlignedBuffer buffer(8 * kDirectAlignment);
  std::vector<IoRequest> batch;
  for (int i = 0; i < 12; ++i) batch.push_back({&in, 0, buffer.data(), kDirectAlignment, false});
  batch.push_back(
      {&in, kDirectAlignment, buffer.data() + kDirectAlignment, 4 * kDirectAlignment, false});
  for (int i = 0; i < 12; ++i) batch.push_back({&in, 0, buffer.data(), kDirectAlignment, false});
  const auto ticket = io->Submit(batch);
  std::optional<Error> e = Thrown([&] { io->Wait(ticket); });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->path(), path);
  EXPECT_EQ(e->byte_offset(), size) << e->what();
  EXPECT_NE(std::string(e->what()).find("unexpected end of file"), std::string::npos) << e->what();

  io->Wait(ticket);  // reported once; now unknown
  AlignedBuffer again(2 * kDirectAlignment);
  const IoRequest good{&in, 0, again.data(), 2 * kDirectAlignment, false};
  io->Run({&good, 1});
  EXPECT_TRUE(SameBytes(again.data(), expected.data(), 2 * kDirectAlignment));
}

TEST_P(IoBackendTest, ClosedFileIsAnErrorNamingThePath) {
  NEEDLE_MAKE_BACKEND(io, Options());
  const std::string path = File("closed.bin");
  WriteFile(path, std::string(kDirectAlignment, 'x'));
  IoFile in = io->Open(path, FileKind::kOther, false);
  in.Close();
  AlignedBuffer buffer(kDirectAlignment);
  const IoRequest r{&in, 0, buffer.data(), kDirectAlignment, false};
  std::optional<Error> e = Thrown([&] { io->Submit({&r, 1}); });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->path(), path);
}

// The kernel refuses the read itself (EISDIR): the error carries the path, offset and errno.
TEST_P(IoBackendTest, UnreadableFileIsAnErrorWithErrno) {
  NEEDLE_MAKE_BACKEND(io, Options());
  const std::string path = File("subdir");
  std::filesystem::create_directory(path);
  IoFile dir = io->Open(path, FileKind::kOther, false);
  AlignedBuffer buffer(kDirectAlignment);
  const IoRequest r{&dir, kDirectAlignment, buffer.data(), kDirectAlignment, false};
  std::optional<Error> e = Thrown([&] { io->Run({&r, 1}); });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->path(), path);
  EXPECT_EQ(e->sys_errno(), EISDIR) << e->what();
  EXPECT_NE(std::string(e->what()).find("byte 4096"), std::string::npos) << e->what();

  const std::string missing = File("missing.bin");
  e = Thrown([&] { io->Open(missing, FileKind::kOther, false); });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->path(), missing);
  EXPECT_EQ(e->sys_errno(), ENOENT);
}

TEST_P(IoBackendTest, WriteToReadOnlyFileIsRejected) {
  NEEDLE_MAKE_BACKEND(io, Options());
  const std::string path = File("ro.bin");
  WriteFile(path, std::string(kDirectAlignment, 'x'));
  IoFile in = io->Open(path, FileKind::kOther, false);
  AlignedBuffer buffer(kDirectAlignment);
  const IoRequest r{&in, 0, buffer.data(), kDirectAlignment, true};
  std::optional<Error> e = Thrown([&] { io->Submit({&r, 1}); });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->path(), path);
}

// Direct files take aligned requests only; Submit says so before starting anything.
TEST_P(IoBackendTest, MisalignedRequestOnDirectFile) {
  NEEDLE_MAKE_BACKEND(io, Options());
  const std::string path = File("aligned.bin");
  WriteFile(path, std::string(4 * kDirectAlignment, 'x'));
  IoFile in = io->Open(path, FileKind::kOther, false);
  AlignedBuffer buffer(3 * kDirectAlignment);
  uint64_t bytes_read = 0;
  const IoRequest misaligned[] = {
      {&in, 100, buffer.data(), kDirectAlignment, false},
      {&in, 0, buffer.data() + 8, kDirectAlignment, false},
      {&in, 0, buffer.data(), 1000, false},
  };
  for (const IoRequest& bad : misaligned) {
    const IoRequest batch[] = {{&in, 0, buffer.data(), kDirectAlignment, false}, bad};
    if (in.direct()) {
      std::optional<Error> e = Thrown([&] { io->Submit(batch); });
      ASSERT_TRUE(e.has_value());
      EXPECT_EQ(e->path(), path);
      EXPECT_NE(std::string(e->what()).find("not aligned"), std::string::npos) << e->what();
    } else {
      io->Run(batch);  // buffered files take anything
      bytes_read += batch[0].length + batch[1].length;
    }
  }
  EXPECT_EQ(io->counters().TotalRead(), bytes_read);
}

// Destroying a backend with reads and writes in flight waits for what the kernel has, and
// drops the rest; buffers are freed afterwards (ASan watches the build-address run).
TEST_P(IoBackendTest, DestructorWithRequestsInFlight) {
  const size_t block = 16 * kDirectAlignment;
  const size_t blocks = 64;
  const std::string path = File("inflight.bin");
  WriteFile(path, std::string(block * blocks, 'y'));
  for (bool write : {false, true}) {
    AlignedBuffer buffer(block * blocks);
    std::memset(buffer.data(), 'z', buffer.size());
    NEEDLE_MAKE_BACKEND(io, Options());
    IoFile file = io->Open(path, FileKind::kOther, /*writable=*/true);
    std::vector<IoRequest> batch;
    for (size_t i = 0; i < blocks; ++i) {
      batch.push_back({&file, i * block, buffer.data() + i * block, block, write});
    }
    io->Submit(batch);
    io->Submit(batch);
    io.reset();
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllBackends, IoBackendTest,
    ::testing::Values(Config{IoKind::kUring, false, false}, Config{IoKind::kUring, false, true},
                      Config{IoKind::kUring, true, false}, Config{IoKind::kUring, true, true},
                      Config{IoKind::kPread, false, false}, Config{IoKind::kPread, false, true},
                      Config{IoKind::kPread, true, false}, Config{IoKind::kPread, true, true}),
    ConfigName);

class IoBackendPairTest : public WithTempDir<> {};

// io_uring and pread read the same bytes from the same file, and each reads what the other
// wrote.
TEST_F(IoBackendPairTest, BothBackendsGiveIdenticalBytes) {
  IoOptions uring_options;
  uring_options.kind = IoKind::kUring;
  uring_options.queue_depth = kQueueDepth;
  NEEDLE_MAKE_BACKEND(uring, uring_options);
  IoOptions pread_options = uring_options;
  pread_options.kind = IoKind::kPread;
  std::unique_ptr<IoBackend> pread = IoBackend::Create(pread_options);
  EXPECT_EQ(uring->name(), "io_uring");
  EXPECT_EQ(pread->name(), "pread");

  const size_t size = 1024 * 1024 + 777;
  const std::vector<std::byte> expected = RandomBytes(size, 99);
  AlignedBuffer source(size);
  std::memcpy(source.data(), expected.data(), size);
  std::mt19937_64 rng(1);
  IoBackend* writers[] = {uring.get(), pread.get()};
  for (IoBackend* writer : writers) {
    const std::string path = File(std::string(writer->name()) + ".bin");
    {
      IoFile out = writer->Open(path, FileKind::kVertices, true, true);
      writer->Run(Requests(RandomPieces(size, false, rng), out, source.data(), true));
    }
    AlignedBuffer a(size);
    AlignedBuffer b(size);
    IoFile in_a = uring->Open(path, FileKind::kVertices, false);
    IoFile in_b = pread->Open(path, FileKind::kVertices, false);
    uring->Run(Requests(RandomPieces(size, false, rng), in_a, a.data(), false));
    pread->Run(Requests(RandomPieces(size, false, rng), in_b, b.data(), false));
    EXPECT_TRUE(SameBytes(a.data(), b.data(), size)) << "written by " << writer->name();
    EXPECT_TRUE(SameBytes(a.data(), expected.data(), size)) << "written by " << writer->name();
  }
  EXPECT_EQ(uring->counters().read, pread->counters().read);
  EXPECT_EQ(uring->counters().read[static_cast<size_t>(FileKind::kVertices)], 2 * size);
}

// On a direct file a request inside a registered buffer goes through it, one elsewhere takes
// the plain path; a buffered file never uses them.
TEST_F(IoBackendPairTest, RegisteredBuffersServeDirectRequestsInsideThem) {
  IoOptions options;
  options.kind = IoKind::kUring;
  options.direct = true;
  options.queue_depth = kQueueDepth;
  NEEDLE_MAKE_BACKEND(io, options);
  const size_t size = 8 * kDirectAlignment;
  const std::vector<std::byte> expected = RandomBytes(size, 4);
  const std::string path = File("fixed.bin");
  WriteFile(path, std::string(reinterpret_cast<const char*>(expected.data()), size));
  AlignedBuffer big(2 * size);
  AlignedBuffer first(kDirectAlignment);
  AlignedBuffer registered(2 * kDirectAlignment);
  AlignedBuffer* list[] = {&first};
  IoFile in = io->Open(path, FileKind::kOther, false);
  if (!io->RegisterBuffers(list) || !in.direct()) {
    // Refused (RLIMIT_MEMLOCK) or a file system without O_DIRECT: requests take the plain
    // path, and still read the right bytes.
    const IoRequest plain{&in, 0, big.data(), size, false};
    io->Run({&plain, 1});
    EXPECT_EQ(io->fixed_buffer_requests(), 0u);
    EXPECT_TRUE(SameBytes(big.data(), expected.data(), size));
    return;
  }
  AlignedBuffer* replacement[] = {&registered};
  ASSERT_TRUE(io->RegisterBuffers(replacement));
  const IoRequest requests[] = {
      {&in, 0, registered.data() + kDirectAlignment, kDirectAlignment, false},  // inside
      {&in, 0, big.data(), size, false},                                        // elsewhere
      {&in, 0, first.data(), kDirectAlignment, false},  // no longer registered
  };
  io->Run(requests);
  EXPECT_EQ(io->fixed_buffer_requests(), 1u);
  EXPECT_TRUE(SameBytes(registered.data() + kDirectAlignment, expected.data(), kDirectAlignment));
  EXPECT_TRUE(SameBytes(first.data(), expected.data(), kDirectAlignment));
  EXPECT_TRUE(SameBytes(big.data(), expected.data(), size));

  IoFile buffered = IoBackend::Create(IoOptions{})->Open(path, FileKind::kOther, false);
  const IoRequest plain{&buffered, 0, registered.data(), kDirectAlignment, false};
  io->Run({&plain, 1});
  EXPECT_EQ(io->fixed_buffer_requests(), 1u);
  io->UnregisterBuffers();

  IoOptions off = options;
  off.register_buffers = false;
  NEEDLE_MAKE_BACKEND(unused, off);
  EXPECT_FALSE(unused->RegisterBuffers(list));
}

TEST(IoBackendCreateTest, InjectedSetupFailureFallsBackOrThrows) {
  IoOptions options;
  options.inject_setup_failure = true;
  std::string note;
  std::unique_ptr<IoBackend> io = IoBackend::Create(options, &note);
  EXPECT_EQ(io->name(), "pread");
  EXPECT_EQ(note, "io_uring unavailable (Operation not permitted); using pread");

  options.kind = IoKind::kUring;
  try {
    IoBackend::Create(options, &note);
    ADD_FAILURE() << "kUring with a refused ring must throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.sys_errno(), EPERM);
    EXPECT_NE(std::string(e.what()).find("io_uring"), std::string::npos) << e.what();
  }

  options.kind = IoKind::kPread;
  note.clear();
  EXPECT_EQ(IoBackend::Create(options, &note)->name(), "pread");
  EXPECT_EQ(note, "");  // nothing fell back
}

TEST(IoBackendCreateTest, AutoPicksUringWhereAvailable) {
  std::string note;
  std::unique_ptr<IoBackend> io = IoBackend::Create(IoOptions{}, &note);
  if (io->name() == "pread") {
    EXPECT_NE(note.find("io_uring unavailable"), std::string::npos);
  } else {
    EXPECT_EQ(io->name(), "io_uring");
    EXPECT_EQ(note, "");
  }
}

TEST(IoBackendCreateTest, QueueDepthOutOfRange) {
  IoOptions options;
  options.queue_depth = 0;
  EXPECT_THROW(IoBackend::Create(options), std::invalid_argument);
  options.queue_depth = 40000;
  EXPECT_THROW(IoBackend::Create(options), std::invalid_argument);
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class IoBackendEnvTest : public WithTempDir<> {};

TEST_F(IoBackendEnvTest, EnvironmentInjectsSetupFailureAndShortIo) {
  ScopedEnv env("NEEDLE_IO_INJECT", "short-io,setup-fail");
  std::string note;
  IoOptions options;
  options.queue_depth = kQueueDepth;
  std::unique_ptr<IoBackend> io = IoBackend::Create(options, &note);
  EXPECT_EQ(io->name(), "pread");
  EXPECT_NE(note.find("io_uring unavailable"), std::string::npos);
  EXPECT_TRUE(io->options().inject_setup_failure);
  EXPECT_TRUE(io->options().inject_short_io);
  options.kind = IoKind::kUring;
  EXPECT_THROW(IoBackend::Create(options), Error);

  // The short transfers still give the right bytes.
  const size_t size = 300000;
  const std::vector<std::byte> expected = RandomBytes(size, 12);
  const std::string path = File("env.bin");
  WriteFile(path, std::string(reinterpret_cast<const char*>(expected.data()), size));
  IoFile in = io->Open(path, FileKind::kOther, false);
  std::vector<std::byte> got(size);
  const IoRequest r{&in, 0, got.data(), size, false};
  io->Run({&r, 1});
  EXPECT_TRUE(SameBytes(got.data(), expected.data(), size));
}

TEST_F(IoBackendEnvTest, EnvironmentShortIoAlone) {
  ScopedEnv env("NEEDLE_IO_INJECT", "short-io");
  IoOptions options;
  options.kind = IoKind::kUring;
  NEEDLE_MAKE_BACKEND(io, options);
  EXPECT_TRUE(io->options().inject_short_io);
  EXPECT_FALSE(io->options().inject_setup_failure);
}

// A direct file's alignment is the file system's (a power of two up to 4 KiB; 512 B on most
// disks), raised by IoOptions::direct_alignment; requests aligned to it work and others are
// refused. A buffered file takes any request: alignment 1.
TEST_P(IoBackendTest, DirectAlignmentIsTheFileSystemsOrTheOptionsIfLarger) {
  const std::string path = File("aligned.bin");
  const std::vector<std::byte> expected = RandomBytes(4 * kDirectAlignment, 13);
  WriteFile(path, std::string(reinterpret_cast<const char*>(expected.data()), expected.size()));
  for (unsigned at_least : {0u, 4096u}) {
    SCOPED_TRACE("direct_alignment " + std::to_string(at_least));
    IoOptions options = Options();
    options.direct_alignment = at_least;
    NEEDLE_MAKE_BACKEND(io, options);
    IoFile in = io->Open(path, FileKind::kOther, false);
    if (!in.direct()) {
      EXPECT_EQ(in.alignment(), 1u);
      continue;
    }
    const uint32_t a = in.alignment();
    EXPECT_GE(a, std::max(at_least, 1u));
    EXPECT_LE(a, kDirectAlignment);
    EXPECT_EQ(a & (a - 1), 0u) << a << " is not a power of two";
    AlignedBuffer got(kDirectAlignment);
    const IoRequest aligned{&in, a, got.data(), a, false};
    io->Run({&aligned, 1});
    EXPECT_TRUE(SameBytes(got.data(), expected.data() + a, a));
    if (a > 1) {
      const IoRequest half{&in, a / 2, got.data(), a, false};
      EXPECT_THROW(io->Run({&half, 1}), Error);
    }
  }
}

TEST(IoBackendOptionsTest, DirectAlignmentOtherThanAPowerOfTwoUpTo4KiBIsRefused) {
  for (unsigned bad : {3u, 768u, 8192u}) {
    IoOptions options;
    options.kind = IoKind::kPread;
    options.direct_alignment = bad;
    EXPECT_THROW(IoBackend::Create(options), std::invalid_argument) << bad;
  }
}

// proc refuses O_DIRECT with EINVAL: the probe falls back to a buffered open that works.
TEST(IoBackendProbeTest, ProcFallsBackToBuffered) {
  for (IoKind kind : {IoKind::kUring, IoKind::kPread}) {
    IoOptions options;
    options.kind = kind;
    options.direct = true;
    NEEDLE_MAKE_BACKEND(io, options);
    IoFile f = io->Open("/proc/version", FileKind::kOther, false);
    EXPECT_FALSE(f.direct());
    char got[5] = {};
    const IoRequest r{&f, 0, got, sizeof got, false};
    io->Run({&r, 1});
    EXPECT_EQ(std::string(got, sizeof got), "Linux") << io->name();
  }
}

// tmpfs refused O_DIRECT before Linux 6.6 and accepts it since: either way the probe ends
// with a file that works, and direct() tells which.
// Without a writable /dev/shm the probe runs in the temporary directory instead.
TEST(IoBackendProbeTest, TmpfsOpensOneWayOrTheOther) {
  const bool shm = std::filesystem::is_directory("/dev/shm") && access("/dev/shm", W_OK) == 0;
  const std::string dir = shm ? "/dev/shm" : std::filesystem::temp_directory_path().string();
  const std::string path = dir + "/needle_io_probe_" + std::to_string(getpid());
  for (IoKind kind : {IoKind::kUring, IoKind::kPread}) {
    IoOptions options;
    options.kind = kind;
    options.direct = true;
    NEEDLE_MAKE_BACKEND(io, options);
    const std::vector<std::byte> expected = RandomBytes(4 * kDirectAlignment, 21);
    AlignedBuffer buffer(expected.size());
    std::memcpy(buffer.data(), expected.data(), expected.size());
    {
      IoFile out = io->Open(path, FileKind::kOther, true, true);
      const IoRequest w{&out, 0, buffer.data(), expected.size(), true};
      io->Run({&w, 1});
      ::testing::Test::RecordProperty("tmpfs_direct", out.direct() ? "yes" : "no");
    }
    std::memset(buffer.data(), 0, buffer.size());
    IoFile in = io->Open(path, FileKind::kOther, false);
    const IoRequest r{&in, 0, buffer.data(), expected.size(), false};
    io->Run({&r, 1});
    EXPECT_TRUE(SameBytes(buffer.data(), expected.data(), expected.size())) << io->name();
    std::filesystem::remove(path);
  }
}

TEST(IoNamesTest, KindsRoundTrip) {
  for (IoKind k : {IoKind::kAuto, IoKind::kUring, IoKind::kPread}) {
    EXPECT_EQ(ParseIoKind(IoKindName(k)), k);
  }
  EXPECT_EQ(ParseIoKind("io_uring"), IoKind::kUring);
  EXPECT_THROW(ParseIoKind("mmap"), std::invalid_argument);
  EXPECT_THROW(ParseIoKind(""), std::invalid_argument);
  EXPECT_EQ(FileKindName(FileKind::kAdjacency), "adjacency");
  EXPECT_EQ(FileKindName(FileKind::kValues), "values");
  EXPECT_EQ(FileKindName(FileKind::kDynamic), "dynamic");
  EXPECT_EQ(FileKindName(FileKind::kVertices), "vertices");
  EXPECT_EQ(FileKindName(FileKind::kOther), "other");
  EXPECT_EQ(FileKindName(FileKind::kScatterIndex), "scatter_index");
  EXPECT_EQ(FileKindName(FileKind::kWeights), "weights");
  EXPECT_EQ(FileKindName(FileKind::kWindowIndex), "window_index");
  EXPECT_EQ(FileKindName(FileKind::kDegrees), "degrees");
  EXPECT_EQ(FileKindName(FileKind::kBuckets), "buckets");
  for (int k = 0; k < static_cast<int>(FileKind::kCount); ++k) {  // every kind has a name
    EXPECT_NE(FileKindName(static_cast<FileKind>(k)), "?") << k;
  }
}

TEST(IoCountersTest, AddAndTotal) {
  IoCounters a;
  a.read[0] = 1;
  a.read[2] = 10;
  a.written[1] = 100;
  IoCounters b;
  b.read[0] = 1000;
  b.written[4] = 10000;
  a += b;
  EXPECT_EQ(a.TotalRead(), 1011u);
  EXPECT_EQ(a.TotalWritten(), 10100u);
  EXPECT_EQ(a.read[0], 1001u);
}

TEST(AlignedBufferTest, AlignedRoundedAndMoveOnly) {
  AlignedBuffer empty;
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(AlignedBuffer(0).size(), 0u);
  AlignedBuffer a(5000);
  EXPECT_EQ(a.size(), 8192u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % kDirectAlignment, 0u);
  std::byte* p = a.data();
  AlignedBuffer b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
  AlignedBuffer c(1);
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.size(), 8192u);
  static_assert(!std::is_copy_constructible_v<AlignedBuffer>);

  EXPECT_EQ(AlignUp(0), 0u);
  EXPECT_EQ(AlignUp(1), 4096u);
  EXPECT_EQ(AlignUp(4096), 4096u);
  EXPECT_EQ(AlignDown(4095), 0u);
  EXPECT_EQ(AlignDown(8193), 8192u);
}

class EvictTest : public WithTempDir<> {};

// After eviction no page of the file is resident (mincore on a mapping of it).
TEST_F(EvictTest, DropsCachedPages) {
  const std::string path = File("evict.bin");
  const size_t size = 64 * kDirectAlignment;
  WriteFile(path, std::string(size, 'e'));
  ReadFile(path);  // cached, and dirty until the fsync inside EvictFromPageCache
  EvictFromPageCache(path);
  UniqueFd fd = OpenForReading(path);
  void* map = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd.get(), 0);
  ASSERT_NE(map, MAP_FAILED);
  std::vector<unsigned char> resident(size / kDirectAlignment);
  ASSERT_EQ(mincore(map, size, resident.data()), 0);
  munmap(map, size);
  EXPECT_EQ(std::count_if(resident.begin(), resident.end(), [](unsigned char v) { return v & 1; }),
            0);

  const std::string missing = File("missing.bin");
  try {
    EvictFromPageCache(missing);
    ADD_FAILURE() << "no error for a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(e.path(), missing);
    EXPECT_EQ(e.sys_errno(), ENOENT);
  }
}

}  // namespace
}  // namespace needle
