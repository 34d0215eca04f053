// The one builder of kernel-command-line fixes: the right tool for each boot
// loader, the words added or removed exactly, and a reboot.
#include "rocm_doctor/kernel_cmdline_fix.h"

#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

SystemFacts distro(std::string id, std::string like = "") {
  SystemFacts facts;
  facts.os_id = std::move(id);
  facts.os_id_like = std::move(like);
  facts.kernel_release = "6.8.0-48-generic";
  return facts;
}

TEST(KernelCmdlineFix, RhelLikeSystemsUseGrubbyForBothDirections) {
  SnapshotBuilder b;
  b.file("/etc/default/grub", "GRUB_CMDLINE_LINUX=\"rhgb quiet\"\n");
  const auto host = b.open();
  EXPECT_EQ(detect_boot_loader(*host, distro("rocky", "rhel centos fedora")), BootLoader::grubby);
  const auto fix = kernel_cmdline_fix("topology", *host, distro("rhel", "fedora"), "Add iommu=pt", {"iommu=pt"},
                                      {"amdgpu.modeset=0"});
  EXPECT_EQ(fix.commands,
            (std::vector<std::string>{"sudo grubby --update-kernel=ALL --args=iommu=pt --remove-args=amdgpu.modeset=0",
                                      "sudo reboot"}));
  EXPECT_TRUE(fix.needs_root);
  EXPECT_TRUE(fix.needs_reboot);
  EXPECT_EQ(fix.verify, "rocm-doctor --only topology");
}

TEST(KernelCmdlineFix, GrubOnDebianEditsTheVariableThatHoldsTheWord) {
  SnapshotBuilder b;
  b.file("/etc/default/grub",
         "GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash nomodeset\"\nGRUB_CMDLINE_LINUX=\"\"\n");
  const auto fix =
      kernel_cmdline_fix("driver", *b.open(), distro("ubuntu", "debian"), "Remove nomodeset", {}, {"nomodeset"});
  EXPECT_EQ(fix.commands,
            (std::vector<std::string>{
                "sudo sed -i 's|^GRUB_CMDLINE_LINUX_DEFAULT=.*|GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash\"|' "
                "/etc/default/grub",
                "sudo update-grub", "sudo reboot"}));
}

TEST(KernelCmdlineFix, AddingKeepsWhatIsThereAndDoesNotRepeatAWord) {
  SnapshotBuilder b;
  b.file("/etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT='quiet'\n");
  const auto host = b.open();
  const auto fix = kernel_cmdline_fix("topology", *host, distro("debian"), "Add iommu=pt", {"iommu=pt"}, {});
  EXPECT_EQ(fix.commands.at(0),
            "sudo sed -i 's|^GRUB_CMDLINE_LINUX_DEFAULT=.*|GRUB_CMDLINE_LINUX_DEFAULT=\"quiet iommu=pt\"|' "
            "/etc/default/grub");
  SnapshotBuilder already;
  already.file("/etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"iommu=pt\"\n");
  EXPECT_EQ(kernel_cmdline_fix("topology", *already.open(), distro("debian"), "Add", {"iommu=pt"}, {}).commands,
            (std::vector<std::string>{"sudo update-grub", "sudo reboot"}));
}

TEST(KernelCmdlineFix, GrubWithoutTheDefaultLineAppendsOne) {
  SnapshotBuilder b;
  b.file("/etc/default/grub", "GRUB_DEFAULT=0\n");
  const auto fix =
      kernel_cmdline_fix("topology", *b.open(), distro("opensuse-leap", "suse opensuse"), "Add", {"iommu=pt"}, {});
  EXPECT_EQ(fix.commands,
            (std::vector<std::string>{"echo 'GRUB_CMDLINE_LINUX_DEFAULT=\"iommu=pt\"' | sudo tee -a /etc/default/grub",
                                      "sudo grub2-mkconfig -o /boot/grub2/grub.cfg", "sudo reboot"}));
}

TEST(KernelCmdlineFix, AnUnreadableOrOddGrubFileIsEditedByHand) {
  SnapshotBuilder none;
  EXPECT_EQ(kernel_cmdline_fix("driver", *none.open(), distro("ubuntu"), "Remove", {}, {"nomodeset"}).commands,
            (std::vector<std::string>{"sudoedit /etc/default/grub", "sudo update-grub", "sudo reboot"}));
  SnapshotBuilder odd;  // a value sed could not carry safely
  odd.file("/etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet $EXTRA nomodeset\"\n");
  EXPECT_EQ(kernel_cmdline_fix("driver", *odd.open(), distro("ubuntu"), "Remove", {}, {"nomodeset"}).commands.at(0),
            "sudoedit /etc/default/grub");
}

TEST(KernelCmdlineFix, SystemdBootRewritesEtcKernelCmdlineAndTheEntry) {
  SnapshotBuilder b;
  b.file("/etc/kernel/cmdline", "root=UUID=1234 rw quiet nomodeset\n");
  const auto host = b.open();
  ASSERT_EQ(detect_boot_loader(*host, distro("arch")), BootLoader::systemd_boot);
  const auto fix = kernel_cmdline_fix("driver", *host, distro("arch"), "Remove nomodeset", {}, {"nomodeset"});
  EXPECT_EQ(fix.commands,
            (std::vector<std::string>{"echo 'root=UUID=1234 rw quiet' | sudo tee /etc/kernel/cmdline",
                                      "sudo kernel-install add 6.8.0-48-generic /boot/vmlinuz-6.8.0-48-generic",
                                      "sudo reboot"}));
}

TEST(KernelCmdlineFix, SystemdBootWithoutEtcKernelCmdlineStartsFromTheRunningOne) {
  SnapshotBuilder b;
  b.file("/boot/efi/loader/loader.conf", "default arch.conf\n")
      .file("/proc/cmdline", "initrd=\\initramfs-linux.img root=UUID=1234 rw\n")
      .file("/usr/lib/modules/6.8.0-48-generic/vmlinuz", "");
  const auto fix = kernel_cmdline_fix("topology", *b.open(), distro("arch"), "Add", {"iommu=pt"}, {});
  EXPECT_EQ(fix.commands.at(0), "echo 'root=UUID=1234 rw iommu=pt' | sudo tee /etc/kernel/cmdline");
  EXPECT_EQ(fix.commands.at(1), "sudo kernel-install add 6.8.0-48-generic /usr/lib/modules/6.8.0-48-generic/vmlinuz");
}

TEST(KernelCmdlineFix, PopOsUsesKernelstub) {
  SnapshotBuilder b;
  b.file("/usr/bin/kernelstub", "").file("/etc/kernel/cmdline", "quiet");
  const auto host = b.open();
  EXPECT_EQ(detect_boot_loader(*host, distro("pop", "ubuntu debian")), BootLoader::kernelstub);
  EXPECT_EQ(kernel_cmdline_fix("driver", *host, distro("pop", "ubuntu debian"), "Remove", {"iommu=pt"}, {"nomodeset"})
                .commands,
            (std::vector<std::string>{"sudo kernelstub -a iommu=pt", "sudo kernelstub -d nomodeset", "sudo reboot"}));
}

}  // namespace
}  // namespace rocm_doctor::testing
