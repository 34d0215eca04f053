#!/usr/bin/env python3
"""Writes the node-health scenarios of issue 29: kernel-log-* (one per finding of the kernel-log check,
every pattern's real sample line in it), their -healthy twins (real normal amdgpu start-up lines only),
ras-* and pcie-aer-* (RAS and AER counters in an MI300X node's sysfs) and real-mi300x-ras-incident
(the dmesg of a public MI300X incident on a node built at its PCI addresses).

Real data: every kernel log line comes from checks/data/kernel_log.json's `sample` fields (each with
its sources) or tests/checks/data/amdgpu_boot_lines.txt (each block with its source). The dmesg
"[seconds]" prefix becomes the /dev/kmsg record's microseconds; the message is kept byte for byte.
The sysfs counter files use the layouts amdgpu and the PCI core write (checks/data/ras.json names
them); their values are built, and each SOURCE.md says so. Rewrites only its own folders.
"""
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from gen_gpu_scenarios import Machine  # noqa: E402
import scenario_out  # noqa: E402

TABLE = json.loads((REPO / "checks/data/kernel_log.json").read_text())
BOOT = REPO / "tests/checks/data/amdgpu_boot_lines.txt"
STAMP = re.compile(r"^\[\s*(\d+)\.(\d{6})\] ")
DATE = re.compile(r"^\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\] ")


def boot_lines():
    """[(seconds or None, message)] and the sources, from the boot corpus."""
    lines, sources = [], []
    for raw in BOOT.read_text().splitlines():
        if raw.startswith("# source: "):
            sources.append(raw[len("# source: "):])
        if not raw or raw.startswith("#"):
            continue
        stamp = STAMP.match(raw)
        if stamp:
            lines.append((int(stamp.group(1)) * 1_000_000 + int(stamp.group(2)), raw[stamp.end():]))
        else:
            date = DATE.match(raw)
            lines.append((None, raw[date.end():] if date else raw))
    return lines, sources


def kmsg(records):
    """/dev/kmsg text: "prio,seq,usec,-;message" per record; lines without a time get the last one's."""
    out, last = [], 0
    for seq, (usec, priority, message) in enumerate(records, start=900):
        last = usec if usec is not None else last + 1
        out.append(f"{priority},{seq},{last},-;{message}\n")
    return "".join(out)


def minimal(name, description):
    m = Machine(name, description)
    m.base_system("ubuntu2204", "6.8.0-48-generic")
    return m


