# A fake NVIDIA CUDA build of torch: torch.version.cuda set, hip None, no GPU usable here.
import os
import sys

sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from fake_torch_base import define  # noqa: E402

define(globals(), "2.3.1+cu121", cuda="12.1")
