// The static Python inspection (rocm_doctor/facts/python_env.h): parsers on
// tables of real file contents, and the environment search on snapshots laid
// out like real venv, conda, pyenv and Debian installs.
#include "rocm_doctor/facts/python_env.h"

#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

// torch 2.5.1's version.py from the rocm6.2 wheel (download.pytorch.org), as it is laid out.
constexpr const char* kRocmVersionPy =
    "from typing import Optional\n\n"
    "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
    "__version__ = '2.5.1+rocm6.2'\n"
    "debug = False\n"
    "cuda: Optional[str] = None\n"
    "git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\n"
    "hip: Optional[str] = '6.2.41133-dd7f95766'\n";

// Debian 12's python3-torch 1.13 (/usr/lib/python3/dist-packages/torch/version.py).
constexpr const char* kDebianVersionPy =
    "__version__ = '1.13.0a0'\ndebug = False\ncuda = None\ngit_version = 'Unknown'\nhip = None\n";

TEST(ParseVersionPy, AWheelsTypedAssignments) {
  const auto parsed = parse_version_py(kRocmVersionPy);
  ASSERT_TRUE(parsed.has_version);
  EXPECT_EQ(parsed.version, "2.5.1+rocm6.2");
  EXPECT_EQ(parsed.hip, "6.2.41133-dd7f95766");
  EXPECT_EQ(parsed.cuda, std::nullopt);
  EXPECT_EQ(parsed.git_version, "a8d6afb511a69687bbb2b7e88a3cf67917e1697e");
}

TEST(ParseVersionPy, DebiansPlainAssignments) {
  const auto parsed = parse_version_py(kDebianVersionPy);
  EXPECT_EQ(parsed.version, "1.13.0a0");
  EXPECT_EQ(parsed.hip, std::nullopt);
  EXPECT_EQ(parsed.cuda, std::nullopt);
}

TEST(ParseVersionPy, ACudaBuildWithDoubleQuotesAndAComment) {
  const auto parsed = parse_version_py("__version__ = \"2.3.1+cu121\"  # set by setup.py\ncuda = '12.1'\nhip = None\n");
  EXPECT_EQ(parsed.version, "2.3.1+cu121");
  EXPECT_EQ(parsed.cuda, "12.1");
}

TEST(ParseVersionPy, ExpressionsIndentedLinesAndGarbageAreIgnored) {
  const auto parsed = parse_version_py(
      "if True:\n    __version__ = '9.9'\nhip = compute()\ncuda == '1'\n__version__ = '\n\x01\xff = 'x'\n");
  EXPECT_FALSE(parsed.has_version);
  EXPECT_EQ(parsed.hip, std::nullopt);
  EXPECT_EQ(parsed.cuda, std::nullopt);
}

TEST(ParseMetadata, TheVersionHeaderOnly) {
  EXPECT_EQ(parse_metadata_version("Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+rocm6.2\n\nVersion: 1\n"),
            "2.5.1+rocm6.2");
  EXPECT_EQ(parse_metadata_version("Name: torch\n\nVersion: 2.0\n"), "");
}

TEST(ParsePyvenvCfg, VenvAndVirtualenvFiles) {
  const auto venv = parse_pyvenv_cfg(
      "home = /usr/bin\ninclude-system-site-packages = true\nversion = 3.11.2\nexecutable = /usr/bin/python3.11\n");
  EXPECT_EQ(venv.home, "/usr/bin");
  EXPECT_TRUE(venv.system_site_packages);
  EXPECT_EQ(venv.version, "3.11.2");
  const auto virtualenv =
      parse_pyvenv_cfg("home = /opt/py/bin\nimplementation = CPython\nversion_info = 3.10.13.final.0\n");
  EXPECT_EQ(virtualenv.version, "3.10.13.final.0");
  EXPECT_FALSE(virtualenv.system_site_packages);
}