def write_expected(folder, description, checks, expect, root_causes, absent=()):
    expected = {"description": description}
    if checks:
        expected["checks"] = checks
    expected["expect"] = expect
    if absent:
        expected["absent"] = list(absent)
    expected["root_causes"] = root_causes
    (folder / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")


def write_snapshot(m, nodes=None):
    manifest = {"format": "rocm-doctor-snapshot", "version": 1, "captured_at": "2026-12-01T10:00:00Z",
                "captured_by": "tests/scenarios/gen_node_health_scenarios.py", "env": m.env,
                "identity": {"user": "alice", "uid": 1000, "gid": 1000, "groups": [4, 27, 44, 110, 1000]},
                "nodes": nodes if nodes is not None else {}, "probes": {}}
    (m.folder / "snapshot.json").write_text(json.dumps(manifest, indent=2) + "\n")


SEVERITY = {"critical": "error", "high": "error", "medium": "warning", "low": "warning", "info": "info"}
RANK = {"info": 0, "warning": 1, "error": 2}


def kernel_log_scenarios(boot, boot_sources):
    by_finding = {}
    for pattern in TABLE["patterns"]:
        if pattern.get("sample") and pattern["finding"] != "driver.firmware-missing":
            by_finding.setdefault(pattern["finding"], []).append(pattern)
    boot_records = [(usec, 6, message) for usec, message in boot]
    for finding, patterns in by_finding.items():
        name = "kernel-log-" + finding.split(".", 1)[1]
        severity = max((SEVERITY[p["priority"]] for p in patterns), key=RANK.get)
        problems = [(3_600_000_000 + 1_000_000 * i, 3, p["sample"]) for i, p in enumerate(patterns)]
        summary = TABLE["findings"][finding]["summary"]
        for healthy in (False, True):
            folder_name = name + ("-healthy" if healthy else "")
            m = minimal(folder_name, "")
            m.write("/dev/kmsg", kmsg(boot_records + ([] if healthy else problems)))
            write_snapshot(m)
            if healthy:
                description = (f"The machine of {name} without its problem lines: {len(boot)} real amdgpu/KFD "
                               "start-up and resume lines from public logs, none of which the kernel-log patterns "
                               f"match; {finding} must not appear.")
                # driver.kernel-log is also the clean log's own (ok) finding: its severity says it.
                absent = [] if finding == "driver.kernel-log" else [finding]
                write_expected(m.folder, description, ["kernel-log"], {"driver.kernel-log": "ok"}, [], absent)
            else:
                ids = ", ".join(p["id"] for p in patterns)
                description = (f"/dev/kmsg of a node whose kernel log shows {summary}: the real lines of the "
                               f"patterns {ids} after {len(boot)} real normal start-up lines.")
                causes = [finding] if severity != "info" else []
                write_expected(m.folder, description, ["kernel-log"], {finding: severity}, causes)
            lines = [] if healthy else [f"- `{p['id']}`: `{p['sample']}`, from {'; '.join(p['sources'])}"
                                        for p in patterns]
            (m.folder / "SOURCE.md").write_text(
                f"# {folder_name}\n\nBuilt by `tests/scenarios/gen_node_health_scenarios.py`: a minimal Ubuntu 22.04 "
                "machine whose `/dev/kmsg` holds real kernel messages, each kept byte for byte (the dmesg "
                "`[seconds]` prefix the threads show became the record's time).\n\n"
                + ("The problem lines (priority 3), one per pattern of `checks/data/kernel_log.json` raising "
                   f"`{finding}`:\n\n" + "\n".join(lines) + "\n\n" if lines else "")
                + "Start-up lines (priority 6): `tests/checks/data/amdgpu_boot_lines.txt`, from "
                + "; ".join(boot_sources) + ". They come from many machines, so their times are not in order.\n")


INCIDENT_SOURCE = "https://github.com/ROCm/ROCm/issues/4021 (MI300X, ROCm 6.2.3, turn 11 by anthonix)"
INCIDENT = [  # the thread's dmesg, byte for byte; times from its [seconds] prefix
    (13850912648, "amdgpu 0000:1c:00.0: {1}uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!"),
    (13850927924, "amdgpu 0000:42:00.0: {1}[Hardware Error]: Accelerator Check Architecture events logged"),
    (13850927941, "amdgpu 0000:42:00.0: {1}[Hardware Error]: aca entry[00].STATUS=0x98000800003e0000"),
    (13850927950, "amdgpu 0000:42:00.0: {1}[Hardware Error]: aca entry[00].ADDR=0x0000000000000000"),
    (13850927955, "amdgpu 0000:42:00.0: {1}[Hardware Error]: aca entry[00].MISC0=0xd008000000000000"),
    (13850927960, "amdgpu 0000:42:00.0: {1}[Hardware Error]: aca entry[00].IPID=0x0001000138430400"),
    (13850927964, "amdgpu 0000:42:00.0: {1}[Hardware Error]: aca entry[00].SYND=0x0000000000000000"),
    (13850935971, "amdgpu 0000:55:00.0: {1}[Hardware Error]: Accelerator Check Architecture events logged"),
    (13850935975, "amdgpu 0000:55:00.0: {1}[Hardware Error]: aca entry[00].STATUS=0x98000800003e0000"),
    (13850935980, "amdgpu 0000:55:00.0: {1}[Hardware Error]: aca entry[00].ADDR=0x0000000000000000"),
    (13850935983, "amdgpu 0000:55:00.0: {1}[Hardware Error]: aca entry[00].MISC0=0xd008000000000000"),
    (13850935987, "amdgpu 0000:55:00.0: {1}[Hardware Error]: aca entry[00].IPID=0x0001300136430400"),
]
MI300X_BUSES = ["1c", "42", "55"]


def mi300x_node(name, description):
    m = Machine(name, description).base_system("ubuntu2204", "5.15.0-119-generic")
    m.cpu_nodes, m.cpu_cores = 2, 96
    for i, bus in enumerate(MI300X_BUSES):
        m.gpu(f"0000:{bus}:00.0", "0x74a1", "0x00", "gfx942", 304, 192, 290, subsystem=("0x1002", "0x74a1"),
              num_xcc=8, sdma=16, xgmi_sdma=14, clock=2100, numa=0 if i < 2 else 1, pci_class="0x120000")
    m.rocm("6.2.4", "139")
    m.write("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    return m


def gpu_folder(index, bus):
    return f"/sys/devices/pci0000:00/0000:00:0{1 + index % 7}.1/0000:{bus}:00.0"


def ras_files(m, index, bus, blocks, bad_pages=0, features="0x1abf877"):
    folder = gpu_folder(index, bus)
    m.write(f"{folder}/ras/features", f"feature mask: {features}\n")
    for block in ("umc", "sdma", "gfx", "mmhub", "pcie_bif", "hdp", "xgmi_wafl"):
        ue, ce, de = blocks.get(block, (0, 0, 0))
        m.write(f"{folder}/ras/{block}_err_count", f"ue: {ue}\nce: {ce}\nde: {de}\n")
    m.write(f"{folder}/ras/gpu_vram_bad_pages",
            "".join(f"0x{0x027f5d43 + 8 * page:08x} : 0x00001000 : R\n" for page in range(bad_pages)))


AER_COR = ["RxErr", "BadTLP", "BadDLLP", "Rollover", "Timeout", "NonFatalErr", "CorrIntErr", "HeaderOF"]
AER_UNCOR = ["Undefined", "DLP", "SDES", "TLP", "FCP", "CmpltTO", "CmpltAbrt", "UnxCmplt", "RxOF", "MalfTLP",
             "ECRC", "UnsupReq", "ACSViol", "UncorrIntErr", "BlockedTLP", "AtomicOpBlocked", "TLPBlockedErr",
             "PoisonTLPBlocked"]


def aer_text(names, total, counts):
    return "".join(f"{name} {counts.get(name, 0)}\n" for name in names) + f"{total} {sum(counts.values())}\n"


def aer_files(m, folder, cor=None, nonfatal=None, fatal=None):
    m.write(f"{folder}/aer_dev_correctable", aer_text(AER_COR, "TOTAL_ERR_COR", cor or {}))
    m.write(f"{folder}/aer_dev_nonfatal", aer_text(AER_UNCOR, "TOTAL_ERR_NONFATAL", nonfatal or {}))
    m.write(f"{folder}/aer_dev_fatal", aer_text(AER_UNCOR, "TOTAL_ERR_FATAL", fatal or {}))


COUNTERS_NOTE = ("The RAS and AER counter files use the layouts amdgpu and the PCI core write (amdgpu_ras.c "
                 "'ue: N'/'ce: N'/'de: N' per block, 'feature mask: 0x...' as in ROCm/amdsmi's RAS fixtures, "
                 "gpu_vram_bad_pages 'pfn : size : flag' lines as quoted on amd-gfx; aer_dev_* as in "
                 "prometheus/procfs testdata/fixtures.ttar @ 3c943fdb); their values are built for this scenario.")


def counter_scenario(name, description, checks, expect, causes, setup, absent=()):
    m = mi300x_node(name, description)
    m.save({}, checks=checks)
    setup(m)
    write_expected(m.folder, description, checks, expect, causes, absent)
    (m.folder / "SOURCE.md").write_text(
        f"# {name}\n\n{description}\n\nBuilt by `tests/scenarios/gen_node_health_scenarios.py`: three Instinct MI300X "
        "(gfx942) GPUs at 0000:1c:00.0, 0000:42:00.0 and 0000:55:00.0 (gen_gpu_scenarios.Machine), ROCm 6.2.4 on "
        f"Ubuntu 22.04.\n\n{COUNTERS_NOTE}\n")
    return m


def zero_counters(m, bad_pages=0):
    for i, bus in enumerate(MI300X_BUSES):
        ras_files(m, i, bus, {}, bad_pages=bad_pages if i == 0 else 0)
        aer_files(m, gpu_folder(i, bus))
        aer_files(m, gpu_folder(i, bus).rsplit("/", 1)[0])


def counter_scenarios():
    ras = ["ras"]
    aer = ["pcie-aer"]
    def ue(m):
        zero_counters(m)
        ras_files(m, 0, "1c", {"umc": (2, 14, 0), "gfx": (1, 0, 0)}, bad_pages=2)
    counter_scenario("ras-uncorrectable-umc", "MI300X node whose GPU 0 counted 2 uncorrectable umc (HBM) errors and "
                     "1 in gfx since the driver loaded (ras/umc_err_count, ras/gfx_err_count), with 14 corrected "
                     "ones and 2 retired pages.", ras,
                     {"ras.uncorrectable": "error", "ras.correctable": "warning", "ras.counters": "ok"},
                     ["ras.uncorrectable", "ras.correctable"], ue)
    counter_scenario("ras-uncorrectable-umc-healthy", "The node of ras-uncorrectable-umc with every RAS counter at 0 "
                     "and no retired page.", ras, {"ras.counters": "ok"}, [], zero_counters,
                     absent=["ras.uncorrectable", "ras.correctable", "ras.bad-pages", "ras.bad-page-threshold"])
    def ce(m):
        zero_counters(m)
        ras_files(m, 1, "42", {"umc": (0, 37, 0)})
    counter_scenario("ras-correctable-umc", "MI300X node whose GPU 1 corrected 37 umc (HBM) ECC errors since the "
                     "driver loaded and had no uncorrectable one.", ras,
                     {"ras.correctable": "warning", "ras.counters": "ok"}, ["ras.correctable"], ce)
    counter_scenario("ras-correctable-umc-healthy", "The node of ras-correctable-umc with every RAS counter at 0.",
                     ras, {"ras.counters": "ok"}, [], zero_counters, absent=["ras.correctable"])
    def threshold(m):
        zero_counters(m, bad_pages=130)
        m.write("/sys/module/amdgpu/parameters/bad_page_threshold", "-1\n")
    counter_scenario("ras-bad-page-threshold", "MI300X node whose GPU 0 retired 130 VRAM pages "
                     "(ras/gpu_vram_bad_pages), over the bad-page threshold of 128 amdgpu falls back to "
                     "(amdgpu.bad_page_threshold=-1): an RMA case.", ras,
                     {"ras.bad-page-threshold": "error", "ras.counters": "ok"}, ["ras.bad-page-threshold"], threshold)
    def near(m):
        zero_counters(m, bad_pages=180)
        m.write("/sys/module/amdgpu/parameters/bad_page_threshold", "200\n")
    counter_scenario("ras-bad-pages-near-threshold", "MI300X node whose GPU 0 retired 180 VRAM pages with "
                     "amdgpu.bad_page_threshold=200: at 90% of the threshold, where amdgpu starts to warn.", ras,
                     {"ras.bad-pages": "warning", "ras.counters": "ok"}, ["ras.bad-pages"], near)
    def few(m):
        zero_counters(m, bad_pages=3)
        m.write("/sys/module/amdgpu/parameters/bad_page_threshold", "200\n")
    counter_scenario("ras-bad-pages-near-threshold-healthy", "The node of ras-bad-pages-near-threshold with 3 "
                     "retired pages of 200 allowed: far from the threshold.", ras, {"ras.counters": "ok"}, [], few,
                     absent=["ras.bad-pages", "ras.bad-page-threshold"])
    counter_scenario("ras-bad-page-threshold-healthy", "The node of ras-bad-page-threshold with no retired page.",
                     ras, {"ras.counters": "ok"}, [], zero_counters, absent=["ras.bad-page-threshold"])
    def uncorrectable(m):
        zero_counters(m)
        aer_files(m, gpu_folder(2, "55"), fatal={"MalfTLP": 1})
        aer_files(m, gpu_folder(2, "55").rsplit("/", 1)[0], nonfatal={"CmpltTO": 2})
    counter_scenario("pcie-aer-uncorrectable", "MI300X node whose GPU 2 counted a fatal malformed TLP "
                     "(aer_dev_fatal) and the root port above it 2 completion timeouts (aer_dev_nonfatal).", aer,
                     {"pcie.aer-uncorrectable": "error", "pcie.aer-counters": "ok"}, ["pcie.aer-uncorrectable"],
                     uncorrectable)
    counter_scenario("pcie-aer-uncorrectable-healthy", "The node of pcie-aer-uncorrectable with every AER counter "
                     "at 0.", aer, {"pcie.aer-counters": "ok"}, [], zero_counters,
                     absent=["pcie.aer-uncorrectable", "pcie.aer-correctable"])
    def correctable(m):
        zero_counters(m)
        aer_files(m, gpu_folder(0, "1c"), cor={"BadTLP": 9, "Timeout": 3})
    counter_scenario("pcie-aer-correctable", "MI300X node whose GPU 0 link corrected 9 bad TLPs and 3 replay "
                     "timeouts (aer_dev_correctable).", aer,
                     {"pcie.aer-correctable": "warning", "pcie.aer-counters": "ok"}, ["pcie.aer-correctable"],
                     correctable)
    counter_scenario("pcie-aer-correctable-healthy", "The node of pcie-aer-correctable with every AER counter at 0.",
                     aer, {"pcie.aer-counters": "ok"}, [], zero_counters, absent=["pcie.aer-correctable"])


def incident_scenarios(boot):
    for healthy in (False, True):
        name = "real-mi300x-ras-incident" + ("-healthy" if healthy else "")
        what = ("the same node before the incident: normal start-up lines only, every RAS counter at 0" if healthy
                else "its GPU at 0000:1c:00.0 raised an uncorrectable ATHUB error and the GPUs at 0000:42:00.0 and "
                     "0000:55:00.0 logged ACA hardware-error records (the thread's dmesg)")
        description = (f"MI300X node of {INCIDENT_SOURCE}, built at the incident's PCI addresses: {what}. All checks.")
        m = mi300x_node(name, description)
        m.save({}, checks=())
        records = [(usec, 6, message) for usec, message in boot]
        if not healthy:
            records += [(usec, 3, message) for usec, message in INCIDENT]
        m.write("/dev/kmsg", kmsg(records))
        zero_counters(m)
        if not healthy:
            ras_files(m, 0, "1c", {"gfx": (1, 0, 0)})
        expected = json.loads((m.folder / "expected.json").read_text())
        if healthy:
            expect, causes = {"driver.kernel-log": "ok", "ras.counters": "ok", "pcie.aer-counters": "ok",
                              "gpu.supported": "ok"}, []
        else:
            expect = {"driver.ras-uncorrectable": "error", "ras.uncorrectable": "error", "ras.counters": "ok",
                      "gpu.supported": "ok"}
            causes = ["driver.ras-uncorrectable"]
        write_expected(m.folder, description, None, expect, causes,
                       ["driver.ras-uncorrectable", "ras.uncorrectable"] if healthy else ())
        (m.folder / "SOURCE.md").write_text(
            f"# {name}\n\n{description}\n\nKept: the incident's kernel messages, byte for byte, from "
            f"{INCIDENT_SOURCE}, as /dev/kmsg records (priority 3) timed from the thread's `[seconds]` prefix"
            + (" (left out here: this is the node before the incident)" if healthy else "")
            + ". Start-up lines: `tests/checks/data/amdgpu_boot_lines.txt` (each block's source there).\n\n"
            "Built by `tests/scenarios/gen_node_health_scenarios.py`: three MI300X GPUs at the addresses the thread "
            "names (the node had more; the thread shows three), ROCm 6.2.4 on Ubuntu 22.04 (gen_gpu_scenarios.Machine). "
            + COUNTERS_NOTE + (" GPU 0's gfx_err_count says `ue: 1`, the error its log line reports."
                               if not healthy else "") + "\n")
        del expected


def main():
    scenario_out.parse(__doc__)
    boot, sources = boot_lines()
    kernel_log_scenarios(boot, sources)
    counter_scenarios()
    incident_scenarios(boot)


if __name__ == "__main__":
    main()
