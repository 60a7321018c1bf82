#include "loaders/webgraph_properties.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/types.h"
#include "base/unique_fd.h"

namespace needle {
namespace {

// A properties file is a few hundred bytes; anything this large is not one.
constexpr uint64_t kMaxPropertiesBytes = uint64_t{1} << 20;
// Windows and reference chains bound the memory and the recursion of random access.
constexpr uint64_t kMaxWindowSize = uint64_t{1} << 16;
constexpr uint64_t kMaxZetaK = 32;

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// Joins continuation lines and splits the text into logical lines.
std::vector<std::string> LogicalLines(std::string_view text) {
  std::vector<std::string> lines;
  std::string current;
  bool continuing = false;
  size_t i = 0;
  while (i <= text.size()) {
    size_t end = text.find_first_of("\r\n", i);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(i, end - i);
    if (continuing) {  // leading blanks of a continuation line are dropped
      size_t skip = 0;
      while (skip < line.size() && IsBlank(line[skip])) ++skip;
      line.remove_prefix(skip);
    }
    // An odd number of trailing backslashes continues the line.
    size_t backslashes = 0;
    while (backslashes < line.size() && line[line.size() - 1 - backslashes] == '\\') ++backslashes;
    const bool continues = backslashes % 2 == 1;
    current.append(line.substr(0, continues ? line.size() - 1 : line.size()));
    if (!continues) {
      lines.push_back(std::move(current));
      current.clear();
    }
    continuing = continues;
    if (end == text.size()) break;
    i = end + 1;
    if (text[end] == '\r' && i < text.size() && text[i] == '\n') ++i;
  }
  if (!current.empty()) lines.push_back(std::move(current));
  return lines;
}

// Undoes the escapes of a key or value.
std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    const char c = s[++i];
    switch (c) {
      case 't':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 'f':
        out += '\f';
        break;
      case 'u': {
        unsigned code = 0;
        if (i + 4 < s.size()) {  // four hex digits follow
          const auto [p, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 5, code, 16);
          if (ec == std::errc() && p == s.data() + i + 5) {
            // Keys and values WebGraph writes are ASCII; others are kept as UTF-8.
            if (code < 0x80) {
              out += static_cast<char>(code);
            } else if (code < 0x800) {
              out += static_cast<char>(0xc0 | (code >> 6));
              out += static_cast<char>(0x80 | (code & 0x3f));
            } else {
              out += static_cast<char>(0xe0 | (code >> 12));
              out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
              out += static_cast<char>(0x80 | (code & 0x3f));
            }
            i += 4;
            break;
          }
        }
        out += 'u';
        break;
      }
      default:
        out += c;
    }
  }
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && IsBlank(s[b])) ++b;
  while (e > b && IsBlank(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

class Keys {
 public:
  Keys(const std::string& path, std::map<std::string, std::string> values)
      : path_(path), values_(std::move(values)) {}

  std::optional<std::string> Find(const std::string& key) const {
    auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    return Trim(it->second);
  }

  // A whole number in [min, max]; `fallback` when the key is absent (none: required).
  int64_t Integer(const std::string& key, int64_t min, int64_t max,
                  std::optional<int64_t> fallback = std::nullopt) const {
    const std::optional<std::string> text = Find(key);
    if (!text) {
      if (fallback) return *fallback;
      throw Error(path_, "the BVGraph properties have no '" + key + "' key");
    }
    int64_t value = 0;
    std::string_view digits = *text;
    if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
    const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size()) {
      throw Error(path_, "'" + key + "' is not a whole number: '" + EscapeBytes(*text) + "'");
    }
    if (value < min || value > max) {
      throw Error(path_, "'" + key + "=" + *text + "' is out of range (" + std::to_string(min) +
                             " to " + std::to_string(max) + ")");
    }
    return value;
  }

 private:
  const std::string& path_;
  std::map<std::string, std::string> values_;
};

// Which part of the stream a flag is about, and its coding.
enum Part { kOutdegrees, kBlocks, kResiduals, kReferences, kBlockCount, kOffsets, kParts };

struct Flag {
  const char* name;
  Part part;
  BvCoding coding;
};

constexpr Flag kFlags[] = {
    {"OUTDEGREES_GAMMA", kOutdegrees, BvCoding::kGamma},
    {"OUTDEGREES_DELTA", kOutdegrees, BvCoding::kDelta},
    {"BLOCKS_GAMMA", kBlocks, BvCoding::kGamma},
    {"BLOCKS_DELTA", kBlocks, BvCoding::kDelta},
    {"RESIDUALS_GAMMA", kResiduals, BvCoding::kGamma},
    {"RESIDUALS_DELTA", kResiduals, BvCoding::kDelta},
    {"RESIDUALS_ZETA", kResiduals, BvCoding::kZeta},
    {"REFERENCES_GAMMA", kReferences, BvCoding::kGamma},
    {"REFERENCES_DELTA", kReferences, BvCoding::kDelta},
    {"REFERENCES_UNARY", kReferences, BvCoding::kUnary},
    {"BLOCK_COUNT_GAMMA", kBlockCount, BvCoding::kGamma},
    {"BLOCK_COUNT_DELTA", kBlockCount, BvCoding::kDelta},
    {"BLOCK_COUNT_UNARY", kBlockCount, BvCoding::kUnary},
    {"OFFSETS_GAMMA", kOffsets, BvCoding::kGamma},
    {"OFFSETS_DELTA", kOffsets, BvCoding::kDelta},
};

BvCoding& CodingOf(BvCodings& c, Part part) {
  switch (part) {
    case kOutdegrees:
      return c.outdegrees;
    case kBlocks:
      return c.blocks;
    case kResiduals:
      return c.residuals;
    case kReferences:
      return c.references;
    case kBlockCount:
      return c.block_count;
    case kOffsets:
    case kParts:
      break;
  }
  return c.offsets;
}

BvCodings ParseCompressionFlags(const std::string& path, const std::string& flags) {
  BvCodings codings;
  const char* named[kParts] = {};  // a part named twice must agree
  size_t i = 0;
  while (i <= flags.size()) {
    size_t bar = flags.find('|', i);
    if (bar == std::string::npos) bar = flags.size();
    const std::string name = Trim(std::string_view(flags).substr(i, bar - i));
    i = bar + 1;
    if (name.empty()) continue;  // Java's split tolerates "A|" and "|"
    const Flag* flag = nullptr;
    for (const Flag& f : kFlags) {
      if (name == f.name) flag = &f;
    }
    if (flag == nullptr) {
      throw Error(path, "compressionflags: '" + EscapeBytes(name) +
                            "' is not supported by this reader (it decodes OUTDEGREES_, "
                            "BLOCKS_, REFERENCES_, BLOCK_COUNT_ and OFFSETS_ with GAMMA or DELTA "
                            "(REFERENCES_ and BLOCK_COUNT_ also UNARY), and RESIDUALS_ with "
                            "GAMMA, DELTA or ZETA); recompress the graph with WebGraph's "
                            "defaults");
    }
    BvCoding& coding = CodingOf(codings, flag->part);
    if (named[flag->part] != nullptr && coding != flag->coding) {
      throw Error(path, std::string("compressionflags: ") + named[flag->part] + " and " +
                            flag->name + " contradict each other");
    }
    named[flag->part] = flag->name;
    coding = flag->coding;
  }
  return codings;
}

}  // namespace

