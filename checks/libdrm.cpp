// `libdrm`: AMD's libdrm (/opt/amdgpu) without the ASIC id table it was built to read.
// Every HIP, OpenCL or Vulkan program then prints "/opt/amdgpu/share/libdrm/amdgpu.ids:
// No such file or directory" and names the GPU "AMD Radeon Graphics" or "Unknown AMD GPU";
// container images that copy /opt/amdgpu/lib without /opt/amdgpu/share, or keep a link to a
// file another layer removed, are the usual cause.
#include "rocm_doctor/check.h"
#include "rocm_doctor/shell.h"
#include "table_loader.h"

namespace rocm_doctor::libdrm_check {
namespace {

constexpr std::string_view kCheckId = "libdrm";

struct Data {
  std::vector<std::string> amd_libraries;
  std::string amd_ids;
  std::string distro_ids;
};

// Throws "libdrm.json: KEY: what" on a missing or mistyped key or row field: the
// TableLoader makes it the error value.
Data libdrm_data_from(data_table::TableReader& reader) {
  return Data{check_tables::value_of<std::vector<std::string>>(reader, "amd_libraries"),
              check_tables::value_of<std::string>(reader, "amd_ids"),
              check_tables::value_of<std::string>(reader, "distro_ids")};
}

const check_tables::TableLoader<Data, &libdrm_data_from> kLibdrmTable("libdrm.json");

const Data& data() {
  return kLibdrmTable.get();
}

std::string parent_of(const std::string& path) {
  return path.substr(0, path.rfind('/'));
}

class LibdrmCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "AMD libdrm ASIC id table"; }
  int order() const override { return 61; }
  std::vector<std::string_view> finding_ids() const override { return {"libdrm.ids-missing"}; }

  // Runs with --image too: images are where the table goes missing.
  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& host = ctx.host();
    std::string library;
    for (const auto& path : data().amd_libraries) {
      if (host.exists(path)) library = path;
    }
    if (library.empty()) return CheckOutcome::skipped("AMD's libdrm (/opt/amdgpu) is not installed");
    const auto& ids = data().amd_ids;
    if (host.exists(ids)) return CheckOutcome{};
    const auto link = host.read_link(ids);
    auto finding =
        make_finding("libdrm.ids-missing", Severity::info,
                     ids + (link ? " is a link to " + *link + ", which does not exist" : " is missing") +
                         ": programs print \"amdgpu.ids: No such file or directory\" and name the GPU generically")
            .because(
                "AMD's libdrm_amdgpu looks up marketing names in this file, at a path compiled into it. Without "
                "it every HIP, OpenCL and Vulkan program prints the message on start-up and reports the GPU as "
                "'AMD Radeon Graphics' or 'Unknown AMD GPU'; compute itself is unaffected.")
            .with_evidence(library, "present")
            .with_evidence(ids, link ? "-> " + *link + " (dangling)" : std::string("not found"));
    const bool distro = host.exists(data().distro_ids);
    if (distro) finding.with_evidence(data().distro_ids, "present");
    std::vector<std::string> commands;
    if (distro) {
      commands = {"sudo mkdir -p " + shell_quote(parent_of(ids)),
                  "sudo ln -sfn " + shell_quote(data().distro_ids) + " " + shell_quote(ids)};
    } else {
      commands = {"dpkg -S " + shell_quote(library)};
    }
    return {{finding.with_fix(make_fix(
        kCheckId,
        distro ? "Link the distribution's table into place (in a Dockerfile: the same ln in a RUN line)."
               : "Reinstall the package that owns AMD's libdrm (dpkg -S names it; libdrm-amdgpu-common carries the "
                 "table), or copy /opt/amdgpu/share with /opt/amdgpu/lib when building the image.",
        commands, {.root = distro}))}};
  }
};

}  // namespace
}  // namespace rocm_doctor::libdrm_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::libdrm_check::LibdrmCheck)
