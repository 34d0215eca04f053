// The knowledge base: gfx targets, PCI ids, per-release support and the ROCm
// math libraries, parsed once from checks/data/*.json (compiled in).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocm_doctor {

// A gfx version triple as KFD and HSA_OVERRIDE_GFX_VERSION spell it.
struct GfxVersion {
  unsigned major = 0;
  unsigned minor = 0;
  unsigned stepping = 0;
  friend bool operator==(const GfxVersion&, const GfxVersion&) = default;
};

// KFD `gfx_target_version` (decimal major*10000 + minor*100 + stepping); 0 = CPU node.
std::optional<GfxVersion> decode_gfx_target_version(std::uint64_t value);
// "gfx" + major (decimal) + minor and stepping (hex digits): 9.0.10 -> "gfx90a".
std::string gfx_name(const GfxVersion& version);
// "10.3.0": the HSA_OVERRIDE_GFX_VERSION spelling.
std::string override_string(const GfxVersion& version);
// Strict HSA_OVERRIDE_GFX_VERSION syntax: three decimal numbers "major.minor.stepping"
// (libhsakmt: major <= 63, minor and stepping <= 255). Anything else is nullopt.
std::optional<GfxVersion> parse_override_value(std::string_view text);
// "gfx1030" -> 10.3.0 (inverse of gfx_name for names with hex minor/stepping digits).
std::optional<GfxVersion> parse_gfx_name(std::string_view name);

namespace kb {

// AMD's PCI vendor id: the one place the code knows it. checks/data/pci_ids.json says it too
// (its "vendor" key, the vendor of every row), and the table's loader fails when they differ.
inline constexpr std::uint32_t kAmdPciVendor = 0x1002;

struct Workaround {
  std::string override_value;  // "10.3.0"
  std::string runs_as;         // "gfx1030"
  std::string reliability;     // "community", "disputed", "unreliable", "reported"
  std::string note;
  std::vector<std::string> sources;
  [[nodiscard]] bool known_unreliable() const { return reliability == "disputed" || reliability == "unreliable"; }
};

struct SupportHistory {
  std::string text;
  std::string last_release;  // "5.7", empty when none is known
  std::vector<std::string> sources;
};

struct GfxTarget {
  std::string gfx;                    // "gfx1031"
  std::string family;                 // "RDNA2"
  std::string isa_family;             // override compatibility group: "gfx10-3"
  std::optional<GfxVersion> version;  // absent for targets KFD never reports (gfx909)
  bool apu = false;
  std::vector<std::string> products;
  std::optional<Workaround> workaround;
  std::optional<SupportHistory> history;
  std::string notes;
  std::vector<std::string> sources;
};

struct PciDevice {
  std::uint32_t device = 0;
  std::optional<std::uint32_t> revision;  // nullopt: any revision
  std::string name;
  std::string codename;
  std::string gfx;  // empty when unknown
  // Accelerator dies (XCDs) of an Instinct MI300-series GPU: CPX mode makes one partition of each.
  std::optional<unsigned> xcds;
  // An APU whose GPU shares one HBM pool with the CPU (MI300A): integrated, yet the node's GPU.
  bool unified_memory = false;
  bool virtual_function = false;  // an SR-IOV virtual function's own device id (MI300X VF 0x74b5)
  std::vector<std::string> sources;
};

struct ReleaseTarget {
  std::string gfx;
  std::string since;  // first patch release listing it ("5.7.1"), empty = every patch
};

struct OsSupport {
  std::string name;
  std::string version;
  std::string kernel;
};

struct Release {
  std::string release;  // "6.0"
  std::vector<std::string> patch_releases;
  std::vector<ReleaseTarget> targets;
  std::vector<OsSupport> os;
  std::string notes;
  std::vector<std::string> sources;
  // Whether `gfx` is on the official list for patch release `version` ("6.4.0").
  [[nodiscard]] bool lists(std::string_view gfx, std::string_view version = "") const;
  [[nodiscard]] std::vector<std::string> target_names(std::string_view version = "") const;
};

struct KernelLayout {
  std::string base;                    // "lib" (the release's lib_dir) or "prefix"
  std::vector<std::string> dirs;       // relative; one '*' path component allowed
  std::string match;                   // "token" (gfx anywhere in the name) or "prefix" (name starts with it)
  std::string finding;                 // finding id when a GPU's gfx is missing
  std::string family_absent_severity;  // "info" when the library is not built for the GPU's family by design
};

struct MathLibrary {
  std::string name;    // "rocBLAS"
  std::string soname;  // "librocblas.so"
  std::optional<KernelLayout> kernels;
};

struct PerDeviceOverride {
  std::string since;  // "6.2"
  bool inferred = true;
  std::string note;
};

// The JSON text of the four tables; it must outlive the KnowledgeBase.
struct TableTexts {
  std::string_view gfx_targets;
  std::string_view pci_ids;
  std::string_view releases;
  std::string_view libraries;
};

// Each table is parsed and checked on its first use, so a run on a machine
// without GPUs never parses the PCI ids or the gfx targets (most of the
// data). References between tables are checked by parse_knowledge_base.
class KnowledgeBase {
 public:
  explicit KnowledgeBase(TableTexts texts);
  ~KnowledgeBase();
  KnowledgeBase(const KnowledgeBase&) = delete;
  KnowledgeBase& operator=(const KnowledgeBase&) = delete;

  // The tables; each throws std::runtime_error naming the problem when its JSON is malformed.
  [[nodiscard]] const std::vector<GfxTarget>& targets() const;
  [[nodiscard]] const std::vector<PciDevice>& pci_devices() const;
  [[nodiscard]] const std::vector<Release>& releases() const;  // oldest first
  [[nodiscard]] const std::vector<MathLibrary>& libraries() const;
  [[nodiscard]] const PerDeviceOverride& per_device_override() const;
  [[nodiscard]] std::vector<std::string> sources() const;  // every table's _sources

  [[nodiscard]] const GfxTarget* target(std::string_view gfx) const;
  // Exact device+revision row first, then the device's any-revision row, then any row of the device.
  [[nodiscard]] const PciDevice* pci_device(std::uint32_t device, std::optional<std::uint32_t> revision) const;
  // The release row for "6.0.2", "6.0" or "6.0.2-115" (matched on major.minor).
  [[nodiscard]] const Release* release(std::string_view version) const;
  [[nodiscard]] const Release& newest_release() const { return releases().back(); }
  // Newest release whose official list names `gfx`, if any.
  [[nodiscard]] const Release* last_release_listing(std::string_view gfx) const;
  // Whether release `version` ("6.2.0") has the per-device override variable.
  [[nodiscard]] bool has_per_device_override(std::string_view version) const;

 private:
  struct Tables;
  std::unique_ptr<Tables> tables_;
};

// Parses every table now and checks the references between them (a PCI
// row's or a release's gfx target, a workaround's runs_as); throws
// std::runtime_error naming the problem. The texts must outlive the result.
std::unique_ptr<KnowledgeBase> parse_knowledge_base(TableTexts texts);
// The compiled-in knowledge base, parsed on first use.
const KnowledgeBase& knowledge_base();

// "6.0.2-115" -> {6, 0, 2}; missing parts are 0. Empty on garbage.
std::vector<int> version_numbers(std::string_view version);
// a < b by version_numbers.
bool version_less(std::string_view a, std::string_view b);

}  // namespace kb
}  // namespace rocm_doctor
