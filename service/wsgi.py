"""The app for gunicorn: `gunicorn service.wsgi:app` (configured from the environment)."""
from service.app import create_app

app = create_app()
