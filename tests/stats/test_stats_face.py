"""The public face of ``evaladdon.stats`` and the old module paths of the redesign (issue 24)."""

from __future__ import annotations

import importlib
import subprocess
import sys
import types

import pytest

from evaladdon import stats
from evaladdon.stats import _face

# Every name the face exported before it was generated, with the module that defined it then.
BEFORE = {
    "evaladdon.stats._result": "Result json_safe",
    "evaladdon.stats.bootstrap": "BootstrapResult bootstrap_mean bootstrap_totals ratio_of_totals",
    "evaladdon.stats.cluster": "ClusteredSE clustered_se satterthwaite_df_intercept",
    "evaladdon.stats.epochs": "EpochVariance epoch_variance",
    "evaladdon.stats.intervals": "PROPORTION_METHODS Interval ProportionInterval proportion_interval t_interval",
    "evaladdon.stats.gate": "GateDecision regression_gate",
    "evaladdon.stats.judge": ("CorrectedDifference CorrectedRate JudgeAgreement PPIResult corrected_difference "
                              "judge_agreement ppi_mean rogan_gladen rogan_gladen_bootstrap"),
    "evaladdon.stats.power": ("PLAN_TESTS PowerCurve PowerPlan Retrodesign binary_unpaired_variance "
                              "epoch_item_variance mcnemar_exact_power plan power_curve power_normal retrodesign"),
    "evaladdon.stats.mcnemar": "Discordance McNemarResult discordance mcnemar",
    "evaladdon.stats.mean": "MEAN_METHODS MeanEstimate estimate_mean",
    "evaladdon.stats.multiple": "ADJUST_METHODS CochranQResult adjust_pvalues cochrans_q",
    "evaladdon.stats.paired": "PAIRED_INTERVALS PAIRED_TESTS PairedComparison compare_paired",
    "evaladdon.stats.paired_binary": "PAIRED_BINARY_METHODS paired_binary_interval",
    "evaladdon.stats.permutation": "PermutationResult sign_flip_test",
}

# Old module path -> where the module lives now (the old path is the same module object).
MOVED = {
    "_checks": "_base.checks", "_dist": "_base.dist", "_result": "_base.result", "_root": "_base.root",
    "zero_se": "_base.zero_se", "paired_binary": "paired.paired_binary", "mcnemar": "paired.mcnemar",
    "permutation": "paired.permutation", "multiple": "paired.multiple", "gate": "paired.gate",
    "classification": "families.classification", "calibration": "families.calibration", "roc": "families.roc",
    "passk": "families.passk", "corpus": "families.corpus", "metric_estimate": "families.estimates",
    "metric_names": "families.names", "bradley_terry": "ranking.bradley_terry", "item_table": "item_means",
    "bootstrap": "resampling", "metric_bootstrap": "resampling",
}


def test_the_table_in_init_is_generated_from_the_modules_all() -> None:
    assert _face.current() == _face.source(), "run `python -m evaladdon.stats._face`"
    assert set(_face.table()) == set(stats._PUBLIC)
    # the 30 modules of before, less _checks, _dist, _result, _root and zero_se (now in _base), plus _base.result;
    # bootstrap and metric_bootstrap are one module, resampling (step 3c)
    assert len(stats._PUBLIC) == 45  # + agreement, judge_budget, lc_winrate, ranking.style_bt (28); paired.equivalence (27.5); + paired.family (25.9), paired.interaction (27.3), robust_ols (28.1), families.flaky, paired.error_rate (27), 6 sequential modules (29), threshold, recalibrate, curves (30), families.ratio_interval


def test_every_public_name_of_every_public_module_is_reachable_from_the_package() -> None:
    for module, names in _face.table().items():
        defining = importlib.import_module(module)
        for name in names:
            assert hasattr(defining, name), (module, name)
            if name in stats._SHADOWED:  # the old module path keeps the name; the object is in its module
                old = importlib.import_module(f"evaladdon.stats.{name}")
                assert getattr(stats, name) is old
                continue
            assert getattr(stats, name) is getattr(defining, name), (module, name)
            assert name in dir(stats)
    from evaladdon.stats import Interval, compare_roc_auc, rank_models

    assert rank_models is importlib.import_module("evaladdon.stats.ranking.ranking").rank_models
    assert compare_roc_auc is importlib.import_module("evaladdon.stats.roc").compare_roc_auc
    assert Interval is importlib.import_module("evaladdon.stats.intervals").Interval


