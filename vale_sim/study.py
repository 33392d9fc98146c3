"""Studies as registered records (docs/architecture.md, "Studies").

A study is a :class:`Study`: its name, the command line it adds (``command``: a
sub-command of ``vale-sim``, or an option of a shared command such as
``bench --spoil``; ``parser``: the module whose ``add_parser(subparsers)`` builds
it), its ``vale-sim run`` config (``schema``: key -> (checker, default); ``check``:
the checks that need the card set; ``run``: plays it into the results folder;
``estimate``: about how many games it plays) and the games it applies to.

A game lists its studies in ``Game.studies`` (records); the studies every game
has (``tournament``) are :data:`SHARED`.  The shared layers ask
:func:`studies_of` / :func:`find` for a game's records and never match a game by
its name.  Callables are given as ``"module:attribute"`` strings, imported on
first use, so importing a game imports none of the analysis layers.

This module imports nothing of vale-sim: a game package may import it.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


def resolve(ref):
    """``"package.module:attr"`` -> the attribute (imported now); anything else as it is."""
    if not isinstance(ref, str):
        return ref
    module, _, attr = ref.partition(":")
    obj = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class Study:
    name: str                          # "pool_sizes": the `study = ...` of a config, and its id
    command: str | None = None         # "pools", or "bench --spoil" (an option of a shared command)
    parser: str | None = None          # module with add_parser(subparsers) for `command`
    #                                    (an option study: add_options(the command's parser))
    schema: Any = None                 # "module:fn" -> {key: (checker, default)} (vale-sim run)
    check: Any = None                  # "module:fn"(exp, cs): the checks that need the card set
    run: Any = None                    # "module:fn"(exp, out, store, progress) -> outputs dict
    estimate: Any = None               # "module:fn"(exp) -> games or None
    engine: Any = None                 # "module:fn"(exp) -> the engine it will use
    main: Any = None                   # "module:fn"(args): an option study of a shared command
    varies_rules: bool = False         # a settings study: varies the rules itself ([rules] refused)
    doc: str = ""                      # one line for the list of studies

    @property
    def experiment(self) -> bool:
        """Whether ``vale-sim run`` runs it from a config."""
        return self.run is not None

    def call(self, hook: str, *args, **kw):
        return resolve(getattr(self, hook))(*args, **kw)


#: Studies every game has (their code is game-neutral).
SHARED = (
    Study("tournament", schema="vale_sim.experiments:tournament_schema",
          check="vale_sim.experiments:check_tournament", run="vale_sim.experiments:run_tournament",
          estimate="vale_sim.experiments:estimate_tournament",
          doc="policies against each other, seats rotated on common seeds"),
    Study("what_if", command="what-if", parser="vale_sim.commands.what_if",
          schema="vale_sim.experiments:what_if_schema", check="vale_sim.experiments:check_what_if",
          run="vale_sim.experiments:run_what_if", estimate="vale_sim.experiments:estimate_what_if",
          doc="card or rule edits: the paired change of every verdict (vale_sim.whatif)"),
    Study("luck", command="luck", parser="vale_sim.commands.luck",
          doc="a skill-luck index and the variance shares of deal, line-up and their "
              "interaction (vale_sim.luck)"),
    Study("balance", command="balance", parser="vale_sim.commands.balance",
          doc="the fewest integer card edits after which every card is shown balanced "
              "(vale_sim.balance)"),
    Study("curve", command="curve", parser="vale_sim.commands.curve",
          doc="one card at every value of one number: its price curve and balanced range "
              "(vale_sim.curve)"),
)


#: The report (vale_sim.report): a game that has one lists it (``Game.report`` holds its sections).
REPORT = Study("report", command="report", parser="vale_sim.commands.report",
               schema="vale_sim.experiments:report_schema", check="vale_sim.experiments:check_report",
               run="vale_sim.experiments:run_report", doc="the whole balance report")
#: ``vale-sim cards``: a game that lists it has ``Game.describe_cards`` (or is the default game).
CARDS = Study("cards", command="cards", parser="vale_sim.commands.cards",
              doc="the card set, with where each number comes from")

#: ``vale-sim golden``: a game that lists it has ``Game.golden_module``.
GOLDEN = Study("golden", command="golden", parser="vale_sim.commands.golden",
               doc="check or regenerate the golden playthroughs both engines must reproduce")

#: ``vale-sim optimize``: a game that lists it has ``Game.search_space`` (vale_sim.optimize).
OPTIMIZE = Study("optimize", command="optimize", parser="vale_sim.commands.optimize",
                 doc="policy search (CMA-ES) for a policy that maximises win share")
#: ``vale-sim exploit``: a game that lists it has ``Game.search_space``.
EXPLOIT = Study("exploit", command="exploit", parser="vale_sim.commands.exploit",
                doc="exploitability: a best response to one policy")
#: ``vale-sim meta``: a population and its equilibrium (needs ``Game.search_space`` too).
META = Study("meta", command="meta", parser="vale_sim.commands.meta",
             doc="a population of policies and its meta-game equilibrium (vale_sim.metagame)")

#: ``vale-sim train``: a game that lists it has a ``value`` module (vale_sim.train).
TRAIN = Study("train", command="train", parser="vale_sim.commands.train",
              doc="learn a value player by self-play (vale_sim.train)")

#: ``vale-sim strategy``: the strategy guide (a game that lists it sets ``Game.strategy``).
STRATEGY = Study("strategy", command="strategy", parser="vale_sim.commands.strategy",
                 doc="the strategy guide: when the strongest player pushes, what it buys "
                     "first, which decisions matter (vale_sim.strategy)")


def studies_of(game) -> tuple:
    """Every study of ``game``: the shared ones, then the game's own (``Game.studies``)."""
    return SHARED + tuple(game.studies)


def find(game, name: str | None = None, *, command: str | None = None):
    """The study of ``game`` called ``name`` (or whose command line is ``command``), or None."""
    for s in studies_of(game):
        if (name is not None and s.name == name) or (command is not None and s.command == command):
            return s
    return None


def owners(name: str | None = None, *, command: str | None = None) -> list:
    """The registered games (loadable ones) that have the study."""
    from .games import GAMES, get_game
    out = []
    for n in GAMES:
        try:
            g = get_game(n)
        except ValueError:
            continue
        if find(g, name, command=command) is not None:
            out.append(g)
    return out


def all_studies() -> dict:
    """name -> Study over every registered game (the first registration wins)."""
    from .games import GAMES, get_game
    out = {s.name: s for s in SHARED}
    for n in GAMES:
        try:
            g = get_game(n)
        except ValueError:
            continue
        for s in g.studies:
            out.setdefault(s.name, s)
    return out
