#!/usr/bin/env python3
"""Runs every fenced code block of README.md and docs/*.md as a reader would, so none rots.

The build tree is installed into a scratch prefix first; each page then runs in a fresh working
directory of its own, its blocks in order, with PATH starting at the installed `xport` and this
interpreter's environment (torch, numpy and the xport package), and CMAKE_PREFIX_PATH at the
installed package, as after `make install`. What a fence's info string says:

  ```sh / ```bash          run with `bash -euo pipefail` in the page's directory
  ```python                run with this interpreter, each block its own process; the blocks of
                           docs/PYTHON.md are also checked by `mypy --strict`
  ```cpp                   a whole program: built against the installed package and run
  ```LANG file=NAME        written to NAME in the page's directory (a later block builds or runs it)
  ```text                  output or a sketch: not code, not run

An HTML comment on the line before a fence changes how it runs:
  <!-- doc-test: skip REASON -->            not run; listed with its reason
  <!-- doc-test: background ready=URL -->   a shell block started in the background; the next
                                            block waits until URL answers 200; ended with the page

Usage: doc_snippets.py --build BUILD --source SOURCE [--only PAGE ...]
       doc_snippets.py --self-test --build BUILD --source SOURCE   (a broken page must fail)
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

FENCE = re.compile(r"^(\s*)```(.*)$")
DIRECTIVE = re.compile(r"^\s*<!--\s*doc-test:\s*(\w+)\s*(.*?)\s*-->\s*$")
RUN_KINDS = {"sh", "bash", "python", "cpp"}
BLOCK_TIMEOUT_S = 900
READY_TIMEOUT_S = 180


@dataclasses.dataclass
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    attrs: dict[str, str]
    text: str
    directive: str = ""  # "skip", "background" or ""
    directive_arg: str = ""

    def where(self) -> str:
        return f"{self.page}:{self.line}"


class SnippetFailure(Exception):
    pass


def parse_page(path: Path, shown: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, info = m.group(1), m.group(2).strip()
        words = info.split()
        if not words:
            raise SnippetFailure(f"{shown}:{i + 1}: a fence without a language; write ```text "
                                 "for output or a sketch, or the block's language")
        attrs = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith("```"):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        if j == len(lines):
            raise SnippetFailure(f"{shown}:{i + 1}: the fence is never closed")
        block = Block(shown, i + 1, words[0], attrs, "\n".join(body) + "\n")
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        d = DIRECTIVE.match(lines[k]) if k >= 0 else None
        if d:
            block.directive, block.directive_arg = d.group(1), d.group(2)
            if block.directive not in ("skip", "background"):
                raise SnippetFailure(f"{shown}:{k + 1}: unknown doc-test directive "
                                     f"'{block.directive}' (skip or background)")
        blocks.append(block)
        i = j + 1
    return blocks


class PageRun:
    """One page's working directory, environment and background processes."""

    def __init__(self, workdir: Path, env: dict[str, str]) -> None:
        self.workdir = workdir
        self.env = env
        self.background: list[subprocess.Popen[bytes]] = []
        self.counter = 0

    def close(self) -> None:
        for p in self.background:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
        self.background.clear()

    def _check(self, block: Block, args: list[str]) -> None:
        try:
            r = subprocess.run(args, cwd=self.workdir, env=self.env, capture_output=True,
                               timeout=BLOCK_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise SnippetFailure(f"{block.where()}: did not finish in {BLOCK_TIMEOUT_S} s")
        if r.returncode != 0:
            out = (r.stdout + r.stderr).decode(errors="replace")
            raise SnippetFailure(f"{block.where()}: exit status {r.returncode}\n--- block:\n"
                                 f"{block.text}--- output (last 4000 characters):\n{out[-4000:]}")

    def run_shell(self, block: Block) -> None:
        if block.directive != "background":
            self._check(block, ["bash", "-euo", "pipefail", "-c", block.text])
            return
        url = block.directive_arg.removeprefix("ready=")
        log = open(self.workdir / f"background_{block.line}.log", "wb")
        p = subprocess.Popen(["bash", "-euo", "pipefail", "-c", block.text], cwd=self.workdir,
                             env=self.env, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
        self.background.append(p)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if p.poll() is not None:
                break
            try:
                with urllib.request.urlopen(url, timeout=5) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(1)
        tail = (self.workdir / f"background_{block.line}.log").read_text(errors="replace")
        raise SnippetFailure(f"{block.where()}: {url} did not answer 200 in {READY_TIMEOUT_S} s "
                             f"(exit status {p.poll()})\n--- block:\n{block.text}--- output:\n"
                             f"{tail[-4000:]}")

    def run_python(self, block: Block) -> Path:
        self.counter += 1
        path = self.workdir / f"snippet_{self.counter}_line{block.line}.py"
        path.write_text(block.text)
        self._check(block, [sys.executable, path.name])
        return path

    def run_cpp(self, block: Block) -> None:
        self.counter += 1
        project = self.workdir / f"cpp_snippet_{self.counter}"
        project.mkdir()
        (project / "main.cpp").write_text(block.text)
        (project / "CMakeLists.txt").write_text(
            "cmake_minimum_required(VERSION 3.25)\nproject(snippet LANGUAGES CXX)\n"
            "set(CMAKE_CXX_STANDARD 20)\nfind_package(xport CONFIG REQUIRED)\n"
            "add_executable(snippet main.cpp)\n"
            "target_link_libraries(snippet PRIVATE xport::xport)\n")
        build = project / "build"
        self._check(block, ["cmake", "-S", str(project), "-B", str(build), "-G", "Ninja",
                            "-DCMAKE_BUILD_TYPE=RelWithDebInfo"])
        self._check(block, ["cmake", "--build", str(build)])
        self._check(block, [str(build / "snippet")])


@dataclasses.dataclass
class Tally:
    run: dict[str, int] = dataclasses.field(default_factory=dict)
    written: int = 0
    text: int = 0
    skipped: list[str] = dataclasses.field(default_factory=list)
    failures: list[str] = dataclasses.field(default_factory=list)


def run_page(page: Path, shown: Path, workdir: Path, env: dict[str, str], tally: Tally) -> None:
    blocks = parse_page(page, shown)
    workdir.mkdir(parents=True)
    run = PageRun(workdir, env)
    typed: list[Path] = []
    try:
        for block in blocks:
            if "file" in block.attrs:
                target = workdir / block.attrs["file"]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(block.text)
                tally.written += 1
                continue
            if block.lang == "text":
                tally.text += 1
                continue
            if block.lang not in RUN_KINDS:
                raise SnippetFailure(f"{block.where()}: a ```{block.lang} block is neither run "
                                     "nor written: give it file=NAME, or write ```text if it is "
                                     "not code")
            if block.directive == "skip":
                tally.skipped.append(f"{block.where()} ({block.lang}): {block.directive_arg}")
                continue
            if block.lang in ("sh", "bash"):
                run.run_shell(block)
            elif block.lang == "python":
                typed.append(run.run_python(block))
            else:
                run.run_cpp(block)
            tally.run[block.lang] = tally.run.get(block.lang, 0) + 1
        if shown.as_posix() == "docs/PYTHON.md" and typed:
            r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                                *[p.name for p in typed]], cwd=workdir, env=env,
                               capture_output=True, timeout=BLOCK_TIMEOUT_S)
            if r.returncode != 0:
                raise SnippetFailure(f"{shown}: mypy --strict on its Python blocks:\n"
                                     f"{(r.stdout + r.stderr).decode(errors='replace')}")
            tally.run["mypy --strict"] = tally.run.get("mypy --strict", 0) + len(typed)
    finally:
        run.close()


