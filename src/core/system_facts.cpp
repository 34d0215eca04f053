#include "rocm_doctor/system_facts.h"

#include <algorithm>
#include <cctype>

#include "rocm_doctor/text.h"
#include "rocm_doctor/text_case.h"

namespace rocm_doctor {

namespace {

std::string read_or_empty(const Host& host, std::string_view path) {
  return host.read_trimmed(path).value_or("");
}

struct ContainerMark {
  std::string runtime;  // "" when no mark was found
  std::string source;   // the file or variable that said so
};

// Container runtimes leave well-known marks; the first match wins.
ContainerMark detect_container(const Host& host) {
  if (host.env("KUBERNETES_SERVICE_HOST")) return {"kubernetes", "env KUBERNETES_SERVICE_HOST"};
  if (host.exists("/var/run/secrets/kubernetes.io/serviceaccount")) {
    return {"kubernetes", "/var/run/secrets/kubernetes.io/serviceaccount"};
  }
  if (host.exists("/run/.containerenv")) return {"podman", "/run/.containerenv"};
  if (host.exists("/.dockerenv")) return {"docker", "/.dockerenv"};
  if (host.env("APPTAINER_CONTAINER")) return {"apptainer", "env APPTAINER_CONTAINER"};
  if (host.env("SINGULARITY_CONTAINER")) return {"apptainer", "env SINGULARITY_CONTAINER"};
  if (host.exists("/.singularity.d")) return {"apptainer", "/.singularity.d"};
  const auto cgroup = read_or_empty(host, "/proc/1/cgroup");
  if (cgroup.find("/kubepods") != std::string::npos) return {"kubernetes", "/proc/1/cgroup"};
  if (cgroup.find("libpod") != std::string::npos) return {"podman", "/proc/1/cgroup"};
  if (cgroup.find("/docker/") != std::string::npos || cgroup.find("docker-") != std::string::npos) {
    return {"docker", "/proc/1/cgroup"};
  }
  if (cgroup.find("/lxc/") != std::string::npos) return {"lxc", "/proc/1/cgroup"};
  if (host.env("container") == "lxc") return {"lxc", "env container"};
  if (host.env("container") == "podman") return {"podman", "env container"};
  return {};
}

}  // namespace

bool mentions_wsl(std::string_view kernel_text) {
  const auto text = lower(kernel_text);
  return text.find("microsoft") != std::string::npos || text.find("wsl") != std::string::npos;
}

SystemFacts SystemFacts::collect(const CheckContext& ctx) {
  return collect(ctx.host());
}

SystemFacts SystemFacts::collect(const Host& host) {
  SystemFacts facts;
  for (const char* path : {"/etc/os-release", "/usr/lib/os-release"}) {
    auto os_release = host.read_file(path, kDefaultReadLimit);
    if (!os_release) continue;
    facts.os_release_file = path;
    const auto values = parse_env_file(*os_release);
    const auto get = [&](const char* key) {
      const auto it = values.find(key);
      return it == values.end() ? std::string() : it->second;
    };
    facts.os_id = get("ID");
    facts.os_id_like = get("ID_LIKE");
    facts.os_version_id = get("VERSION_ID");
    facts.os_pretty_name = get("PRETTY_NAME");
    if (facts.os_pretty_name.empty()) {
      const auto name_and_version = get("NAME") + " " + get("VERSION");
      facts.os_pretty_name = std::string(trim(name_and_version));
    }
    break;
  }
  facts.kernel_version = read_or_empty(host, "/proc/version");
  facts.kernel_release = read_or_empty(host, "/proc/sys/kernel/osrelease");
  if (!facts.kernel_release.empty()) facts.kernel_release_file = "/proc/sys/kernel/osrelease";
  if (facts.kernel_release.empty()) {
    // "Linux version 6.1.0-18-amd64 (debian-kernel@...) ..."
    const auto words = split_words(facts.kernel_version);
    if (words.size() >= 3 && words[0] == "Linux" && words[1] == "version") {
      facts.kernel_release = words[2];
      facts.kernel_release_file = "/proc/version";
    }
  }
  facts.hostname = read_or_empty(host, "/proc/sys/kernel/hostname");
  if (facts.hostname.empty()) facts.hostname = read_or_empty(host, "/etc/hostname");
  facts.wsl = mentions_wsl(facts.kernel_release) || mentions_wsl(facts.kernel_version) || host.exists("/dev/dxg");
  auto container = detect_container(host);
  facts.container = std::move(container.runtime);
  facts.container_source = std::move(container.source);
  return facts;
}

}  // namespace rocm_doctor
