"""The reference docs in docs/ stay complete and the repository cites only itself.

Checked against the code, not against text: every option of every command is in docs/cli.md,
every key the YAML reader accepts is in docs/formats.md, and every relative link (and its
#anchor) in the Markdown files resolves.
"""
import re

import pytest

from conftest import ROOT

DOCS = ROOT / "docs"
MARKDOWN = sorted([ROOT / "README.md", ROOT / "notebooks" / "README.md", ROOT / "robots" / "README.md",
                   *DOCS.glob("*.md")])
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(path):
    """GitHub's anchors of a Markdown file's headings."""
    out, fenced = set(), False
    for line in path.read_text(encoding="utf-8").splitlines():
        fenced ^= line.startswith("```")          # a '#' inside a code block is a comment
        if line.startswith("#") and not fenced:
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue                       # http(s), mailto: not checked offline
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        assert linked.exists(), f"{path.name}: link to {target}: no such file"
        if anchor and linked.suffix == ".md":
            assert anchor in anchors(linked), f"{path.name}: link to {target}: no such heading"


def test_no_citation_outside_the_repository():
    """Docstrings, comments and READMEs cite docs/, not design notes that live outside the repository."""
    pattern = re.compile(r"CONTRACT\.md|METHOD\.md|shared/design")
    offenders = []
    for folder in ("baseparam", "tests", "bench", "notebooks", "robots", "docs"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".md", ".yaml", ".ipynb") and path.name != "test_docs.py":
                offenders += [f"{path.relative_to(ROOT)}:{n}" for n, line in
                              enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    offenders += [f"README.md:{n}" for n, line in
                  enumerate((ROOT / "README.md").read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert not offenders, offenders


def test_cli_reference_lists_every_option():
    from baseparam.cli import main

    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    shared = text.split("## Robot options", 1)[1].split("\n## ", 1)[0]   # options every command takes
    missing = []
    for name, command in main.commands.items():
        section = text.split(f"## `baseparam {name}`", 1)
        assert len(section) == 2, f"docs/cli.md: no section for `baseparam {name}`"
        body = section[1].split("\n## ", 1)[0]
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("-") and f"`{opt}" not in body and f"`{opt}" not in shared:
                    missing.append(f"{name} {opt}")
    assert not missing, f"docs/cli.md does not document: {missing}"


def test_formats_reference_lists_every_yaml_key():
    from baseparam.model import loading

    text = (DOCS / "formats.md").read_text(encoding="utf-8")
    section = text.split("## Robot description", 1)[1].split("\n## ", 1)[0]
    keys = set(loading._TOP_KEYS) | set(loading._UNIT_KEYS) | set(loading._INERTIA_KEYS)
    keys |= {key for joint_keys in loading._JOINT_KEYS.values() for key in joint_keys}
    missing = sorted(key for key in keys if f"`{key}" not in section and f"{key}:" not in section)
    assert not missing, f"docs/formats.md, 'Robot description', does not document: {missing}"


def test_ci_runs_the_readme_test_command():
    """.ci/run runs the test command the README gives (both name the same pytest options)."""
    readme = re.search(r"pip install -e '\.\[test\]' && (python -m pytest[^\n]*)", (ROOT / "README.md").read_text())
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("python -m pytest")]
    assert readme and ci == [readme.group(1)], (readme and readme.group(1), ci)
