"""cann.py against fake CANN trees: the layouts CANN's installers create, where the version is read
from, where bisheng is, what require_cann says when something is missing; the SoC names; torch_npu's
import failures turned into NpuUnavailable."""

from __future__ import annotations

import os
import platform
import sys
import types
from pathlib import Path

import pytest

from cann_layouts import ARCH, make_executable, make_toolkit, new_layout, old_layout
from torch_ascendgen import config
from torch_ascendgen.errors import AscendGenError, NpuUnavailable
from torch_ascendgen.targets.npu import cann


@pytest.fixture(autouse=True)
def _no_cann_here(monkeypatch, tmp_path):
    """No CANN from the machine: the variables unset, install roots inside tmp_path, no bisheng on PATH."""
    for name in (config.ASCEND_HOME_PATH_ENV, config.ASCEND_TOOLKIT_HOME_ENV, config.BISHENG_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(config.ASCEND_ROOTS_ENV, str(tmp_path / "no-roots"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setattr(cann, "_import_failure", None)


def use_roots(monkeypatch, *roots: Path) -> None:
    monkeypatch.setenv(config.ASCEND_ROOTS_ENV, os.pathsep.join(str(r) for r in roots))


# ---- where the toolkit is found ---------------------------------------------------------------------

def test_ascend_home_path_as_set_env_sh_exports_it(tmp_path, monkeypatch):
    home = make_toolkit(tmp_path / "toolkit", "8.0.RC3")
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(home))
    toolkit = cann.find_cann()
    assert toolkit == cann.CannToolkit(
        home=home, version="8.0.RC3", bisheng=home / "compiler/ccec_compiler/bin/bisheng",
        include_dirs=(home / "include",), library_dirs=(home / "lib64",), source="ASCEND_HOME_PATH")
    assert cann.require_cann() == toolkit


def test_ascend_toolkit_home_alone(tmp_path, monkeypatch):
    home = make_toolkit(tmp_path / "toolkit")
    monkeypatch.setenv(config.ASCEND_TOOLKIT_HOME_ENV, str(home))
    assert cann.find_cann().source == "ASCEND_TOOLKIT_HOME"


def test_the_variables_win_over_the_install_roots_and_ascend_home_path_over_toolkit_home(tmp_path, monkeypatch):
    use_roots(monkeypatch, tmp_path / "Ascend")
    new_layout(tmp_path / "Ascend", "9.0.0")
    chosen = make_toolkit(tmp_path / "chosen", "8.2.RC1")
    other = make_toolkit(tmp_path / "other", "8.3.RC1")
    monkeypatch.setenv(config.ASCEND_TOOLKIT_HOME_ENV, str(other))
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(chosen))
    toolkit = cann.find_cann()
    assert (toolkit.home, toolkit.version, toolkit.source) == (chosen, "8.2.RC1", "ASCEND_HOME_PATH")


def test_a_stale_variable_falls_back_to_the_install_roots_and_is_reported(tmp_path, monkeypatch):
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(tmp_path / "removed"))
    search = cann.search_cann()
    assert search.toolkit is None and any("ASCEND_HOME_PATH" in n and "removed" in n for n in search.notes)
    with pytest.raises(NpuUnavailable) as caught:
        cann.require_cann()
    assert "removed" in str(caught.value) and "not a directory" in str(caught.value)
    use_roots(monkeypatch, tmp_path / "Ascend")
    home = old_layout(tmp_path / "Ascend")
    assert cann.find_cann().home == home


def test_old_layout_through_the_latest_symlink(tmp_path, monkeypatch):
    use_roots(monkeypatch, tmp_path / "Ascend")
    latest = old_layout(tmp_path / "Ascend", "8.0.RC3")
    toolkit = cann.require_cann()
    assert toolkit.home == latest  # the symlink is kept: a re-pointed `latest` is found again
    assert (toolkit.version, toolkit.source) == ("8.0.RC3", str(latest))
    assert toolkit.bisheng == latest / "compiler/ccec_compiler/bin/bisheng"
    assert cann.set_env_hint(toolkit) == f"`source {tmp_path / 'Ascend' / 'ascend-toolkit' / 'set_env.sh'}`"


def test_the_newest_layout_is_preferred(tmp_path, monkeypatch):
    use_roots(monkeypatch, tmp_path / "Ascend")
    old_layout(tmp_path / "Ascend", "8.3.RC1")
    cann_link = new_layout(tmp_path / "Ascend", "8.5.0")
    toolkit = cann.find_cann()
    assert (toolkit.home, toolkit.version) == (cann_link, "8.5.0")
    assert cann.set_env_hint(toolkit) == f"`source {cann_link / 'set_env.sh'}`"