def install(build: Path, prefix: Path) -> None:
    subprocess.run(["cmake", "--install", str(build), "--prefix", str(prefix)], check=True,
                   stdout=subprocess.DEVNULL)


def environment(prefix: Path, build: Path) -> dict[str, str]:
    env = dict(os.environ)
    # A home of its own: what the pages' commands keep there (Ray's session token, caches)
    # stays in the scratch directory.
    home = prefix.parent / "home"
    home.mkdir(exist_ok=True)
    env["HOME"] = str(home)
    env["PATH"] = os.pathsep.join([str(prefix / "bin"), str(Path(sys.executable).parent),
                                   env.get("PATH", "")])
    env["CMAKE_PREFIX_PATH"] = str(prefix)
    env.setdefault("XPORT_AOT_CACHE", str(build / "aot-cache"))
    env.setdefault("OMP_NUM_THREADS", "2")
    env["HF_HUB_OFFLINE"] = "1"
    return env


def pages_of(source: Path, only: list[str]) -> list[Path]:
    if only:
        return [Path(p) for p in only]
    return [Path("README.md")] + sorted(p.relative_to(source) for p in (source / "docs").glob("*.md"))


def run_all(source: Path, pages: list[Path], scratch: Path, env: dict[str, str]) -> Tally:
    tally = Tally()
    for shown in pages:
        started = time.monotonic()
        workdir = scratch / "pages" / shown.as_posix().replace("/", "_")
        try:
            run_page(source / shown, shown, workdir, env, tally)
            print(f"doc-test: {shown} ran ({time.monotonic() - started:.1f} s)", flush=True)
        except SnippetFailure as e:
            tally.failures.append(str(e))
            print(f"doc-test: FAILED {e}", flush=True)
    return tally


def self_test(scratch: Path, env: dict[str, str]) -> None:
    """A page with a broken block must fail, naming the page and line."""
    page = scratch / "broken" / "docs" / "BROKEN.md"
    page.parent.mkdir(parents=True)
    page.write_text("# A page\n\n```sh\ntrue\n```\n\n```python\nimport xport\n"
                    "xport.lod('model.pt2')\n```\n")
    tally = run_all(scratch / "broken", [Path("docs/BROKEN.md")], scratch / "broken-run", env)
    if len(tally.failures) != 1 or "docs/BROKEN.md:7" not in tally.failures[0]:
        raise SystemExit(f"doc-test self-test: a broken Python block was not reported at "
                         f"docs/BROKEN.md:7 (got {tally.failures})")
    print("doc-test: self-test passed (a broken block fails at its page and line)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=Path, required=True)
    parser.add_argument("--source", type=Path, required=True)
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="xport-doc-test-"))
    try:
        install(args.build.resolve(), scratch / "prefix")
        env = environment(scratch / "prefix", args.build.resolve())
        if args.self_test:
            self_test(scratch, env)
            return 0
        tally = run_all(args.source.resolve(), pages_of(args.source, args.only), scratch, env)
        ran = ", ".join(f"{n} {kind}" for kind, n in sorted(tally.run.items()))
        print(f"doc-test: blocks run: {ran}; {tally.written} written as files; "
              f"{tally.text} text; {len(tally.skipped)} skipped")
        for s in tally.skipped:
            print(f"  skipped {s}")
        if tally.failures:
            print(f"doc-test: {len(tally.failures)} page(s) failed", file=sys.stderr)
            return 1
        return 0
    finally:
        if args.keep:
            print(f"doc-test: scratch kept in {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
