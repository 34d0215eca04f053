// What fix makes of the commands fixes print (checks/data/fix_commands.json).
#include "fix/command_kinds.h"

#include <gtest/gtest.h>

#include <string>

namespace rocm_doctor {
namespace {

struct KindCase {
  std::string name;
  std::string command;
  CommandKind kind;
};

void PrintTo(const KindCase& c, std::ostream* os) {
  *os << c.name;
}

class CommandKinds : public ::testing::TestWithParam<KindCase> {};

TEST_P(CommandKinds, AreJudgedFromTheirWords) {
  EXPECT_EQ(command_kind(GetParam().command), GetParam().kind) << GetParam().command;
}

INSTANTIATE_TEST_SUITE_P(
    Fixes, CommandKinds,
    ::testing::Values(KindCase{"GroupChange", "sudo usermod -a -G render alice", CommandKind::changes},
                      KindCase{"AppendToProfile", "echo 'export HSA_OVERRIDE_GFX_VERSION=10.3.0' >> \"$HOME\"/.profile",
                               CommandKind::changes},
                      KindCase{"TeeIntoLoaderConfig", "echo /opt/rocm/lib | sudo tee /etc/ld.so.conf.d/rocm.conf",
                               CommandKind::changes},
                      KindCase{"Reboot", "sudo reboot", CommandKind::reboot},
                      KindCase{"SystemctlReboot", "systemctl reboot", CommandKind::reboot},
                      KindCase{"NewGroupShell", "newgrp render", CommandKind::session},
                      KindCase{"ExportInTheShell", "export HIP_VISIBLE_DEVICES=0", CommandKind::session},
                      KindCase{"Editor", "sudoedit /etc/default/grub", CommandKind::interactive},
                      KindCase{"MokImportAsksForAPassword", "sudo mokutil --import /var/lib/dkms/mok.pub",
                               CommandKind::interactive},
                      KindCase{"MokStateOnlyReads", "mokutil --sb-state", CommandKind::reads},
                      KindCase{"KernelLogPipeline", "sudo dmesg | grep -iE 'kfd|amdgpu'", CommandKind::reads},
                      KindCase{"QuotedBarIsNotAPipe", "grep -E 'a|sudo reboot' /proc/cmdline", CommandKind::reads},
                      KindCase{"ReadWithNullRedirect", "cat /sys/class/kfd/kfd/topology/nodes/1/properties 2>/dev/null",
                               CommandKind::reads},
                      KindCase{"ReadIntoAFileWrites", "cat /proc/cmdline > /tmp/cmdline", CommandKind::changes},
                      KindCase{"ListWithAChange", "sudo ldconfig -p && sudo ldconfig", CommandKind::changes},
                      KindCase{"ListWithAnEditorIsInteractive", "sudo cp a b && sudoedit b", CommandKind::interactive},
                      KindCase{"EscapeCharacter", "echo '\x1b[2J' >> /etc/profile", CommandKind::unsafe},
                      KindCase{"NewlineHidesASecondCommand", "ls\nrm -rf /", CommandKind::unsafe}),
    [](const ::testing::TestParamInfo<KindCase>& info) { return info.param.name; });

TEST(SplitCommand, CutsAtOperatorsOutsideQuotesAndNotesFileRedirections) {
  const auto parts = split_command("a 'b|c' && d \"e;f\" | g 2>&1; h >> /etc/x");
  ASSERT_EQ(parts.parts.size(), 4U);
  EXPECT_EQ(parts.parts[0], "a 'b|c'");
  EXPECT_EQ(parts.parts[1], "d \"e;f\"");
  EXPECT_EQ(parts.parts[2], "g");
  EXPECT_EQ(parts.parts[3], "h");
  EXPECT_TRUE(parts.redirects);
  EXPECT_FALSE(split_command("dmesg 2>/dev/null | tail -n 5").redirects);
}

}  // namespace
}  // namespace rocm_doctor