TEST(PythonMajorMinor, FromNamesOfEveryKind) {
  EXPECT_EQ(python_major_minor("python3.11"), "3.11");
  EXPECT_EQ(python_major_minor("3.12.1"), "3.12");
  EXPECT_EQ(python_major_minor("python-3.10.14-h955ad1f_0.json"), "3.10");
  EXPECT_EQ(python_major_minor("python3"), "");
  EXPECT_EQ(python_major_minor("13.1"), "");
}

TEST(WheelRocmRelease, TagThenRocmFieldThenHip) {
  TorchFiles torch;
  torch.version = "2.5.1+rocm6.2";
  EXPECT_EQ(wheel_rocm_release(torch), "6.2");
  torch.version = "2.7.0a0+git1234";
  torch.rocm = "7.0.2";
  EXPECT_EQ(wheel_rocm_release(torch), "7.0.2");
  torch.rocm.reset();
  torch.hip = "6.3.42131-fa1d09cbd";
  EXPECT_EQ(wheel_rocm_release(torch), "6.3");
  EXPECT_EQ(build_of(torch), TorchBuild::rocm);
}

Node program(std::uint32_t uid = 0) {
  return Node::chr("0755", uid, uid).of_type("file");
}

SnapshotBuilder& torch_in(SnapshotBuilder& builder, const std::string& site, const std::string& version_py,
                          const std::string& dist_info = "") {
  builder.file(site + "/torch/__init__.py", "");
  builder.file(site + "/torch/version.py", version_py);
  if (!dist_info.empty()) {
    builder.file(site + "/" + dist_info + "/METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: " +
                                                           parse_version_py(version_py).version.value_or("") + "\n");
  }
  return builder;
}

TEST(InspectPython, AVenvOnPathWithItsOwnRocmWheel) {
  SnapshotBuilder builder;
  builder.env("PATH", "/home/alice/venv/bin:/usr/bin").env("HOME", "/home/alice");
  builder.stat("/home/alice/venv/bin/python3", program(1000)).stat("/usr/bin/python3", program());
  builder.file("/home/alice/venv/pyvenv.cfg",
               "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n");
  torch_in(builder, "/home/alice/venv/lib/python3.11/site-packages", kRocmVersionPy, "torch-2.5.1+rocm6.2.dist-info");
  // Debian's CPU torch system-wide: the venv does not see it.
  torch_in(builder, "/usr/lib/python3/dist-packages", kDebianVersionPy);
  const auto env = inspect_python_environment(*builder.open(), "");
  EXPECT_EQ(env.interpreter, "/home/alice/venv/bin/python3");
  EXPECT_EQ(env.kind, "venv");
  EXPECT_EQ(env.python_version, "3.11");
  ASSERT_TRUE(env.torch) << env.undecided;
  EXPECT_EQ(env.torch->version, "2.5.1+rocm6.2");
  EXPECT_EQ(build_of(*env.torch), TorchBuild::rocm);
  EXPECT_EQ(env.torch->metadata_version, "2.5.1+rocm6.2");
  EXPECT_EQ(env.torch->folder, "/home/alice/venv/lib/python3.11/site-packages/torch");
}

TEST(InspectPython, AVenvWithSystemSitePackagesSeesDebiansTorch) {
  SnapshotBuilder builder;
  builder.env("PATH", "/srv/env/bin:/usr/bin");
  builder.stat("/srv/env/bin/python3", program());
  builder.file("/srv/env/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = true\nversion = 3.11.2\n");
  torch_in(builder, "/usr/lib/python3/dist-packages", kDebianVersionPy);
  const auto env = inspect_python_environment(*builder.open(), "");
  ASSERT_TRUE(env.torch) << env.undecided;
  EXPECT_EQ(env.torch->folder, "/usr/lib/python3/dist-packages/torch");
  EXPECT_EQ(build_of(*env.torch), TorchBuild::cpu);
}

