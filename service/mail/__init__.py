"""Every mail Palazzo sends: rendered in one place (`render`), carried as a plain `Mail` through RQ jobs
and the Redis outbox, and handed to one backend (`backends.deliver`): the local outbox or SendGrid.
Which seat of a game takes a mail, and the links it carries, is decided in one place too (`seats`)."""
