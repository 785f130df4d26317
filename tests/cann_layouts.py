"""CANN toolkit trees as their installers leave them (only the files cann.py looks at), for tests without CANN."""

from __future__ import annotations

from pathlib import Path

from torch_ascendgen.targets.npu import cann

ARCH = cann._arches()[0]


def make_toolkit(home: Path, version: str | None = "8.0.RC3", *, version_file: str = "install_info",
                 bisheng: str | None = "compiler/ccec_compiler/bin/bisheng", include: bool = True) -> Path:
    """A toolkit as its installer leaves it (only the files cann.py looks at)."""
    arch_dir = home / f"{ARCH}-linux"
    arch_dir.mkdir(parents=True, exist_ok=True)
    (home / "lib64").mkdir(exist_ok=True)
    if include:
        (arch_dir / "include" / "acl").mkdir(parents=True)
        (arch_dir / "include" / "acl" / "acl.h").write_text("// stand-in\n")
        (home / "include").symlink_to(arch_dir / "include")  # as in CANN 8.x trees
    if bisheng:
        make_executable(home / bisheng.format(arch=ARCH))
    if version is not None and version_file == "install_info":
        (arch_dir / "ascend_toolkit_install.info").write_text(
            f"package_name=Ascend-cann-toolkit\nversion={version}\ninnerversion=V100R001C19SPC001B155\n"
            f"arch={ARCH}\nos=linux\npath={arch_dir}\n")
    elif version is not None and version_file == "version_cfg":
        (home / "version.cfg").write_text(f"# version: 1.0\nruntime_running_version=[7.6.0.1.220:{version}]\n"
                                          f"toolkit_running_version=[7.6.0.1.220:{version}]\n")
    elif version is not None and version_file == "version_info":
        (home / "compiler").mkdir(exist_ok=True)
        (home / "compiler" / "version.info").write_text(f"Version={version}\nversion_dir=cann\n")
    return home


def old_layout(root: Path, version: str = "8.0.RC3") -> Path:
    """CANN 8.3 and older: <root>/ascend-toolkit/<version>, a `latest` symlink, set_env.sh beside it."""
    make_toolkit(root / "ascend-toolkit" / version, version)
    (root / "ascend-toolkit" / "latest").symlink_to(version)
    (root / "ascend-toolkit" / "set_env.sh").write_text("export ASCEND_TOOLKIT_HOME=...\n")
    return root / "ascend-toolkit" / "latest"


def new_layout(root: Path, version: str = "8.5.0", link: bool = True) -> Path:
    """CANN 8.5.0 and newer: <root>/cann-<version>, with <root>/cann pointing at it."""
    home = make_toolkit(root / f"cann-{version}", version)
    (home / "set_env.sh").write_text("export ASCEND_HOME_PATH=...\n")
    if link:
        (root / "cann").symlink_to(f"cann-{version}")
    return root / "cann" if link else home


def make_executable(path: Path, text: str = "#!/bin/sh\necho 'bisheng version 8.5.0 (fake)'\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path
