// What the needle subcommands share: option parsing with --help, graph-reading options, and
// the usage error that main() turns into exit status 2.
#pragma once

#include <boost/program_options.hpp>
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

// Options every command that reads a graph accepts.
struct GraphInputOptions {
  std::string format = "auto";
  std::string weights = "auto";
  int threads = 0;
};
void AddGraphInputOptions(po::options_description& options, GraphInputOptions& values);
ReadOptions ToReadOptions(const GraphInputOptions& values);  // throws UsageError

// Parses `args` (after the subcommand) into `options`/`positional`. Returns false when --help
// was asked for, after printing `usage` and the options.
bool ParseCommandLine(const std::vector<std::string>& args, const std::string& usage,
                      po::options_description& options,
                      const po::positional_options_description& positional);

// "512M", "4G", "1.5GiB", "1073741824" → bytes (K/M/G/T are powers of 1024). Throws UsageError.
uint64_t ParseMemorySize(const std::string& text);

// "1.23 GB", "512 KB"...
std::string HumanBytes(double bytes);

}  // namespace needle::cli
