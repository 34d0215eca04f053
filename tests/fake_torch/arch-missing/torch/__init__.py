# A fake ROCm build of torch for rocm-doctor's tests: its arch list lacks gfx1100.
from types import SimpleNamespace

__version__ = "2.1.0+rocm5.6"
version = SimpleNamespace(hip="5.6.31061-8c743ae5d", cuda=None)


class _Cuda:
    _available = True
    _devices = ["AMD Radeon RX 7900 XTX"]
    _arch = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030"]

    def is_available(self):
        return self._available

    def device_count(self):
        return len(self._devices) if self._available else 0

    def get_arch_list(self):
        return list(self._arch) if self._available else []

    def get_device_name(self, index):
        return self._devices[index]


cuda = _Cuda()
