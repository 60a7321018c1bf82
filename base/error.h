// Typed errors for everything that reads or writes graph files.
//
// Library code throws needle::Error; only main() turns it into a message and an exit code.
// what() is one line a person can act on: "PATH:LINE: message", "PATH: byte N: message" or
// "PATH: message", with strerror(errno) appended when a system call failed. Control bytes in
// the path or the message (a NUL, a newline, a terminal escape copied from bad input) appear
// in what() and message() as \xNN (\t, \n, \r for those), so the line can be neither cut
// short nor turned into terminal commands.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace needle {

class Error : public std::runtime_error {
 public:
  static constexpr uint64_t kNoPosition = UINT64_MAX;

  // A problem with the file as a whole (missing, empty, wrong magic...).
  Error(std::string path, const std::string& message, int sys_errno = 0);

  static Error AtLine(std::string path, uint64_t line, const std::string& message);
  static Error AtByte(std::string path, uint64_t byte_offset, const std::string& message,
                      int sys_errno = 0);

  const std::string& path() const { return path_; }
  uint64_t line() const { return line_; }         // 1-based; kNoPosition when not a text line
  uint64_t byte_offset() const { return byte_; }  // kNoPosition when not a byte position
  int sys_errno() const { return errno_; }
  const std::string& message() const { return message_; }

 private:
  Error(std::string path, uint64_t line, uint64_t byte, const std::string& message, int sys_errno);
  static std::string Format(const std::string& path, uint64_t line, uint64_t byte,
                            const std::string& message, int sys_errno);

  std::string path_;
  uint64_t line_ = kNoPosition;
  uint64_t byte_ = kNoPosition;
  int errno_ = 0;
  std::string message_;
};

// `bytes` of input, as printable ASCII for quoting in a message: every byte outside ' '..'~'
// (control bytes, and bytes >= 0x80, which need not be valid UTF-8) becomes \xNN (\t, \n
// and \r become those).
std::string EscapeBytes(std::string_view bytes);
// Input for a message: EscapeBytes of at most its first `limit` bytes, then "..." when it is
// longer.
std::string Excerpt(std::string_view bytes, size_t limit);
// A token of input for quoting in a message: Excerpt of 40 bytes, with " (N bytes)" after a
// longer one's "..." (a line of binary bytes stays one short line).
std::string QuoteToken(std::string_view token);

// Throws Error(path, what, errno) with the current errno.
[[noreturn]] void ThrowSystemError(const std::string& path, const std::string& what);

}  // namespace needle
