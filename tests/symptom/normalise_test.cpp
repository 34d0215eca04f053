// The text as it really arrives (issue 31): colours, timestamps, launcher and
// journal prefixes, JSON log lines with escaped line ends, CRLF, terminal
// wrapping. Normalised once, before any pattern sees it; line numbers stay
// those of the text the user gave.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rocm_doctor/symptom.h"

namespace rocm_doctor::symptom {
namespace {

std::vector<std::string> ids(const std::string& text) {
  std::vector<std::string> result;
  for (const auto& match : default_matcher().scan(text)) result.push_back(match.id());
  return result;
}

bool has(const std::string& text, const std::string& id) {
  const auto all = ids(text);
  return std::find(all.begin(), all.end(), id) != all.end();
}

// The fault and its reason on two lines: the signature needs both.
const std::string kFault =
    "Memory access fault by GPU node-1 (Agent handle: 0x55c2d5a5a040) on address 0x7f2a4c200000.";
const std::string kReason = "Reason: Page not present or supervisor privilege.";
const std::string kFaultId = "memory-access-fault-page-not-present";

TEST(Normalise, CrlfAndLoneCarriageReturnsEndLines) {
  EXPECT_TRUE(has(kFault + "\r\n" + kReason + "\r\n", kFaultId));
  const auto plain = normalise("50%|#####     |\r100%|##########|\rdone\n");
  EXPECT_EQ(plain.text, "50%|#####     |\n100%|##########|\ndone\n");
  EXPECT_EQ(plain.origin, (std::vector<std::size_t>{1, 1, 1}));
}

TEST(Normalise, AnsiColoursAreRemoved) {
  EXPECT_EQ(normalise("\x1b[1;31mRuntimeError\x1b[0m: HIP error: \x1b]8;;http://x\x07link\n").text,
            "RuntimeError: HIP error: link\n");
  EXPECT_TRUE(has("\x1b[31m" + kFault + "\x1b[0m\n\x1b[31m" + kReason + "\x1b[0m", kFaultId));
}

// Each line as a log prefixes it, and what remains of it.
struct Prefixed {
  const char* line;
  const char* plain;
};

void expect_plain(const std::vector<Prefixed>& cases) {
  for (const auto& [line, plain] : cases) EXPECT_EQ(normalise(line).text, plain) << line;
}

TEST(Normalise, KernelSyslogJournalAndIsoTimestampsAreStripped) {
  expect_plain({{"[  123.456789] amdgpu: x\n", "amdgpu: x\n"},
                {"[  123.456789] [   T412] amdgpu: x\n", "amdgpu: x\n"},
                {"[Mon Jan  6 10:00:00 2025] amdgpu: x\n", "amdgpu: x\n"},
                {"Jan 06 10:00:00 node7 kernel: amdgpu: x\n", "amdgpu: x\n"},
                {"Jan  6 10:00:00 node7 ollama[1234]: amdgpu: x\n", "amdgpu: x\n"},
                {"2025-11-03T08:15:02.123456+01:00 node7 kernel: amdgpu: x\n", "amdgpu: x\n"},
                {"2026-01-02 03:04:05,678 ERROR boom\n", "ERROR boom\n"}});
  // Each line of a two-line message carries its own prefix: stripped, the pattern spans them.
  EXPECT_TRUE(has("[ 5.1] " + kFault + "\n[ 5.1] " + kReason + "\n", kFaultId));
  EXPECT_TRUE(
      has("Jan 06 10:00:00 n1 python[77]: " + kFault + "\nJan 06 10:00:00 n1 python[77]: " + kReason, kFaultId));
}

// A CI log line (GitHub Actions' ISO time, then the build's own tag) is no
// "host tag:" syslog line: the tool name stays with its message.
TEST(Normalise, ACiLogLineKeepsTheToolNameAfterItsTimestamp) {
  expect_plain({{"2025-03-05T21:10:24.2062301Z [hipBLASLt] clang++: error: no such file\n",
                 "[hipBLASLt] clang++: error: no such file\n"},
                {"2025-03-05T21:10:24Z node7 ollama[12]: x\n", "x\n"}});
}

TEST(Normalise, RankWorkerAndLauncherPrefixesAreStripped) {
  expect_plain({{"[rank3]: RuntimeError: x\n", "RuntimeError: x\n"},
                {"[rank3]:[W102 12:00:00.000] x\n", "[W102 12:00:00.000] x\n"},
                {"(VllmWorker rank=1 pid=1234) ERROR 01-02 03:04:05 [worker.py:12] x\n", "x\n"},
                {"(RayWorkerWrapper pid=123, ip=10.0.0.1) x\n", "x\n"},
                {"[1,0]<stderr>:x\n", "x\n"},
                {"  3: x\n", "x\n"},
                {"ollama-1  | x\n", "x\n"},
                {"[pod/trainer-0/main] x\n", "x\n"},
                {"E0102 03:04:05.123456 12345 file.cc:12] x\n", "x\n"},
                {"ERROR    test_rocm_sanity:test_rocm_sanity.py:35 x\n", "x\n"},
                {"INFO     root:conftest.py:7 x\n", "x\n"},
                {"ERROR    no logger here x\n", "ERROR    no logger here x\n"}});
  EXPECT_TRUE(has("[rank3]: " + kFault + "\n[rank3]: " + kReason, kFaultId));
}

TEST(Normalise, DockerJournaldAndCriLogLinesGiveTheirMessageLines) {
  const auto docker = R"({"log":")" + kFault +
                      R"(\n","stream":"stderr","time":"2025-03-01T10:00:00.1Z"})"
                      "\n" +
                      R"({"log":")" + kReason +
                      R"(\n","stream":"stderr","time":"2025-03-01T10:00:00.2Z"})"
                      "\n";
  EXPECT_TRUE(has(docker, kFaultId));
  // One JSON line holding both lines, escaped: line numbers stay the JSON line's.
  const auto joined = "{\"MESSAGE\":\"" + kFault + "\\n" + kReason + "\",\"_PID\":\"77\"}\n";
  const auto matches = default_matcher().scan("first\n" + joined);
  ASSERT_FALSE(matches.empty());
  EXPECT_EQ(matches[0].id(), kFaultId);
  EXPECT_EQ(matches[0].line, 2U);
  // journald's binary MESSAGE: its bytes as numbers.
  EXPECT_EQ(normalise(R"({"MESSAGE":[104,105]})").text, "hi\n");
  EXPECT_EQ(normalise("2025-03-01T10:00:00.123456789Z stderr F RuntimeError: x\n").text, "RuntimeError: x\n");
  // A structured logger's error field follows its message (the k8s labeller's shape).
  EXPECT_EQ(normalise(R"({"level":"error","msg":"unable to read","error":"open /dev/kfd: no such file"})").text,
            "unable to read: open /dev/kfd: no such file\n");
  // Not JSON after all: kept as written.
  EXPECT_EQ(normalise("{ not json\n").text, "{ not json\n");
}

