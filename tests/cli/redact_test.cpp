// --redact: no hostname, user name, home folder, address or GPU serial
// survives in any format, nor in a capture's files.
#include "report/redact.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "host/snapshot_host.h"
#include "render/formats.h"
#include "render/run_tool.h"
#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::run_doctor;

const std::string kScenarios = ROCM_DOCTOR_SCENARIOS_DIR;

// The MI300X scenario plus every kind of identifying value, in files the
// checks read and in files they do not.
struct SecretMachine {
  testing::TempDir folder;
  fs::path snapshot;
  std::vector<std::string> secrets = {"gpu-node-17.example.org",
                                      "gpu-node-17",
                                      "o'neil admin",
                                      "neil admin",
                                      "/home/oneil",
                                      "10.23.4.5",
                                      "fe80::1c2d:3eff:fe4f:5a6b",
                                      "0c:42:a1:9e:77:10",
                                      "a0e8bc60b4ca2a5b",
                                      "11594724364201372251",
                                      "SN-MI300X-0042",
                                      "4c4c4544-0042-3510-8052-b4c04f4d3332"};

  SecretMachine() {
    snapshot = folder.path() / "snapshot";
    fs::copy(kScenarios + "/gpu-mi300x-x8", snapshot, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    const auto root = snapshot / "root";
    write(root / "proc/sys/kernel/hostname", "gpu-node-17.example.org\n");
    write(root / "etc/hostname", "gpu-node-17\n");
    write(root / "proc/cmdline",
          "BOOT_IMAGE=/vmlinuz root=UUID=4c4c4544-0042-3510-8052-b4c04f4d3332 "
          "ip=10.23.4.5 ipv6=fe80::1c2d:3eff:fe4f:5a6b hwaddr=0c:42:a1:9e:77:10\n");
    write(root / "sys/class/drm/card1/device/unique_id", "a0e8bc60b4ca2a5b\n");
    write(root / "sys/class/drm/card1/device/serial_number", "SN-MI300X-0042\n");
    write(root / "etc/passwd", "root:x:0:0:root:/root:/bin/bash\no'neil admin:x:20001:20001::/home/oneil:/bin/bash\n");
    write(root / "home/oneil/.profile", "export HSA_OVERRIDE_GFX_VERSION=9.4.2 # o'neil admin\n");
    // KFD reports the same unique id in decimal.
    const auto properties = root / "sys/class/kfd/kfd/topology/nodes/2/properties";
    if (fs::exists(properties)) {
      std::ofstream(properties, std::ios::app) << "unique_id 11594724364201372251\n";
    }
    auto manifest = nlohmann::json::parse(read_text(snapshot / "snapshot.json"));
    manifest["identity"]["user"] = "o'neil admin";
    manifest["env"]["USER"] = "o'neil admin";
    manifest["env"]["HOME"] = "/home/oneil";
    manifest["stat"]["/home/oneil/.cache/miopen"] = {{"type", "dir"}, {"mode", "0755"}, {"uid", 0}, {"gid", 0}};
    std::ofstream(snapshot / "snapshot.json") << manifest.dump(2);
  }
  static void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    fs::remove(path);
    std::ofstream(path) << text;
  }
  void expect_none_in(const std::string& text, const std::string& where) const {
    for (const auto& secret : secrets) EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in " << where;
  }
};

TEST(Redact, NoOriginalValueSurvivesInAnyFormat) {
  SecretMachine machine;
  std::vector<std::string> args = {"--replay", machine.snapshot.string(), "--level", "quick", "--redact"};
  for (const auto& format : format_names()) {
    args.push_back("--output");
    args.push_back(format + "=" + (machine.folder.path() / ("out." + format)).string());
  }
  args.push_back("--fix-script");
  args.push_back((machine.folder.path() / "fix.sh").string());
  const auto result = run_doctor(args);
  ASSERT_TRUE(result.exit_code == 0 || result.exit_code == 1) << result.err;
  for (const auto& format : format_names()) {
    const auto text = read_text(machine.folder.path() / ("out." + format));
    EXPECT_FALSE(text.empty()) << format;
    machine.expect_none_in(text, format);
  }
  machine.expect_none_in(read_text(machine.folder.path() / "fix.sh"), "the fix script");
  const auto json = nlohmann::json::parse(read_text(machine.folder.path() / "out.json"));
  EXPECT_TRUE(json["host"]["hostname"].get<std::string>().starts_with("redacted-host-")) << json["host"];
  // Without --redact the values are there (the test would otherwise prove nothing).
  const auto plain = run_doctor({"--replay", machine.snapshot.string(), "--level", "quick", "--json"});
  EXPECT_NE(plain.out.find("gpu-node-17.example.org"), std::string::npos);
}

