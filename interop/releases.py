"""Installs one release of an SDK beside the pinned one, and gives its scenario program's command line.

The matrix (matrix.py) runs each SDK's scenario program against `mcp-testserver`; the pinned
SDKs are installed by scripts/setup-languages.sh. This module installs any other release, each in
a throwaway place of its own under `target/interop/releases/`, never touching the pins, the
workspace's Cargo.lock or the committed node_modules locks:

- `python` (PyPI `mcp`): a venv `python-VERSION/venv` with `mcp==VERSION` (and whatever pip
  resolves for it today); the program is interop/python/scenarios.py, run by that venv.
- `typescript` (npm `@modelcontextprotocol/sdk`), `typescript-v2` (npm `@modelcontextprotocol/client`):
  `SDK-VERSION/SDK/` with a `package.json` naming exactly that version, `npm install`ed, and a copy
  of the program (`scenarios.mjs`, and `scenario-cli.mjs` one level up, as in interop/), because
  Node resolves a module's imports from the module's own directory.
- `rmcp` (crates.io): a generated crate `rmcp-VERSION/` outside the workspace (its own
  `[workspace]`, its own Cargo.lock started from the workspace's, `rmcp = "=VERSION"`), whose binary
  is interop/rmcp/src/main.rs itself; built into the repository's `target/` (the default target
  directory, so the dependencies the workspace already built are reused), as
  `target/debug/rmcp-scenarios-VERSION` (dots as `_`). Where rmcp's API changes, the program is to
  adapt through a cargo feature listed in RMCP_FEATURES (on by default in the generated manifest
  for the releases before the change, and declared, off, in interop/rmcp/Cargo.toml); none is
  needed so far: every measured rmcp 3.x compiles the same program.

Each install is kept (a marker file holds what was installed) and redone only when it is missing.
Only the Python standard library is used.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import framework_cells

INTEROP = Path(__file__).resolve().parent
ROOT = INTEROP.parent
# The matrix's SDK keys -> the package as its registry names it, and the registry.
PACKAGES = {
    "rmcp": ("rmcp", "cargo"),
    "python": ("mcp", "pypi"),
    "typescript": ("@modelcontextprotocol/sdk", "npm"),
    "typescript-v2": ("@modelcontextprotocol/client", "npm"),
}
# The agent frameworks (interop/frameworks/*/frameworks.json, framework_cells.py) are measured the
# same way: the name -> (its package, its registry).
FRAMEWORKS = framework_cells.entries()
PACKAGES.update({name: (entry["package"], "pypi" if entry["language"] == "python" else "npm") for name, entry in FRAMEWORKS.items()})
# A registry package name -> the matrix's SDK key (drift.sh takes `PACKAGE=VERSION`). A framework
# is named by its name (`openai-agents`, `openai-agents-js`); its package name works when no other
# program has the same package.
SDK_OF_PACKAGE = {package: sdk for sdk, (package, _) in reversed(list(PACKAGES.items()))}
# rmcp releases whose API the scenario program reaches only through an adaptation: the cargo
# feature of interop/rmcp that selects it, and the releases before which it is needed.
# (Empty while every measured release compiles the same program; see interop/rmcp/Cargo.toml.)
RMCP_FEATURES: dict[str, str] = {}
INSTALL_TIMEOUT_S = 900


class InstallError(Exception):
    """A release could not be installed or built (the registry, the build, an unknown version)."""


def release_dir(work: Path, sdk: str, version: str) -> Path:
    return work / "releases" / f"{sdk}-{version}"


def pinned_versions() -> dict[str, str]:
    """The pins, as the committed files name them (what CI's matrix runs)."""
    requirements = (INTEROP / "python" / "requirements.txt").read_text()
    python = re.search(r"^mcp==(\S+)$", requirements, re.MULTILINE)
    lock = (ROOT / "Cargo.lock").read_text()
    rmcp = re.search(r'^name = "rmcp"\nversion = "([^"]+)"', lock, re.MULTILINE)
    pins = {
        "rmcp": rmcp.group(1) if rmcp else None,
        "python": python.group(1) if python else None,
        "typescript": json.loads((INTEROP / "typescript" / "package.json").read_text())["dependencies"]["@modelcontextprotocol/sdk"],
        "typescript-v2": json.loads((INTEROP / "typescript-v2" / "package.json").read_text())["dependencies"]["@modelcontextprotocol/client"],
    }
    pins.update({name: entry["version"] for name, entry in FRAMEWORKS.items()})
    missing = [sdk for sdk, version in pins.items() if not version]
    if missing:
        raise InstallError(f"cannot read the pin of {', '.join(missing)} from the committed files")
    return pins  # type: ignore[return-value]


def pinned_command(sdk: str, work: Path) -> list[str]:
    """The pinned SDK's program (installed by scripts/setup-languages.sh --matrix and interop/run.sh;
    a framework's by its frameworks.json `install`)."""
    import matrix

    if sdk in FRAMEWORKS:
        framework_cells.install(FRAMEWORKS[sdk], work)
        return framework_cells.command(FRAMEWORKS[sdk], work)
    return matrix.clients(work)[sdk]


def command(sdk: str, version: str, work: Path, log: Path | None = None) -> list[str]:
    """Installs `sdk` at `version` (when not yet there) and returns its scenario program's command line."""
    if sdk not in PACKAGES:
        raise InstallError(f"unknown SDK `{sdk}` (expected one of {', '.join(PACKAGES)})")
    if not re.fullmatch(r"[0-9A-Za-z.+-]+", version):
        raise InstallError(f"`{version}` is not a version")
    if sdk in FRAMEWORKS:
        # Its own venv or folder under target/interop/releases/frameworks/ (frameworks.json's `release_install`).
        try:
            framework_cells.install(FRAMEWORKS[sdk], work, version)
        except framework_cells.InstallError as error:
            raise InstallError(str(error)) from None
        return framework_cells.command(FRAMEWORKS[sdk], work, version)
    place = release_dir(work, sdk, version)
    place.mkdir(parents=True, exist_ok=True)
    log = log or place / "install.log"
    if sdk == "python":
        return _python(version, place, log)
    if sdk == "rmcp":
        return _rmcp(version, place, log)
    return _node(sdk, version, place, log)


def _run(arguments: list[str], log: Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    with open(log, "a") as out:
        out.write(f"$ {' '.join(arguments)}\n")
        out.flush()
        try:
            done = subprocess.run(arguments, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=INSTALL_TIMEOUT_S, env=env)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise InstallError(f"{' '.join(arguments)}: {error} (log: {log})") from None
    if done.returncode != 0:
        tail = " | ".join(log.read_text(errors="replace").strip().splitlines()[-4:])
        raise InstallError(f"{' '.join(arguments[:3])} ... failed (exit {done.returncode}): {tail} (log: {log})")


def _python(version: str, place: Path, log: Path) -> list[str]:
    venv = place / "venv"
    marker = venv / ".installed"
    if not (marker.is_file() and marker.read_text() == f"mcp=={version}"):
        shutil.rmtree(venv, ignore_errors=True)
        _run(["python3", "-m", "venv", str(venv)], log)
        _run([str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", f"mcp=={version}"], log)
        marker.write_text(f"mcp=={version}")
    return [str(venv / "bin" / "python"), str(INTEROP / "python" / "scenarios.py")]


def _node(sdk: str, version: str, place: Path, log: Path) -> list[str]:
    package = PACKAGES[sdk][0]
    program = place / sdk
    program.mkdir(exist_ok=True)
    manifest = {"name": f"mcp-interop-{sdk}-release", "private": True, "type": "module", "dependencies": {package: version}}
    text = json.dumps(manifest, indent=2) + "\n"
    marker = program / "node_modules" / ".installed"
    if not (marker.is_file() and marker.read_text() == text):
        (program / "package.json").write_text(text)
        _run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], log, cwd=program)
        marker.write_text(text)
    # The program itself is copied on every call, so an edit to it is what runs.
    shutil.copyfile(INTEROP / "scenario-cli.mjs", place / "scenario-cli.mjs")
    shutil.copyfile(INTEROP / sdk / "scenarios.mjs", program / "scenarios.mjs")
    return ["node", str(program / "scenarios.mjs")]


def rmcp_features(version: str) -> list[str]:
    """The adaptation features interop/rmcp needs for this rmcp release."""
    return [feature for feature, before in RMCP_FEATURES.items() if _key(version) < _key(before)]


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version.split("-")[0])[:3])


