#!/usr/bin/env python3
"""Checks that `[package.metadata.binstall]` in Cargo.toml finds what the release workflow uploads.

    scripts/check-binstall.py

For every target in the build matrix of .github/workflows/release.yml, packs a stand-in binary
with scripts/release-package.sh (what the workflow's Package step runs), then expands the
binstall templates the way cargo-binstall does (`{ repo }`, `{ name }`, `{ version }`,
`{ target }`, `{ binary-ext }`, and `{ archive-suffix }` for each file extension of `pkg-fmt`)
and requires:
- one expansion of `pkg-url` to be the URL of that archive in the release of tag `v{version}`
  (`{repository}/releases/download/v{version}/{archive}`, where `gh release create` puts it);
- `bin-dir` to name an executable file inside the archive.
A template that drops the `v` of the tag is checked too and must not match, so the check can
fail. Exit 0 when everything matches, 1 otherwise. cargo-binstall itself is not needed (it is
not installed here); the extensions per `pkg-fmt` are the ones binstalk-types documents.
"""
import re
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# binstalk-types `PkgFmt::extensions`, for the formats a tar archive can have.
EXTENSIONS = {
    "tgz": [".tgz", ".tar.gz"],
    "txz": [".txz", ".tar.xz"],
    "tar": [".tar"],
}
PLACEHOLDER = re.compile(r"\{\s*([a-z-]+)\s*\}")


def expand(template: str, values: dict[str, str]) -> str:
    def value(match: re.Match) -> str:
        key = match.group(1)
        if key not in values:
            sys.exit(f"check-binstall: error: unknown placeholder {{ {key} }} in {template!r}")
        return values[key]

    return PLACEHOLDER.sub(value, template)


def workflow_targets() -> list[str]:
    """The build matrix's targets, read from the workflow's text (no YAML library needed: the
    matrix is a list of `- target: TRIPLE` entries)."""
    text = (REPO / ".github/workflows/release.yml").read_text()
    build, _, release = text.partition("\n  release:\n")
    if "scripts/release-package.sh" not in build:
        sys.exit("check-binstall: error: release.yml's build job does not pack with scripts/release-package.sh")
    if "gh release create" not in release or "dist/*.tar.gz" not in release:
        sys.exit("check-binstall: error: release.yml does not attach dist/*.tar.gz to the release")
    targets = re.findall(r"^\s+- target: (\S+)$", build, re.M)
    if not targets:
        sys.exit("check-binstall: error: no `- target:` entries in release.yml's build matrix")
    return targets


def matches(pkg_url: str, bin_dir: str, pkg_fmt: str, values: dict[str, str], archive: Path, release_url: str) -> list[str]:
    """The problems of this template for this archive (empty: binstall finds the binary)."""
    problems = []
    candidates = [expand(pkg_url, {**values, "archive-suffix": suffix}) for suffix in EXTENSIONS[pkg_fmt]]
    if release_url not in candidates:
        problems.append(f"pkg-url gives {candidates}, the release has {release_url}")
    inner = expand(bin_dir, values)
    with tarfile.open(archive) as tar:
        member = next((m for m in tar.getmembers() if m.name == inner), None)
    if member is None or not member.isfile() or not member.mode & 0o111:
        problems.append(f"bin-dir {inner!r} is not an executable file in {archive.name}")
    return problems


def main() -> int:
    manifest = tomllib.loads((REPO / "Cargo.toml").read_text())
    package = manifest["package"]
    name, version = package["name"], package["version"]
    repository = manifest["workspace"]["package"]["repository"]
    binstall = package["metadata"]["binstall"]
    pkg_fmt = binstall.get("pkg-fmt", "tgz")
    if pkg_fmt not in EXTENSIONS:
        sys.exit(f"check-binstall: error: pkg-fmt {pkg_fmt!r} is not a tar format")
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        binary = scratch / name
        binary.write_text("#!/bin/sh\necho stand-in\n")
        binary.chmod(0o755)
        for target in workflow_targets():
            archive = Path(subprocess.run(
                [REPO / "scripts/release-package.sh", target, binary, scratch / "dist"],
                check=True, capture_output=True, text=True,
            ).stdout.strip())
            release_url = f"{repository}/releases/download/v{version}/{archive.name}"
            values = {"repo": repository, "name": name, "version": version, "target": target,
                      "bin": name, "binary-ext": ""}
            problems = matches(binstall["pkg-url"], binstall["bin-dir"], pkg_fmt, values, archive, release_url)
            # The same template without the tag's `v` must not match: the check can fail.
            wrong = binstall["pkg-url"].replace("/v{ version }/", "/{ version }/")
            if wrong != binstall["pkg-url"] and not matches(wrong, binstall["bin-dir"], pkg_fmt, values, archive, release_url):
                problems.append("a template without the tag's `v` matched too: the check proves nothing")
            verdict = "ok" if not problems else "MISMATCH"
            print(f"{target:28} {archive.name:55} {verdict}")
            for problem in problems:
                print(f"    {problem}")
            failures += bool(problems)
            if (scratch / "dist" / f"{archive.name}.sha256").read_text().split()[1] != archive.name:
                print(f"    {archive.name}.sha256 does not name the archive")
                failures += 1
    print(f"check-binstall: {'every target matches' if not failures else f'{failures} target(s) do not match'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
