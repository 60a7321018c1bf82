// What the needle subcommands share: option parsing with --help, strict number and size
// options, graph-reading options, and the usage error that main() turns into exit status 2.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "loaders/text_reader.h"

namespace needle::cli {

namespace po = boost::program_options;

// A mistake on the command line (exit status 2, with a hint to --help).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Option values parsed strictly (validate() below): a whole number is decimal digits only —
// no sign, fraction, exponent, nan or inf — within T's range; a Real is a finite,
// non-negative decimal number; a MemorySize is digits with an optional fraction and unit
// (K, M, G, T: powers of 1024, optionally followed by B or iB), at least one byte and at most
// 2^62 bytes. Anything else is refused naming the option, the value and what is allowed.
template <class T>
struct Whole {
  T value{};
};
struct Real {
  double value = 0;
};
struct MemorySize {
  uint64_t bytes = 0;
};

// "512M", "4G", "1.5GiB", "1073741824" → bytes. Throws std::invalid_argument saying what is
// allowed.
uint64_t ParseMemorySize(const std::string& text);

// Options every command that reads a graph accepts.
struct GraphInputOptions {
  std::string format = "auto";
  std::string weights = "auto";
  Whole<uint32_t> threads;
};
void AddGraphInputOptions(po::options_description& options, GraphInputOptions& values);
ReadOptions ToReadOptions(const GraphInputOptions& values);  // throws UsageError

// --direct and --buffered, with one meaning on shard and run: O_DIRECT, or the page cache,
// for every shard, message and value file the command writes or reads. Neither: shard files
// are written with O_DIRECT (measured: less CPU than through the page cache, and sharding
// does not fill the cache) and read through the page cache. Returns the file I/O to use for
// writing shard sets and for a run's own files; throws UsageError when both are given.
struct CacheChoice {
  bool direct = false;
  bool buffered = false;
};
void AddCacheOptions(po::options_description& options, CacheChoice& values);
struct CachePolicy {
  bool direct_shard_writes = true;
  bool direct_run_files = false;
};
CachePolicy ToCachePolicy(const CacheChoice& values);

// Parses `args` (after the subcommand) into `options`/`positional`. Returns nullopt when
// --help was asked for, after printing `usage` and the options; otherwise what was given
// (whether an option was given is read from it, never from the spelling in `args`: Boost
// accepts unambiguous prefixes such as --source for --sources).
std::optional<po::variables_map> ParseCommandLine(
    const std::vector<std::string>& args, const std::string& usage,
    po::options_description& options, const po::positional_options_description& positional);

// "1.23 GB", "512 KB"...
std::string HumanBytes(double bytes);
// A memory size in binary units: "30.4 MiB", "2 GiB" (peak RSS against --memory).
std::string BinaryBytes(double bytes);
// "1 interval", "51 intervals"; `plural` where it is not noun + "s".
std::string Count(uint64_t n, const std::string& noun, const std::string& plural = "");

// Boost.Program_options' hooks for the strict types (found by argument-dependent lookup).
void validate(boost::any& v, const std::vector<std::string>& values, Whole<uint32_t>*, int);
void validate(boost::any& v, const std::vector<std::string>& values, Whole<uint64_t>*, int);
void validate(boost::any& v, const std::vector<std::string>& values, Real*, int);
void validate(boost::any& v, const std::vector<std::string>& values, MemorySize*, int);
std::ostream& operator<<(std::ostream& out, const Whole<uint32_t>& v);
std::ostream& operator<<(std::ostream& out, const Whole<uint64_t>& v);
std::ostream& operator<<(std::ostream& out, const Real& v);
std::ostream& operator<<(std::ostream& out, const MemorySize& v);

}  // namespace needle::cli
