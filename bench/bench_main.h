// BenchMain: the shared main() of the benchmark drivers — parse the options (false: --help was
// printed), run, and turn errors into a message and an exit status (2 usage, 1 failure).
#pragma once

#include <boost/program_options.hpp>
#include <cstdio>
#include <exception>
#include <iostream>

namespace needle::bench {

// Parses argv into `options`; false after printing them for --help (the caller returns).
inline bool ParseOrHelp(int argc, char** argv,
                        const boost::program_options::options_description& options) {
  namespace po = boost::program_options;
  po::variables_map vm;
  po::store(po::parse_command_line(argc, argv, options), vm);
  if (vm.count("help")) {
    std::cout << options << "\n";
    return false;
  }
  po::notify(vm);
  return true;
}

template <class Options, class Parse, class Run>
int BenchMain(const char* name, int argc, char** argv, Parse&& parse, Run&& run) {
  try {
    Options options;
    if (!parse(argc, argv, options)) return 0;
    return run(options);
  } catch (const boost::program_options::error& e) {
    std::fprintf(stderr, "%s: %s (see --help)\n", name, e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 1;
  }
}

}  // namespace needle::bench
