// The report's `node_config` (docs/report-format.md#node_config): what makes one node of a
// fleet differ from its peers that no check reports, for `fleet --baseline` and the drift
// alerts: the kernel command line, the key environment variables, and each GPU's VBIOS,
// firmware versions and PCIe link.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/check.h"

namespace rocm_doctor {

// Reads through the host after the checks ran: /proc/cmdline, the key variables, and per
// GPU on PCI its vbios_version, fw_version/*_fw_version and current/max_link_* files.
// Null when none of it is known (no command line, no GPU).
nlohmann::ordered_json collect_node_config(const CheckContext& ctx);

// The parameters of a kernel command line as the kernel splits them (whitespace outside
// double quotes), without the ones that name the node's own disk, image or address
// (checks/data/fleet_baseline.json), each once, sorted: what nodes of a fleet compare.
std::vector<std::string> comparable_cmdline(std::string_view cmdline);

// The variables node_config.environment may hold (checks/data/fleet_baseline.json).
const std::vector<std::string>& key_environment_variables();

// "32.0 GT/s PCIe" -> "32.0 GT/s"; "16" -> "x16"; "" stays "".
std::string link_speed_label(std::string_view text);
std::string link_width_label(std::string_view text);

}  // namespace rocm_doctor
