#include "base/error.h"

#include <cerrno>
#include <cstring>
#include <utility>

#include "base/open_files.h"

namespace needle {
namespace {

// A byte as an escape: \t, \n and \r as such, anything else as \xNN.
void AppendEscaped(std::string& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  switch (c) {
    case '\t':
      out += "\\t";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    default:
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
  }
}

// Control bytes become escapes; everything else (UTF-8 included) stays as it is.
std::string EscapeControl(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      AppendEscaped(out, c);
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

std::string EscapeBytes(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7f) {
      AppendEscaped(out, c);
    } else {
      out += ch;
    }
  }
  return out;
}

std::string Excerpt(std::string_view bytes, size_t limit) {
  if (bytes.size() <= limit) return EscapeBytes(bytes);
  return EscapeBytes(bytes.substr(0, limit)) + "...";
}

std::string QuoteToken(std::string_view token) {
  constexpr size_t kShown = 40;
  const std::string shown = Excerpt(token, kShown);
  return token.size() <= kShown ? shown
                                : shown + " (" + std::to_string(token.size()) + " bytes)";
}

Error::Error(std::string path, const std::string& message, int sys_errno)
    : Error(std::move(path), kNoPosition, kNoPosition, message, sys_errno) {}

Error::Error(std::string path, uint64_t line, uint64_t byte, const std::string& message,
             int sys_errno)
    : std::runtime_error(Format(path, line, byte, message, sys_errno)),
      path_(std::move(path)),
      line_(line),
      byte_(byte),
      errno_(sys_errno),
      message_(EscapeControl(message)) {}

Error Error::AtLine(std::string path, uint64_t line, const std::string& message) {
  return Error(std::move(path), line, kNoPosition, message, 0);
}

Error Error::AtByte(std::string path, uint64_t byte_offset, const std::string& message,
                    int sys_errno) {
  return Error(std::move(path), kNoPosition, byte_offset, message, sys_errno);
}

std::string Error::Format(const std::string& path, uint64_t line, uint64_t byte,
                          const std::string& message, int sys_errno) {
  std::string out = EscapeControl(path);
  if (line != kNoPosition) {
    out += ":" + std::to_string(line);
  } else if (byte != kNoPosition) {
    out += ": byte " + std::to_string(byte);
  }
  out += ": " + EscapeControl(message);
  if (sys_errno != 0) out += std::string(": ") + std::strerror(sys_errno);
  return out;
}

void ThrowSystemError(const std::string& path, const std::string& what) {
  const int error = errno;
  if (error == EMFILE) throw Error(path, what + " (" + OpenFileLimitHint() + ")", error);
  throw Error(path, what, error);
}

}  // namespace needle