def _rmcp(version: str, place: Path, log: Path) -> list[str]:
    binary = "rmcp-scenarios-" + re.sub(r"[^0-9A-Za-z]", "_", version)
    features = rmcp_features(version)
    # Declared as in interop/rmcp/Cargo.toml; the features this release needs are on by default.
    declared = "\n".join(f"{feature} = []" for feature in RMCP_FEATURES)
    manifest = f"""# Generated by interop/releases.py: the rmcp scenario program against rmcp {version}, outside the workspace.
[package]
name = "rmcp-scenarios-release"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[features]
default = {json.dumps(features)}
{declared}

[dependencies]
anyhow = "1"
serde_json = "1"
tokio = {{ version = "1", features = ["full", "test-util"] }}
rmcp = {{ version = "={version}", default-features = false, features = ["client", "server", "macros", "transport-async-rw", "transport-streamable-http-client-reqwest"] }}

[[bin]]
name = "{binary}"
path = {json.dumps(str(INTEROP / "rmcp" / "src" / "main.rs"))}

[profile.dev]
debug = "line-tables-only"
"""
    path = place / "Cargo.toml"
    if not path.is_file() or path.read_text() != manifest:
        path.write_text(manifest)
        # The workspace's lock as the starting point: every dependency but rmcp stays at the
        # version the workspace built, so its artifacts in target/ are reused.
        shutil.copyfile(ROOT / "Cargo.lock", place / "Cargo.lock")
    target = ROOT / "target"
    env = {key: value for key, value in os.environ.items() if key != "CARGO_TARGET_DIR"}
    _run(["cargo", "build", "--quiet", "--manifest-path", str(path), "--target-dir", str(target)], log, env=env)
    return [str(target / "debug" / binary)]
