"""Infrastructure: the Redis store, the RQ queue, settings, logs and metrics."""