TEST(InspectPython, APyenvShimResolvesThroughItsVersionFile) {
  SnapshotBuilder builder;
  builder.env("PATH", "/root/.pyenv/shims:/usr/bin").env("HOME", "/root").env("PWD", "/root/work");
  builder.stat("/root/.pyenv/shims/python3", program()).dir("/root/.pyenv/versions/3.11.7/bin");
  builder.file("/root/.pyenv/version", "3.11.7\n");
  builder.stat("/root/.pyenv/versions/3.11.7/bin/python3", program());
  torch_in(builder, "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages",
           "__version__ = '2.3.1+cu121'\ncuda = '12.1'\nhip = None\n", "torch-2.3.1+cu121.dist-info");
  builder.dir("/root/.pyenv/versions/3.11.7/lib/python3.11");
  const auto env = inspect_python_environment(*builder.open(), "");
  EXPECT_EQ(env.resolved, "/root/.pyenv/versions/3.11.7/bin/python3");
  EXPECT_EQ(env.kind, "pyenv");
  ASSERT_TRUE(env.torch) << env.undecided;
  EXPECT_EQ(build_of(*env.torch), TorchBuild::cuda);
}

TEST(InspectPython, PyenvVersionAndALocalVersionFileWinOverTheGlobalOne) {
  SnapshotBuilder builder;
  builder.env("PATH", "/opt/pyenv/shims:/usr/bin").env("PWD", "/srv/project/sub");
  builder.stat("/opt/pyenv/shims/python3", program()).dir("/opt/pyenv/versions");
  builder.file("/opt/pyenv/version", "3.11.7\n").file("/srv/project/.python-version", "3.12.1\n");
  builder.stat("/opt/pyenv/versions/3.11.7/bin/python3", program());
  builder.stat("/opt/pyenv/versions/3.12.1/bin/python3", program());
  EXPECT_EQ(inspect_python_environment(*builder.open(), "").resolved, "/opt/pyenv/versions/3.12.1/bin/python3");
  builder.env("PYENV_VERSION", "3.11.7");
  EXPECT_EQ(inspect_python_environment(*builder.open(), "").resolved, "/opt/pyenv/versions/3.11.7/bin/python3");
}

TEST(InspectPython, APyenvSystemVersionIsTheNextPython3OnPath) {
  SnapshotBuilder builder;
  builder.env("PATH", "/opt/pyenv/shims:/usr/bin");
  builder.stat("/opt/pyenv/shims/python3", program()).dir("/opt/pyenv/versions");
  builder.file("/opt/pyenv/version", "system\n");
  builder.stat("/usr/bin/python3", program());
  const auto env = inspect_python_environment(*builder.open(), "");
  EXPECT_EQ(env.resolved, "/usr/bin/python3");
  EXPECT_EQ(env.kind, "system");
}

TEST(InspectPython, AMissingPyenvVersionCannotBeDecided) {
  SnapshotBuilder builder;
  builder.env("PATH", "/opt/pyenv/shims");
  builder.stat("/opt/pyenv/shims/python3", program()).dir("/opt/pyenv/versions");
  builder.file("/opt/pyenv/version", "3.9.1\n");
  const auto env = inspect_python_environment(*builder.open(), "");
  EXPECT_NE(env.undecided.find("3.9.1"), std::string::npos) << env.undecided;
  EXPECT_FALSE(env.torch);
}

TEST(InspectPython, ACondaEnvironmentFromCondaPrefixWhenNotOnPath) {
  SnapshotBuilder builder;
  builder.env("PATH", "/usr/sbin").env("CONDA_PREFIX", "/opt/conda/envs/ml");
  builder.stat("/opt/conda/envs/ml/bin/python3", program());
  builder.file("/opt/conda/envs/ml/conda-meta/python-3.10.14-h955ad1f_0.json", "{}");
  torch_in(builder, "/opt/conda/envs/ml/lib/python3.10/site-packages", kRocmVersionPy);
  const auto env = inspect_python_environment(*builder.open(), "");
  EXPECT_EQ(env.found_by, "CONDA_PREFIX");
  EXPECT_EQ(env.kind, "conda");
  EXPECT_EQ(env.python_version, "3.10");
  ASSERT_TRUE(env.torch) << env.undecided;
  EXPECT_EQ(env.torch->version, "2.5.1+rocm6.2");
}

