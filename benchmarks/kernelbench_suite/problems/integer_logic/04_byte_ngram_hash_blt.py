import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Hash n-gram embeddings' bucket ids: the byte sequence is left-padded with zeros, every window of group_size
    bytes taken with unfold, hashed as a polynomial in a prime (int64 arithmetic that wraps), and reduced modulo the
    number of buckets (remainder: non-negative).

    Where: the hash n-gram embeddings of the Byte Latent Transformer (facebookresearch/blt, `bytelatent`:
    `rolling_polynomial_hash` and `byte_group_hash_function`).
    """
    def __init__(self, group_size: int = 3, prime: int = 1000000007, max_hash: int = 30000):
        super(Model, self).__init__()
        self.group_size = group_size
        self.prime = prime
        self.max_hash = max_hash

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): int64 (batch, seq), byte values.

        Returns:
            torch.Tensor: int64 (batch, seq) bucket ids in [0, max_hash).
        """
        x = F.pad(x, (self.group_size - 1, 0), value=0)
        windows = x.unfold(1, self.group_size, 1)
        prime_powers = torch.tensor(self.prime, dtype=torch.int64) ** torch.arange(self.group_size)
        hashes = torch.sum(windows * prime_powers, dim=-1)
        return torch.remainder(hashes, self.max_hash)


CASES = [
    (2, 256),
    (1, 4096),
    (8, 7),
    (3, 1),
]


def get_inputs(case=CASES[0]):
    return [torch.randint(0, 256, case)]


def get_init_inputs():
    return [3, 1000000007, 30000]
