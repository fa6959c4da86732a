"""The review suite: tasks about code, asked of every model, scored for what they find and what they invent.

Tasks (`task`, read by `task_file`, gathered by `library`) are folders of
a prompt, attached files and clauses; `scoring` and `results` are the pure
rules; `desk` asks the models through the engine's suite call and keeps
the answers. See DESIGN.md's `suite/` room.
"""
