"""Background work at the edges, run by RQ workers beside the API (`palazzo worker`).

- `deadlines`: what a game is due for when its wake time comes (overdue decisions defaulted, a pause
  ended, a finished game compacted), found by polling the wake index every commit keeps;
- `bots`: a bot seat's move, a moment after its decision appears;
- `sign_in`: whether a sign-in link is mailed, decided off the request that asked for it;
- `command`: the worker process: RQ's worker with its scheduler, and the poll.

Bot and mail jobs are queued by `service.followups` after every commit, and each job re-checks the game before
it acts, through the same commit as a player's move, so a stale or repeated job is a no-op.
"""