def test_versioned_directories_without_a_link_newest_first(tmp_path, monkeypatch):
    root = tmp_path / "Ascend"
    use_roots(monkeypatch, root)
    for version in ("8.5.0-beta.1", "9.0.0", "8.5.0"):
        new_layout(root, version, link=False)
    assert cann.find_cann().home == root / "cann-9.0.0"


def test_the_8_5_beta_layout_under_latest(tmp_path, monkeypatch):
    root = tmp_path / "Ascend"
    use_roots(monkeypatch, root)
    home = make_toolkit(root / "latest", "8.5.0-beta.1", version_file="version_info")
    make_executable(home / "bin" / "setenv.bash", "#!/bin/bash\n")
    toolkit = cann.find_cann()
    assert (toolkit.home, toolkit.version) == (home, "8.5.0-beta.1")
    assert cann.set_env_hint(toolkit) == f"`source {home / 'bin' / 'setenv.bash'}`"


def test_a_non_root_install_under_the_second_root(tmp_path, monkeypatch):
    use_roots(monkeypatch, tmp_path / "usr-local-Ascend", tmp_path / "home" / "Ascend")
    home = new_layout(tmp_path / "home" / "Ascend", "8.5.0")
    assert cann.find_cann().home == home


def test_default_install_roots(monkeypatch):
    monkeypatch.delenv(config.ASCEND_ROOTS_ENV)
    assert config.ascend_install_roots() == [Path("/usr/local/Ascend"), Path.home() / "Ascend"]


def test_a_dangling_latest_symlink_is_reported(tmp_path, monkeypatch):
    root = tmp_path / "Ascend"
    use_roots(monkeypatch, root)
    (root / "ascend-toolkit").mkdir(parents=True)
    (root / "ascend-toolkit" / "latest").symlink_to("8.0.RC3")  # the version directory was deleted
    search = cann.search_cann()
    assert search.toolkit is None and any("broken symlink" in n for n in search.notes)


def test_a_directory_that_is_not_a_toolkit_is_passed_over(tmp_path, monkeypatch):
    root = tmp_path / "Ascend"
    use_roots(monkeypatch, root)
    (root / "latest").mkdir(parents=True)  # e.g. another product's `latest`
    (root / "latest" / "README").write_text("")
    assert cann.find_cann() is None


def test_nothing_found_says_where_it_looked_and_the_fix(tmp_path, monkeypatch):
    use_roots(monkeypatch, tmp_path / "Ascend")
    assert cann.find_cann() is None
    with pytest.raises(NpuUnavailable) as caught:
        cann.require_cann()
    message = str(caught.value)
    assert "CANN toolkit was not found" in message and "ASCEND_HOME_PATH" in message
    assert str(tmp_path / "Ascend" / "ascend-toolkit" / "latest") in message
    assert "source /usr/local/Ascend/ascend-toolkit/set_env.sh" in message
    assert "source /usr/local/Ascend/cann/set_env.sh" in message and config.ASCEND_ROOTS_ENV in message


# ---- the version ----------------------------------------------------------------------------------

@pytest.mark.parametrize("version_file, written, expected", [
    ("install_info", "8.0.RC3", "8.0.RC3"),
    ("install_info", "9.2.0-beta.2", "9.2.0-beta.2"),
    ("version_cfg", "8.0.0", "8.0.0"),     # toolkit_running_version=[7.6.0.1.220:8.0.0]: the CANN part
    ("version_info", "8.5.0", "8.5.0"),
])
def test_version_files(tmp_path, version_file, written, expected):
    home = make_toolkit(tmp_path / "toolkit", written, version_file=version_file)
    assert cann.cann_version(home) == expected


def test_install_info_beats_the_other_files(tmp_path):
    home = make_toolkit(tmp_path / "toolkit", "8.1.RC1")
    (home / "version.cfg").write_text("toolkit_running_version=[7.7.T20.0.B210:8.0.0]\n")
    (home / "compiler" / "version.info").write_text("Version=7.7.T20.0.B210\n")
    assert cann.cann_version(home) == "8.1.RC1"


def test_missing_version_file_falls_back_to_the_directory_name_or_unknown(tmp_path, monkeypatch):
    root = tmp_path / "Ascend"
    make_toolkit(root / "cann-8.5.0", version=None)
    (root / "cann").symlink_to("cann-8.5.0")
    assert cann.cann_version(root / "cann") == "8.5.0"  # through the symlink
    unnamed = make_toolkit(tmp_path / "toolkit", version=None)
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(unnamed))
    toolkit = cann.require_cann()  # still usable; the doctor warns
    assert toolkit.version == cann.UNKNOWN_VERSION


def test_version_order():
    ordered = ["8.0.RC2", "8.0.RC3", "8.0.0", "8.3.RC1", "8.5.0-beta.1", "8.5.0", "9.0.0-beta.2", "9.0.0"]
    assert sorted(reversed(ordered), key=cann.version_key) == ordered


