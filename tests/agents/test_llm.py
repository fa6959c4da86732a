"""llm (Simon Willison's CLI) asking a panel collection as an OpenAI-compatible model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.clients import Rig, own_environment, program
from tests.agents.doc import doc_block
from tests.http.route_helpers import MEMBERS


@pytest.mark.parametrize("flags", [["--no-stream"], []], ids=["whole", "streamed"])
def test_llm_shows_every_seat_of_a_panel(panel_rig: Rig, tmp_path: Path, flags: list[str]):
    """`--no-stream` reads `usage` from the reply (`usage.model_dump()`): a panel must carry it."""
    user_path = tmp_path / "llm"
    user_path.mkdir()
    (user_path / "extra-openai-models.yaml").write_text(doc_block("llm", panel_rig.url), encoding="utf-8")
    env = own_environment(tmp_path / "home") | {"LLM_USER_PATH": str(user_path), "OPENAI_API_KEY": "unused"}
    run = panel_rig.run("llm", [program("llm"), "-m", "bench/core", *flags, "say hi"], env=env, cwd=tmp_path)
    missing = [member for member in MEMBERS if f"answer from {member}" not in run.stdout]
    assert not missing, run.report(f"no answer from {missing} in its output")
