// BenchMain: the shared main() of the benchmark drivers — parse the options (false: --help was
// printed), run, and turn errors into a message and an exit status (2 usage, 1 failure).
#pragma once

#include <boost/program_options.hpp>
#include <cstdio>
#include <exception>

namespace needle::bench {

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
