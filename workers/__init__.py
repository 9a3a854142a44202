"""Background work at the edges, run by RQ workers beside the API (`palazzo worker`).

- `deadlines`: enforce a game's overdue decisions (a job at its earliest deadline, and a sweep
  every few seconds for anything a lost job or a dead worker missed);
- `bots`: a bot seat's move, a moment after its decision appears;
- `command`: the worker process: RQ's worker with its scheduler, and the sweep.

Jobs are queued by `service.followups` after every commit, and each job re-checks the game before
it acts, through the same commit as a player's move, so a stale or repeated job is a no-op.
"""
