"""Background work at the edges, run by RQ workers beside the API (next issue).

Its job will be to enforce deadlines (a job at each decision's `deadline_at`, a periodic sweep, and
a re-check under the game's version that the same decision is still due, then
`service.games.play_default`) and to send email when a turn or a bid is due. Nothing runs here yet.
"""
