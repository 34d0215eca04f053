# A fake ROCm build of torch for rocm-doctor's tests: a ROCm build that sees no GPU.
import os
import sys

sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from fake_torch_base import define  # noqa: E402

define(globals(), "2.1.0+rocm5.6", hip="5.6.31061-8c743ae5d", devices=[],
       arch=["gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100"])
