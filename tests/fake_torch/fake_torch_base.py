# What every fake torch build shares: the attributes rocm-doctor's Python
# probe reads (__version__, version.hip/.cuda and torch.cuda's queries).
# Each variant's torch/__init__.py calls define() with its own values.
from types import SimpleNamespace


class _Cuda:
    def __init__(self, devices, arch):
        self._devices = list(devices)
        self._arch = list(arch)

    def is_available(self):
        return bool(self._devices)

    def device_count(self):
        return len(self._devices)

    def get_arch_list(self):
        return list(self._arch) if self._devices else []

    def get_device_name(self, index):
        if not self._devices:
            raise RuntimeError("no CUDA GPUs are available")
        return self._devices[index]


def define(module_globals, version, hip=None, cuda=None, devices=(), arch=()):
    module_globals["__version__"] = version
    module_globals["version"] = SimpleNamespace(hip=hip, cuda=cuda)
    module_globals["cuda"] = _Cuda(devices, arch)
