"""One blueprint per resource of the REST API, all under /api/v1."""
