"""The torch.compile front end: backend.py (the entry point and a graph's compile), options.py, report.py,
addmm.py (addmm split into mm + bias), partition.py (regions) and region.py (a region's kernel at run time).

Nothing here is imported by ``import torch_ascendgen`` except report.py (no torch._dynamo at import time).
"""
