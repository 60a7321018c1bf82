// HugeArray<T>: a move-only array of trivially copyable T backed by anonymous mmap.
//
// It does not initialise its elements (first touch happens where the data is written, so
// parallel writers place pages near themselves), it can reserve far more address space than
// it uses (MAP_NORESERVE; untouched pages cost nothing) and it grows in place or by mremap
// without copying. Used for edge buffers and CSR arrays, which are too big for std::vector's
// zero-initialisation and doubling copies. MapFile() makes one a private (copy-on-write)
// view of a page-aligned file region instead: reads share the page cache, nothing is copied.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

namespace needle {

// ThreadSanitizer does not intercept mremap (google/sanitizers#1099): the shadow of a range
// mremap moved away from is not cleared, and a later mapping at that address is reported as
// racing with the old one's writes. Under TSan, arrays grow by a fresh mmap and a copy.
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kGrowByMremap = false;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kGrowByMremap = false;
#else
inline constexpr bool kGrowByMremap = true;
#endif
#else
inline constexpr bool kGrowByMremap = true;
#endif

template <class T>
class HugeArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  HugeArray() = default;
  explicit HugeArray(size_t size) { Resize(size); }
  ~HugeArray() { Free(); }

  HugeArray(HugeArray&& other) noexcept { Take(other); }
  HugeArray& operator=(HugeArray&& other) noexcept {
    if (this != &other) {
      Free();
      Take(other);
    }
    return *this;
  }

  // `count` elements of the file open as `fd`, starting at `offset` (a multiple of the page
  // size), mapped MAP_PRIVATE. Returns false (leaving the array empty) if mmap fails.
  bool MapFile(int fd, uint64_t offset, size_t count) {
    Free();
    if (count == 0) return true;
    size_t bytes = RoundToPage(count * sizeof(T));
    void* p =
        mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, static_cast<off_t>(offset));
    if (p == MAP_FAILED) return false;
    madvise(p, bytes, MADV_WILLNEED);
    data_ = static_cast<T*>(p);
    size_ = capacity_ = count;
    mapped_bytes_ = bytes;
    file_backed_ = true;
    return true;
  }
  HugeArray(const HugeArray&) = delete;
  HugeArray& operator=(const HugeArray&) = delete;

  // Makes room for `capacity` elements without touching them. Keeps the contents.
  void Reserve(size_t capacity) {
    if (capacity <= capacity_) return;
    size_t bytes = RoundToPage(capacity * sizeof(T));
    void* p;
    if (file_backed_ || (!kGrowByMremap && data_ != nullptr)) {
      // A file view cannot grow (and under TSan nothing is mremapped): move the contents to
      // fresh anonymous memory.
      HugeArray grown;
      grown.Reserve(capacity);
      // mremap keeps every mapped element, also those past the size that a writer filled
      // before its Resize(): so does the copy, except from a file view (only its size).
      std::copy_n(data_, file_backed_ ? size_ : capacity_, grown.data_);
      grown.size_ = size_;
      *this = std::move(grown);
      return;
    }
    if (data_ == nullptr) {
      p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
               -1, 0);
    } else {
      p = mremap(data_, mapped_bytes_, bytes, MREMAP_MAYMOVE);
    }
    if (p == MAP_FAILED) throw std::bad_alloc();
    // Transparent huge pages: these arrays are read and written at random (CSR scatter,
    // degree counts); 2 MiB pages cut the TLB misses and page faults by 512x.
    if (bytes >= kHugePageBytes) madvise(p, bytes, MADV_HUGEPAGE);
    data_ = static_cast<T*>(p);
    capacity_ = bytes / sizeof(T);
    mapped_bytes_ = bytes;
  }

  // Sets the size; new elements are uninitialised (zero if their pages were never touched).
  void Resize(size_t size) {
    if (size > capacity_) Reserve(size);
    size_ = size;
  }

  // Grows capacity geometrically so that `extra` more elements fit after size().
  void EnsureRoom(size_t extra) {
    if (size_ + extra > capacity_) Reserve(std::max(size_ + extra, capacity_ * 2));
  }
  void PushBackUnchecked(const T& value) { data_[size_++] = value; }
  void Clear() { size_ = 0; }

  // Gives unused pages back to the kernel (after a shrink).
  void ReleaseUnused() {
    size_t used = RoundToPage(size_ * sizeof(T));
    if (!file_backed_ && mapped_bytes_ > used) {
      madvise(reinterpret_cast<char*>(data_) + used, mapped_bytes_ - used, MADV_DONTNEED);
    }
  }
  bool file_backed() const { return file_backed_; }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  std::span<T> span() { return {data_, size_}; }
  std::span<const T> span() const { return {data_, size_}; }

 private:
  static constexpr size_t kHugePageBytes = size_t{2} << 20;
  static size_t RoundToPage(size_t bytes) {
    constexpr size_t kPage = 4096;
    return (std::max<size_t>(bytes, 1) + kPage - 1) / kPage * kPage;
  }
  void Free() {
    if (data_ != nullptr) munmap(data_, mapped_bytes_);
    data_ = nullptr;
    size_ = capacity_ = mapped_bytes_ = 0;
    file_backed_ = false;
  }
  void Take(HugeArray& other) {
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
    file_backed_ = std::exchange(other.file_backed_, false);
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  size_t mapped_bytes_ = 0;
  bool file_backed_ = false;
};

}  // namespace needle
