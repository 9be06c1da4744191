// YAML text checked as text: one pass over yaml-cpp's parse events (each node as written, an
// alias as one event, never followed) finds recursive aliases and unclosed quotes; only then
// is the node tree built. Nothing here recurses; yaml-cpp's own recursive descent stops at
// its depth guard (YAML::DeepRecursion).
#include "load_yaml.h"

#include <sstream>
#include <vector>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include "quench/printable.h"

namespace quench {

namespace {

/// Whether the quoted scalar opening at `start` in `yaml` has its closing quote (yaml-cpp
/// accepts a string that runs to the end of the file).
bool quote_closed(const std::string& yaml, std::size_t start) {
  const char quote = yaml[start];
  for (std::size_t i = start + 1; i < yaml.size(); ++i) {
    if (quote == '"' && yaml[i] == '\\') {
      ++i;
    } else if (yaml[i] == quote) {
      if (quote == '\'' && i + 1 < yaml.size() && yaml[i + 1] == '\'') {
        ++i;  // '' inside a single-quoted string
      } else {
        return true;
      }
    }
  }
  return false;
}

/// Collects the problems of the text while yaml-cpp parses it.
class TextChecks : public YAML::EventHandler {
 public:
  TextChecks(const std::string& yaml, const std::string& file) : yaml_(yaml), file_(file) {}

  std::vector<Diagnostic>& problems() { return problems_; }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}

  void OnAnchor(const YAML::Mark&, const std::string& name) override { anchor_name_ = name; }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    for (const Open& open : open_) {
      if (open.anchor != anchor) continue;
      const SourceLocation anchored = yaml_location(file_, open.at);
      problems_.push_back(
          {yaml_location(file_, mark), "alias '*" + printable(open.name, 60) + "' refers to the " +
                                           open.kind + " that contains it (anchored at line " +
                                           std::to_string(anchored.line) + ", column " +
                                           std::to_string(anchored.column) +
                                           "): a recursive structure cannot be a pipeline"});
      return;
    }
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t,
                const std::string&) override {
    // Quoted scalars carry the non-specific tag "!"; the mark is their opening quote.
    if (tag != "!" || mark.pos < 0) return;
    const auto start = static_cast<std::size_t>(mark.pos);
    if (start >= yaml_.size() || (yaml_[start] != '"' && yaml_[start] != '\'')) return;
    if (!quote_closed(yaml_, start))
      problems_.push_back(
          {yaml_location(file_, mark), "end of string not found (a quoted string is not closed)"});
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor, "list");
  }
  void OnSequenceEnd() override { open_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor, "mapping");
  }
  void OnMapEnd() override { open_.pop_back(); }

 private:
  /// A list or mapping whose end has not been parsed yet.
  struct Open {
    YAML::anchor_t anchor;
    std::string name;  ///< the anchor's name, "" without one
    YAML::Mark at;
    const char* kind;
  };

  void open(const YAML::Mark& mark, YAML::anchor_t anchor, const char* kind) {
    open_.push_back(
        {anchor, anchor == YAML::NullAnchor ? std::string() : anchor_name_, mark, kind});
  }

  const std::string& yaml_;
  const std::string& file_;
  std::string anchor_name_;  ///< the last anchor seen (it precedes its node's event)
  std::vector<Open> open_;   ///< at most yaml-cpp's depth guard long
  std::vector<Diagnostic> problems_;
};

}  // namespace

SourceLocation yaml_location(const std::string& file, const YAML::Mark& mark) {
  if (mark.line < 0) return {file, 0, 0};
  return {file, mark.line + 1, mark.column + 1};
}

YAML::Node load_yaml(const std::string& yaml, const std::string& file) {
  TextChecks checks(yaml, file);
  std::vector<Diagnostic>& problems = checks.problems();
  try {
    std::istringstream in(yaml);
    YAML::Parser parser(in);
    parser.HandleNextDocument(checks);  // the first document, as YAML::Load reads it
  } catch (const YAML::DeepRecursion& e) {
    problems.push_back(
        {yaml_location(file, e.mark), "YAML nested too deeply: the parser's nesting limit (depth " +
                                          std::to_string(e.depth()) + ") is reached here"});
  } catch (const YAML::Exception& e) {
    problems.push_back({yaml_location(file, e.mark), printable(e.msg)});
  }
  // In file order: the events come in that order and a syntax error ends the parse.
  if (!problems.empty()) throw ConfigError(std::move(problems));
  return YAML::Load(yaml);
}

}  // namespace quench