TEST(Normalise, EscapedLineEndsInAQuotedMessageBecomeLines) {
  const auto text = "stderr=b'" + kFault + "\\n" + kReason + "\\n'";
  EXPECT_TRUE(has(text, kFaultId));
  EXPECT_EQ(normalise("C:\\new folder\n").text, "C:\\new folder\n") << "one \\n alone is not a line end";
}

TEST(Normalise, LinesWrappedAtTheTerminalWidthAreJoined) {
  const std::string message =
      "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory";
  const auto wrapped = message.substr(0, 80) + "\n" + message.substr(80) + "\n";
  const auto matches = default_matcher().scan("start\n" + wrapped + "end\n");
  ASSERT_FALSE(matches.empty());
  EXPECT_EQ(matches[0].id(), "rocblas-cannot-read-tensile-library");
  EXPECT_EQ(matches[0].line, 2U);
  EXPECT_EQ(normalise(std::string(79, 'a') + "\nb\n").text, std::string(79, 'a') + "\nb\n")
      << "79 columns: not wrapped";
}

TEST(Normalise, APythonTracebackMatchesItsLastLine) {
  const std::string traceback =
      "Traceback (most recent call last):\n"
      "  File \"/app/train.py\", line 12, in <module>\n"
      "    model.to(\"cuda\")\n"
      "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/module.py\", line 1340, in to\n"
      "    return self._apply(convert)\n"
      "RuntimeError: HIP error: invalid device function\n"
      "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
      "incorrect.\n";
  const auto matches = default_matcher().scan(traceback);
  ASSERT_FALSE(matches.empty());
  EXPECT_EQ(matches[0].id(), "hip-invalid-device-function");
  EXPECT_EQ(matches[0].line, 6U);
}

TEST(Normalise, UpperCaseAndOtherNumbersStillMatch) {
  EXPECT_TRUE(
      has("MEMORY ACCESS FAULT BY GPU NODE-12 (AGENT HANDLE: 0XABC) ON ADDRESS 0X1.\nREASON: PAGE NOT PRESENT OR "
          "SUPERVISOR PRIVILEGE.",
          kFaultId));
}

TEST(Normalise, EveryLineKeepsItsInputLineNumber) {
  const auto plain = normalise("a\n[rank0]: b\n{\"log\":\"c\\nd\\n\"}\ne");
  EXPECT_EQ(plain.text, "a\nb\nc\nd\ne\n");
  EXPECT_EQ(plain.origin, (std::vector<std::size_t>{1, 2, 3, 3, 4}));
  EXPECT_TRUE(normalise("").text.empty());
}

}  // namespace
}  // namespace rocm_doctor::symptom
