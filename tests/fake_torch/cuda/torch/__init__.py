# A fake NVIDIA CUDA build of torch: torch.version.cuda set, hip None, no GPU usable here.
from types import SimpleNamespace

__version__ = "2.3.1+cu121"
version = SimpleNamespace(hip=None, cuda="12.1")


class _Cuda:
    def is_available(self):
        return False

    def device_count(self):
        return 0

    def get_arch_list(self):
        return []

    def get_device_name(self, index):
        raise RuntimeError("no CUDA GPUs are available")


cuda = _Cuda()
