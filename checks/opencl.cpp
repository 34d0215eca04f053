// `opencl`: the OpenCL ICD registrations (/etc/OpenCL/vendors) against the
// ROCm OpenCL runtime. clinfo, BOINC, darktable and hashcat find the GPU only
// through an .icd file naming a library the loader can open: a missing file,
// one left pointing into a removed release, or a second implementation
// driving the same GPU (Mesa Clover, rusticl with radeonsi, AMDGPU-PRO) are
// why "rocminfo sees the GPU but clinfo does not", or sees it twice.
#include "opencl.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"
#include "table_loader.h"

namespace rocm_doctor::opencl {

namespace {

struct Data {
  std::string vendor_dir;
  std::string amd_runtime;
  std::vector<Implementation> implementations;
};

// Throws "opencl.json: KEY: what" on a missing or mistyped key or row field: the
// TableLoader makes it the error value.
Data opencl_data_from(data_table::TableReader& reader) {
  Data result;
  result.vendor_dir = check_tables::value_of<std::string>(reader, "vendor_dir");
  result.amd_runtime = check_tables::value_of<std::string>(reader, "amd_runtime");
  result.implementations = check_tables::read_key(reader, "implementations", [](const nlohmann::json& rows) {
    std::vector<Implementation> implementations;
    for (const auto& row : rows) {
      implementations.push_back({row.at("library").get<std::string>(), row.at("name").get<std::string>(),
                                 row.at("drives_amd").get<std::string>(), row.at("rocm").get<bool>()});
    }
    return implementations;
  });
  return result;
}

const check_tables::TableLoader<Data, &opencl_data_from> kOpenclTable("opencl.json");

const Data& data() {
  return kOpenclTable.get();
}

}  // namespace

const std::vector<Implementation>& implementations() {
  return data().implementations;
}
std::string_view vendor_dir() {
  return data().vendor_dir;
}
std::string_view amd_runtime() {
  return data().amd_runtime;
}

std::optional<std::string> parse_icd(std::string_view text) {
  for (const auto raw : lines(text)) {
    const auto line = trim(raw);
    if (line.empty()) continue;
    const bool plain = std::all_of(line.begin(), line.end(), [](char c) {
      return static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7f;
    });
    if (!plain || line.size() > 4096) return std::nullopt;
    return std::string(line);
  }
  return std::nullopt;
}

const Implementation* classify(std::string_view library) {
  const auto slash = library.rfind('/');
  const auto name = slash == std::string_view::npos ? library : library.substr(slash + 1);
  for (const auto& implementation : implementations()) {
    const std::string_view known = implementation.library;
    if (name == known || (name.starts_with(known) && name.size() > known.size() && name[known.size()] == '.')) {
      return &implementation;
    }
  }
  return nullptr;
}

bool rusticl_enables_radeonsi(std::string_view value) {
  for (const auto part : split(value, ',')) {
    const auto word = trim(part);
    if (word == "radeonsi" || word.starts_with("radeonsi:")) return true;
  }
  return false;
}

namespace {

constexpr std::string_view kCheckId = "opencl";

struct Icd {
  std::string file;     // "/etc/OpenCL/vendors/amdocl64.icd"
  std::string content;  // the library it names, as written ("" when unreadable or junk)
  std::string problem;  // why it cannot load, "" when it resolves
  std::string resolved;
  const Implementation* implementation = nullptr;
};

// Where an .icd file's library is found: an absolute path as written, a bare name in
// the loader's folders (LD_LIBRARY_PATH, ld.so.conf, the defaults: what dlopen searches).
std::string resolve(const Host& host, const RocmInstallation& install, const std::string& library) {
  if (library.find('/') != std::string::npos) return host.exists(library) ? library : "";
  for (const auto& dir : install.loader_dirs) {
    auto path = dir.path + "/" + library;
    if (host.exists(path)) return path;
  }
  return "";
}

std::vector<Icd> read_icds(const Host& host, const RocmInstallation& install, const std::string& folder) {
  std::vector<Icd> icds;
  const auto entries = host.list_dir(folder);
  if (!entries) return icds;
  for (const auto& entry : *entries) {
    if (!entry.name.ends_with(".icd") || entry.type == EntryType::directory) continue;
    Icd icd;
    icd.file = folder + "/" + entry.name;
    const auto text = host.read_file(icd.file, 64 * 1024);
    const auto library = text ? parse_icd(*text) : std::nullopt;
    if (!text) {
      icd.problem = "unreadable (" + text.error().message + ")";
    } else if (!library) {
      icd.problem = "names no library (empty or not a file name)";
    } else {
      icd.content = *library;
      icd.implementation = classify(*library);
      icd.resolved = resolve(host, install, *library);
      if (icd.resolved.empty()) {
        icd.problem = library->find('/') != std::string::npos
                          ? "the file does not exist"
                          : "no folder the loader searches holds it (LD_LIBRARY_PATH, /etc/ld.so.conf.d, defaults)";
      }
    }
    icds.push_back(std::move(icd));
  }
  return icds;
}

std::string name_of(const Icd& icd) {
  return icd.implementation ? icd.implementation->name : "unknown implementation";
}

std::string register_command(const std::string& runtime, const std::string& folder) {
  return "echo " + shell_quote(runtime) + " | sudo tee " + shell_quote(folder + "/amdocl64.icd");
}

Finding summary(const std::vector<Icd>& icds, const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& icd : icds) names.push_back(name_of(icd) + " (" + icd.file.substr(icd.file.rfind('/') + 1) + ")");
  auto finding = make_finding("opencl.icds", Severity::info,
                              icds.empty() ? "No OpenCL ICD is registered in " + folder
                                           : "OpenCL implementations registered: " + join(names, ", "))
                     .because(
                         "The OpenCL loader (libOpenCL.so.1) offers one platform per .icd file it can load; "
                         "programs list the platforms and pick one, often the first.");
  for (const auto& icd : icds) finding.with_evidence(icd.file, icd.content.empty() ? icd.problem : icd.content);
  if (icds.empty()) finding.with_evidence(folder, "no .icd files");
  return finding;
}

std::optional<Finding> unresolved(const std::vector<Icd>& icds, const std::string& runtime, const std::string& folder) {
  std::vector<const Icd*> broken;
  for (const auto& icd : icds) {
    if (!icd.problem.empty()) broken.push_back(&icd);
  }
  if (broken.empty()) return std::nullopt;
  const auto& first = *broken.front();
  auto finding = make_finding("opencl.icd-unresolved", Severity::warning,
                              "OpenCL ICD " + first.file + " names a library that cannot be loaded" +
                                  (broken.size() > 1 ? " (and " + std::to_string(broken.size() - 1) + " more)" : ""))
                     .because(
                         "The loader skips an ICD whose library dlopen() cannot open: that platform is missing from "
                         "clinfo, or clinfo prints 'dlerror: ... cannot open shared object file'. Usually the file "
                         "outlived the release it pointed into, or names a bare library whose folder is not "
                         "registered with the loader.");
  for (const auto* icd : broken) {
    finding.with_evidence(icd->file, (icd->content.empty() ? std::string() : icd->content + ": ") + icd->problem);
  }
  std::vector<std::string> commands;
  const bool amd = first.implementation && first.implementation->rocm;
  if (amd && !runtime.empty()) {
    commands.push_back(register_command(runtime, folder));
  } else {
    commands.push_back("dpkg -S " + shell_quote(first.file));
  }
  return finding.with_fix(make_fix(
      kCheckId,
      amd && !runtime.empty()
          ? "Point the ROCm ICD at this release's runtime by its full path."
          : "Reinstall the package that owns the ICD file (dpkg -S names it), or remove a file no package owns.",
      commands, {.root = amd && !runtime.empty()}));
}

std::optional<Finding> no_amd_icd(const std::vector<Icd>& icds, const std::string& runtime, const std::string& folder) {
  if (runtime.empty()) return std::nullopt;
  const bool registered = std::any_of(icds.begin(), icds.end(),
                                      [](const Icd& icd) { return icd.implementation && icd.implementation->rocm; });
  if (registered) return std::nullopt;
  return make_finding("opencl.no-amd-icd", Severity::warning,
                      "The ROCm OpenCL runtime is installed but not registered: OpenCL programs see no AMD platform")
      .because(
          "rocminfo (HSA) sees the GPU, but clinfo reports no AMD platform (or 'clGetPlatformIDs -1001') until an "
          ".icd file in the vendors folder names libamdocl64.so. rocm-opencl installs it; a partial install, a "
          "copied /opt/rocm or a package that leaves it in the install prefix does not.")
      .with_evidence(runtime, "present")
      .with_evidence(folder, icds.empty() ? "no .icd files" : std::to_string(icds.size()) + " .icd files, none ROCm's")
      .with_fix(make_fix(kCheckId, "Register the runtime by its full path.", {register_command(runtime, folder)},
                         {.root = true}));
}

std::optional<Finding> amd_gpu_twice(const Host& host, const std::vector<Icd>& icds) {
  const auto rocm = std::find_if(icds.begin(), icds.end(), [](const Icd& icd) {
    return icd.problem.empty() && icd.implementation && icd.implementation->rocm;
  });
  if (rocm == icds.end()) return std::nullopt;
  const auto rusticl = host.env("RUSTICL_ENABLE");
  for (const auto& icd : icds) {
    if (!icd.problem.empty() || !icd.implementation || icd.implementation->rocm) continue;
    const auto& drives = icd.implementation->drives_amd;
    const bool second =
        drives == "always" || (drives == "RUSTICL_ENABLE" && rusticl && rusticl_enables_radeonsi(*rusticl));
    if (!second) continue;
    auto finding =
        make_finding("opencl.amd-gpu-twice", Severity::warning,
                     "The AMD GPU is offered by two OpenCL platforms: ROCm and " + icd.implementation->name)
            .because(
                "Each platform drives the same GPU. A program that takes the first platform, or lets the user pick "
                "by index, may run on " +
                icd.implementation->name +
                " instead of ROCm (missing extensions, slower kernels, crashes in kernel compilation), and "
                "benchmarks count the GPU twice.")
            .with_evidence(rocm->file, rocm->content)
            .with_evidence(icd.file, icd.content);
    if (drives == "RUSTICL_ENABLE") finding.with_evidence("env RUSTICL_ENABLE", *rusticl);
    std::vector<std::string> commands;
    if (drives == "RUSTICL_ENABLE") {
      commands.push_back("unset RUSTICL_ENABLE");
    } else {
      commands.push_back("dpkg -S " + shell_quote(icd.file));
    }
    return finding.with_fix(
        make_fix(kCheckId,
                 drives == "RUSTICL_ENABLE"
                     ? "Stop rusticl from driving the AMD GPU: remove radeonsi from RUSTICL_ENABLE (and from the "
                       "shell start-up file that sets it)."
                     : "Remove the package that registers " + icd.implementation->name +
                           " (dpkg -S names it), or select the ROCm platform in the program.",
                 commands));
  }
  return std::nullopt;
}

// OCL_ICD_VENDORS (ocl-icd) or OPENCL_VENDOR_PATH (Khronos loader) replace the folder.
std::string vendors_folder(const Host& host) {
  for (const auto* name : {"OCL_ICD_VENDORS", "OPENCL_VENDOR_PATH"}) {
    if (const auto value = host.env(name); value && value->starts_with('/')) return normalize_path(*value);
  }
  return std::string(vendor_dir());
}

class OpenclCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "OpenCL ICD registrations"; }
  int order() const override { return 62; }
  std::vector<std::string_view> finding_ids() const override {
    return {"opencl.icds", "opencl.icd-unresolved", "opencl.no-amd-icd", "opencl.amd-gpu-twice"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& facts = ctx.fact<SystemFacts>();
    if (facts.wsl) return CheckOutcome::skipped("WSL: OpenCL is not part of ROCm on WSL");
    const auto& host = ctx.host();
    const auto& install = ctx.fact<RocmInstallation>();
    std::string runtime;
    if (install.active && !install.active->lib_dir.empty()) {
      const auto path = install.active->lib_dir + "/" + std::string(amd_runtime());
      if (host.exists(path)) runtime = path;
    }
    const auto folder = vendors_folder(host);
    const auto icds = read_icds(host, install, folder);
    if (icds.empty() && runtime.empty()) {
      return CheckOutcome::skipped("no OpenCL ICD registered and no ROCm OpenCL runtime installed");
    }
    std::vector<Finding> findings = {summary(icds, folder)};
    if (auto finding = unresolved(icds, runtime, folder)) findings.push_back(std::move(*finding));
    if (auto finding = no_amd_icd(icds, runtime, folder)) findings.push_back(std::move(*finding));
    if (auto finding = amd_gpu_twice(host, icds)) findings.push_back(std::move(*finding));
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::opencl

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::opencl::OpenclCheck)