# ---- bisheng, headers, libraries ------------------------------------------------------------------

@pytest.mark.parametrize("where", ["compiler/ccec_compiler/bin/bisheng", "{arch}-linux/ccec_compiler/bin/bisheng",
                                   "tools/ccec_compiler/bin/bisheng", "bin/bisheng"])
def test_bisheng_locations(tmp_path, monkeypatch, where):
    home = make_toolkit(tmp_path / "toolkit", bisheng=where)
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(home))
    assert cann.require_cann().bisheng == home / where.format(arch=ARCH)


def test_missing_bisheng_is_refused_with_the_fix(tmp_path, monkeypatch):
    use_roots(monkeypatch, tmp_path / "Ascend")
    home = new_layout(tmp_path / "Ascend")
    (tmp_path / "Ascend" / "cann-8.5.0" / "compiler" / "ccec_compiler" / "bin" / "bisheng").unlink()
    toolkit = cann.find_cann()
    assert toolkit.home == home and toolkit.bisheng is None
    with pytest.raises(NpuUnavailable) as caught:
        cann.require_cann()
    message = str(caught.value)
    assert "no bisheng compiler" in message and "CANN 8.5.0" in message and config.BISHENG_ENV in message
    assert f"source {home / 'set_env.sh'}" in message


def test_a_bisheng_that_is_not_executable_does_not_count(tmp_path, monkeypatch):
    home = make_toolkit(tmp_path / "toolkit")
    (home / "compiler/ccec_compiler/bin/bisheng").chmod(0o644)
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(home))
    assert cann.find_cann().bisheng is None


def test_bisheng_on_path_when_the_toolkit_has_none(tmp_path, monkeypatch):
    home = make_toolkit(tmp_path / "toolkit", bisheng=None)
    on_path = make_executable(tmp_path / "bin" / "bisheng")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(home))
    assert cann.require_cann().bisheng == on_path


def test_bisheng_override(tmp_path, monkeypatch):
    home = make_toolkit(tmp_path / "toolkit")
    mine = make_executable(tmp_path / "mine" / "bisheng")
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(home))
    monkeypatch.setenv(config.BISHENG_ENV, str(mine))
    assert cann.require_cann().bisheng == mine
    monkeypatch.setenv(config.BISHENG_ENV, str(tmp_path / "typo" / "bisheng"))
    assert cann.find_cann().bisheng is None  # a wrong override is not silently replaced by the toolkit's
    with pytest.raises(NpuUnavailable, match=f"{config.BISHENG_ENV}=.*typo.*not an executable"):
        cann.require_cann()


def test_no_include_directory_is_refused(tmp_path, monkeypatch):
    home = make_toolkit(tmp_path / "toolkit", include=False)
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(home))
    with pytest.raises(NpuUnavailable, match="no include directory.*acl/acl.h"):
        cann.require_cann()


def test_include_and_library_dirs_of_every_layout_exist(tmp_path, monkeypatch):
    home = make_toolkit(tmp_path / "toolkit")
    (home / f"{ARCH}-linux" / "lib64").mkdir()
    (home / "runtime" / "lib64").mkdir(parents=True)
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(home))
    toolkit = cann.require_cann()
    assert toolkit.include_dirs == (home / "include",)  # <home>/include is a link into <arch>-linux: once
    assert toolkit.library_dirs == (home / "lib64", home / f"{ARCH}-linux" / "lib64", home / "runtime" / "lib64")


# ---- SoC names ----------------------------------------------------------------------------------

@pytest.mark.parametrize("soc, arch", [
    ("Ascend910B1", "dav-2201"), ("Ascend910B2", "dav-2201"), ("Ascend910B3", "dav-2201"),
    ("Ascend910B4", "dav-2201"), ("Ascend910_9391", "dav-2201"), ("Ascend910_9362", "dav-2201"),
    ("Ascend310P3", "dav-2002"),  # not dav-m200: that is its --cce-aicore-arch name
])
def test_npu_arch(soc, arch):
    assert cann.npu_arch(soc) == arch


@pytest.mark.parametrize("old", ["Ascend910", "Ascend910A", "Ascend910B", "Ascend910ProB"])
def test_the_old_910_is_refused_clearly(old):
    with pytest.raises(AscendGenError, match="first-generation Ascend 910"):
        cann.npu_arch(old)
    with pytest.raises(NpuUnavailable, match="'Ascend910B' without a digit is that chip"):
        cann.normalise_soc_name(old)


@pytest.mark.parametrize("reported, name", [
    ("Ascend910B2", "Ascend910B2"), (" ascend910b2\n", "Ascend910B2"),
    ("Ascend910_9391", "Ascend910_9391"), ("Ascend910 9391", "Ascend910_9391"), ("Ascend310P3", "Ascend310P3"),
])
def test_soc_names_as_torch_npu_reports_them(reported, name):
    assert cann.normalise_soc_name(reported) == name


