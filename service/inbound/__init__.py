"""Moves by replying to a mail: SendGrid's Inbound Parse posts each reply to `endpoint`, which reads
the post's bytes (`form`), keeps it only if it is for a reply address of ours (`address`) and within
its sender's and seat's hourly share (`inbox`), and queues `workers.replies` on a queue of its own;
`replies` reads it (`message`), checks who sent it to which seat and holder, and plays its commands
through `service.playing.submit` like every other channel, answering by mail. The commands themselves
are the game's grammar (`engine.core.read_commands`)."""
