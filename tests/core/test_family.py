import pytest
from hypothesis import given
from hypothesis import strategies as st

from panelgate.core.family import family


def test_family_drops_the_path_free_tag_and_separators() -> None:
    assert family("meta-llama/Llama-3.3-70B-Instruct:free") == "llama3370binstruct"


def test_two_spellings_of_one_model_share_a_family() -> None:
    assert family("openrouter/meta-llama/llama-3.3-70b-instruct") == family("Llama_3.3_70B_Instruct")


def test_latest_tag_is_dropped() -> None:
    assert family("qwen2.5-coder:latest") == "qwen25coder"


def test_other_tags_stay_part_of_the_family() -> None:
    assert family("qwen2.5:7b") == "qwen25:7b"
    assert family("qwen2.5:7b") != family("qwen2.5:32b")


@pytest.mark.parametrize("served", ["gpt-4o", "gpt-4o-mini"])
def test_different_models_of_one_vendor_are_different_families(served: str) -> None:
    assert family(served) != family("gpt-4.1")


@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126)))
def test_a_family_has_no_path_separator_or_upper_case(served: str) -> None:
    name = family(served)
    assert "/" not in name
    assert not set(name) & set("-_.")
    assert name == name.lower()
