"""The documentation site: mkdocs.yml's navigation over docs/, a strict build (a broken link
fails it), every rules block highlighted by grimorio's own lexer, the tutorial's examples as
grimorio prints them, numbered sections in order, and the README's way in."""
from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grimorio.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
MKDOCS = ROOT / "mkdocs.yml"
FENCE = re.compile(r"^```(grimorio[\w-]*)\s*\n(.*?)^```\s*$", re.M | re.S)


def nav() -> dict[str, str]:
    """mkdocs.yml's navigation: title -> page, or -> "" for a section of pages (read without a YAML library)."""
    return dict(re.findall(r"^ +- ([^:\n]+):(?: (\S+\.md))?$", MKDOCS.read_text(encoding="utf-8"), re.M))


def blocks(page: Path, lang: str = "") -> list[tuple[str, str]]:
    """The fenced blocks of a page whose language starts with `lang` (and the comment above each)."""
    text = page.read_text(encoding="utf-8")
    out = []
    for m in re.finditer(r"(?:<!-- docs: ([^>]*) -->\n)?^```([\w-]*)\s*\n(.*?)^```\s*$", text, re.M | re.S):
        if m.group(2).startswith(lang) and (lang or m.group(2)):
            out.append((m.group(1) or "", m.group(3)))
    return out


def test_the_navigation_holds_every_page_and_the_guides_the_issue_names():
    pages = nav()
    assert set(pages.values()) - {""} == {p.name for p in DOCS.glob("*.md")}
    for title in ("Tutorial", "Language reference", "House rules", "Editors", "Odds and simulation", "Errors"):
        assert title in pages, title
    text = MKDOCS.read_text(encoding="utf-8")
    assert "strict: true" in text and "docs_hooks.py" in text


def test_every_rules_block_is_given_to_the_grimorio_lexer():
    import docs_hooks
    for page in DOCS.glob("*.md"):
        text = page.read_text(encoding="utf-8")
        fences = re.findall(r"^```(grimorio[\w-]*)\s*$", text, re.M)
        done = docs_hooks.on_page_markdown(text)
        assert re.findall(r"^```(grimorio[\w-]*)\s*$", done, re.M) == ["grimorio"] * len(fences), page.name
        assert done.count("\n") == text.count("\n")          # nothing else of the page moves


@pytest.mark.parametrize("page", sorted(p.name for p in DOCS.glob("*.md")))
def test_numbered_sections_count_up_from_one(page):
    """house-rules.md had two sections numbered 11: each page's numbered headings are 1, 2, 3, ..."""
    numbers = [int(n) for n in re.findall(r"^## (\d+)\. ", (DOCS / page).read_text(encoding="utf-8"), re.M)]
    assert numbers == list(range(1, len(numbers) + 1))


def test_the_tutorial_shows_what_grimorio_prints(tmp_path, capsys, monkeypatch):
    page = DOCS / "getting-started.md"
    [(_, encounter)] = [b for b in blocks(page, "grimorio-encounter") if "posada.enc" in b[0]]
    [(_, transcript)] = [b for b in blocks(page, "text") if b[0] == "tutorial transcript posada.enc"]
    [(_, report)] = [b for b in blocks(page, "text") if b[0] == "tutorial test report"]
    (tmp_path / "posada.enc").write_text(encounter, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "posada.enc"]) == 0
    assert capsys.readouterr().out == transcript
    assert main(["test"]) == 0
    assert capsys.readouterr().out.startswith("posada.enc ..\n2 passed in 1 encounter (")
    (tmp_path / "posada.enc").write_text(encounter.replace("expect Bandido.pv == 13 - 4", "expect Bandido.pv == 10"),
                                         encoding="utf-8")
    assert main(["test"]) == 1

    def timeless(text):
        return re.sub(r" \(\d+\.\d\ds\)$", "", text, flags=re.M)
    assert timeless(capsys.readouterr().out) == timeless(report)


def test_the_readme_links_to_the_site_and_keeps_its_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "[docs/](docs/index.md)" in readme and "mkdocs build --strict" in readme
    quick = readme.split("## Quick start", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert quick == [
        "python3 -m venv .venv && .venv/bin/pip install -q . && .venv/bin/grimorio run rulesets/aquelarre/duelo.enc",
        'python3 -m venv .venv && .venv/bin/pip install -q ".[test]" && .venv/bin/python -m pytest -q']


def test_ci_builds_the_site_strictly():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^\.venv/bin/mkdocs build --strict ", ci, re.M)


def _mkdocs() -> str:
    found = shutil.which("mkdocs", path=str(Path(sys.executable).parent))
    if found is None:
        if os.environ.get("GRIMORIO_CI"):
            pytest.fail("mkdocs is not installed: the test and docs extras bring it")
        pytest.skip("mkdocs is not installed (pip install '.[docs]')")
    return found


def _build(config: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([_mkdocs(), "build", "--strict", "-f", str(config), "-d", str(site)], cwd=config.parent,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_the_site_builds_strictly_and_highlights_every_rules_block(tmp_path):
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name
    done = _build(MKDOCS, tmp_path / "site")
    assert done.returncode == 0, done.stderr[-3000:]
    lexer = get_lexer_by_name("grimorio")            # by its registered name, as the site finds it
    formatter = HtmlFormatter(cssclass="highlight", wrapcode=True)      # as codehilite writes it
    for page in DOCS.glob("*.md"):
        built = (tmp_path / "site" / ("" if page.stem == "index" else page.stem) / "index.html").read_text(
            encoding="utf-8")
        for m in FENCE.finditer(page.read_text(encoding="utf-8")):
            code = highlight(m.group(2), lexer, formatter)
            body = code.split("<code>", 1)[1].split("</code>", 1)[0]
            assert body in built, (page.name, m.group(2)[:60])
            assert '<span class="' in body          # tokens of the lexer (a plain-text block has none)
    assert (tmp_path / "site" / "css" / "pygments.css").read_text(encoding="utf-8").count(".highlight") > 10


@pytest.mark.slow
def test_a_broken_link_fails_the_strict_build(tmp_path):
    shutil.copytree(DOCS, tmp_path / "docs")
    shutil.copy(MKDOCS, tmp_path / "mkdocs.yml")
    shutil.copy(ROOT / "docs_hooks.py", tmp_path / "docs_hooks.py")
    page = tmp_path / "docs" / "tutorial.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nSee [nowhere](no-such-page.md).\n", encoding="utf-8")
    done = _build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    assert "no-such-page.md" in html.unescape(done.stderr)
