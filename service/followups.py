"""What a commit sets in motion besides itself: bot moves and mail, as RQ jobs.

The game's wake time (its next deadline, the end of a pause, its compaction) is not queued here: the
commit indexes it in the same atomic step (`service.store`), and the workers poll that index. What is
left goes to RQ after every commit: a bot gets a job a moment later; a game with addresses gets a job
that tells every channel (mail, webhooks: `workers.channels`) of the commit.
Job ids are derived from what they act on, and every job re-checks the game before it acts: a stale
job is a no-op. A commit that needs neither sends nothing. `send_mail` is how every mail leaves,
`play_reply` how every reply kept by the inbound endpoint gets played, on a queue of its own
(REPLY_QUEUE, which `palazzo worker` serves in a process of its own) so that a slow reply never
holds up a deadline, a bot or a mail. Bots think on a queue and in a process of their own too
(BOT_QUEUE): a bot seat's move, and a stand-in's move at a deadline, which the deadline's job hands
over (`think`) instead of thinking itself, so that a bot that thinks for seconds holds up no other
game's deadline, mail or reply. A bot job has `bot_seconds` (PALAZZO_BOT_SECONDS); RQ stops one that
runs out of them, and its failure callback plays the game's default move instead
(`workers.bots.gave_up`). `sign_in` is how a request for a sign-in link is answered off the request,
so that its time tells nothing of the address. Every job is queued through `Jobs`, which keeps no
record of a job that succeeded and a failed one's for a day only.

`Inline` runs bots and replies at once in the caller's process instead and schedules nothing: for
tests and tools that run no worker.
"""
from __future__ import annotations

import json

import threading
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Callable

import redis
from rq import Callback, Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.registry import FailedJobRegistry, ScheduledJobRegistry

from service import signin
from service.inbound import inbox
from service.mail import sending, undelivered
from service.mail.backends import MailError
from service.mail.message import Mail
from service.mail.settings import MailSettings
from service.status import Status

if TYPE_CHECKING:
    from service.inbound.replies import Replies

QUEUE = "palazzo"
REPLY_QUEUE = "palazzo-replies"  # replies by mail wait here, so that no flood of mail delays a deadline or a bot
BOT_QUEUE = "palazzo-bots"  # bots think here, so that no slow bot delays a deadline, a mail or a reply
BOT_SECONDS = 60  # RQ stops a bot job after this long (PALAZZO_BOT_SECONDS; its fallback plays the default move)
RESULT_TTL = 0  # nothing reads a job's return value: a job that succeeded leaves no record
FAILURE_TTL = 24 * 3600  # a failed job's record and traceback, for an operator to look at
LIVE = (JobStatus.QUEUED, JobStatus.STARTED, JobStatus.SCHEDULED, JobStatus.DEFERRED)  # a job not done yet
BOT_JOB, STAND_IN_JOB, BOT_GAVE_UP = "workers.bots.move", "workers.bots.stand_in", "workers.bots.gave_up"
MAIL_JOB, MAIL_GAVE_UP = "workers.mailing.send", "workers.mailing.gave_up"
WEBHOOK_JOB, WEBHOOK_GAVE_UP = "workers.webhooks.deliver", "workers.webhooks.gave_up"
CHANNELS_JOB = "workers.channels.game"  # every channel told of a commit
REPLY_JOB, REPLY_GAVE_UP = "workers.replies.play", "workers.replies.gave_up"
REPLY_RETRY_SECONDS = [10, 60, 300]
SIGN_IN_JOB = "workers.sign_in.mail_link"
TALK_JOB = "workers.talk.posted"


def bot_job_id(game_id: str, seat: int, since: int) -> str:
    return f"pz-bot-{game_id}-{seat}-{since}"


def stand_in_job_id(game_id: str, seat: int, since: int) -> str:
    return f"pz-standin-{game_id}-{seat}-{since}"


def _bot_job(function: str, args: tuple[Any, ...], job_id: str, seconds: int) -> Any:
    """A bot job as `enqueue_many` takes it: `seconds` to think, the default move if it fails."""
    return Queue.prepare_data(function, args, job_id=job_id, timeout=seconds, on_failure=Callback(BOT_GAVE_UP))


def reachable(table: Any) -> bool:
    """Whether any channel may reach someone in the game: a seat with an address, or a host with one
    (who may have a webhook for it); a game of tokens alone gets no channel jobs."""
    return any(seat.get("email") for seat in table.meta["seats"]) or bool(table.meta.get("host_email_hash"))


def _mails(job: Any, address: str) -> bool:
    """Whether `job` is a mail or sign-in job whose mail goes to `address` or names it (a change of
    address mails the new address the old one); False for any other job, or one that cannot be read."""
    try:
        func, args = job.func_name, job.args
    except Exception:  # a job whose data this code cannot read: not one of ours to drop
        return False
    return func in (MAIL_JOB, SIGN_IN_JOB) and address.lower() in json.dumps(args, default=str).lower()


