// RunCliTest: runs the built `needle` binary in a temporary directory and reads what it wrote.
#pragma once

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine_test_util.h"

namespace needle {

using Result = testing::CommandResult;

class RunCliTest : public WithTempDir<> {
 protected:
  std::string Path(const std::string& name) { return (dir() / name).string(); }
  Result Needle(const std::string& args) {
    return testing::RunCaptured(testing::ShellQuote(NEEDLE_BINARY) + " " + args, dir().string());
  }
  std::string Graph(const std::string& name, const std::string& text) {
    const std::string path = Path(name);
    WriteFile(path, text);
    return path;
  }
  // `input` sharded symmetrised into 3 intervals, in DIR/g.sym.shards (returned).
  std::string ShardSymmetrized(const std::string& input) {
    const std::string shards = Path("g.sym.shards");
    const Result r = Needle("shard " + testing::ShellQuote(input) +
                            " --symmetrize --intervals 3 --out " + testing::ShellQuote(shards));
    EXPECT_EQ(r.status, 0) << r.err;
    return shards;
  }
  // `text` with every run of spaces and newlines made one space: --help's wrapped columns
  // as one line.
  static std::string OneLine(const std::string& text) {
    std::string out;
    for (const char ch : text) {
      if (ch == ' ' || ch == '\n') {
        if (!out.empty() && out.back() != ' ') out += ' ';
      } else {
        out += ch;
      }
    }
    return out;
  }
  // Lines "id<TAB>v1<TAB>v2..." → rows of values (inf allowed); checks the header line
  // ("vertex<TAB>...", after any '#' lines) and that the ids run 0, 1, ...
  std::vector<std::vector<double>> ReadValues(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::vector<double>> rows;
    std::string line;
    bool header = false;
    while (std::getline(in, line)) {
      if (!line.empty() && line[0] == '#') continue;
      if (!header) {
        EXPECT_EQ(line.rfind("vertex\t", 0), 0u) << path << ": no header line: " << line;
        header = true;
        continue;
      }
      std::istringstream fields(line);
      std::string id, value;
      std::getline(fields, id, '\t');
      EXPECT_EQ(id, std::to_string(rows.size()));
      rows.emplace_back();
      while (std::getline(fields, value, '\t')) {
        rows.back().push_back(value == "inf" ? INFINITY : std::stod(value));
      }
    }
    return rows;
  }
};

}  // namespace needle
