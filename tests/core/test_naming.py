import pytest

from panelgate.core.naming import parse_model_id, valid_alias, valid_collection_name


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("bench/core", ("core", None)),
        ("core", ("core", None)),
        ("bench/core:all", ("core", "all")),
        ("bench/core:merged", ("core", "merged")),
        ("core:route", ("core", "route")),
        ("  bench/core:merged \n", ("core", "merged")),
    ],
)
def test_model_id_names_a_collection_and_maybe_a_reply_mode(model: str, expected: tuple[str, str]) -> None:
    assert parse_model_id(model) == expected


def test_only_reply_words_count_as_a_suffix() -> None:
    assert parse_model_id("bench/x:both") == ("x:both", None)
    assert parse_model_id("bench/x:Merged") == ("x:Merged", None)


@pytest.mark.parametrize("model", ["", "   ", "bench/", "bench/:merged"])
def test_a_model_id_without_a_name_names_no_collection(model: str) -> None:
    assert parse_model_id(model)[0] is None


def test_prefix_only_stripped_once() -> None:
    assert parse_model_id("bench/bench/x") == ("bench/x", None)


@pytest.mark.parametrize("alias", ["m1", "gpt-4o", "Llama_3.3.70B", "a" * 64])
def test_plain_aliases_are_valid(alias: str) -> None:
    assert valid_alias(alias)


@pytest.mark.parametrize("alias", ["m", "-m1", ".m1", "m 1", "m/1", "a" * 65, "m1\n", ""])
def test_aliases_that_would_break_urls_or_call_ids_are_refused(alias: str) -> None:
    assert not valid_alias(alias)


@pytest.mark.parametrize("name", ["core", "my-panel", "a1", "0" * 32])
def test_plain_collection_names_are_valid(name: str) -> None:
    assert valid_collection_name(name)


@pytest.mark.parametrize("name", ["c", "Core", "-core", "my_panel", "core:merged", "a" * 33, "core\n"])
def test_collection_names_are_lower_case_words_and_dashes(name: str) -> None:
    assert not valid_collection_name(name)
