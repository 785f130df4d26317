"""The command line: `python -m torch_ascendgen doctor`."""

from __future__ import annotations

import argparse


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m torch_ascendgen",
                                     description="torch_ascendgen: AscendC kernels for PyTorch functions.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    doctor = commands.add_parser("doctor", help="check torch, torch_npu, CANN, the compiler, the cache "
                                 "and the model server, with the fix for each missing piece")
    doctor.add_argument("--model-timeout", type=float, default=30.0, metavar="SECONDS",
                        help="time limit of the model server's one-token round trip (default 30)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "doctor":
        from torch_ascendgen.cli import doctor
        return doctor.main(model_timeout_s=args.model_timeout)
    parser.print_help()
    return 2

