"""The one rule of a metric's direction (evaladdon.table.direction): the log's declaration first,
then the user's word (refused when it contradicts), then the built-in names, else higher is better."""

from __future__ import annotations

import pytest

from evaladdon.errors import EvalAddonError
from evaladdon.table.direction import (LOWER_IS_BETTER, declared_of, direction_word, lower_is_better, merge_declared,
                                       named_lower)


def test_declared_wins_over_the_names() -> None:
    declared = {"wikitext": {"word_perplexity": False, "acc": True}}  # {task: {metric: lower_is_better}}
    assert lower_is_better("wikitext", "word_perplexity,none", declared) is False  # declared higher: the log's word
    assert lower_is_better("wikitext", "acc,none", declared) is True  # every filter of the base name
    assert lower_is_better("other", "word_perplexity,none", declared) is True  # another task: the built-in name


def test_full_metric_name_before_its_base() -> None:
    declared = {"t": {"m,strict": True, "m": False}}
    assert declared_of(declared, "t", "m,strict") is True
    assert declared_of(declared, "t", "m,flexible") is False
    assert declared_of(declared, "u", "m") is None
    assert declared_of(None, "t", "m") is None


@pytest.mark.parametrize("name", ["perplexity", "word_perplexity,none", "bits_per_byte,none", "ter", "brier",
                                  "ece", "ece_equal_mass", "ece@15", "nll", "scorer/wer", "BRIER_SCORE"])
def test_built_in_lower_names(name: str) -> None:
    assert named_lower(name)
    assert lower_is_better("t", name) is True


@pytest.mark.parametrize("name", ["acc", "acc,none", "exact_match", "f1", "bleu", "score", "match", "mcc"])
def test_everything_else_is_higher(name: str) -> None:
    assert lower_is_better("t", name) is False


def test_the_two_former_lists_are_merged() -> None:  # analysis.metrics and the EEE export each had one
    assert {"ece", "ece_equal_mass", "ece_sq_debiased", "brier", "brier_reliability", "nll"} <= LOWER_IS_BETTER
    assert {"ter", "word_perplexity", "byte_perplexity", "bits_per_byte", "brier_score"} <= LOWER_IS_BETTER


def test_the_users_word_where_nothing_is_declared() -> None:
    assert lower_is_better("t", "score", None, "lower") is True
    assert lower_is_better("t", "perplexity", None, "higher") is False  # over the built-in names
    assert lower_is_better("t", "acc", {"t": {"acc": True}}, "lower") is True  # agrees with the log


def test_a_contradiction_is_refused_in_one_line() -> None:
    with pytest.raises(EvalAddonError) as err:
        lower_is_better("wikitext", "word_perplexity,none", {"wikitext": {"word_perplexity": True}}, "higher")
    message = str(err.value)
    assert "\n" not in message and "contradicts" in message and "wikitext/word_perplexity,none" in message


def test_merge_keeps_the_first_and_notes_a_clash() -> None:
    notes: list[str] = []
    got = merge_declared([{"t": {"m": True}}, None, {"t": {"m": False, "n": False}}, {"u": {}}], notes)
    assert got == {"t": {"m": True, "n": False}}
    assert len(notes) == 1 and "both directions" in notes[0]


def test_words() -> None:
    assert direction_word(True) == "lower is better" and direction_word(False) == "higher is better"
