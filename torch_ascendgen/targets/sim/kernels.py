"""What ContractKernel runs for each kind of simulator build: a contract kernel, an operator project
(project_kernel.py) or a direct-launch submission (direct_kernel.py); and the builds as the serving worker's load
request carries them."""

from __future__ import annotations

from torch_ascendgen.targets.sim.build import SimBuild
from torch_ascendgen.targets.sim.direct_kernel import DirectCandidateBuild, DirectLaunchKernel
from torch_ascendgen.targets.sim.project_kernel import ProjectBuild, ProjectKernel
from torch_ascendgen.targets.sim.simulator import SimKernel

Build = SimBuild | ProjectBuild | DirectCandidateBuild


def kernel_for(build: Build, source: str) -> SimKernel | ProjectKernel | DirectLaunchKernel:
    if isinstance(build, ProjectBuild):
        return ProjectKernel(build)
    if isinstance(build, DirectCandidateBuild):
        return DirectLaunchKernel(build)
    return SimKernel(build, source, "kernel.cpp")


def build_to_json(build: ProjectBuild | DirectCandidateBuild) -> dict:
    kind = "project" if isinstance(build, ProjectBuild) else "direct"
    return {"kind": kind, "build": build.to_json()}


def build_from_json(data: dict) -> ProjectBuild | DirectCandidateBuild:
    return (ProjectBuild if data["kind"] == "project" else DirectCandidateBuild).from_json(data["build"])
