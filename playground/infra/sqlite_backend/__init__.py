"""Django's SQLite backend with writers handed the database in turn (see `base` and `write_lock`)."""
