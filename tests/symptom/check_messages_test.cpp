// Every check speaks for its messages (issue 31): a finding whose fault makes
// a program print a known message has that message as an error signature, and
// its section of docs/checks.md lists the signatures on a "Messages:" line
// (or says "Messages: none (why)"). The line and the catalogue must agree both ways.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>

#include "core/explain.h"
#include "rocm_doctor/symptom.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::symptom {
namespace {

// The finding areas the issue names first: their faults all print something.
const std::vector<std::string> kMustSpeak = {"libdrm.ids-missing", "access.", "container.", "wsl.",
                                             "gpu.override-",      "lib."};

struct Section {
  std::string severity;
  std::optional<std::string> messages;  // the "Messages:" paragraph, joined
};

// docs/checks.md's finding sections (### id), with their severity and Messages paragraph.
std::map<std::string, Section> finding_sections() {
  std::map<std::string, Section> sections;
  for (const auto& id : documented_ids(checks_document())) {
    const auto text = find_section(checks_document(), id);
    if (!text || !text->starts_with("### ")) continue;
    Section section;
    static const std::regex severity(R"(Severity: (\w+))");
    if (std::smatch found; std::regex_search(*text, found, severity)) section.severity = found[1];
    if (const auto at = text->find("\nMessages: "); at != std::string::npos) {
      auto end = text->find("\n\n", at + 1);
      auto paragraph = text->substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
      std::replace(paragraph.begin(), paragraph.end(), '\n', ' ');
      section.messages = paragraph;
    }
    sections.emplace(id, std::move(section));
  }
  return sections;
}

std::set<std::string> listed(const std::string& paragraph) {
  std::set<std::string> ids;
  static const std::regex quoted("`([a-z0-9-]+)`");
  for (std::sregex_iterator it(paragraph.begin(), paragraph.end(), quoted), end; it != end; ++it) {
    ids.insert((*it)[1]);
  }
  return ids;
}

// finding id -> the signatures whose causes name it.
std::map<std::string, std::set<std::string>> signatures_by_finding() {
  std::map<std::string, std::set<std::string>> by_finding;
  for (const auto& signature : signatures()) {
    for (const auto& cause : signature.causes) {
      for (const auto& finding : cause.findings) by_finding[finding].insert(signature.id);
    }
  }
  return by_finding;
}

bool must_speak(const std::string& id) {
  return std::any_of(kMustSpeak.begin(), kMustSpeak.end(),
                     [&](const std::string& prefix) { return id == prefix || id.starts_with(prefix); });
}

TEST(CheckMessages, EveryFaultOfTheNamedAreasHasASignatureOrSaysWhyNot) {
  const auto sections = finding_sections();
  const auto by_finding = signatures_by_finding();
  int judged = 0;
  for (const auto& [id, section] : sections) {
    if (!must_speak(id) || section.severity == "ok") continue;
    ++judged;
    ASSERT_TRUE(section.messages.has_value()) << id << ": no 'Messages:' line in docs/checks.md";
    if (section.messages->starts_with("Messages: none (")) {
      EXPECT_FALSE(by_finding.contains(id)) << id << " says none, but signatures name it";
      continue;
    }
    EXPECT_TRUE(by_finding.contains(id)) << id << ": a documented message, and no signature names the finding";
  }
  EXPECT_GE(judged, 20);
}

TEST(CheckMessages, TheDocsListExactlyTheSignaturesThatNameEachFinding) {
  const auto sections = finding_sections();
  for (const auto& [finding, ids] : signatures_by_finding()) {
    const auto it = sections.find(finding);
    ASSERT_NE(it, sections.end()) << finding;
    ASSERT_TRUE(it->second.messages.has_value()) << finding << ": add 'Messages: ...' listing its signatures";
    EXPECT_EQ(listed(*it->second.messages), ids) << finding;
  }
  for (const auto& [id, section] : sections) {
    if (!section.messages || section.messages->starts_with("Messages: none (")) continue;
    for (const auto& signature : listed(*section.messages)) {
      EXPECT_NE(find_signature(signature), nullptr) << id << " lists unknown signature " << signature;
    }
  }
}

}  // namespace
}  // namespace rocm_doctor::symptom