class Jobs(Queue):
    """RQ's Queue, with RESULT_TTL and FAILURE_TTL for every job that names none: RQ keeps a finished
    job 500 s and a failed one a year, and its finished records were most of the data mid-run."""

    def create_job(self, *args: Any, **kwargs: Any) -> Any:
        for name, ttl in (("result_ttl", RESULT_TTL), ("failure_ttl", FAILURE_TTL)):
            if kwargs.get(name) is None:
                kwargs[name] = ttl
        return super().create_job(*args, **kwargs)


class Queued:
    """Followups for a real deployment: RQ jobs that workers (`palazzo worker`) run, on the queue
    Redis `connection` (plain, bytes)."""

    def __init__(self, connection: redis.Redis, *, bot_delay: float = 1.0, bot_seconds: int = BOT_SECONDS,
                 mail_waits: tuple[int, ...] = (10, 30, 120, 600, 1800),
                 webhook_waits: tuple[int, ...] = (10, 60, 300, 1800)):
        self.connection = connection
        self.queue = Jobs(QUEUE, connection=connection)
        self.replies = Jobs(REPLY_QUEUE, connection=connection)
        self.bots = Jobs(BOT_QUEUE, connection=connection)
        self.bot_delay, self.bot_seconds = bot_delay, bot_seconds
        self.mail_waits = list(mail_waits)
        self.webhook_waits = list(webhook_waits)

    def after(self, store: Any, table: Any, everything: bool = False) -> None:
        """Queue what this committed game needs done now, in one round trip (none when nothing is).

        A bot gets a job for a decision new at this version; `everything` (after a host action such
        as a resume) queues one for every decision a bot holds; a game with an address in it (a seat's,
        or a host's, who may have a webhook for it) gets its channels' job. Jobs due at once go through
        `enqueue_many`, the one RQ call that joins a pipeline already holding commands.
        """
        bots = [d for d in table.pending if table.bot_for(d["seat"]) and (everything or d["since"] == table.version)
                ] if table.status == Status.RUNNING else []
        told = reachable(table)
        if not bots and not told:
            return
        now_bots: list[Any] = []
        with self.connection.pipeline(transaction=False) as pipe:
            for decision in bots:
                args = (table.id, decision["seat"], decision["since"])
                if self.bot_delay > 0:
                    self.bots.enqueue_in(timedelta(seconds=self.bot_delay), BOT_JOB, *args, job_id=bot_job_id(*args),
                                         job_timeout=self.bot_seconds, on_failure=Callback(BOT_GAVE_UP), pipeline=pipe)
                else:
                    now_bots.append(_bot_job(BOT_JOB, args, bot_job_id(*args), self.bot_seconds))
            if now_bots:
                self.bots.enqueue_many(now_bots, pipeline=pipe)
            if told:
                self.queue.enqueue_many([Queue.prepare_data(CHANNELS_JOB, (table.id,),
                                                            job_id=f"pz-notify-{table.id}-{table.version}")],
                                        pipeline=pipe)
            pipe.execute()

    def think(self, store: Any, table: Any, seat: int, since: int) -> bool:
        """Hand an overdue decision that a bot answers to the bots' queue; True: the deadline's job need
        not play it. A bot seat's gets its bot's job again (the one queued with the decision, lost or
        still waiting: its bot moves, not the default); a stand-in's gets `workers.bots.stand_in`, which
        plays it as the deadline would (`playing.default_on`). A job for that decision still waiting or
        thinking is left alone, so a wake job queued again while a slow bot thinks queues no second one."""
        args = (table.id, seat, since)
        function, job_id = (BOT_JOB, bot_job_id(*args)) if table.bot_for(seat) else (STAND_IN_JOB,
                                                                                      stand_in_job_id(*args))
        try:
            live = Job.fetch(job_id, connection=self.connection).get_status(refresh=False) in LIVE
        except NoSuchJobError:
            live = False
        if not live:
            self.bots.enqueue_many([_bot_job(function, args, job_id, self.bot_seconds)])
        return True

    def talk(self, store: Any, table: Any, seq: int) -> None:
        """Queue the job that mails message `seq` to whoever takes messages one by one and schedules the
        digests of those who take them daily (`workers.talk.posted`), and tells the webhooks; none for a
        game without addresses."""
        if reachable(table):
            self.queue.enqueue(TALK_JOB, table.id, seq, job_id=f"pz-talk-{table.id}-{seq}",
                               description="mail a message of the table")

    def send_mail(self, store: Any, mail: Mail) -> None:
        """Queue the mail's sending: its own job, retried with backoff (PALAZZO_MAIL_RETRY_SECONDS),
        kept as undelivered for the host after the last try. The job's description, which workers log
        and RQ keeps, says only what kind of mail it is: the subject may tell a seat's secrets."""
        waits = self.mail_waits
        self.queue.enqueue(MAIL_JOB, mail.to_json(), retry=Retry(max=len(waits), interval=waits),
                           on_failure=Callback(MAIL_GAVE_UP), description=f"send a {mail.kind} mail")

    def drop_mail(self, store: Any, address: str) -> int:
        """Delete every mail and sign-in job to `address`, or naming it, not yet done (waiting, scheduled
        for a retry, or failed and kept): a player who deleted his data is mailed nothing more; how many went."""
        ids = {*self.queue.get_job_ids(), *ScheduledJobRegistry(queue=self.queue).get_job_ids(),
               *FailedJobRegistry(queue=self.queue).get_job_ids()}
        dropped = 0
        for job in Job.fetch_many(sorted(ids), connection=self.connection):
            if job is not None and _mails(job, address):
                job.delete()
                dropped += 1
        return dropped

    def send_webhook(self, store: Any, hook_id: str, payload: str, delivery: str) -> None:
        """Queue one webhook delivery, retried with backoff (PALAZZO_WEBHOOK_RETRY_SECONDS); its
        description names no URL and no content."""
        waits = self.webhook_waits
        self.queue.enqueue(WEBHOOK_JOB, hook_id, payload, delivery, retry=Retry(max=len(waits), interval=waits),
                           on_failure=Callback(WEBHOOK_GAVE_UP), job_id=f"pz-hook-{hook_id}-{delivery}",
                           description="post a webhook")

    def sign_in(self, store: Any, links: Any, email: str, join: list[str] | None = None) -> None:
        """Queue the job that mails a sign-in link if the address plays here or is to join a game
        (`signin.mail_link`, with the workers' own links). Its description names no address: workers log it."""
        self.queue.enqueue(SIGN_IN_JOB, email, join, description="mail a sign-in link")

    def play_reply(self, replies: Replies, key: str) -> str:
        """Queue the job that plays the kept reply `key` (one per mail) on the replies' own queue,
        retried (REPLY_RETRY_SECONDS) and marked failed after the last try. The mail is marked queued
        before the job exists, lest a quick job's final status be overwritten; a queue that refuses
        the job leaves it received."""
        inbox.update(replies.store.redis, key, status=inbox.QUEUED)
        try:
            self.replies.enqueue(REPLY_JOB, key, job_id=f"pz-reply-{key}", on_failure=Callback(REPLY_GAVE_UP),
                                 retry=Retry(max=len(REPLY_RETRY_SECONDS), interval=REPLY_RETRY_SECONDS))
        except Exception:
            inbox.update(replies.store.redis, key, status="received")
            raise
        return inbox.QUEUED


