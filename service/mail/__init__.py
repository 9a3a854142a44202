"""Every mail Palazzo sends: rendered in one place (`render`), carried as a plain `Mail` through RQ jobs
and the Redis outbox, and handed to one backend (`backends.deliver`): the local outbox or SendGrid."""
