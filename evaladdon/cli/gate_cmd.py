"""``evaladdon gate POLICY RUNS...``: a gate policy over many benchmarks (tiers, allowed drops,
non-inferiority or equivalence) judged on the paired comparisons ``compare`` makes; one overall
verdict and exit code (:mod:`evaladdon.analysis.gate_policy` states the rule)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evaladdon.cli.options import add_better, add_output, add_store
from evaladdon.errors import EvalAddonError

NOTHING_COMPARED = "nothing could be compared"
"""How the pairing loop says that no comparison was made (:func:`evaladdon.analysis.compare.finish_comparisons`)."""


def add_parser(sub: Any) -> None:
    p = sub.add_parser("gate", help="judge runs against a gate policy (tiers, max drops, equivalence); exit 0/1/2",
                       description="Judge a candidate run against a baseline with a policy file (YAML or JSON): "
                                   "per benchmark GO / NO-GO / INCONCLUSIVE / MISSING / INSUFFICIENT-EVIDENCE, "
                                   "one overall verdict. Exit 0 GO (or INCONCLUSIVE), 1 NO-GO, 2 a critical "
                                   "benchmark MISSING or an input error.")
    p.add_argument("policy", metavar="POLICY", help="the policy file (.yaml, .yml or .json)")
    p.add_argument("paths", nargs="+", metavar="RUN",
                   help="run files or directories (baseline then candidate); NAME=PATH names a run")
    p.add_argument("--baseline", metavar="RUN",
                   help="judge every other run against this one: its label, model, file, eval id or a unique prefix")
    p.add_argument("--cluster", metavar="FIELD", help="cluster items on this field (overrides the policy's cluster)")
    p.add_argument("--cluster-method", choices=("cr1", "cr2"), default="cr2",
                   help="clustered SE of the difference (default cr2)")
    p.add_argument("--strict", action="store_true", help="refuse to pair items whose content hashes differ")
    add_better(p)
    p.add_argument("--seed", type=int, default=0, help="seed for the permutation test")
    p.add_argument("--allow-skipped", action="store_true",
                   help="judge even when an input could not be read (default: exit 2)")
    p.add_argument("--wide", action="store_true", help="show every column, however wide")
    p.add_argument("--verbose", action="store_true", help="list every skipped input on stderr")
    add_store(p)
    add_output(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import dataclasses

    from evaladdon.analysis.gate_policy import judge
    from evaladdon.analysis.options import CompareOptions, GateOptions
    from evaladdon.analysis.policy import load_policy
    from evaladdon.cli.common import emit
    from evaladdon.cli.options import input_options
    from evaladdon.report.envelope import gate_refuses_skips
    from evaladdon.report.gate import write
    from evaladdon.routes.plan import plan_compare, run as run_routes
    from evaladdon.table.names import pairs_needed

    policy = load_policy(args.policy)
    inputs = dataclasses.replace(input_options(args), command="compare", cluster=args.cluster or policy.cluster)
    results, skipped_by_test, loaded = {}, {}, None
    failed: dict[str, EvalAddonError] = {}
    for test in policy.tests:  # one compare per paired test the policy asks for (usually one)
        opts = CompareOptions(inputs, baseline=args.baseline, level=policy.level, test=test,
                              cluster_method=args.cluster_method, adjust="none", strict=args.strict,
                              power=policy.power, seed=args.seed, needs=pairs_needed("gate", ("--baseline RUN",)),
                              better=args.better)
        try:
            got = run_routes(plan_compare(opts), inputs.routes).value
        except EvalAddonError as exc:  # this test applies to none of the comparisons: its benchmarks are MISSING
            if not str(exc).startswith(NOTHING_COMPARED):
                raise
            failed[test] = exc
            continue
        results[test], skipped_by_test[test] = list(got.results), list(got.skipped)
        loaded = loaded or got.loaded
    if loaded is None:  # no test compared anything: the first reason
        raise next(iter(failed.values()))
    skipped = list({(s.run_a, s.run_b, s.task, s.metric, s.reason): s
                    for ss in skipped_by_test.values() for s in ss}.values())
    refused = gate_refuses_skips(GateOptions(fail_on_regression=True, allow_skipped=args.allow_skipped), loaded)
    if refused:
        return refused
    verdict = judge(policy, results, skipped_by_test,
                    {t: str(e)[len(NOTHING_COMPARED):].lstrip(": ") for t, e in failed.items()})
    if args.json:
        emit(args, [verdict.flat()], loaded, loaded.notes, skipped)
    else:
        from evaladdon.report.compare import warnings_of

        write(verdict, sys.stdout, markdown=args.markdown, wide=args.wide, quiet=args.quiet)
        # the rows left out of each judged comparison, by reason, and the errored-samples policy, as compare says them
        judged = list({id(v.comparison): v.comparison for v in verdict.benchmarks if v.comparison is not None}.values())
        emit(args, [], loaded, list(loaded.notes) + warnings_of(judged), skipped)
    return verdict.exit_code