TEST(InspectPython, PythonpathComesFirstAndAnEmptyTorchFolderIsPassedOver) {
  SnapshotBuilder builder;
  builder.env("PATH", "/usr/bin").env("PYTHONPATH", "/work/leftover:/work/src").env("HOME", "/home/bob");
  builder.stat("/usr/bin/python3", program()).symlink("/usr/bin/python3", "python3.11");
  builder.dir("/work/leftover/torch");  // no __init__.py: a namespace folder Python passes over
  torch_in(builder, "/work/src", "__version__ = '2.6.0a0+gitabc'\nhip = '6.3.42131-fa1d09cbd'\ncuda = None\n");
  torch_in(builder, "/usr/lib/python3/dist-packages", kDebianVersionPy);
  const auto env = inspect_python_environment(*builder.open(), "");
  ASSERT_TRUE(env.torch) << env.undecided;
  EXPECT_EQ(env.torch->folder, "/work/src/torch");
  EXPECT_EQ(env.python_version, "3.11");
}

TEST(InspectPython, OnlyAnEmptyTorchFolderCannotBeDecided) {
  SnapshotBuilder builder;
  builder.env("PATH", "/usr/bin").stat("/usr/bin/python3", program()).symlink("/usr/bin/python3", "python3.11");
  builder.dir("/usr/local/lib/python3.11/dist-packages/torch");
  const auto env = inspect_python_environment(*builder.open(), "");
  EXPECT_FALSE(env.torch);
  EXPECT_NE(env.undecided.find("/usr/local/lib/python3.11/dist-packages/torch"), std::string::npos) << env.undecided;
}

TEST(InspectPython, ATorchWithoutVersionPyCannotBeDecided) {
  SnapshotBuilder builder;
  builder.env("PATH", "/usr/bin").stat("/usr/bin/python3", program()).symlink("/usr/bin/python3", "python3.11");
  builder.file("/usr/lib/python3/dist-packages/torch/__init__.py", "");
  const auto env = inspect_python_environment(*builder.open(), "");
  EXPECT_FALSE(env.torch);
  EXPECT_NE(env.undecided.find("version.py"), std::string::npos) << env.undecided;
}

TEST(InspectPython, NoTorchAnywhereIsDecided) {
  SnapshotBuilder builder;
  builder.env("PATH", "/usr/bin").stat("/usr/bin/python3", program()).symlink("/usr/bin/python3", "python3.11");
  const auto env = inspect_python_environment(*builder.open(), "");
  EXPECT_FALSE(env.torch);
  EXPECT_TRUE(env.undecided.empty()) << env.undecided;
  EXPECT_FALSE(env.search_path.empty());
}

TEST(InspectPython, NoInterpreterSaysWhyLikeTheProbe) {
  SnapshotBuilder builder;
  builder.env("PATH", "/usr/bin");
  EXPECT_EQ(inspect_python_environment(*builder.open(), "").error, "no python3 on PATH (/usr/bin)");
  EXPECT_EQ(inspect_python_environment(*builder.open(), "/opt/py/bin/python3").error,
            "--python /opt/py/bin/python3: not an executable file");
}

TEST(InspectPython, TheUserSiteComesBeforeTheSystemOutsideAVenv) {
  SnapshotBuilder builder;
  builder.env("PATH", "/usr/bin").env("HOME", "/home/carol");
  builder.stat("/usr/bin/python3", program()).symlink("/usr/bin/python3", "python3.11");
  torch_in(builder, "/home/carol/.local/lib/python3.11/site-packages", kRocmVersionPy);
  torch_in(builder, "/usr/lib/python3/dist-packages", kDebianVersionPy);
  auto env = inspect_python_environment(*builder.open(), "");
  ASSERT_TRUE(env.torch);
  EXPECT_EQ(env.torch->folder, "/home/carol/.local/lib/python3.11/site-packages/torch");
  builder.env("PYTHONNOUSERSITE", "1");
  env = inspect_python_environment(*builder.open(), "");
  ASSERT_TRUE(env.torch);
  EXPECT_EQ(env.torch->folder, "/usr/lib/python3/dist-packages/torch");
}

}  // namespace
}  // namespace rocm_doctor::testing
