// needle convert: any supported graph into needle's binary .csr (or a text edge list),
// optionally transposed, symmetrised, without self-loops or duplicates. The output is opened
// before the input is read, and appears only when complete (io/output_file.h).
#include <cstdio>
#include <string>
#include <vector>

#include "apps/cli/cli_common.h"
#include "apps/cli/output_paths.h"
#include "apps/cli/commands.h"
#include "apps/cli/verbosity.h"
#include "io/output_file.h"
#include "loaders/csr_file.h"
#include "loaders/edge_list_writer.h"
#include "loaders/load_graph.h"

namespace needle::cli {

int RunConvert(const std::vector<std::string>& args) {
  std::string input;
  std::string out;
  GraphInputOptions input_options;
  bool drop_loops = false;
  bool drop_duplicates = false;
  LoadOptions load;
  po::options_description options("convert options");
  auto add = options.add_options();
  add("input", po::value(&input)->required(), "graph file");
  add("out,o", po::value(&out),
      "output: .csr (binary) or a text edge list; a device, FIFO or - (stdout) is written "
      "directly");
  add("output", po::value(&out), "the same as --out");
  add("transpose", po::bool_switch(&load.csr.transpose), "reverse every edge");
  add("symmetrize", po::bool_switch(&load.csr.symmetrize), "add the reverse of every edge");
  add("drop-self-loops", po::bool_switch(&drop_loops), "remove edges (v, v)");
  add("drop-duplicates", po::bool_switch(&drop_duplicates),
      "keep only the first copy of repeated edges");
  Verbosity verbosity;
  AddVerbosityOptions(options, verbosity);
  AddGraphInputOptions(options, input_options);
  po::positional_options_description positional;
  positional.add("input", 1);
  if (!ParseCommandLine(args,
                        "needle convert GRAPH -o OUT.csr [options]\n\n"
                        "examples:\n"
                        "  needle convert web.txt.gz -o web.csr               (binary CSR: the "
                        "fastest input)\n"
                        "  needle convert roads.gr -o roads.csr --symmetrize --drop-duplicates\n"
                        "  needle convert cnr-2000.graph -o cnr.el            (a BVGraph to a "
                        "text edge list)\n\n"
                        "Reads GRAPH whole into memory (its edges and the CSR). OUT ending in "
                        ".csr gets needle's\nbinary CSR (docs/csr-format.md), any other name "
                        "a text edge list sorted by source.",
                        options, positional)) {
    return 0;
  }
  CheckVerbosity(verbosity);
  if (out.empty()) throw UsageError("no output: give -o OUT (OUT.csr, a text file, or -)");
  load.read = ToReadOptions(input_options);
  load.csr.threads = load.read.threads;
  if (drop_loops) load.csr.self_loops = SelfLoopPolicy::kDrop;
  if (drop_duplicates) load.csr.duplicates = DuplicatePolicy::kDrop;

  CheckOutputs({{"--out", out}}, {input});
  OutputFile output(out);  // before the work: a bad output path fails now
  std::FILE* say = MessagesTo(output.is_stdout() ? stderr : stdout, verbosity);
  LoadReport report;
  Csr csr = LoadGraph(input, load, &report);
  const bool binary = out.size() >= 4 && out.compare(out.size() - 4, 4, ".csr") == 0;
  if (binary) {
    WriteCsrFile(csr, output, load.read.threads);
  } else {
    WriteCsrAsEdgeListText(csr, output, "converted by needle from " + input, load.read.threads);
  }
  output.Commit();
  const CsrReport& r = report.csr;
  std::fprintf(say, "%s (%s) -> %s: %llu vertices, %llu edges; input had %llu self-loops",
               input.c_str(), report.description.c_str(), out.c_str(),
               static_cast<unsigned long long>(csr.num_vertices),
               static_cast<unsigned long long>(csr.NumEdges()),
               static_cast<unsigned long long>(r.self_loops));
  if (r.duplicates_counted) {
    std::fprintf(say, ", %llu duplicates", static_cast<unsigned long long>(r.duplicates));
  }
  if (r.dropped_self_loops + r.dropped_duplicates > 0) {
    std::fprintf(say, "; dropped %llu self-loops and %llu duplicates",
                 static_cast<unsigned long long>(r.dropped_self_loops),
                 static_cast<unsigned long long>(r.dropped_duplicates));
  }
  std::fprintf(say, "\n");
  return 0;
}

}  // namespace needle::cli