def test_no_two_modules_export_one_name_for_different_objects() -> None:
    seen: dict[str, tuple[str, object]] = {}
    for module, names in _face.table().items():
        for name in names:
            value = getattr(importlib.import_module(module), name)
            if name in seen:
                assert seen[name][1] is value, (name, seen[name][0], module)
            seen[name] = (module, value)
    assert len(seen) >= 158  # every public name: 158 when the face was generated


def test_every_name_exported_before_is_the_same_object() -> None:
    for old_module, names in BEFORE.items():
        for name in names.split():
            assert getattr(stats, name) is getattr(importlib.import_module(old_module), name), (old_module, name)
            assert name in stats.__all__
    assert sorted(stats.__all__) == sorted(n for names in BEFORE.values() for n in names.split())


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_module_path_is_the_moved_module(old: str) -> None:
    moved = importlib.import_module(f"evaladdon.stats.{MOVED[old]}")
    assert importlib.import_module(f"evaladdon.stats.{old}") is moved
    assert sys.modules[f"evaladdon.stats.{old}"] is moved


def test_the_three_bootstraps_keep_their_old_names_in_the_one_resampling_module() -> None:
    from evaladdon.stats import resampling
    from evaladdon.stats.families import corpus, estimates

    old = {
        "bootstrap": "BootstrapResult TotalsStatistic bca_probabilities bootstrap_mean bootstrap_totals ratio_of_totals",
        "metric_bootstrap": ("BOOT_METHODS PairedMetric TableStatistic VectorBootstrap bootstrap_metrics cluster_weights "
                             "paired_bootstrap_metrics replicate_tables"),
        "corpus": "PairedBootstrap bootstrap_corpus bootstrap_items cluster_totals paired_totals_difference",
    }
    for module, names in old.items():
        for name in names.split():
            value = getattr(importlib.import_module(f"evaladdon.stats.{module}"), name)
            assert value is getattr(resampling, name) and value is getattr(stats, name), (module, name)
    assert resampling.PairedMetric is estimates.PairedMetric
    assert corpus.bootstrap_corpus is resampling.bootstrap_corpus


def test_a_patch_through_an_old_path_reaches_the_code(monkeypatch: pytest.MonkeyPatch) -> None:
    import evaladdon.stats._root as old_root
    from evaladdon.stats._base import root
    from evaladdon.stats._result import Interval

    assert Interval is importlib.import_module("evaladdon.stats.intervals").Interval
    monkeypatch.setattr(old_root, "brentq", "patched")
    assert root.brentq == "patched"


def test_paired_and_ranking_packages_keep_the_old_modules_names() -> None:
    from evaladdon.stats.paired import PairedComparison, compare_paired
    from evaladdon.stats.ranking import competition_ranks, rank_models

    paired = importlib.import_module("evaladdon.stats.paired.paired")
    ranking = importlib.import_module("evaladdon.stats.ranking.ranking")
    assert (compare_paired, PairedComparison) == (paired.compare_paired, paired.PairedComparison)
    assert (rank_models, competition_ranks) == (ranking.rank_models, ranking.competition_ranks)
    assert isinstance(importlib.import_module("evaladdon.stats.paired").mcnemar, types.ModuleType)
    with pytest.raises(AttributeError):
        importlib.import_module("evaladdon.stats.paired").no_such_name  # noqa: B018


def test_mcnemar_stays_the_function_after_its_module_is_imported() -> None:
    importlib.import_module("evaladdon.stats.mcnemar")
    importlib.import_module("evaladdon.stats.paired.mcnemar")
    from evaladdon.stats import mcnemar

    assert callable(mcnemar) and not isinstance(mcnemar, types.ModuleType)


def _stats_modules_after(code: str) -> list[str]:
    shown = "print('\\n'.join(sorted(m for m in sys.modules if m.startswith('evaladdon.stats.'))))"
    out = subprocess.run([sys.executable, "-c", f"import sys; {code}; {shown}"], capture_output=True, text=True,
                         check=True)
    return out.stdout.split()


def test_the_package_imports_no_statistics_until_a_name_is_used() -> None:
    assert _stats_modules_after("import evaladdon.stats") == []
    one = _stats_modules_after("from evaladdon.stats import proportion_interval")
    assert one == ["evaladdon.stats._base", "evaladdon.stats._base.checks", "evaladdon.stats._base.result",
                   "evaladdon.stats.intervals"]
    star = _stats_modules_after("from evaladdon.stats import *")
    assert not [m for m in star if m.startswith(("evaladdon.stats.families", "evaladdon.stats.ranking"))], star
