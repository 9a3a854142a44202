"""Moves by replying to a mail: SendGrid's Inbound Parse posts each reply to `endpoint`, which keeps it
(`inbox`) and queues `workers.replies`; `replies` reads it (`message`), checks who sent it to which
seat (`address`), and plays its commands through `service.playing.submit` like every other channel,
answering by mail. The commands themselves are the game's grammar (`engine.core.read_commands`)."""