std::string_view BvCodingName(BvCoding coding) {
  switch (coding) {
    case BvCoding::kGamma:
      return "gamma";
    case BvCoding::kDelta:
      return "delta";
    case BvCoding::kUnary:
      return "unary";
    case BvCoding::kZeta:
      return "zeta";
  }
  return "?";
}

std::map<std::string, std::string> ParseJavaProperties(std::string_view text) {
  std::map<std::string, std::string> values;
  for (const std::string& raw : LogicalLines(text)) {
    size_t i = 0;
    while (i < raw.size() && IsBlank(raw[i])) ++i;
    if (i == raw.size() || raw[i] == '#' || raw[i] == '!') continue;
    // The key ends at the first unescaped '=', ':' or blank.
    size_t k = i;
    while (k < raw.size() && raw[k] != '=' && raw[k] != ':' && !IsBlank(raw[k])) {
      k += raw[k] == '\\' ? 2 : 1;
    }
    k = std::min(k, raw.size());
    std::string key = Unescape(std::string_view(raw).substr(i, k - i));
    size_t v = k;
    while (v < raw.size() && IsBlank(raw[v])) ++v;
    if (v < raw.size() && (raw[v] == '=' || raw[v] == ':')) ++v;
    while (v < raw.size() && IsBlank(raw[v])) ++v;
    values[std::move(key)] = Unescape(std::string_view(raw).substr(v));
  }
  return values;
}

