// RunCliTest: runs the built `needle` binary in a temporary directory and reads what it wrote.
#pragma once

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine_test_util.h"

namespace needle {

using Result = testing::CommandResult;

// The number (digits and points) written just before the first `suffix` in `text` that
// follows one; "" if none does.
inline std::string NumberBefore(const std::string& text, const std::string& suffix) {
  auto numeral = [](char c) { return (c >= '0' && c <= '9') || c == '.'; };
  for (size_t at = text.find(suffix); at != std::string::npos; at = text.find(suffix, at + 1)) {
    size_t from = at;
    while (from > 0 && numeral(text[from - 1])) --from;
    if (from < at) return text.substr(from, at - from);
  }
  return "";
}

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
  // Runs cc on ShardSymmetrized's set with --transport static -v `options` and checks its
  // labels against `expected`. Returns its standard output and its --stats summary line.
  std::pair<std::string, std::string> RunSymmetrizedCc(const std::string& options,
                                                       const std::vector<uint32_t>& expected) {
    const std::string stats = Path("s-cc.jsonl");
    const Result r = Needle("run cc " + testing::ShellQuote(Path("g.sym.shards")) +
                            " --transport static -v " + options + " --stats " +
                            testing::ShellQuote(stats) + " --out " +
                            testing::ShellQuote(Path("cc.txt")));
    EXPECT_EQ(r.status, 0) << r.err;
    std::ifstream in(stats);
    std::string line, summary;
    while (std::getline(in, line)) summary = line;
    std::vector<uint32_t> labels;
    for (const auto& row : ReadValues(Path("cc.txt"))) {
      labels.push_back(static_cast<uint32_t>(row.at(0)));
    }
    EXPECT_EQ(labels, expected);
    return {r.out, summary};
  }
  // The number `key` holds in a --stats line (0, failing the test, when it has none).
  static uint64_t SummaryNumber(const std::string& summary, const std::string& key) {
    const std::string field = "\"" + key + "\":";
    const size_t at = summary.find(field);
    EXPECT_NE(at, std::string::npos) << key << " in " << summary;
    return at == std::string::npos ? 0 : std::stoull(summary.substr(at + field.size()));
  }
  // --push always / --pull always (`what`) where the turns cannot apply: the run says why and
  // goes on. `dynamic`: a dynamic shard mode to ask for (ads or ods).
  void ExpectTurnsUnused(const std::string& what, const std::string& dynamic) {
    for (const auto& [options, why] : std::vector<std::pair<std::string, std::string>>{
             {"--transport resident", "the shard set is held in memory"},
             {"--transport static --mode static", "they need the static windows at page grain"},
             {"--transport static --mode " + dynamic + " --windows pages",
              "mode " + dynamic + " reads dynamic shards"}}) {
      SCOPED_TRACE(options);
      const Result r = Needle("run cc " + testing::ShellQuote(Path("g.sym.shards")) + " --" +
                              what + " always " + options + " --out " +
                              testing::ShellQuote(Path("cc.txt")));
      EXPECT_EQ(r.status, 0) << r.err;
      EXPECT_NE((r.out + r.err).find(what + " turns not used: " + why), std::string::npos)
          << r.out << r.err;
    }
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