@pytest.mark.parametrize("variant", ["Ascend910B2C", "Ascend910B4-1", "Ascend910_9392", "Ascend310P1", "Ascend950PR"])
def test_socs_without_a_profile_are_not_guessed(variant):
    with pytest.raises(NpuUnavailable) as caught:
        cann.normalise_soc_name(variant)
    assert variant in str(caught.value) and "Ascend910B2" in str(caught.value)  # names the known ones


def _fake_torch_npu(monkeypatch, *, count=1, name="Ascend910B2", version="2.5.1.post1", error=None):
    def get_device_name(index=None):
        if error:
            raise error
        return name

    npu = types.SimpleNamespace(device_count=lambda: count, get_device_name=get_device_name)
    monkeypatch.setitem(sys.modules, "torch_npu", types.SimpleNamespace(npu=npu, __version__=version))


def test_current_soc_through_torch_npu(monkeypatch):
    _fake_torch_npu(monkeypatch, count=16, name="Ascend910_9391")
    assert cann.current_soc() == "Ascend910_9391"
    assert cann.npu_arch(cann.current_soc(3)) == "dav-2201"
    assert cann.torch_npu_version() == "2.5.1.post1"
    with pytest.raises(NpuUnavailable, match="NPU 16 does not exist: 16 NPU"):
        cann.current_soc(16)


@pytest.mark.parametrize("kwargs, expected", [
    ({"count": 0}, "sees no NPU"),
    ({"error": RuntimeError("aclrtGetSocName failed 507033")}, "RuntimeError: aclrtGetSocName failed 507033"),
    ({"name": ""}, "empty SoC name"),
    ({"name": "Ascend910B"}, "first-generation"),
])
def test_current_soc_failures(monkeypatch, kwargs, expected):
    _fake_torch_npu(monkeypatch, **kwargs)
    with pytest.raises(NpuUnavailable, match=expected) as caught:
        cann.current_soc()
    if "first-generation" not in expected:
        assert "npu-smi info" in str(caught.value)


# ---- torch_npu's import failures ------------------------------------------------------------------

def test_import_failure_messages():
    absent = ModuleNotFoundError("No module named 'torch_npu'", name="torch_npu")
    message = cann.import_failure_message(absent)
    assert "not installed" in message and "pip install torch_npu" in message and "simulator" in message

    no_cann = OSError("libhccl.so: cannot open shared object file: No such file or directory")
    message = cann.import_failure_message(no_cann)
    assert "cannot load CANN's libraries" in message and "libhccl.so" in message
    assert "set_env.sh" in message and "pip uninstall torch_npu" in message

    try:  # torch's autoload wraps the real error: the message names the real one
        try:
            raise ImportError("libascendcl.so: cannot open shared object file")
        except ImportError as inner:
            raise RuntimeError("Failed to load the backend extension: torch_npu. You can disable extension "
                               "auto-loading with TORCH_DEVICE_BACKEND_AUTOLOAD=0.") from inner
    except RuntimeError as wrapped:
        message = cann.import_failure_message(wrapped)
    assert "ImportError: libascendcl.so" in message and "cannot load CANN's libraries" in message

    mismatch = RuntimeError("Two accelerators cannot be used at the same time in PyTorch: npu and cuda.")
    message = cann.import_failure_message(mismatch)
    assert message.startswith("importing torch_npu failed: RuntimeError: Two accelerators")
    assert "torch_npu built for torch" in message


def test_a_failed_import_is_not_retried(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch_npu", None)  # makes `import torch_npu` fail
    with pytest.raises(NpuUnavailable, match="not installed"):
        cann.torch_npu_module()
    _fake_torch_npu(monkeypatch)  # importable now, but the first answer stands for this process
    with pytest.raises(NpuUnavailable, match="not installed"):
        cann.torch_npu_module()


def test_machine_arch_directory_first():
    assert cann._arches()[0] == {"arm64": "aarch64"}.get(platform.machine(), platform.machine())
    assert set(cann._arches()) >= {"x86_64", "aarch64"}


def test_another_architectures_directories_are_not_used(tmp_path, monkeypatch):
    """A toolkit tree may carry both <arch>-linux directories; libraries and bisheng must be this machine's."""
    other = "aarch64" if ARCH == "x86_64" else "x86_64"
    home = make_toolkit(tmp_path / "toolkit", bisheng=f"{other}-linux/ccec_compiler/bin/bisheng")
    (home / f"{other}-linux" / "lib64").mkdir()
    monkeypatch.setenv(config.ASCEND_HOME_PATH_ENV, str(home))
    toolkit = cann.find_cann()
    assert toolkit.bisheng is None and toolkit.library_dirs == (home / "lib64",)
