"""Every bundled result that records the digest of the card set it was played on was
played on that set as it is now.  A change of a bundled set (such as the refit of its
estimated numbers, docs/balance.md "The fitted sets") then cannot leave a result in the
report that silently describes the old set.  The meta runs are the one exception, by
design: the fields were converged on the set before the refit (``<set>-unfitted``) and
are re-checked on the refit set by the exploit table and the skill ladders (docs/meta.md
§6d), so their record must name one of the two."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vale_sim.games import get_game


def _records(x, path=""):
    """(path, card set name, digest) of every dict in ``x`` that names a card set."""
    if isinstance(x, dict):
        name = x.get("card_set")
        digest = x.get("card_set_digest", x.get("digest"))
        if digest is None and isinstance(x.get("config"), dict):
            digest = x["config"].get("card_set_digest")
        if isinstance(name, str):
            yield path, name, digest
        for k, v in x.items():
            yield from _records(v, f"{path}/{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _records(v, f"{path}[{i}]")


@pytest.mark.parametrize("game", ["mystic-vale", "mystic-lands"])
def test_every_bundled_result_was_played_on_the_set_it_names(game):
    g = get_game(game)
    sets = g.bundled_card_sets()
    data = Path(sets[g.default_card_set]).parent
    digests = {n: g.load_card_set(n).digest() for n in sets}
    checked = 0
    for f in sorted(data.rglob("*.json")):
        doc = json.loads(f.read_text())
        rel = f.relative_to(data).as_posix()
        if f.name == "meta.json":              # a meta run: its card_set_info
            info = doc["card_set_info"]
            ok = {digests[info["name"]], digests.get(f"{info['name']}-unfitted")}
            assert info["digest"] in ok, (rel, info["digest"])
            continue
        for where, name, digest in _records(doc):
            if "+" in name:                    # a planted copy made by the study itself
                continue
            if f.name.startswith("skill-ladder-"):
                assert digest, f"{rel}{where}: the ladder records no card-set digest"
            if digest is None:
                continue
            if name not in digests and where == "" and "fitted_set" in doc:
                # a later pass of a refit, played on the previous pass's (unbundled)
                # file: what it made must be the bundled set it names
                assert doc["fitted_digest"] == digests[doc["fitted_set"]], rel
                checked += 1
                continue
            assert name in digests, f"{rel}{where}: {name!r} is not a bundled set"
            assert digest == digests[name], (f"{rel}{where}: played on {name!r} with digest "
                                             f"{digest}; the set's digest is now "
                                             f"{digests[name]}: re-run it")
            checked += 1
    assert checked >= 5


def test_the_planted_copy_of_core_is_core_with_three_twins():
    """experiments/cards/core-planted.toml (the planted-twin study of verdicts under search
    play, docs/search.md) is the bundled core plus three twins of Model L2 Bloom I: a
    change of core must be carried into it."""
    from dataclasses import replace
    g = get_game("mystic-vale")
    core = g.load_card_set("core")
    planted = g.load_card_set(str(Path(__file__).resolve().parent.parent / "experiments"
                                  / "cards" / "core-planted.toml"))
    twins = [a for a in planted.advancements if a.name.endswith(" twin")]
    assert [a for a in planted.advancements if a not in twins] == list(core.advancements)
    assert planted.vales == core.vales and planted.starting_cards == core.starting_cards
    base = core.advancements[core.advancement_id("Model L2 Bloom I")]
    by = {a.name: a for a in twins}
    assert replace(by["Same twin"], name=base.name, note=base.note) == base
    assert by["Gross twin"].end_vp == base.end_vp + 6 and by["Gross twin"].cost == base.cost
    assert by["Useless twin"].cost == base.cost and by["Useless twin"].mana == 0


@pytest.mark.parametrize("game", ["mystic-vale", "mystic-lands"])
def test_every_bundled_result_was_played_under_the_fields_it_names(game):
    """Every bundled result that records the digest of a policy it was measured under
    (a field ``meta-{P}p``, a preset, a search player over a field) was measured under
    that policy as it is bundled now: re-bundling a field (experiments/bundle_meta.py)
    cannot leave a guide, ladder row, exploit row, verdict study or draft that describes
    the field before.  The one exception, by design: the passes of a refit
    (``estimated_only``) are the record of how the bundled set was made, under the
    field of their time (docs/balance.md, "The fitted sets")."""
    from vale_sim import search_verdicts as SV
    from vale_sim import strategy as S
    from vale_sim.policy_files import policy_digest
    from vale_sim.skill_ladder import stale_partial
    g = get_game(game)
    data = Path(g.bundled_card_sets()[g.default_card_set]).parent

    def now(spec, players):
        return policy_digest(g.resolve_baseline(spec, players))

    checked = 0
    for f in sorted(data.glob("strategy-guide*.json")):
        doc = json.loads(f.read_text())
        assert S.stale_players(doc, game) == [], f"{f.name}: rerun {doc['command']}"
        checked += 1
    for f in sorted(data.glob("meta/skill-ladder-*.json")):
        doc = json.loads(f.read_text())
        for row in doc.get("partial", []):
            assert stale_partial(doc, row, g) == [], f"{f.name}: rerun {row['command']}"
            checked += 1
    ex = data / "exploit-table.json"
    if ex.is_file():
        for r in json.loads(ex.read_text())["rows"]:
            assert policy_digest(g.get_policy(r["target"])) == r["policy_digest"], (
                f"exploit-table.json: the row {r['target']} at {r['players']} players")
            checked += 1
    sv = SV.bundled_path(game)
    if sv.is_file():
        for name, st in json.loads(sv.read_text())["studies"].items():
            P = st["players"]
            assert now(st["field"], P) == st["field_digest"], f"{sv.name}: {name}"
            assert now(st["reference"], P) == st["reference_digest"], f"{sv.name}: {name}"
            checked += 1
    for f in sorted((data / "balance").glob("*.json")):
        doc = json.loads(f.read_text())
        if doc.get("estimated_only"):
            continue
        for p, d in doc["baseline_digest"].items():
            assert now(doc["baseline"], int(p)) == d, f"balance/{f.name} at {p} players"
            checked += 1
    assert checked >= 10
