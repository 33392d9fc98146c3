"""The repository stands on its own: no reference to files outside it, docs
that link only to files it has, and doc numbers that a command reproduces."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from vale_sim.games.mystic_vale import cards as C
from vale_sim.games.mystic_vale import rules

ROOT = Path(__file__).parents[1]
# Built by concatenation so that this file does not match itself.
OUTSIDE = ["../" + "shared", "shared" + "/seeds", "RULES" + "-NOTES", "CARDS" + ".md",
           "mystic-vale-" + "rulebook", "mystic-vale-" + "summary", "mystic-lands-" + "manual"]
SKIP_DIRS = {".git", ".venv", "results", "__pycache__", ".pytest_cache", ".hypothesis"}


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout.decode()
        files = [ROOT / f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):       # not a git checkout
        files = [p for p in ROOT.rglob("*")
                 if p.is_file() and not SKIP_DIRS & set(p.relative_to(ROOT).parts)]
    return [f for f in files if f.is_file()]


def test_nothing_refers_outside_the_repository():
    files = tracked_files()
    assert any(f.name == "README.md" for f in files)
    hits = []
    for f in files:
        text = f.read_bytes().decode("utf-8", errors="ignore")
        for word in OUTSIDE:
            for n, line in enumerate(text.splitlines(), 1):
                if word.lower() in line.lower():
                    hits.append(f"{f.relative_to(ROOT)}:{n}: {word}")
    assert not hits, "references outside the repository:\n" + "\n".join(hits)


def test_no_rulebook_text_is_shipped():
    names = [f.name.lower() for f in tracked_files()]
    for word in OUTSIDE[4:]:
        assert not [n for n in names if word in n]


def markdown_files() -> list[Path]:
    return [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


@pytest.mark.parametrize("doc", markdown_files(), ids=lambda p: p.name)
def test_relative_links_point_into_the_repository(doc):
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text()):
        if re.match(r"[a-z]+://", target):
            continue
        path = (doc.parent / target).resolve()
        assert path.exists(), f"{doc.name}: link to {target} (missing)"
        assert ROOT.resolve() in path.parents, f"{doc.name}: link {target} leaves the repository"


def test_interpretations_are_documented():
    """Every named interpretation in vale_sim/games/mystic_vale/rules.py is a section of docs/rules.md."""
    doc = (ROOT / "docs" / "rules.md").read_text()
    headings = dict(re.findall(r"^### (I\d+)\. (.+)$", doc, re.M))
    assert sorted(i for i, _ in rules.INTERPRETATIONS.values()) == sorted(headings)
    assert headings[rules.INTERPRETATIONS["conclave-of-ents-timing"][0]].startswith(
        "Conclave of Ents timing")
    # the engine spec says so where it describes Conclave's reset
    spec = (ROOT / "docs" / "engine-spec.md").read_text()
    assert "rules.md I11" in spec and "rules.md" in (ROOT / "README.md").read_text()


def test_provenance_numbers_in_docs_are_the_commands():
    """The counts the docs quote are what `vale-sim cards --set core` prints."""
    counts = C.provenance_counts(C.load_card_set("core"))
    total, est = sum(counts.values()), counts["estimate"]
    quoted = ", ".join(f"{s} {n}" for s, n in counts.items() if n)
    rules_md = (ROOT / "docs" / "rules.md").read_text()
    assert quoted in " ".join(rules_md.split())
    assert f"{est} of {total} numbers ({100 * est / total:.1f} %)" in " ".join(rules_md.split())
    for doc in (ROOT / "README.md", ROOT / "docs" / "card-format.md"):
        found = re.findall(r"(\d+) of (\d+)(?: numbers|\))", " ".join(doc.read_text().split()))
        assert (str(est), str(total)) in found, doc.name


def test_readme_speed_claim_names_its_command():
    text = " ".join((ROOT / "README.md").read_text().split())
    assert "millions of times" not in text
    claim = re.search(r"faster: `vale-sim bench` measured (\d+)× to (\d+)×", text)
    assert claim and int(claim.group(1)) < int(claim.group(2))


def test_manifest_example_has_the_core_digest():
    """docs/runs.md's manifest example carries the bundled core set's real digest."""
    text = (ROOT / "docs" / "runs.md").read_text()
    digests = re.findall(r'"digest": "([0-9a-f]{16})"', text)
    assert digests and set(digests) == {C.load_card_set("core").digest()}
