// The outputs a command is given, checked against its inputs and each other before any work:
// OutputFile (io/output_file.h) never destroys what an output's own path names, and this keeps
// one output from being another's, an input file, or a file of a shard set.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace needle::cli {

// Whether paths `a` and `b` name one file (after symlinks), existing or not.
bool SameFile(const std::string& a, const std::string& b);

// Refuses (UsageError) an output that is one of `inputs` (files or directories; a WebGraph
// basename's .graph, .properties and .offsets files) or lies in one of them, that lies in a
// shard set's directory (one with a needle manifest, at any depth), or that names the same
// file as another output. `outputs` are (option, path) pairs; empty paths
// and what is written where it stands (descriptors: "-", /dev/stdout, /dev/fd/N; devices and
// FIFOs) are passed over.
void CheckOutputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                  const std::vector<std::string>& inputs);

}  // namespace needle::cli
