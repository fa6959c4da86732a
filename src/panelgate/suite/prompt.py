"""What a model is sent for a task: the prompt as written, then each attached file.

Files follow as `===== FILE: <path> =====` sections, the same shape
`panelgate ask -f` sends, so a task reads to a model like the review work
people give it, and a task mined from a real panel asks what that panel was
asked. Nothing is added that the task folder does not say.
"""

from __future__ import annotations

from panelgate.core.types import ChatMessage
from panelgate.suite.task import Attachment, Task


def file_section(attachment: Attachment) -> str:
    return f"===== FILE: {attachment.path} =====\n{attachment.text.rstrip()}\n"


def prompt_text(task: Task) -> str:
    return "\n\n".join([task.prompt.strip("\n"), *(file_section(a) for a in task.attachments)])


def task_messages(task: Task) -> list[ChatMessage]:
    return [{"role": "user", "content": prompt_text(task)}]