WebGraphProperties ParseWebGraphProperties(const std::string& path, std::string_view text) {
  const Keys keys(path, ParseJavaProperties(text));
  WebGraphProperties p;
  const std::optional<std::string> graph_class = keys.Find("graphclass");
  if (!graph_class) {
    throw Error(path, "the properties have no 'graphclass' key: not a WebGraph BVGraph");
  }
  p.graph_class = *graph_class;
  if (!p.graph_class.ends_with("BVGraph")) {
    throw Error(path, "graphclass '" + EscapeBytes(p.graph_class) +
                          "' is not a BVGraph; this reader decodes "
                          "it.unimi.dsi.webgraph.BVGraph files only");
  }
  const int64_t version = keys.Integer("version", 0, INT32_MAX, 0);
  if (version != 0) {
    throw Error(path, "BVGraph version " + std::to_string(version) +
                          " is not supported (this reader decodes version 0)");
  }
  // Ids are 32-bit (base/types.h): at most kMaxVertexId + 1 nodes.
  p.nodes = static_cast<uint64_t>(keys.Integer("nodes", 0, int64_t{kMaxVertexId} + 1));
  p.arcs = static_cast<uint64_t>(keys.Integer("arcs", 0, INT64_MAX));
  if (p.nodes > 0 && p.arcs / p.nodes > p.nodes) {
    throw Error(path, "arcs=" + std::to_string(p.arcs) + " is more than nodes² for nodes=" +
                          std::to_string(p.nodes));
  }
  if (p.nodes == 0 && p.arcs != 0) throw Error(path, "arcs > 0 in a graph with no nodes");
  p.window_size = static_cast<uint32_t>(keys.Integer("windowsize", 0, kMaxWindowSize));
  // WebGraph writes -1 (or Integer.MAX_VALUE) for "no bound".
  const int64_t max_ref = keys.Integer("maxrefcount", -1, INT32_MAX, -1);
  p.max_ref_count = max_ref < 0 ? UINT32_MAX : static_cast<uint32_t>(max_ref);
  p.min_interval_length = static_cast<uint32_t>(keys.Integer("minintervallength", 0, INT32_MAX));
  p.compression_flags = keys.Find("compressionflags").value_or("");
  p.codings = ParseCompressionFlags(path, p.compression_flags);
  const bool zeta = p.codings.residuals == BvCoding::kZeta;
  p.zeta_k = static_cast<uint32_t>(
      keys.Integer("zetak", 1, kMaxZetaK, zeta ? std::nullopt : std::optional<int64_t>(3)));
  return p;
}

WebGraphProperties ReadWebGraphProperties(const std::string& path) {
  UniqueFd fd = OpenForReading(path);
  const uint64_t size = FileSize(fd.get(), path);
  if (size > kMaxPropertiesBytes) {
    throw Error(path, "is " + std::to_string(size) + " bytes: too large for a .properties file");
  }
  std::string text(size, '\0');
  ReadFully(fd.get(), path, text.data(), text.size(), 0);
  return ParseWebGraphProperties(path, text);
}

}  // namespace needle
