#include "apps/cli/verbosity.h"

#include <stdexcept>

namespace needle::cli {

void AddVerbosityOptions(po::options_description& options, Verbosity& values,
                         const std::string& details) {
  const std::string verbose =
      details.empty() ? "the same as the default here (for scripts that pass it to every command)"
                      : "also print the rules behind decisions (" + details + ")";
  options.add_options()("quiet,q", po::bool_switch(&values.quiet),
                        "print only what was asked for, warnings and errors")(
      "verbose,v", po::bool_switch(&values.verbose), verbose.c_str());
}

void CheckVerbosity(const Verbosity& values) {
  if (values.quiet && values.verbose) {
    throw UsageError("--quiet and --verbose exclude each other");
  }
}

std::FILE* MessagesTo(std::FILE* to, const Verbosity& values) {
  return values.quiet ? NullStream() : to;
}

std::FILE* NullStream() {
  static std::FILE* const stream = [] {
    cookie_io_functions_t drop{};
    drop.write = [](void*, const char*, size_t size) -> ssize_t {
      return static_cast<ssize_t>(size);
    };
    std::FILE* f = fopencookie(nullptr, "w", drop);
    if (f == nullptr) throw std::runtime_error("cannot open a stream for --quiet");
    return f;
  }();
  return stream;
}

}  // namespace needle::cli