TEST(Redact, SameValueSamePlaceholderAndQuotedFormsToo) {
  Redactor redactor;
  redactor.add(RedactKind::user, "o'neil admin");
  redactor.add(RedactKind::home, "/home/oneil");
  redactor.add(RedactKind::host, "node17");
  const auto once = redactor.apply("sudo usermod -aG render 'o'\\''neil admin' on node17 (node17.lan), /home/oneil/x");
  EXPECT_EQ(once,
            "sudo usermod -aG render redacted-user-1 on redacted-host-1 (redacted-host-1.lan), "
            "/home/redacted-user-2/x");
  EXPECT_EQ(redactor.apply("o'neil admin"), "redacted-user-1") << "stable across strings";
  EXPECT_EQ(redactor.apply("anode17 node17x"), "anode17 node17x") << "only whole words";
  EXPECT_EQ(redactor.apply("ip 192.168.1.20, mac AA:BB:CC:DD:EE:FF, v6 2001:db8::7, 192.168.1.20"),
            "ip redacted-ip-1, mac redacted-mac-1, v6 redacted-ip-2, redacted-ip-1");
  EXPECT_EQ(redactor.apply("at 2026-11-30T07:00:00Z on 0000:03:00.0, version 6.2.41133, gfx1100"),
            "at 2026-11-30T07:00:00Z on 0000:03:00.0, version 6.2.41133, gfx1100")
      << "times, PCI addresses and versions are not addresses";
}

TEST(Redact, CaptureRedactsFilesNamesAndManifest) {
  // capture reads the live machine; redact_snapshot_folder is what it applies.
  SecretMachine machine;
  Redactor redactor;
  for (const auto& value : {"gpu-node-17.example.org", "gpu-node-17"}) redactor.add(RedactKind::host, value);
  redactor.add(RedactKind::user, "o'neil admin");
  redactor.add(RedactKind::home, "/home/oneil");
  redactor.add(RedactKind::serial, "a0e8bc60b4ca2a5b");
  redactor.add(RedactKind::serial, "11594724364201372251");
  redactor.add(RedactKind::serial, "SN-MI300X-0042");
  ASSERT_TRUE(redact_snapshot_folder(machine.snapshot, redactor));
  for (const auto& entry : fs::recursive_directory_iterator(machine.snapshot)) {
    machine.expect_none_in(entry.path().string(), "a file name");
    if (entry.is_symlink()) {
      machine.expect_none_in(fs::read_symlink(entry.path()).string(), "a link");
    } else if (entry.is_regular_file()) {
      machine.expect_none_in(read_text(entry.path()), entry.path().string());
    }
  }
  // The home folder is renamed like the name inside it: one placeholder for both.
  std::vector<fs::directory_entry> homes;
  for (const auto& entry : fs::directory_iterator(machine.snapshot / "root/home")) {
    if (entry.path().filename().string().starts_with("redacted-")) homes.push_back(entry);
  }
  ASSERT_EQ(homes.size(), 1U);
  EXPECT_FALSE(fs::exists(machine.snapshot / "root/home/oneil"));
  EXPECT_TRUE(homes[0].path().filename().string().starts_with("redacted-user-"));
  EXPECT_TRUE(fs::exists(homes[0].path() / ".profile"));
  const auto manifest = nlohmann::json::parse(read_text(machine.snapshot / "snapshot.json"));
  EXPECT_EQ(manifest["env"]["HOME"], "/home/" + homes[0].path().filename().string());
  // Owners recorded outside /dev follow the renamed home, so replay still finds them.
  const auto cache = "/home/" + homes[0].path().filename().string() + "/.cache/miopen";
  ASSERT_TRUE(manifest["stat"].contains(cache)) << manifest["stat"].dump();
  EXPECT_EQ(manifest["stat"].size(), 1U);
  const auto host = SnapshotHost::open(machine.snapshot);
  ASSERT_TRUE(host) << host.error();
  const auto node = (*host)->stat_node(cache);
  ASSERT_TRUE(node);
  EXPECT_TRUE(node->permissions_known);
  EXPECT_EQ(node->uid, 0U);
  // The redacted snapshot still replays.
  const auto replay = run_doctor({"--replay", machine.snapshot.string(), "--level", "quick", "--json"});
  EXPECT_TRUE(replay.exit_code == 0 || replay.exit_code == 1) << replay.err;
}

}  // namespace
}  // namespace rocm_doctor