class Inline:
    """Followups without workers: bots move at once in the caller's process; deadlines wait; mail
    goes out at once, through the configured backend, with no retry; a reply is played at once."""

    def __init__(self, run_bots: Callable[[Any, Any], Any], mail: MailSettings):
        self.run_bots = run_bots
        self.mail = mail
        self._local = threading.local()

    def after(self, store: Any, table: Any, everything: bool = False) -> None:
        """A commit made by the bots themselves does not start another loop."""
        if getattr(self._local, "busy", False):
            return
        self._local.busy = True
        try:
            self.run_bots(store, table)
        finally:
            self._local.busy = False

    def think(self, store: Any, table: Any, seat: int, since: int) -> bool:
        """False: without workers the deadline's caller plays the overdue decision itself."""
        return False

    def talk(self, store: Any, table: Any, seq: int) -> None:
        """No mail for a message without workers, as for a decision: pages and the API show it."""

    def send_mail(self, store: Any, mail: Mail) -> None:
        """Send now, through the same checks as a worker's send job (`sending.send`)."""
        try:
            sending.send(store, mail, self.mail)
        except MailError as error:
            undelivered.keep(store.redis, mail, error)

    def drop_mail(self, store: Any, address: str) -> int:
        """Nothing waits: mail left at once."""
        return 0

    def send_webhook(self, store: Any, hook_id: str, payload: str, delivery: str) -> None:
        """Nothing: webhooks are posted by workers only (no request waits on a receiver)."""

    def sign_in(self, store: Any, links: Any, email: str, join: list[str] | None = None) -> None:
        """Decide and mail at once, in the request: this mode is for tests and tools, not for the world."""
        signin.mail_link(store, links, email, join)

    def play_reply(self, replies: Replies, key: str) -> str:
        """Play the kept reply now and return its final status; if that fails it stays received, and
        the provider's next post of it plays it."""
        return replies.handle(key)
